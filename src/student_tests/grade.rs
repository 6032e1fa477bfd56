//! One group of student tests graded: their files found, the harness built, every test run
//! on the reference, on each bug and on the student's code, and what each run said.

use std::path::Path;

use reference::bugs::Bug;

use super::file::{StudentFile, TestName};
use super::grading::{Graded, Grading};
use super::harness;
use super::oracle::Oracle;
use super::rounds::Rounds;
use super::run::{Outcome, Runs};
use super::verdicts::NOT_RUN;
use crate::runner::Launcher;
use crate::student_text::StudentText;

/// Where every run of the student's tests sees its temp folder, wherever the sandbox can
/// put it there: a path no other folder of theirs lies in.
const TESTS_TMP: &str = "/sandbox/tmp";

/// Grades the tests of the crate at `root` for `grading`'s assignment.
pub fn grade(root: &Path, grading: &Grading) -> Graded {
    let bugs = grading.bugs;
    let stopped = |why: String| Graded {
        stopped: Some(why.as_str().into()),
        yours: Err(why.into()),
        ..Graded::default()
    };
    let assignment = grading.library.assignment;
    let file = match StudentFile::find(root, assignment) {
        Ok(Some(file)) => file,
        Ok(None) => return no_tests(None, bugs),
        Err(why) => return stopped(why),
    };
    let whole_crate = file.shown == "src/lib.rs";
    let searched = format!("{} or tests/", file.shown);
    let mut files = vec![file];
    match StudentFile::integration(root, assignment, whole_crate) {
        Ok(integration) => files.extend(integration),
        Err(why) => return stopped(why),
    }
    let all: Vec<TestName> = files.iter().flat_map(StudentFile::tests).collect();
    if all.is_empty() {
        return no_tests(Some(searched), bugs);
    }
    let built = match harness::build(root, &files, grading) {
        Ok(built) => built,
        Err(why) => return stopped(why),
    };
    let oracle = match Oracle::start(grading.library, bugs, grading) {
        Ok(oracle) => oracle,
        Err(why) => return stopped(why),
    };
    let launcher = match Launcher::new(grading.sandbox.clone(), &built.executable.runner) {
        Ok(launcher) => launcher.with_tmp_seen_at(TESTS_TMP),
        Err(error) => return stopped(format!("cannot set your tests up to run: {error}")),
    };
    let among = |list: &[(String, String)], test: &TestName| {
        list.iter().any(|(shown, _)| *shown == test.shown)
    };
    let graded_tests: Vec<&TestName> = all
        .iter()
        .filter(|test| !among(&built.left_out, test))
        .collect();
    let on_yours: Vec<&TestName> = match built.yours {
        true => all
            .iter()
            .filter(|test| !among(&built.not_run_on_yours, test))
            .collect(),
        false => Vec::new(),
    };
    let under_test = |test: &TestName| format!("{}::{}", harness::UNDER_TEST, test.in_harness);
    let on_yours_path = |test: &TestName| format!("{}::{}", harness::YOURS, test.in_harness);
    let runs = Runs {
        harness: &launcher,
        oracle: &oracle,
        timeout: grading.timeout,
        end: std::time::Instant::now() + grading.budget,
        abandoned: grading.abandoned,
    };
    let tests: Vec<String> = graded_tests.iter().map(|test| under_test(test)).collect();
    let yours: Vec<String> = on_yours.iter().map(|test| on_yours_path(test)).collect();
    let rounds = Rounds::run(
        |first, next| runs.outcomes(first, next),
        &tests,
        &yours,
        bugs.len(),
    );
    let mut graded = Graded {
        file: Some(searched),
        left_out: student_texts(&built.left_out),
        not_run_on_yours: student_texts(&built.not_run_on_yours),
        yours: match built.yours {
            true => Ok(on_yours
                .iter()
                .filter_map(|test| match rounds.on_yours(&on_yours_path(test)) {
                    Outcome::Passed => None,
                    Outcome::Failed(said) => Some((test.shown.as_str().into(), said.into())),
                    Outcome::NotRun => Some((test.shown.as_str().into(), NOT_RUN.into())),
                })
                .collect()),
            false => Err(built.yours_left_out.clone().unwrap_or_default().into()),
        },
        runs_not_run: rounds.not_run(),
        ..Graded::default()
    };
    let mut valid = Vec::new();
    for test in &graded_tests {
        match rounds.on_the_reference(&under_test(test)) {
            Outcome::Passed => {
                graded.valid.push(test.shown.as_str().into());
                valid.push(*test);
            }
            Outcome::Failed(said) => graded
                .invalid
                .push((test.shown.as_str().into(), said.into())),
            Outcome::NotRun => graded.not_run.push(test.shown.as_str().into()),
        }
    }
    graded.caught = bugs
        .iter()
        .enumerate()
        .map(|(n, bug)| {
            let catcher = valid
                .iter()
                .find_map(|test| match rounds.on_bug(&under_test(test), n) {
                    Outcome::Failed(said) => Some((test.shown.as_str().into(), said.into())),
                    Outcome::Passed | Outcome::NotRun => None,
                });
            (bug.name.to_string(), catcher)
        })
        .collect();
    graded
}

/// Tests by name, each with what it said or why it did not run, as student text.
fn student_texts(tests: &[(String, String)]) -> Vec<(StudentText, StudentText)> {
    tests
        .iter()
        .map(|(test, said)| (test.as_str().into(), said.as_str().into()))
        .collect()
}

/// The outcome without tests, nothing built or run: every bug is missed.
fn no_tests(file: Option<String>, bugs: &[Bug]) -> Graded {
    Graded {
        file,
        caught: bugs
            .iter()
            .map(|bug| (bug.name.to_string(), None))
            .collect(),
        ..Graded::default()
    }
}
