//! JUnit XML, as CI viewers read it: a test suite per assignment, a test case per test
//! with its assignment and group as class name, a failure with its message and the whole
//! report as body, the submission's output, and the time each test took.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::{Results, failure_text};
use crate::spec::slug;
use crate::student_text::StudentText;
use crate::verdict::{Failure, Value, Verdict};

impl Results<'_> {
    pub fn junit_xml(&self) -> String {
        let mut report = Report::new("cardgrade");
        report.set_time(self.elapsed);
        let mut suites: Vec<TestSuite> = Vec::new();
        for (group, test, result, worth) in self.per_test() {
            let assignment = group.assignment.name();
            if suites
                .last()
                .is_none_or(|suite| suite.name.as_str() != assignment)
            {
                suites.push(TestSuite::new(assignment));
            }
            let status = match &result.verdict {
                Some(Verdict::Passed) => TestCaseStatus::success(),
                None => TestCaseStatus::skipped(),
                Some(Verdict::Failed(failure)) => {
                    let text = failure_text(failure, result, worth).in_xml();
                    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    status.set_message(headline(failure, &text));
                    status.set_description(text.trim_end());
                    status
                }
            };
            // A spec's names are the instructor's, which may hold anything.
            let in_xml = |text: &str| StudentText::from(text).in_xml();
            let mut case = TestCase::new(in_xml(&test.id), status);
            case.set_classname(format!("{assignment}.{}", in_xml(&slug(&group.name))));
            case.set_time(result.duration);
            if let Some(Verdict::Failed(failure)) = &result.verdict {
                let printed = |name: &str| {
                    failure.fields.iter().find_map(|field| match &field.value {
                        Value::Text(_, text) if field.name == name => Some(text.in_xml()),
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
            status.set_description(failure.in_xml());
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
            Value::Text(_, text) if field.name == name => Some(
                text.lines()
                    .next()
                    .map_or_else(String::new, |line| line.in_xml()),
            ),
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
