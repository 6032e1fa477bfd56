//! Scores and the machine-readable results: Gradescope's results.json and our own schema.

use std::fmt::Write as _;
use std::time::Duration;

use colored::Colorize;
use serde::Serialize;

use crate::grade::Verdict;
use crate::spec::{Suite, Visibility};

/// The result of one test; `None` verdict when a filter left it out.
#[derive(Debug, Clone)]
pub struct TestResult {
    pub verdict: Option<Verdict>,
}

/// Everything one `grader check` found, ready to print or serialize.
#[derive(Debug)]
pub struct Results<'a> {
    pub suite: &'a Suite,
    /// One entry per test of the suite, group by group, in order.
    pub tests: Vec<TestResult>,
    /// The compiler's messages when the submission did not build.
    pub build_failure: Option<String>,
    pub elapsed: Duration,
    /// Time spent building the runner (cargo and rustc), part of `elapsed`.
    pub build_time: Duration,
    /// Lines beyond pass and fail, such as each Crazy Eights strategy's win rate.
    pub notes: Vec<String>,
}

impl Results<'_> {
    fn per_test(
        &self,
    ) -> impl Iterator<Item = (&crate::spec::Group, &crate::spec::TestCase, &TestResult)> {
        self.suite
            .tests()
            .zip(&self.tests)
            .map(|((group, test), result)| (group, test, result))
    }

    pub fn max_score(&self) -> f64 {
        self.suite.groups.iter().map(|g| g.points).sum()
    }

    pub fn score(&self) -> f64 {
        self.per_test()
            .filter(|(_, _, r)| matches!(r.verdict, Some(Verdict::Passed)))
            .map(|(group, _, _)| test_points(group))
            .sum()
    }

    /// Points earned and available in one assignment's groups.
    fn assignment_score(&self, assignment: grader_api::Assignment) -> (f64, f64) {
        let max = self
            .suite
            .groups
            .iter()
            .filter(|g| g.assignment == assignment)
            .map(|g| g.points)
            .sum();
        let earned = self
            .per_test()
            .filter(|(group, _, r)| {
                group.assignment == assignment && matches!(r.verdict, Some(Verdict::Passed))
            })
            .map(|(group, _, _)| test_points(group))
            .sum();
        (earned, max)
    }

    pub fn not_run(&self) -> usize {
        self.tests.iter().filter(|r| r.verdict.is_none()).count()
    }

    /// The score table printed after the test lines.
    pub fn score_table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "\n{}", "score".bold());
        let width = self
            .suite
            .groups
            .iter()
            .map(|g| g.name.chars().count())
            .max()
            .unwrap_or(0);
        let mut results = self.tests.iter();
        let mut current_assignment = None;
        for group in &self.suite.groups {
            if current_assignment != Some(group.assignment) {
                let (earned, max) = self.assignment_score(group.assignment);
                let subtotal = format!("{} / {}", points(earned), points(max));
                let _ = writeln!(
                    out,
                    "  {}  {}",
                    group.assignment.name().bold(),
                    subtotal.bold()
                );
                current_assignment = Some(group.assignment);
            }
            let verdicts: Vec<&TestResult> = results.by_ref().take(group.tests.len()).collect();
            let passed = verdicts
                .iter()
                .filter(|r| matches!(r.verdict, Some(Verdict::Passed)))
                .count();
            let ran = verdicts.iter().filter(|r| r.verdict.is_some()).count();
            let earned = test_points(group) * passed as f64;
            let mark = if ran < verdicts.len() {
                format!("{} not run", verdicts.len() - ran)
                    .dimmed()
                    .to_string()
            } else if passed == verdicts.len() {
                "ok".green().to_string()
            } else {
                format!("{} of {} failed", verdicts.len() - passed, verdicts.len())
                    .red()
                    .to_string()
            };
            let _ = writeln!(
                out,
                "    {:<width$}  {:>6} / {:<6} {mark}",
                group.name,
                points(earned),
                points(group.points),
            );
        }
        let total = format!("{} / {}", points(self.score()), points(self.max_score()));
        let _ = writeln!(out, "  {} {}", "total".bold(), total.bold());
        if self.not_run() > 0 {
            let _ = writeln!(
                out,
                "  {}",
                format!(
                    "({} tests were filtered out and count as 0)",
                    self.not_run()
                )
                .dimmed()
            );
        }
        out
    }

    pub fn gradescope_json(&self) -> serde_json::Value {
        let tests: Vec<GradescopeTest> = self
            .per_test()
            .map(|(group, test, result)| GradescopeTest {
                name: test.id.clone(),
                score: if matches!(result.verdict, Some(Verdict::Passed)) {
                    test_points(group)
                } else {
                    0.0
                },
                max_score: test_points(group),
                // Gradescope knows only passed and failed; a test not run earned nothing.
                status: if status(result) == "passed" {
                    "passed"
                } else {
                    "failed"
                },
                output: output(result),
                visibility: group.visibility,
            })
            .collect();
        let report = GradescopeReport {
            score: self.score(),
            execution_time: self.elapsed.as_secs_f64().ceil() as u64,
            output: self.summary(),
            tests,
        };
        serde_json::to_value(report).unwrap_or_default()
    }

    pub fn cardgrade_json(&self, submission: &str) -> serde_json::Value {
        let tests: Vec<OurTest> = self
            .per_test()
            .map(|(group, test, result)| OurTest {
                name: test.id.clone(),
                assignment: group.assignment.name(),
                group: group.name.clone(),
                status: status(result),
                score: if matches!(result.verdict, Some(Verdict::Passed)) {
                    test_points(group)
                } else {
                    0.0
                },
                max_score: test_points(group),
                visibility: group.visibility,
                output: output(result),
            })
            .collect();
        let report = OurReport {
            schema: "cardgrade.results.v1",
            submission: submission.to_string(),
            outcome: if self.build_failure.is_some() {
                "build_failed"
            } else if tests.iter().all(|t| t.status == "passed") {
                "passed"
            } else {
                "failed"
            },
            score: self.score(),
            max_score: self.max_score(),
            execution_time_ms: self.elapsed.as_millis() as u64,
            build_time_ms: self.build_time.as_millis() as u64,
            build_output: self.build_failure.as_deref().map(plain),
            notes: self.notes.clone(),
            tests,
        };
        serde_json::to_value(report).unwrap_or_default()
    }

    fn summary(&self) -> String {
        match &self.build_failure {
            Some(failure) => plain(failure),
            None => {
                let mut summary = format!(
                    "{} / {} points",
                    points(self.score()),
                    points(self.max_score())
                );
                for note in &self.notes {
                    summary.push('\n');
                    summary.push_str(note);
                }
                summary
            }
        }
    }
}

