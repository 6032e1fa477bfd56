//! `grader spec audit`: the reference's library of bugs students write, each built as a
//! crate and graded against the specs as course staff see them (hidden groups too), then a
//! table of which bugs each assignment's tests catch, by which tests, and which they miss;
//! or, with `--markdown`, the mutant table: each bug, the tests its library names as its
//! catchers, and every test that fails on it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use colored::Colorize;
use grader_api::Submission;
use reference::bugs::{Bug, LIBRARIES, Library};

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

mod known;
mod mutants;

/// Where the list of tests that caught a bug wraps.
const LINE_WIDTH: usize = 100;
/// How far a bug's description and tests are indented under its name.
const INDENT: &str = "          ";

#[derive(Debug, clap::Args)]
pub struct AuditArgs {
    /// Spec files, or folders of them, to grade the bugs against [default: the built-in
    /// specs].
    #[arg(value_name = "SPEC")]
    pub specs: Vec<PathBuf>,
    /// Bugs built and graded at once.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub jobs: usize,
    /// Stop a bug's build that takes longer than this [default: the specs' `defaults: {
    /// build_timeout_s }`, else 300].
    #[arg(long, value_name = "SECS")]
    pub build_timeout: Option<u64>,
    /// Print one Markdown table per assignment instead: each bug, the tests its library
    /// names as its catchers (marked where one does not fail), and the tests that fail on it.
    #[arg(long, conflicts_with = "mutants")]
    pub markdown: bool,
    /// Grade the mutants cargo-mutants makes of the reference instead of the library's bugs,
    /// and list those no test catches (install it first: `cargo install --locked
    /// cargo-mutants`).
    #[arg(long)]
    pub mutants: bool,
    /// With --mutants: this assignment's alone [default: every assignment the specs grade].
    #[arg(long, value_name = "NAME", requires = "mutants")]
    pub assignment: Option<String>,
    /// With --mutants: only the mutants whose cargo-mutants name (`src/lib.rs:31:9: replace
    /// count_values -> Vec<u32> with vec![]`) this regular expression matches.
    #[arg(long, value_name = "REGEX", requires = "mutants")]
    pub re: Option<String>,
    /// With --mutants: keep this mutant, by number or name, as a bug a `student_tests`
    /// group can name (repeatable); kept mutants are written beside the assignment's spec
    /// file, in `<spec>.mutants.yaml`.
    #[arg(long, value_name = "MUTANT", requires = "mutants")]
    pub keep: Vec<String>,
}

/// What grading a bug found: the ids of the tests that failed, or why it was not graded.
type Finding = Result<Vec<String>, String>;

use known::Wrongs;

/// The untouched template of an assignment, as `grader new --assignment` writes it: the
/// example test that catches each bug, and the tests it passes; each, or why it could not
/// be graded.
struct Template {
    examples: Result<BTreeMap<String, Option<String>>, String>,
    passes: Result<Vec<Earned>, String>,
}

/// A test the template passes, or earns a share of, and the points it earns: a test that
/// measures nothing, unless it grades the students' own tests, which the template's
/// example test may pass.
struct Earned {
    id: String,
    points: Points,
    of_student_tests: bool,
}

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
            timeout: args
                .build_timeout
                .map(Duration::from_secs)
                .or(suite.build_timeout)
                .unwrap_or(compile::DEFAULT_BUILD_TIMEOUT),
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

/// The library's bugs of each assignment `suite` grades, in the order its groups come.
fn bugs_of(suite: &Suite) -> Vec<(&'static Library, Bug)> {
    libraries_of(suite)
        .into_iter()
        .flat_map(|library| (library.bugs)().into_iter().map(move |bug| (library, bug)))
        .collect()
}

/// The library of each assignment `suite` grades, in the order its groups come.
fn libraries_of(suite: &Suite) -> Vec<&'static Library> {
    let mut assignments: Vec<&str> = Vec::new();
    for group in &suite.groups {
        let name = group.assignment.name();
        if !assignments.contains(&name) {
            assignments.push(name);
        }
    }
    assignments
        .iter()
        .flat_map(|name| {
            LIBRARIES
                .iter()
                .filter(move |library| library.assignment == *name)
        })
        .collect()
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
            (self.threads, Some(student_tests)),
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

