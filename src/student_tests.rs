//! The students' own tests, graded: their `#[cfg(test)]` modules run against the
//! reference (a test that fails there asserts what the rules do not say, and is left out),
//! against each bug of the assignment's library (a bug is caught when a valid test fails
//! on it) and against their own code.
//!
//! The tests are built once, against the assignment's stand-ins ([`harness`]), with
//! nothing of the reference or of a bug in their build or their process: each run of a test
//! is linked to the [`oracle`], a program of the grader's that answers the stand-ins' calls
//! with one implementation. A test cannot tell the implementations apart but by their
//! answers, and its verdict is its exit status ([`run`]).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

use reference::bugs::{Bug, Library};

use crate::compile::{self, Build, stable_hash};
use crate::runner::{Launcher, once::Ending};
use crate::sandbox::Sandbox;
use crate::student_text::StudentText;
use oracle::{Implementation, Oracle};
use run::{Outcome, Run, Runs, Target};

pub mod examples;
pub mod harness;
mod oracle;
mod run;
mod session;
pub mod source;
pub mod suite;
mod verdicts;

pub use session::StudentTestsRun;
use verdicts::NOT_RUN;
pub use verdicts::{Told, Which};

/// The most of a student's file read.
const FILE_CAP: u64 = 1 << 20;

/// Where every run of the student's tests sees its temp folder, wherever the sandbox can
/// put it there: a path no other folder of theirs lies in.
const TESTS_TMP: &str = "/sandbox/tmp";

/// The most files of `tests/` read.
const TEST_FILES_CAP: usize = 64;

/// A student's file that holds an assignment's tests: the assignment's own file, whose
/// `#[cfg(test)]` modules hold them, or an integration test of `tests/`, a file of tests
/// that names the student's crate.
pub struct StudentFile {
    /// Its path in the crate, as reports show it.
    pub shown: String,
    pub text: String,
    /// Its test modules; an integration test's one module is the whole file.
    pub modules: Vec<source::TestModule>,
    /// An integration test's name for the student's crate (its library's name).
    pub names_crate: Option<String>,
}

/// A student's test, by its path in the harness's module of an implementation and by the
/// name reports show, which says where it came from (`src/<assignment>.rs::tests::pair`,
/// `tests/hands.rs::three_kings`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestName {
    pub in_harness: String,
    pub shown: String,
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
        let text = read(root, &shown)?;
        let modules = source::test_modules(&text)
            .ok_or_else(|| format!("{shown}: a `#[cfg(test)]` module's braces do not close"))?;
        Ok(Some(StudentFile {
            shown,
            text,
            modules,
            names_crate: None,
        }))
    }

    /// The integration tests of the crate at `root` that test `assignment`: the files of
    /// `tests/` that name the student's module of it, or every one when the crate is that one file
    /// (`whole_crate`). None is read when the crate's library has no name to call it by.
    pub fn integration(
        root: &Path,
        assignment: &str,
        whole_crate: bool,
    ) -> Result<Vec<StudentFile>, String> {
        let folder = root.join("tests");
        let Some(names_crate) = crate_name(root) else {
            return Ok(Vec::new());
        };
        // Not through a link, which could lead the grader to files outside the crate.
        let folder_itself = std::fs::symlink_metadata(&folder);
        if !folder_itself.is_ok_and(|metadata| metadata.is_dir()) {
            return Ok(Vec::new());
        }
        let Ok(entries) = std::fs::read_dir(&folder) else {
            return Ok(Vec::new());
        };
        let mut paths: Vec<String> = entries
            .filter_map(|entry| {
                let entry = entry.ok()?;
                let name = entry.file_name().into_string().ok()?;
                let regular = entry.file_type().ok()?.is_file();
                (regular && name.ends_with(".rs")).then(|| format!("tests/{name}"))
            })
            .collect();
        paths.sort();
        paths.truncate(TEST_FILES_CAP);
        let mut files = Vec::new();
        for shown in paths {
            // Its modules in other files (`mod common;`) are not in the harness: empty, the
            // tests that use them are left out, not the whole group.
            let text = source::without_file_modules(&read(root, &shown)?);
            if !whole_crate && !source::names_module(&text, assignment) {
                continue;
            }
            let tests = source::file_tests(&text)
                .ok_or_else(|| format!("{shown}: its braces do not close"))?;
            let module = source::TestModule {
                // Like the implementations' names, one no item of the student's can have.
                name: format!("m{:016x}", stable_hash(&shown)),
                bytes: 0..text.len(),
                lines: 1..text.matches('\n').count() + 2,
                tests,
            };
            files.push(StudentFile {
                shown,
                text,
                modules: vec![module],
                names_crate: Some(names_crate.clone()),
            });
        }
        Ok(files)
    }

    /// Test `test` of module `module`, by its names.
    pub fn test_name(&self, module: usize, test: usize) -> TestName {
        let (module, test) = (&self.modules[module], &self.modules[module].tests[test]);
        let in_harness = format!("{}::{}", module.name, test.name);
        let shown = match self.names_crate {
            Some(_) => format!("{}::{}", self.shown, test.name),
            None => format!("{}::{in_harness}", self.shown),
        };
        TestName { in_harness, shown }
    }

    /// Each `#[test]` found, by its names.
    pub fn tests(&self) -> Vec<TestName> {
        (0..self.modules.len())
            .flat_map(|module| {
                (0..self.modules[module].tests.len()).map(move |test| self.test_name(module, test))
            })
            .collect()
    }
}

