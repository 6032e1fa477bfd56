//! What grading a group of student tests needs beside the submission, and what it found:
//! every step of the grading reads one or fills the other, so they sit beneath them all.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use reference::bugs::{Bug, Library};

use crate::compile::Build;
use crate::sandbox::Sandbox;
use crate::student_text::StudentText;

/// How the group's tests came out: the student's tests by their names, with what they said
/// or why they were not run (a compiler's errors on them), all student text.
#[derive(Debug)]
pub struct Graded {
    /// Where the tests were looked for.
    pub file: Option<String>,
    /// Why nothing could be graded, if so.
    pub stopped: Option<StudentText>,
    /// Tests the harness could not build against the contract, each with why.
    pub left_out: Vec<(StudentText, StudentText)>,
    /// Tests that fail on the reference, each with what it said.
    pub invalid: Vec<(StudentText, StudentText)>,
    /// Tests that pass on the reference, by their shown names.
    pub valid: Vec<StudentText>,
    /// Tests whose run on the reference did not start before the group's time ran out.
    pub not_run: Vec<StudentText>,
    /// How many runs, of every test on every implementation, did not start in time.
    pub runs_not_run: usize,
    /// Each bug graded, and the valid test that caught it, with what it said.
    pub caught: BTreeMap<String, Option<(StudentText, StudentText)>>,
    /// The student's tests on their own code: the ones that failed, or why they could not run.
    pub yours: Result<Vec<(StudentText, StudentText)>, StudentText>,
    /// Integration tests that do not build against the student's assignment file alone
    /// (they use another module of the crate), each with why.
    pub not_run_on_yours: Vec<(StudentText, StudentText)>,
}

impl Default for Graded {
    /// Nothing found, nothing failed.
    fn default() -> Graded {
        Graded {
            file: None,
            stopped: None,
            left_out: Vec::new(),
            invalid: Vec::new(),
            valid: Vec::new(),
            not_run: Vec::new(),
            runs_not_run: 0,
            caught: BTreeMap::new(),
            yours: Ok(Vec::new()),
            not_run_on_yours: Vec::new(),
        }
    }
}

/// What grading a group of student tests needs beside the submission.
pub struct Grading<'a> {
    pub library: &'a Library,
    /// The bugs to grade: the library's, or mutants kept beside the spec.
    pub bugs: &'a [Bug],
    pub sandbox: &'a Sandbox,
    pub build: &'a Build<'a>,
    /// How long one test may take on one implementation.
    pub timeout: Duration,
    /// How long all the group's runs may take together.
    pub budget: Duration,
    /// Set once the grading is no longer wanted: runs not started by then are not started.
    pub abandoned: &'a AtomicBool,
}
