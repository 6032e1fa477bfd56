//! The group's tests, as verdicts: valid on the reference, one per bug, and on the
//! student's own code.

use super::grading::Graded;
use crate::spec::student_tests::Which;
use crate::student_text::StudentText;
use crate::verdict::{Failure, Verdict};

/// The message of a test that fails on the reference.
pub const WRONG_ON_THE_REFERENCE: &str =
    "this test fails on a correct solution: it asserts something the rules do not say";

/// Why a run is missing: the group's time ran out first.
pub const NOT_RUN: &str = "not run: the group's time ran out before it started";

/// What a test of the group tells: its verdict, a line for the report when it passed with
/// something to say, and for a bug caught, the student's test that caught it and the first
/// line of what it said, which a student's report lists beside the bug.
#[derive(Debug)]
pub struct Told {
    pub verdict: Verdict,
    /// Names the student's tests, and quotes them.
    pub note: Option<StudentText>,
    pub caught_by: Option<(StudentText, StudentText)>,
}

impl From<(Verdict, Option<StudentText>)> for Told {
    fn from((verdict, note): (Verdict, Option<StudentText>)) -> Told {
        Told {
            verdict,
            note,
            caught_by: None,
        }
    }
}

impl Graded {
    /// What test `which` tells.
    pub fn verdict(&self, which: Which) -> Told {
        if let Some(why) = &self.stopped {
            return (Verdict::Failed(Failure::line(why.clone())), None).into();
        }
        let file = self.file.as_deref().unwrap_or("your crate");
        if let Which::Bug { name, .. } = which
            && let Some(Some((test, said))) = self.caught.get(name)
        {
            let said = said.lines().next().unwrap_or_default();
            return Told {
                verdict: Verdict::Passed,
                note: Some(
                    StudentText::from("your tests: ")
                        + test
                        + format!(" caught {name} (").as_str()
                        + &said
                        + ")",
                ),
                caught_by: Some((test.clone(), said)),
            };
        }
        let told = match which {
            Which::ValidOnTheReference => {
                let mut failure = Failure::line(format!("{WRONG_ON_THE_REFERENCE}:"));
                for (test, said) in &self.invalid {
                    failure = failure.then(Failure::line(test.clone() + ": " + said));
                }
                let note = if self.valid.is_empty()
                    && self.invalid.is_empty()
                    && self.not_run.is_empty()
                {
                    format!("your tests: no tests found in {file}")
                } else {
                    format!(
                        "your tests: {} of them pass on the reference",
                        self.valid.len()
                    )
                };
                let set_aside: Vec<StudentText> = self
                    .left_out
                    .iter()
                    .map(|(test, why)| test.clone() + " not graded: " + why)
                    .chain(self.not_run.iter().map(|test| test.clone() + " " + NOT_RUN))
                    .chain(match self.runs_not_run - self.not_run.len() {
                        0 => None,
                        others => Some(format!(
                            "{others} runs of your tests on the bugs or on your code were not run: the group's time ran out before they started"
                        ).into()),
                    })
                    .collect();
                match self.invalid.is_empty() {
                    true => {
                        let note = StudentText::from(note);
                        let said = StudentText::joined([&note].into_iter().chain(&set_aside), "; ");
                        (Verdict::Passed, Some(said))
                    }
                    false => {
                        let failure = set_aside
                            .into_iter()
                            .fold(failure, |failure, line| failure.then(Failure::line(line)));
                        (Verdict::Failed(failure), None)
                    }
                }
            }
            Which::Bug { description, .. } => {
                let failure = match self.valid.is_empty() {
                    true => Failure::line("no valid test of yours ran, so no bug is caught"),
                    false => Failure::line("every valid test of yours passes on this bug"),
                };
                (
                    Verdict::Failed(failure.then(Failure::line(format!("the bug: {description}")))),
                    None,
                )
            }
            Which::PassOnYourCode => match &self.yours {
                Ok(failed) if failed.is_empty() => {
                    let not_run: Vec<StudentText> = self
                        .not_run_on_yours
                        .iter()
                        .map(|(test, why)| test.clone() + " not run on your code: " + why)
                        .collect();
                    let note = (!not_run.is_empty()).then(|| {
                        StudentText::from("your tests: ") + &StudentText::joined(&not_run, "; ")
                    });
                    (Verdict::Passed, note)
                }
                Ok(failed) => {
                    let mut failure = Failure::line("these tests fail on your own code:");
                    for (test, said) in failed {
                        failure = failure.then(Failure::line(test.clone() + ": " + said));
                    }
                    for (test, why) in &self.not_run_on_yours {
                        failure = failure.then(Failure::line(
                            test.clone() + " not run on your code: " + why,
                        ));
                    }
                    (Verdict::Failed(failure), None)
                }
                Err(why) => (Verdict::Failed(Failure::line(why.clone())), None),
            },
        };
        told.into()
    }
}