/// The text of the file `shown` of the crate at `root`, at most [`FILE_CAP`] bytes of it.
fn read(root: &Path, shown: &str) -> Result<String, String> {
    let mut text = String::new();
    compile::open_regular(&root.join(shown))
        .and_then(|file| file.take(FILE_CAP).read_to_string(&mut text))
        .map_err(|error| format!("{shown} cannot be read: {error}"))?;
    Ok(text)
}

/// The name the crate at `root`'s integration tests call it by, when it is an identifier:
/// the name is written into the harness's source.
fn crate_name(root: &Path) -> Option<String> {
    let name = compile::locate(root).ok()?.lib_name;
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    identifier.then_some(name)
}

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
}

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
    let implementations: Vec<Implementation> = std::iter::once(Implementation::Reference)
        .chain((0..bugs.len()).map(Implementation::Bug))
        .collect();
    let mut runs: Vec<Run> = Vec::new();
    for test in &graded_tests {
        for implementation in &implementations {
            runs.push((under_test(test), Target::Implementation(*implementation)));
        }
    }
    for test in &on_yours {
        runs.push((
            format!("{}::{}", harness::YOURS, test.in_harness),
            Target::Yours,
        ));
    }
    let outcomes = Runs {
        harness: &launcher,
        oracle: &oracle,
        timeout: grading.timeout,
        budget: grading.budget,
    }
    .outcomes(runs);
    let runs_not_run = outcomes
        .values()
        .filter(|outcome| **outcome == Outcome::NotRun)
        .count();
    let outcome = |test: String, target: Target| {
        outcomes
            .get(&(test, target))
            .cloned()
            .unwrap_or(Outcome::NotRun)
    };
    let mut graded = Graded {
        file: Some(searched),
        left_out: student_texts(&built.left_out),
        not_run_on_yours: student_texts(&built.not_run_on_yours),
        yours: match built.yours {
            true => Ok(on_yours
                .iter()
                .filter_map(|test| {
                    let on_yours = format!("{}::{}", harness::YOURS, test.in_harness);
                    match outcome(on_yours, Target::Yours) {
                        Outcome::Passed => None,
                        Outcome::Failed(said) => Some((test.shown.as_str().into(), said.into())),
                        Outcome::NotRun => Some((test.shown.as_str().into(), NOT_RUN.into())),
                    }
                })
                .collect()),
            false => Err(built.yours_left_out.clone().unwrap_or_default().into()),
        },
        runs_not_run,
        ..Graded::default()
    };
    let mut valid = Vec::new();
    for test in &graded_tests {
        match outcome(
            under_test(test),
            Target::Implementation(Implementation::Reference),
        ) {
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
            let catcher = valid.iter().find_map(|test| {
                match outcome(
                    under_test(test),
                    Target::Implementation(Implementation::Bug(n)),
                ) {
                    Outcome::Failed(said) => Some((test.shown.as_str().into(), said.into())),
                    Outcome::Passed | Outcome::NotRun => None,
                }
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
