//! The students' own tests, graded: their `#[cfg(test)]` modules run against the
//! reference (a test that fails there asserts what the rules do not say, and is left out),
//! against each bug of the assignment's library (a bug is caught when a valid test fails
//! on it) and against their own code.
//!
//! One build serves every implementation: a generated crate ([`harness`]) holds a module
//! per implementation, the reference's source or a bug's, with the student's test modules
//! pasted into each, so `use super::*` reaches that implementation; the test binary, run
//! with the names of one module's tests, picks the implementation when it starts.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

use reference::bugs::{Bug, Library};

use crate::compile::{self, Build};
use crate::runner::{Launcher, once::Ending};
use crate::sandbox::Sandbox;

pub mod examples;
pub mod harness;
mod run;
mod session;
pub mod source;
pub mod suite;
mod verdicts;

pub use session::StudentTestsRun;
pub use verdicts::Which;

/// The most of a student's file read.
const FILE_CAP: u64 = 1 << 20;

/// A student's file that holds an assignment's tests.
pub struct StudentFile {
    /// Its path in the crate, as reports show it.
    pub shown: String,
    pub text: String,
    pub modules: Vec<source::TestModule>,
}

impl StudentFile {
    /// The file of `assignment` in the crate at `root`: `src/<assignment>.rs`, its
    /// `mod.rs`, or else `src/lib.rs`; None when there is none.
    pub fn find(root: &Path, assignment: &str) -> Result<Option<StudentFile>, String> {
        let candidates = [
            format!("src/{assignment}.rs"),
            format!("src/{assignment}/mod.rs"),
            "src/lib.rs".to_string(),
        ];
        let Some(shown) = candidates
            .into_iter()
            .find(|path| std::fs::symlink_metadata(root.join(path)).is_ok())
        else {
            return Ok(None);
        };
        let mut text = String::new();
        compile::open_regular(&root.join(&shown))
            .and_then(|file| file.take(FILE_CAP).read_to_string(&mut text))
            .map_err(|error| format!("{shown} cannot be read: {error}"))?;
        let modules = source::test_modules(&text)
            .ok_or_else(|| format!("{shown}: a `#[cfg(test)]` module's braces do not close"))?;
        Ok(Some(StudentFile {
            shown,
            text,
            modules,
        }))
    }

    /// Why the file cannot be built beside the reference's source: each place where it
    /// could read a file or the environment while it compiles.
    pub fn refusal(&self) -> Option<String> {
        let reads = source::compile_time_reads(&self.text);
        (!reads.is_empty()).then(|| {
            let places: Vec<String> = reads
                .iter()
                .map(|(line, what)| format!("{}:{line} uses {what}", self.shown))
                .collect();
            format!(
                "your tests cannot be graded: {}, which could read files while the grader compiles them; remove {}",
                places.join(", "),
                if reads.len() == 1 { "it" } else { "them" }
            )
        })
    }

    /// Each `#[test]` found, by its path in the file (`tests::counts_kings`).
    pub fn test_paths(&self) -> Vec<String> {
        self.modules
            .iter()
            .flat_map(|module| {
                module
                    .tests
                    .iter()
                    .map(move |test| format!("{}::{}", module.name, test.name))
            })
            .collect()
    }

    /// The number of `#[test]`s found.
    pub fn test_count(&self) -> usize {
        self.modules.iter().map(|module| module.tests.len()).sum()
    }
}

/// How the group's tests came out.
#[derive(Debug)]
pub struct Graded {
    /// The file the tests were read from.
    pub file: Option<String>,
    /// Why nothing could be graded, if so.
    pub stopped: Option<String>,
    /// Tests the harness could not build against the contract, each with why.
    pub left_out: Vec<(String, String)>,
    /// Tests that fail on the reference, each with what it said.
    pub invalid: Vec<(String, String)>,
    /// Tests that pass on the reference, by their path in the student's file.
    pub valid: Vec<String>,
    /// Each bug graded, and the valid test that caught it, with what it said.
    pub caught: BTreeMap<String, Option<(String, String)>>,
    /// The student's tests on their own code: the ones that failed, or why they could not run.
    pub yours: Result<Vec<(String, String)>, String>,
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
            caught: BTreeMap::new(),
            yours: Ok(Vec::new()),
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
    /// How long the tests may take together on one implementation.
    pub timeout: Duration,
}

