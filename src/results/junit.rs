//! JUnit XML, as CI viewers read it: a test suite per assignment, a test case per test
//! with its assignment and group as class name, a failure with its message and the whole
//! report as body, the submission's output, and the time each test took.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::{Results, failure_text, plain, visible_controls};
use crate::spec::slug;
use crate::verdict::{Failure, Value, Verdict};

impl Results<'_> {
    pub fn junit_xml(&self) -> String {
        let mut report = Report::new("cardgrade");
        report.set_time(self.elapsed);
        let mut suites: Vec<TestSuite> = Vec::new();
        for (group, test, result, worth) in self.per_test() {
            let assignment = xml_text(group.assignment.name());
            if suites
                .last()
                .is_none_or(|suite| suite.name.as_str() != assignment)
            {
                suites.push(TestSuite::new(assignment.as_str()));
            }
            let status = match &result.verdict {
                Some(Verdict::Passed) => TestCaseStatus::success(),
                None => TestCaseStatus::skipped(),
                Some(Verdict::Failed(failure)) => {
                    let text = xml_text(&failure_text(failure, result, worth));
                    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    status.set_message(headline(failure, &text));
                    status.set_description(text.trim_end());
                    status
                }
            };
            let mut case = TestCase::new(xml_text(&test.id), status);
            case.set_classname(format!("{assignment}.{}", xml_text(&slug(&group.name))));
            case.set_time(result.duration);
            if let Some(Verdict::Failed(failure)) = &result.verdict {
                let printed = |name: &str| {
                    failure.fields.iter().find_map(|field| match &field.value {
                        Value::Text(_, text) if field.name == name => Some(xml_text(text)),
                        _ => None,
                    })
                };
                if let Some(out) = printed("stdout of your code") {
                    case.set_system_out(out);
                }
                if let Some(err) = printed("stderr of your code") {
                    case.set_system_err(err);
                }
            }
            if let Some(suite) = suites.last_mut() {
                suite.add_test_case(case);
            }
        }
        if let Some(failure) = &self.build_failure {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
            status.set_message("the submission did not build");
            status.set_description(xml_text(failure));
            let mut suite = TestSuite::new("build");
            suite.add_test_case(TestCase::new("build", status));
            suites.insert(0, suite);
        }
        report.add_test_suites(suites);
        report
            .to_string()
            .unwrap_or_else(|error| format!("<!-- cannot write JUnit XML: {error} -->\n"))
    }
}

/// A failure in one line: what was checked, expected and got, where it says so; else its
/// first line.
fn headline(failure: &Failure, text: &str) -> String {
    let field = |name: &str| {
        failure.fields.iter().find_map(|field| match &field.value {
            Value::Text(_, text) if field.name == name => {
                Some(xml_text(text.lines().next().unwrap_or("")))
            }
            _ => None,
        })
    };
    match (field("check"), field("expected"), field("actual")) {
        (Some(check), Some(expected), Some(actual)) => {
            format!("{check}: expected {expected}, got {actual}")
        }
        _ => text
            .lines()
            .find(|line| !line.trim().is_empty())
            .unwrap_or("")
            .trim()
            .to_string(),
    }
}

/// Text fit for XML 1.0, which every text of the report is made with: no color codes, and
/// of the characters XML 1.0 forbids (C0 controls but tab, line feed and carriage return;
/// U+FFFE and U+FFFF; a Rust string holds no lone surrogate), the controls shown as signs
/// as in every report (`␁`) and the two noncharacters as escapes (`\u{fffe}`), so that
/// whatever a submission prints the file parses.
fn xml_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in visible_controls(&plain(text)).chars() {
        match c {
            '\u{fffe}' | '\u{ffff}' => out.extend(c.escape_unicode()),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `c` may stand in an XML 1.0 document: its `Char` production.
    fn xml_char(c: char) -> bool {
        matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
    }

    #[test]
    fn every_character_xml_forbids_is_shown_not_written() {
        let hostile: String = ('\0'..='\u{20}')
            .chain(['\u{7f}', '\u{9b}', '\u{fffe}', '\u{ffff}', '\u{1fffe}', 'é'])
            .collect();
        let text = xml_text(&hostile);
        assert!(text.chars().all(xml_char), "{text:?}");
        assert!(text.contains("␁") && text.contains("\\u{fffe}") && text.contains("\\u{ffff}"));
        assert!(text.ends_with('é'), "{text:?}");
    }
}
