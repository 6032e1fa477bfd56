//! `grader spec audit`: the reference's library of bugs students write, each built as a
//! crate and graded against the specs as course staff see them (hidden groups too), then a
//! table of which bugs each assignment's tests catch, by which tests, and which they miss;
//! or, with `--markdown`, the mutant table: each bug, the tests its library names as its
//! catchers, and every test that fails on it.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use colored::Colorize;
use grader_api::Submission;
use reference::bugs::{Bug, Library};

use crate::answers::Store;
use crate::check::{expectations, grade_built, sandbox_for};
use crate::compile::{self, Build};
use crate::exit::{self, Stop};
use crate::grade::Expected;
use crate::mutant::write_bug;
use crate::results::{Points, earned_per_test};
use crate::sandbox::{Mode, Sandbox};
use crate::spec::{self, SpecErrors, Suite};
use crate::student_tests::StudentTestsRun;
use crate::student_tests::examples::{caught_by_examples, template_crate};
use crate::verdict::Verdict;

mod args;
mod known;
mod libraries;
mod mutants;
mod table;

pub use args::AuditArgs;
use known::Wrongs;
use libraries::bugs_of;
use table::{Earned, Finding, Template, count, print_markdown, print_table};

/// How long the template's own tests may take together: as a student's, a group's.
const TEMPLATE_BUDGET: Duration = Duration::from_secs(600);

pub fn run(args: AuditArgs) -> ExitCode {
    match audit(&args) {
        Ok(true) => ExitCode::from(exit::PASSED),
        Ok(false) => ExitCode::from(exit::FAILED),
        Err(stop) => stop.report(),
    }
}

/// Grades every bug of the assignments the specs grade (or, with `--mutants`, every mutant
/// cargo-mutants makes of their reference) and prints the table; whether the specs catch
/// every one.
fn audit(args: &AuditArgs) -> Result<bool, Stop> {
    let suite =
        spec::load(&args.specs, &[], None).map_err(|error| Stop::Spec(error.to_string()))?;
    let target = compile::builds_folder()
        .map_err(|error| Stop::Usage(format!("no folder to build the bugs in: {error}")))?;
    // Before the reference answers: a missing cargo-mutants is said at once.
    let generated = match args.mutants {
        true => Some(mutants::of_suite(&suite, args, &target)?),
        false => None,
    };
    let reference = reference::submission();
    let (expected, contradicted) = expectations(&suite, &reference);
    if !contradicted.is_empty() {
        return Err(Stop::Spec(SpecErrors(contradicted).to_string()));
    }
    let library_bugs = match args.mutants {
        true => Vec::new(),
        false => bugs_of(&suite),
    };
    let bugs: Vec<(&Library, &Bug)> = match &generated {
        Some(listings) => listings
            .iter()
            .flat_map(|listing| {
                listing
                    .mutants
                    .iter()
                    .map(|mutant| (listing.library, &mutant.bug))
            })
            .collect(),
        None => library_bugs
            .iter()
            .map(|(library, bug)| (*library, bug))
            .collect(),
    };
    let sandbox = sandbox_for(Mode::Auto).map_err(Stop::Usage)?;
    let jobs = args.jobs.clamp(1, bugs.len().max(1));
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let grading = Grading {
        answered: (&suite, &reference, &expected),
        sandbox: &sandbox,
        build: Build {
            color: false,
            timeout: compile::build_timeout(args.build_timeout, suite.build_timeout),
            allowed: &suite.allowed_dependencies,
            shared: Some(&target),
            incremental: false,
        },
        target: &target,
        threads: (cores / jobs).max(1),
    };
    let (findings, wrongs) = grading.grade_all(&bugs, jobs);
    if let Some(listings) = &generated {
        return mutants::report(listings, &findings, &suite, args);
    }
    let bugs = library_bugs;
    let store = Store::default_for(&target);
    let diagnoses = known::keep(&suite, &bugs, &wrongs, &store);
    match args.markdown {
        true => print_markdown(&suite, &bugs, &findings),
        false => {
            let mut templates = BTreeMap::new();
            for library in bugs.iter().map(|(library, _)| *library) {
                if !templates.contains_key(library.assignment) {
                    templates.insert(library.assignment, grading.template(library));
                }
            }
            print_table(&suite, &bugs, &findings, &templates, &diagnoses);
        }
    }
    let caught = findings
        .iter()
        .filter(|finding| finding.as_ref().is_ok_and(|failed| !failed.is_empty()))
        .count();
    println!("{caught} of {} caught", count(bugs.len(), "bug"));
    Ok(caught == bugs.len())
}

/// What every bug is graded with.
struct Grading<'a> {
    answered: (&'a Suite, &'a Submission, &'a [Expected]),
    sandbox: &'a Sandbox,
    build: Build<'a>,
    /// The grader's target dir: the bugs' crates and their builds.
    target: &'a Path,
    /// Tests of one bug run at once.
    threads: usize,
}

