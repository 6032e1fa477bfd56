//! Gradescope's autograder results.json, per its specification. Gradescope renders each
//! output as its `output_format` says; ours are Markdown in which every text of the
//! submission's (compiler errors quoting its code, panic messages, what it printed, names
//! it chose) is inside a code fence or code span, where Markdown shows HTML as text: an
//! `<img src=…>` it prints loads nothing.

use serde::Serialize;

use super::{Points, Results, earned, machine_json, output, status};
use crate::policy::Told;
use crate::spec::{Visibility, slug};
use crate::student_text::StudentText;

impl Results<'_> {
    pub fn gradescope_json(&self) -> serde_json::Value {
        let mut numbers = Vec::new();
        for (group_number, group) in (1..).zip(&self.suite.groups) {
            numbers.extend((1..=group.tests.len()).map(|test| format!("{group_number}.{test}")));
        }
        let tests: Vec<GradescopeTest> = self
            .per_test()
            .zip(numbers)
            .map(|((group, test, result, worth), number)| GradescopeTest {
                name: if test.name == group.name {
                    group.name.clone()
                } else {
                    format!("{}: {}", group.name, test.name)
                },
                number,
                tags: vec![group.assignment.name().to_string(), slug(&group.name)],
                score: earned(result, worth),
                max_score: worth,
                // Gradescope knows only passed and failed; a test not run earned nothing.
                status: if status(result) == "passed" {
                    "passed"
                } else {
                    "failed"
                },
                output: match output(result, worth) {
                    text if text.is_empty() => String::new(),
                    text => format!(
                        "{}\n\n{}",
                        code_span(&StudentText::from(test.id.as_str())),
                        code_block(&text)
                    ),
                },
                output_format: MARKDOWN,
                // Past the day's limit every test is staff's: Gradescope shows hidden tests
                // to instructors alone.
                visibility: match self.policy.told {
                    Told::Everything => group.visibility,
                    Told::ScoreOnly(_) | Told::Received(_) => Visibility::Hidden,
                },
            })
            .collect();
        let report = GradescopeReport {
            score: self.score(),
            execution_time: self.elapsed.as_secs_f64().ceil() as u64,
            output: self.summary(),
            output_format: MARKDOWN,
            test_output_format: MARKDOWN,
            // Test names are the specs', shown as they are written.
            test_name_format: "text",
            visibility: match self.policy.told {
                Told::Received(_) => Visibility::Hidden,
                Told::Everything | Told::ScoreOnly(_) => Visibility::Visible,
            },
            // The autograder's own log holds build output and every test's name.
            stdout_visibility: Visibility::Hidden,
            tests,
        };
        machine_json(report)
    }

    /// The top-level text of a results file, in Markdown: why nothing was graded, or the
    /// score. Where some tests are not visible it counts only the visible ones, so it gives
    /// away neither their number nor their points.
    fn summary(&self) -> String {
        if let Some(failure) = &self.build_failure {
            return code_block(failure);
        }
        let told = self.policy.told;
        match (told, told.words()) {
            (Told::Received(_), Some(why)) => return format!("Received: {why}."),
            (Told::ScoreOnly(_), Some(why)) => {
                return format!("{} / {} points: {why}.", self.score(), self.max_score());
            }
            _ => {}
        }
        let penalty = match self.penalty() {
            Some((points, why)) => format!("\n\nLate penalty: -{points} points ({why})."),
            None => String::new(),
        };
        let all_visible = self
            .suite
            .groups
            .iter()
            .all(|group| group.visibility == Visibility::Visible);
        if !all_visible {
            let (got, max) = self.score_of(|group| group.visibility == Visibility::Visible);
            return format!("{got} / {max} points on the tests you can see{penalty}");
        }
        let mut summary = format!("{} / {} points{penalty}", self.score(), self.max_score());
        // Notes quote what the submission named (its strategies) and said.
        let notes = self.all_notes();
        if !notes.is_empty() {
            summary.push_str("\n\n");
            summary.push_str(&code_block(&StudentText::joined(&notes, "\n")));
        }
        summary
    }
}

/// The format of every output we write: Markdown, its untrusted text fenced.
const MARKDOWN: &str = "md";

/// `text` as a fenced code block, which no line of it can close.
fn code_block(text: &StudentText) -> String {
    format!("```\n{}\n```", text.in_markdown_fence())
}

/// `text` as an inline code span: delimited by one backtick more than the longest run of
/// them in it, and spaced from one at either end, as CommonMark reads a span.
fn code_span(text: &StudentText) -> String {
    let text = text.in_markdown_fence().replace('\n', " ");
    let longest_run = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let ticks = "`".repeat(longest_run + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// Gradescope's autograder results.json, per its specification.
#[derive(Serialize)]
struct GradescopeReport {
    score: Points,
    execution_time: u64,
    output: String,
    output_format: &'static str,
    /// Of each test's output and name, where the test does not say.
    test_output_format: &'static str,
    test_name_format: &'static str,
    visibility: Visibility,
    stdout_visibility: Visibility,
    tests: Vec<GradescopeTest>,
}

#[derive(Serialize)]
struct GradescopeTest {
    name: String,
    /// Group and test, counting from 1: `2.3`.
    number: String,
    /// The assignment and the group.
    tags: Vec<String>,
    score: Points,
    max_score: Points,
    status: &'static str,
    output: String,
    output_format: &'static str,
    visibility: Visibility,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_hold_any_backticks() {
        let code_span = |text: &str| code_span(&StudentText::from(text));
        assert_eq!(code_span("a::b"), "`a::b`");
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`<img src=x>`"), "`` `<img src=x>` ``");
        assert_eq!(
            code_block(&StudentText::from("<a href=x>\n```")),
            "```\n<a href=x>\nʼʼʼ\n```"
        );
    }
}
