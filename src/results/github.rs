//! GitHub's formats: workflow-command annotations for failures, a Markdown summary for the
//! job's page, and the result GitHub Classroom's autograding-grading-reporter reads (the
//! base64 of `{version, status, max_score, tests}`), so a Classroom workflow needs no
//! converter.

use serde::Serialize;

use super::{Points, Results, TestResult, credit, earned, failure_text, machine_json};
use crate::student_tests::suite;
use crate::student_text::{StudentText, html_escaped, inert_in_github_log};
use crate::verdict::Verdict;

/// Lines of a failure an annotation shows.
const ANNOTATED_LINES: usize = 12;

impl Results<'_> {
    /// An `::error` line per failed test (or for the build), for the job's log.
    pub fn github_annotations(&self) -> String {
        let mut out = String::new();
        if let Some(failure) = &self.build_failure {
            out.push_str(&format!(
                "::error title=the submission did not build::{}\n",
                data(&first_lines(failure))
            ));
        }
        for (group, test, result, worth) in self.per_test() {
            // A bug the student's tests miss is no error of theirs: the report above the
            // annotations tells it in their group's block.
            let place = group.tests.iter().position(|t| std::ptr::eq(t, test));
            if place.is_some_and(|place| suite::bug_tests(group).contains(&place)) {
                continue;
            }
            if let Some(Verdict::Failed(failure)) = &result.verdict {
                out.push_str(&format!(
                    "::error title={}::{}\n",
                    property(&test.id),
                    data(&first_lines(&failure_text(failure, result, worth)))
                ));
            }
        }
        out.push_str(&format!(
            "::notice title=cardgrade score::{} / {}\n",
            self.score(),
            self.max_score()
        ));
        out
    }

    /// The score table and the failures in Markdown, for `$GITHUB_STEP_SUMMARY`.
    pub fn github_summary(&self) -> String {
        let mut out = format!(
            "## cardgrade: {} / {}\n\n| assignment | group | points | failed |\n|---|---|---:|---:|\n",
            self.score(),
            self.max_score()
        );
        for assignment in self.assignments() {
            for row in self.rows(assignment) {
                let failed: Vec<&TestResult> = row
                    .results
                    .iter()
                    .filter(|result| matches!(result.verdict, Some(Verdict::Failed(_))))
                    .copied()
                    .collect();
                let failed = match failed[..] {
                    [only] if !row.withheld => {
                        credit(only).map_or_else(|| "1".to_string(), |credit| cell(&credit.tally))
                    }
                    _ => failed.len().to_string(),
                };
                out.push_str(&format!(
                    "| {assignment} | {} | {} / {} | {failed} |\n",
                    cell(row.name),
                    row.earned,
                    row.max
                ));
            }
        }
        if let Some(failure) = &self.build_failure {
            out.push_str(&format!(
                "\n### The submission did not build\n\n```\n{}\n```\n",
                failure.in_markdown_fence()
            ));
        }
        let failures: Vec<String> = self
            .per_test()
            .filter_map(|(_, test, result, _)| match &result.verdict {
                Some(Verdict::Failed(failure)) => Some(format!(
                    "<details><summary><code>{}</code></summary>\n\n```\n{}\n```\n\n</details>\n",
                    html_escaped(&test.id),
                    StudentText::from(failure.render(false)).in_markdown_fence()
                )),
                _ => None,
            })
            .collect();
        if !failures.is_empty() {
            out.push_str("\n### Failures\n\n");
            out.push_str(&failures.concat());
        }
        out
    }

    /// What a GitHub Classroom grader step outputs as `result`: the JSON, base64-encoded.
    pub fn classroom_result(&self) -> String {
        base64(self.classroom_json().to_string().as_bytes())
    }

    /// The results as autograding-grading-reporter reads them.
    pub fn classroom_json(&self) -> serde_json::Value {
        let stopped = self.build_failure.iter().map(|why| ClassroomTest {
            name: "the submission was not graded".into(),
            status: "error",
            score: 0.0,
            max_score: Points::ZERO,
            message: why.in_github_log(),
        });
        let scores = summing_exactly(
            self.per_test()
                .map(|(_, _, result, worth)| earned(result, worth)),
        );
        let tests: Vec<ClassroomTest> = stopped
            .chain(
                self.per_test()
                    .zip(scores)
                    .map(|((_, test, result, worth), score)| ClassroomTest {
                        name: inert_in_github_log(&test.id),
                        status: match result.verdict {
                            Some(Verdict::Passed) => "pass",
                            _ => "fail",
                        },
                        score,
                        max_score: worth,
                        // Classroom's reporter prints each message again, in its own step.
                        message: match &result.verdict {
                            Some(Verdict::Failed(failure)) => {
                                failure_text(failure, result, worth).in_github_log()
                            }
                            Some(Verdict::Passed) => String::new(),
                            None => "not run: filtered out".into(),
                        },
                    }),
            )
            .collect();
        let status = if self.build_failure.is_some() {
            "error"
        } else if tests.iter().all(|t| t.status == "pass") {
            "pass"
        } else {
            "fail"
        };
        machine_json(ClassroomResult {
            version: 1,
            status,
            max_score: self.max_score(),
            tests,
        })
    }
}