impl Grading<'_> {
    /// Grades `jobs` bugs at a time, telling of each as it is done; the findings in the
    /// order of `bugs`.
    fn grade_all(&self, bugs: &[(&Library, &Bug)], jobs: usize) -> (Vec<Finding>, Vec<Wrongs>) {
        let next = AtomicUsize::new(0);
        let (finished, found) = std::sync::mpsc::channel();
        let mut findings = Vec::new();
        std::thread::scope(|scope| {
            for _ in 0..jobs {
                let finished = finished.clone();
                let next = &next;
                scope.spawn(move || {
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some((library, bug)) = bugs.get(index) else {
                            return;
                        };
                        if finished.send((index, self.grade(library, bug))).is_err() {
                            return;
                        }
                    }
                });
            }
            drop(finished);
            for (index, (finding, wrong)) in found {
                let (label, what) = match &finding {
                    Ok(failed) if failed.is_empty() => ("Graded".green(), "no test fails".into()),
                    Ok(failed) => (
                        "Graded".green(),
                        format!("{} failed", count(failed.len(), "test")),
                    ),
                    Err(why) => (
                        "Not graded".red(),
                        why.lines().next().unwrap_or_default().to_string(),
                    ),
                };
                findings.push((index, finding, wrong));
                eprintln!(
                    "{:>12} {} ({what}; {} of {})",
                    label.bold(),
                    bugs[index].1.name,
                    findings.len(),
                    bugs.len()
                );
            }
        });
        findings.sort_by_key(|(index, _, _)| *index);
        findings
            .into_iter()
            .map(|(_, finding, wrong)| (finding, wrong))
            .unzip()
    }

    /// Writes `bug`'s crate, builds it and grades it on its assignment's tests: what it
    /// found, and the wrong answers of each test it failed.
    fn grade(&self, library: &Library, bug: &Bug) -> (Finding, Wrongs) {
        match self.graded(library, bug) {
            Ok((failed, wrong)) => (Ok(failed), wrong),
            Err(why) => (Err(why), Wrongs::new()),
        }
    }

    fn graded(&self, library: &Library, bug: &Bug) -> Result<(Vec<String>, Wrongs), String> {
        let dir = write_bug(self.target, library, bug)?;
        let submission = compile::locate(&dir).map_err(|error| error.to_string())?;
        let built = compile::build(&submission, self.sandbox, &self.build)
            .map_err(|error| error.to_string())?;
        let suite = self.answered.0;
        let selected: Vec<usize> = (0..)
            .zip(suite.tests())
            // The students' own tests are no test of a bug's code.
            .filter(|(_, (group, test))| {
                group.assignment.name() == library.assignment
                    && test.grading != grader_api::spec::Grading::StudentTests
            })
            .map(|(index, _)| index)
            .collect();
        let results = grade_built(
            self.answered,
            self.sandbox.clone(),
            &built,
            &selected,
            (self.threads, None),
        )
        .map_err(|error| error.to_string())?;
        let failures =
            suite
                .tests()
                .zip(&results)
                .enumerate()
                .filter_map(|(index, ((_, test), result))| match &result.verdict {
                    Some(Verdict::Failed(failure)) => Some((index, test, failure)),
                    _ => None,
                });
        let mut failed = Vec::new();
        let mut wrong = Wrongs::new();
        for (index, test, failure) in failures {
            failed.push(test.id.clone());
            if let Some(answers) = &failure.wrong {
                wrong.push((index, answers.clone()));
            }
        }
        Ok((failed, wrong))
    }
}

impl Grading<'_> {
    /// Writes the untouched template of `library`'s assignment, grades its example tests
    /// on the library's bugs, and grades it as a student's crate, on every test of its
    /// assignment.
    fn template(&self, library: &Library) -> Template {
        let folder = template_crate(library.assignment);
        let examples = folder
            .clone()
            .and_then(|folder| caught_by_examples(library, &folder, self.sandbox, &self.build));
        let passes = folder.and_then(|folder| self.template_passes(library.assignment, &folder));
        Template { examples, passes }
    }

    fn template_passes(&self, assignment: &str, folder: &Path) -> Result<Vec<Earned>, String> {
        let submission = compile::locate(folder).map_err(|error| error.to_string())?;
        let built = compile::build(&submission, self.sandbox, &self.build)
            .map_err(|error| error.to_string())?;
        let suite = self.answered.0;
        let selected: Vec<usize> = (0..)
            .zip(suite.tests())
            .filter(|(_, (group, _))| group.assignment.name() == assignment)
            .map(|(index, _)| index)
            .collect();
        let student_tests = StudentTestsRun::new(
            folder.to_path_buf(),
            self.sandbox.clone(),
            &self.build,
            Instant::now() + TEMPLATE_BUDGET,
        );
        let results = grade_built(
            self.answered,
            self.sandbox.clone(),
            &built,
            &selected,
            (self.threads, Some(std::sync::Arc::new(student_tests))),
        )
        .map_err(|error| error.to_string())?;
        let earned = earned_per_test(suite, &results);
        Ok(suite
            .tests()
            .zip(&results)
            .zip(earned)
            .filter(|((_, result), points)| {
                matches!(result.verdict, Some(Verdict::Passed)) || *points > Points::ZERO
            })
            .map(|(((group, test), _), points)| Earned {
                id: test.id.clone(),
                points,
                of_student_tests: group.student_tests.is_some(),
            })
            .collect())
    }
}
