//! Our own results schema, `cardgrade.results.v1`, documented in the README.

use serde::Serialize;

use super::{Points, Results, earned, machine_json, output, scored, status};
use crate::diagnosis::Diagnosis;
use crate::spec::Visibility;
use crate::student_text::StudentText;
use crate::verdict::{Failure, Trouble, Verdict};

impl Results<'_> {
    pub fn cardgrade_json(&self, submission: &StudentText) -> serde_json::Value {
        let tests: Vec<OurTest> = self
            .per_test()
            .map(|(group, test, result, worth)| {
                let failure = match &result.verdict {
                    Some(Verdict::Failed(failure)) => failure,
                    _ => &Failure::default(),
                };
                OurTest {
                    name: test.id.clone(),
                    assignment: group.assignment.name(),
                    group: group.name.clone(),
                    grades: match test.grading {
                        grader_api::spec::Grading::StudentTests => "tests",
                        _ => "code",
                    },
                    status: status(result),
                    score: earned(result, worth),
                    max_score: worth,
                    visibility: group.visibility,
                    duration_ms: result.duration.as_millis() as u64,
                    tally: scored(result, worth),
                    output: output(result, worth),
                    trouble: failure.trouble.map(Trouble::key),
                    diagnosis: failure.diagnosis.iter().map(OurDiagnosis::of).collect(),
                    unexplained: failure
                        .unexplained
                        .iter()
                        .map(|found| OurFingerprint {
                            check: found.check.clone(),
                            wrong: found.wrong,
                            fingerprint: format!("{:016x}", found.digest),
                        })
                        .collect(),
                    fields: failure
                        .fields
                        .iter()
                        .map(|field| OurField {
                            name: field.name.clone(),
                            text: field.value.plain(),
                        })
                        .collect(),
                }
            })
            .collect();
        let report = OurReport {
            schema: "cardgrade.results.v1",
            submission: submission.clone(),
            outcome: if self.build_failure.is_some() {
                "build_failed"
            } else if self.out_of_time() > 0 {
                "out_of_time"
            } else if tests.iter().all(|t| t.status == "passed") {
                "passed"
            } else {
                "failed"
            },
            score: self.score(),
            max_score: self.max_score(),
            execution_time_ms: self.elapsed.as_millis() as u64,
            build_time_ms: self.build_time.as_millis() as u64,
            runner_starts: self.runner_starts.0,
            runner_start_ms: self.runner_starts.1.as_millis() as u64,
            build_output: self.build_failure.clone(),
            penalty: self.penalty().map(|(points, why)| OurPenalty {
                points,
                why: why.to_string(),
            }),
            notes: self.all_notes(),
            tests,
        };
        machine_json(report)
    }
}

/// Our own schema, documented in the README.
#[derive(Serialize)]
struct OurReport {
    schema: &'static str,
    submission: StudentText,
    outcome: &'static str,
    score: Points,
    max_score: Points,
    execution_time_ms: u64,
    build_time_ms: u64,
    /// Runner processes started, and the milliseconds their starts took together.
    runner_starts: usize,
    runner_start_ms: u64,
    build_output: Option<StudentText>,
    /// The policy's late penalty, taken off `score`: never part of a test's.
    #[serde(skip_serializing_if = "Option::is_none")]
    penalty: Option<OurPenalty>,
    notes: Vec<StudentText>,
    tests: Vec<OurTest>,
}

#[derive(Serialize)]
struct OurPenalty {
    points: Points,
    why: String,
}

#[derive(Serialize)]
struct OurTest {
    name: String,
    assignment: &'static str,
    group: String,
    /// What it grades: the submission's `code`, or its own `tests` (by the known mistakes
    /// they catch).
    grades: &'static str,
    status: &'static str,
    score: Points,
    max_score: Points,
    /// For a failed test scored by its answers: how many were wrong beside its points.
    #[serde(skip_serializing_if = "Option::is_none")]
    tally: Option<String>,
    visibility: Visibility,
    /// How long the test took, its runner's start included.
    duration_ms: u64,
    output: StudentText,
    /// How its runner ended where that kept answers from coming: `timed_out`, `flooded`
    /// or `crashed`, in the grader's word.
    #[serde(skip_serializing_if = "Option::is_none")]
    trouble: Option<&'static str>,
    /// The known mistakes that explain its wrong answers, check by check.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    diagnosis: Vec<OurDiagnosis>,
    /// Staff's alone: its wrong answers to each check that no known mistake explains, as a
    /// fingerprint equal for two submissions that answered those inputs alike.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unexplained: Vec<OurFingerprint>,
    /// A failure's fields (input, check, expected, actual, diff, hint, output), plain.
    fields: Vec<OurField>,
}

#[derive(Serialize)]
struct OurField {
    name: String,
    text: StudentText,
}

/// The known mistakes that explain a test's wrong answers to one check.
#[derive(Serialize)]
struct OurDiagnosis {
    check: String,
    /// One mistake; two made together (`together`); or several alike on the group's
    /// inputs, any of which it may be.
    mistakes: Vec<OurMistake>,
    together: bool,
    /// How many wrong answers they explain: all of the check's.
    explained: u64,
}

impl OurDiagnosis {
    fn of(found: &Diagnosis) -> OurDiagnosis {
        OurDiagnosis {
            check: found.check.clone(),
            mistakes: found
                .mistakes
                .iter()
                .map(|(name, description)| OurMistake {
                    name: name.clone(),
                    description: description.clone(),
                })
                .collect(),
            together: found.together,
            explained: found.explained,
        }
    }
}

#[derive(Serialize)]
struct OurFingerprint {
    check: String,
    /// How many inputs its answers to the check were wrong on.
    wrong: u64,
    fingerprint: String,
}

#[derive(Serialize)]
struct OurMistake {
    name: String,
    description: String,
}