/// Prints each assignment's bugs, each with whether a test of `suite` caught it and which
/// did, and whether the template's example tests catch it; and what the untouched template
/// passes.
fn print_table(
    suite: &Suite,
    bugs: &[(&Library, Bug)],
    findings: &[Finding],
    templates: &BTreeMap<&str, Template>,
    diagnoses: &[Vec<String>],
) {
    for (index, ((library, bug), finding)) in bugs.iter().zip(findings).enumerate() {
        let assignment = library.assignment;
        let examples = templates.get(assignment).map(|template| &template.examples);
        if let Some(of_it) = first_of_its_assignment(bugs, index) {
            println!("{}: {of_it}", assignment.bold());
            if let Some(template) = templates.get(assignment) {
                print_template(assignment, &template.passes);
            }
            if let Some(Err(why)) = examples {
                println!("  the template's example tests cannot be graded: {why}");
            }
        }
        let prefix = format!("{assignment}::");
        let label = match finding {
            Ok(failed) if !failed.is_empty() => format!("{:<8}", "caught").green(),
            Ok(_) => format!("{:<8}", "MISSED").red().bold(),
            Err(_) => format!("{:<8}", "error").yellow().bold(),
        };
        println!("  {label}{}", bug.name.bold());
        let words: Vec<&str> = bug.description.split_whitespace().collect();
        print!("{}", wrapped("", &words, ""));
        match finding {
            Err(why) => println!("{INDENT}{}", why.replace('\n', &format!("\n{INDENT}"))),
            Ok(failed) => {
                let pieces = grouped(&without(&prefix, failed));
                let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
                match pieces.is_empty() {
                    true => println!("{INDENT}no test fails"),
                    false => print!("{}", wrapped("caught by ", &pieces, ",")),
                }
                if let Some(Ok(caught)) = examples {
                    match caught.get(&*bug.name) {
                        Some(Some(test)) => {
                            println!("{INDENT}the template's example test {test} catches it")
                        }
                        _ => println!("{INDENT}the template's example tests miss it"),
                    }
                }
                for named in &bug.caught {
                    if let Some(why) = escaped(suite, failed, &prefix, named.test) {
                        println!(
                            "{INDENT}{} should catch it, but {}",
                            named.test,
                            why.yellow()
                        );
                    }
                }
                match diagnoses.get(index).map(Vec::as_slice) {
                    Some([]) if !failed.is_empty() => {
                        println!("{INDENT}diagnosed by its name on every check it gets wrong")
                    }
                    Some(unnamed) => {
                        for why in unnamed {
                            println!("{INDENT}{}", why.yellow());
                        }
                    }
                    None => {}
                }
            }
        }
    }
}

/// Prints what the untouched template of `assignment` passes, each test with the points it
/// earns: staff decide whether a test that measures nothing stays.
fn print_template(assignment: &str, passes: &Result<Vec<Earned>, String>) {
    let lead = format!("  the untouched template (grader new --assignment {assignment})");
    let passes = match passes {
        Ok(passes) => passes,
        Err(why) => {
            let why = why.lines().next().unwrap_or_default();
            return println!("{lead} cannot be graded: {why}");
        }
    };
    if passes.is_empty() {
        return println!("{lead} passes no test and earns no point");
    }
    let total: Points = passes.iter().map(|passed| passed.points).sum();
    println!("{lead} earns {}:", format!("{total} points").yellow());
    let prefix = format!("{assignment}::");
    for passed in passes {
        let whose = match passed.of_student_tests {
            true => ", from its example test, in a group of the students' own tests",
            false => ", in a group of the code's tests: does it measure anything?",
        };
        let id = passed.id.strip_prefix(&prefix).unwrap_or(&passed.id);
        println!("{INDENT}passes {id}: {} points{whose}", passed.points);
    }
}

/// Prints, for each assignment, a Markdown table of its bugs: each bug, the catchers its
/// library names, and the tests of `suite` that failed on it (or why it was not graded).
fn print_markdown(suite: &Suite, bugs: &[(&Library, Bug)], findings: &[Finding]) {
    for (index, ((library, bug), finding)) in bugs.iter().zip(findings).enumerate() {
        let assignment = library.assignment;
        if let Some(of_it) = first_of_its_assignment(bugs, index) {
            println!("\n**{assignment}**: {of_it}\n");
            println!("| bug | catchers | failing tests |\n|---|---|---|");
        }
        let prefix = format!("{assignment}::");
        let (catchers, failing) = match finding {
            Ok(failed) => {
                let catchers: Vec<String> = bug
                    .caught
                    .iter()
                    .map(|named| match escaped(suite, failed, &prefix, named.test) {
                        Some(why) => format!("{} ({why})", named.test),
                        None => named.test.to_string(),
                    })
                    .collect();
                let failing = match failed.is_empty() {
                    true => "MISSED: no test fails".to_string(),
                    false => grouped(&without(&prefix, failed)).join(", "),
                };
                (catchers.join(", "), failing)
            }
            Err(why) => (
                String::new(),
                format!("not graded: {}", why.lines().next().unwrap_or_default()),
            ),
        };
        println!("| {} | {catchers} | {failing} |", bug.name);
    }
    println!();
}