/// Grades the tests of the crate at `root` for `grading`'s assignment.
pub fn grade(root: &Path, grading: &Grading) -> Graded {
    let bugs = grading.bugs;
    let stopped = |why: String| Graded {
        stopped: Some(why.clone()),
        yours: Err(why),
        ..Graded::default()
    };
    let file = match StudentFile::find(root, grading.library.assignment) {
        Ok(Some(file)) => file,
        Ok(None) => return no_tests(None, bugs),
        Err(why) => return stopped(why),
    };
    if let Some(why) = file.refusal() {
        return stopped(why);
    }
    if file.test_count() == 0 {
        return no_tests(Some(file.shown), bugs);
    }
    let built = match harness::build(root, &file, grading, bugs) {
        Ok(built) => built,
        Err(why) => return stopped(why),
    };
    let launcher = match Launcher::new(grading.sandbox.clone(), &built.executable.runner) {
        Ok(launcher) => launcher,
        Err(error) => return stopped(format!("cannot set your tests up to run: {error}")),
    };
    let in_module = |module: &str, tests: &[String]| -> Vec<String> {
        tests
            .iter()
            .map(|test| format!("{module}::{test}"))
            .collect()
    };
    let all = file.test_paths();
    let graded_tests: Vec<String> = all
        .iter()
        .filter(|test| !built.left_out.iter().any(|(left_out, _)| left_out == *test))
        .cloned()
        .collect();
    let (reference, yours) = (built.names.reference(), built.names.yours());
    let shown = |full: &str| {
        full.split_once("::")
            .map_or(full, |(_, test)| test)
            .to_string()
    };
    let failures = |outcome: std::collections::BTreeMap<String, Result<(), String>>| {
        outcome
            .into_iter()
            .filter_map(|(test, outcome)| outcome.err().map(|said| (shown(&test), said)))
            .collect::<Vec<_>>()
    };
    // The reference and the student's own code in one run.
    let mut first = in_module(&reference, &graded_tests);
    if let Some(yours) = &yours {
        first.extend(in_module(yours, &all));
    }
    let (on_reference, on_yours): (Vec<_>, Vec<_>) =
        run::results(&launcher, &first, grading.timeout)
            .into_iter()
            .partition(|(test, _)| test.starts_with(&format!("{reference}::")));
    let mut graded = Graded {
        file: Some(file.shown.clone()),
        left_out: built.left_out.clone(),
        yours: match yours {
            Some(_) => Ok(failures(on_yours.into_iter().collect())),
            None => Err(built.yours_left_out.clone().unwrap_or_default()),
        },
        ..Graded::default()
    };
    for (test, outcome) in on_reference {
        match outcome {
            Ok(()) => graded.valid.push(shown(&test)),
            Err(said) => graded.invalid.push((shown(&test), said)),
        }
    }
    // Every bug in one run: a process per bug would cost more than the tests.
    let on_bugs = run::results(
        &launcher,
        &bugs
            .iter()
            .flat_map(|bug| in_module(&built.names.of_bug(&bug.name), &graded.valid))
            .collect::<Vec<_>>(),
        grading.timeout,
    );
    let caught =
        bugs.iter().map(|bug| {
            let module = built.names.of_bug(&bug.name);
            let catcher = graded.valid.iter().find_map(|test| {
                match on_bugs.get(&format!("{module}::{test}")) {
                    Some(Err(said)) => Some((test.clone(), said.clone())),
                    _ => None,
                }
            });
            (bug.name.to_string(), catcher)
        });
    graded.caught = caught.into_iter().collect();
    graded
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

/// What ended a run of tests early, in words about the test running then.
fn ending_words(ending: &Ending) -> Option<String> {
    match ending {
        Ending::Exited { success: true, .. } => None,
        Ending::Exited { how, .. } => Some(format!("the test process {how}")),
        Ending::TimedOut(limit) => Some(format!(
            "it was still running after {} ms and was stopped",
            limit.as_millis()
        )),
        Ending::Flooded => Some("it printed too much and was stopped".to_string()),
    }
}