fn test_points(group: &crate::spec::Group) -> f64 {
    group.points / group.tests.len().max(1) as f64
}

fn status(result: &TestResult) -> &'static str {
    match result.verdict {
        Some(Verdict::Passed) => "passed",
        Some(Verdict::Failed(_)) => "failed",
        None => "not_run",
    }
}

fn output(result: &TestResult) -> String {
    match &result.verdict {
        Some(Verdict::Failed(message)) => plain(message),
        Some(Verdict::Passed) => String::new(),
        None => "not run: filtered out".into(),
    }
}

/// 12.5 stays 12.5; 10.0 prints as 10.
fn points(value: f64) -> String {
    // Adding 0.0 turns a -0 into 0.
    let rounded = (value * 100.0).round() / 100.0 + 0.0;
    if rounded.fract() == 0.0 {
        format!("{rounded:.0}")
    } else {
        format!("{rounded}")
    }
}

/// Text without terminal color codes, for files.
pub fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for code in chars.by_ref() {
                if code.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Gradescope's autograder results.json, per its specification.
#[derive(Serialize)]
struct GradescopeReport {
    score: f64,
    execution_time: u64,
    output: String,
    tests: Vec<GradescopeTest>,
}

#[derive(Serialize)]
struct GradescopeTest {
    name: String,
    score: f64,
    max_score: f64,
    status: &'static str,
    output: String,
    visibility: Visibility,
}

/// Our own schema, documented in the README.
#[derive(Serialize)]
struct OurReport {
    schema: &'static str,
    submission: String,
    outcome: &'static str,
    score: f64,
    max_score: f64,
    execution_time_ms: u64,
    build_time_ms: u64,
    build_output: Option<String>,
    notes: Vec<String>,
    tests: Vec<OurTest>,
}

#[derive(Serialize)]
struct OurTest {
    name: String,
    assignment: &'static str,
    group: String,
    status: &'static str,
    score: f64,
    max_score: f64,
    visibility: Visibility,
    output: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_strips_color_codes_only() {
        assert_eq!(plain("\u{1b}[1;31mtrue\u{1b}[0m or ♥"), "true or ♥");
    }

    #[test]
    fn points_print_without_needless_decimals() {
        assert_eq!(points(10.0), "10");
        assert_eq!(points(2.5), "2.5");
        assert_eq!(points(10.0 / 3.0), "3.33");
    }
}