/// Test `ids` without their assignment's `prefix`.
fn without<'a>(prefix: &str, ids: &'a [String]) -> Vec<&'a str> {
    ids.iter()
        .map(|id| id.strip_prefix(prefix).unwrap_or(id))
        .collect()
}

/// Where the bug at `index` is the first of its assignment in `bugs` (which keep each
/// assignment's together), the count of that assignment's bugs, as `N bugs`.
fn first_of_its_assignment(bugs: &[(&Library, Bug)], index: usize) -> Option<String> {
    let assignment = bugs[index].0.assignment;
    if index > 0 && bugs[index - 1].0.assignment == assignment {
        return None;
    }
    let of_it = bugs
        .iter()
        .filter(|(library, _)| library.assignment == assignment)
        .count();
    Some(count(of_it, "bug"))
}

/// Why `test`, a catcher a bug names, is not among the `failed` ids of its assignment
/// (`prefix`): it passes, or `suite` does not hold it; `None` when it failed.
fn escaped(suite: &Suite, failed: &[String], prefix: &str, test: &str) -> Option<&'static str> {
    let id = format!("{prefix}{test}");
    if failed.contains(&id) {
        return None;
    }
    Some(match suite.tests().any(|(_, test)| test.id == id) {
        true => "passes",
        false => "is not in the specs",
    })
}

/// `pieces` after `lead`, each followed by `after` but the last, in lines no wider than
/// [`LINE_WIDTH`] where the pieces allow, indented by [`INDENT`] and the continuation lines
/// past `lead`.
fn wrapped(lead: &str, pieces: &[&str], after: &str) -> String {
    let mut out = String::new();
    let mut line = format!("{INDENT}{lead}");
    let mut empty = true;
    for (index, piece) in pieces.iter().enumerate() {
        let piece = match index + 1 == pieces.len() {
            true => piece.to_string(),
            false => format!("{piece}{after}"),
        };
        if !empty && line.chars().count() + piece.chars().count() + 1 > LINE_WIDTH {
            out.push_str(line.trim_end());
            out.push('\n');
            line = format!("{INDENT}{}", " ".repeat(lead.len()));
        }
        line.push_str(&piece);
        line.push(' ');
        empty = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

/// Test ids as pieces to wrap, the cases of one group together: `group::{a, b}`, where the
/// comma after each piece but the last is the wrapping's.
fn grouped(ids: &[&str]) -> Vec<String> {
    let group_of = |id: &str| id.rsplit_once("::").map(|(group, _)| group.to_string());
    let mut pieces = Vec::new();
    let mut at = 0;
    while at < ids.len() {
        let group = group_of(ids[at]);
        let run = ids[at..]
            .iter()
            .take_while(|id| group_of(id) == group)
            .count();
        let ids = &ids[at..at + run];
        match (&group, ids) {
            (Some(group), [first, middle @ .., last]) => {
                let case = |id: &str| id[group.len() + 2..].to_string();
                pieces.push(format!("{group}::{{{}", case(first)));
                pieces.extend(middle.iter().map(|id| case(id)));
                pieces.push(format!("{}}}", case(last)));
            }
            _ => pieces.extend(ids.iter().map(|id| id.to_string())),
        }
        at += run;
    }
    pieces
}

/// `n` and `noun`, plural but for 1.
fn count(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        _ => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_failed_cases_of_a_group_are_listed_together() {
        let ids = ["g::a", "g::b", "g::c", "bulk", "h::d", "more"];
        assert_eq!(
            grouped(&ids),
            ["g::{a", "b", "c}", "bulk", "h::d", "more"].map(String::from)
        );
        let pieces = grouped(&ids);
        let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
        assert_eq!(
            wrapped("caught by ", &pieces, ","),
            format!("{INDENT}caught by g::{{a, b, c}}, bulk, h::d, more\n")
        );
    }
}
