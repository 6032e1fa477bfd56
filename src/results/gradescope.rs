//! Gradescope's autograder results.json, per its specification.

use serde::Serialize;

use super::{Points, Results, earned, fence, machine_json, output, status};
use crate::spec::{Visibility, slug};

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
                    text if text.is_empty() => text,
                    text => format!("`{}`\n\n```\n{}\n```", test.id, fence(&text)),
                },
                output_format: "md",
                visibility: group.visibility,
            })
            .collect();
        let report = GradescopeReport {
            score: self.score(),
            execution_time: self.elapsed.as_secs_f64().ceil() as u64,
            output: self.summary(),
            visibility: Visibility::Visible,
            // The autograder's own log holds build output and every test's name.
            stdout_visibility: Visibility::Hidden,
            tests,
        };
        machine_json(report)
    }

    /// The top-level text of a results file. Where some tests are not visible it counts
    /// only the visible ones, so it gives away neither their number nor their points.
    fn summary(&self) -> String {
        if let Some(failure) = &self.build_failure {
            return failure.clone();
        }
        let all_visible = self
            .suite
            .groups
            .iter()
            .all(|group| group.visibility == Visibility::Visible);
        if !all_visible {
            let (got, max) = self.score_of(|group| group.visibility == Visibility::Visible);
            return format!("{got} / {max} points on the tests you can see");
        }
        let mut summary = format!("{} / {} points", self.score(), self.max_score());
        for note in &self.notes {
            summary.push('\n');
            summary.push_str(note);
        }
        summary
    }
}

/// Gradescope's autograder results.json, per its specification.
#[derive(Serialize)]
struct GradescopeReport {
    score: Points,
    execution_time: u64,
    output: String,
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