#[derive(Serialize)]
struct ClassroomResult {
    version: u32,
    status: &'static str,
    max_score: Points,
    tests: Vec<ClassroomTest>,
}

#[derive(Serialize)]
struct ClassroomTest {
    name: String,
    status: &'static str,
    /// As [`summing_exactly`] chose it.
    score: f64,
    max_score: Points,
    message: String,
}

/// The JSON numbers for `scores`, in order, that add up as Classroom's reporter adds them
/// (JavaScript numbers, from 0, left to right) to exactly the total the grader prints, at
/// every step: a score is its own two-decimal value where that keeps the running sum on
/// the double nearest the total so far, and otherwise the double that brings it there.
/// Added as they are, 92.79 points would come to 92.79000000000002.
fn summing_exactly(scores: impl Iterator<Item = Points>) -> Vec<f64> {
    let (mut total, mut sum) = (Points::ZERO, 0.0_f64);
    scores
        .map(|score| {
            total = total + score;
            let target = total.as_f64();
            let mut step = score.as_f64();
            if sum + step != target {
                step = target - sum;
                // Addition is monotone in `step`, and some double lands on `target` (it is
                // no further from `sum` than `target` is from 0), so these end there.
                while sum + step < target {
                    step = step.next_up();
                }
                while sum + step > target {
                    step = step.next_down();
                }
            }
            sum += step;
            step
        })
        .collect()
}

fn first_lines(text: &StudentText) -> String {
    let text = text.in_file();
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let mut shown = lines[..lines.len().min(ANNOTATED_LINES)].join("\n");
    if lines.len() > ANNOTATED_LINES {
        shown.push_str(&format!(
            "\n… {} more lines in the job summary",
            lines.len() - ANNOTATED_LINES
        ));
    }
    shown
}

/// A workflow command's message: `%`, CR and LF escaped as GitHub reads them.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value: as `data`, and `:` and `,` too.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

/// Text in a Markdown table cell.
fn cell(text: &str) -> String {
    html_escaped(text).replace('|', "\\|")
}

/// Standard base64, padded, as `base64 --decode` reads it.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let word = chunk
            .iter()
            .enumerate()
            .fold(0u32, |word, (i, &b)| word | u32::from(b) << (16 - 8 * i));
        for position in 0..4 {
            if position <= chunk.len() {
                out.push(char::from(
                    ALPHABET[(word >> (18 - 6 * position) & 63) as usize],
                ));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_the_standard_alphabet_with_padding() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foob"), "Zm9vYg==");
        assert_eq!(base64("♥ {\"a\": 1}".as_bytes()), "4pmlIHsiYSI6IDF9");
    }

    #[test]
    fn classroom_scores_add_up_as_javascript_adds_them_to_the_printed_total() {
        // Scores a class sees: thirds of 10 points, sevenths of 6, and tenths.
        let hundredths = [
            334, 333, 333, 86, 86, 86, 86, 86, 85, 85, 10, 20, 70, 1, 0, 250,
        ];
        let scores: Vec<Points> = hundredths
            .iter()
            .cycle()
            .take(400)
            .map(|&h| Points::from_f64(f64::from(h) / 100.0))
            .collect();
        let naive = scores.iter().fold(0.0, |sum, score| sum + score.as_f64());
        let total: Points = scores.iter().copied().sum();
        assert_ne!(
            naive,
            total.as_f64(),
            "these scores drift when added as they are"
        );
        let chosen = summing_exactly(scores.iter().copied());
        let mut sum = 0.0;
        let mut so_far = Points::ZERO;
        for (step, score) in chosen.iter().zip(&scores) {
            sum += step;
            so_far = so_far + *score;
            assert_eq!(sum, so_far.as_f64(), "after adding {step} for {score}");
        }
        assert_eq!(format!("{sum}"), total.to_string());
        let own = chosen
            .iter()
            .zip(&scores)
            .filter(|(step, score)| **step == score.as_f64())
            .count();
        assert!(own > scores.len() / 2, "most keep their own value: {own}");
    }

    #[test]
    fn workflow_commands_cannot_be_broken_out_of() {
        assert_eq!(data("50%\r\nnext"), "50%25%0D%0Anext");
        assert_eq!(property("a::b,c"), "a%3A%3Ab%2Cc");
    }
}
