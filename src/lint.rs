//! `grader spec lint`: every mistake of every spec file, each at its file, line and column,
//! in file order, then a count. Errors are what loading refuses and what the reference
//! contradicts; warnings are what loads but is likely wrong.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use colored::Colorize;
use grader_api::Submission;
use grader_api::spec::{Grading, Visibility};

use crate::check::expected::{ReferenceWatch, expectations};
use crate::exit;
use crate::grade::Expected;
use crate::spec::{self, Group, SpecError, Suite};

/// A correct submission answers through the runner, in a sandbox, several times slower than
/// the reference answers in-process: a reference this close to the timeout leaves it no room.
const ROOM_FOR_A_SUBMISSION: u32 = 4;

#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// Spec files, or folders of them (their .yaml files); `specs/` here when none is given.
    #[arg(value_name = "SPEC")]
    pub specs: Vec<PathBuf>,
    /// Leave out answering bulk groups with the reference, which takes seconds for the
    /// exhaustive ones, and so the warning of a timeout that leaves a submission no room.
    #[arg(long)]
    pub quick: bool,
}

/// What lint found in one file.
#[derive(Default)]
struct Findings {
    errors: Vec<SpecError>,
    warnings: Vec<SpecError>,
    /// Its groups shown in full from the due date on: warned of when no file gives one,
    /// since the latest date of any file is every file's.
    undated: Vec<SpecError>,
    gives_due: bool,
}

pub fn run(args: LintArgs) -> ExitCode {
    let specs = match args.specs.is_empty() {
        false => args.specs,
        true if Path::new("specs").is_dir() => vec![PathBuf::from("specs")],
        true => {
            return exit::done_or_usage(Err(
                "give the spec files or folders to lint (there is no specs/ here)".into(),
            ));
        }
    };
    let files = match spec::spec_files(&specs) {
        Ok(files) => files,
        Err(message) => return exit::done_or_usage(Err(message)),
    };
    let reference = reference::submission();
    let mut all: Vec<Findings> = files
        .iter()
        .map(|file| lint(file, &reference, args.quick))
        .collect();
    if !all.iter().any(|findings| findings.gives_due) {
        for findings in &mut all {
            let undated = std::mem::take(&mut findings.undated);
            findings.warnings.extend(undated);
        }
    }
    let (mut errors, mut warnings) = (0, 0);
    for findings in &all {
        errors += findings.errors.len();
        warnings += findings.warnings.len();
        let mut told: Vec<(&SpecError, bool)> = findings
            .errors
            .iter()
            .map(|error| (error, true))
            .chain(findings.warnings.iter().map(|warning| (warning, false)))
            .collect();
        told.sort_by_key(|(finding, _)| finding.location);
        for (finding, is_error) in told {
            println!("{}", told_as(finding, is_error));
        }
    }
    println!(
        "{} in {}",
        [counted(errors, "error"), counted(warnings, "warning")].join(" and "),
        counted(files.len(), "file")
    );
    ExitCode::from(if errors > 0 {
        exit::USAGE
    } else {
        exit::PASSED
    })
}

/// A finding as lint tells it: `file:line:column: error: message`.
pub fn told_as(finding: &SpecError, is_error: bool) -> String {
    let label = match is_error {
        true => "error:".red().bold(),
        false => "warning:".yellow().bold(),
    };
    let place = match finding.location {
        Some((line, column)) => format!("{}:{line}:{column}", finding.file),
        None => finding.file.clone(),
    };
    format!("{place}: {label} {}", finding.message)
}

fn counted(count: usize, thing: &str) -> String {
    match count {
        1 => format!("1 {thing}"),
        _ => format!("{count} {thing}s"),
    }
}

/// Every finding of one file: what loading finds, then, for the groups that load, what
/// the reference's answers say of them.
fn lint(path: &Path, reference: &Submission, quick: bool) -> Findings {
    let text = match spec::read(path) {
        Ok(text) => text,
        Err(error) => {
            return Findings {
                errors: vec![error],
                ..Findings::default()
            };
        }
    };
    let checked = spec::diagnose(&path.display().to_string(), &text, None);
    let mut suite = checked.suite;
    let mut findings = Findings {
        errors: checked.errors,
        warnings: std::mem::take(&mut suite.warnings),
        undated: undated_groups(&suite),
        gives_due: suite.due.is_some(),
    };
    findings.errors.extend(spec::colliding_ids(&suite.groups));
    let (expected, contradicted) = expectations(&suite, reference);
    findings.errors.extend(contradicted);
    findings
        .warnings
        .extend(hints_giving_answers(&suite, &expected));
    if !quick {
        findings
            .warnings
            .extend(timeouts_without_room(&suite, reference));
    }
    findings
}

/// What loads but is likely wrong, as `grader check` tells it of the specs it is given:
/// the loader's warnings, hints that give answers, and, when `due_given` is not, groups
/// waiting for a due date that no spec gives.
pub fn warnings(suite: &Suite, expected: &[Expected], due_given: bool) -> Vec<String> {
    let undated = match due_given || suite.due.is_some() {
        true => Vec::new(),
        false => undated_groups(suite),
    };
    let likely_wrong = hints_giving_answers(suite, expected);
    suite
        .warnings
        .iter()
        .chain(&likely_wrong)
        .chain(&undated)
        .map(|warning| told_as(warning, false))
        .collect()
}

/// Groups shown in full from the due date on, which without a due date are never shown.
fn undated_groups(suite: &Suite) -> Vec<SpecError> {
    suite
        .groups
        .iter()
        .filter(|group| group.visibility == Visibility::AfterDueDate)
        .map(|group| {
            at_group(
                group,
                format!(
                    "group `{}` is shown in full from the due date on, but no spec gives a due date: a student's view withholds it until `grader check --due` is given (Gradescope shows it from its own due date); give `defaults: {{ due: YYYY-MM-DD }}`",
                    group.name
                ),
            )
        })
        .collect()
}

/// Hidden groups whose hint, which a student sees, says what a case's answer is.
fn hints_giving_answers(suite: &Suite, expected: &[Expected]) -> Vec<SpecError> {
    let mut found = Vec::new();
    for ((group, test), answers) in suite.tests().zip(expected) {
        let Some(hint) = group
            .hint
            .as_deref()
            .filter(|_| group.visibility != Visibility::Visible)
        else {
            continue;
        };
        let hint = hint.to_lowercase();
        let given = answers
            .iter()
            .flat_map(|(_, replies)| replies)
            .find_map(|reply| {
                let answer = test.request.show(reply);
                telling(&answer)
                    .then_some(answer)
                    .filter(|answer| hint.contains(&answer.to_lowercase()))
            });
        if let Some(answer) = given {
            found.push(at_group(
                group,
                format!(
                    "group `{}` is {}, but its hint, which students see, says `{answer}`, the answer to case `{}`; a hint says what to look at, not what comes out",
                    group.name,
                    visibility_word(group.visibility),
                    test.name
                ),
            ));
        }
    }
    found
}

/// Whether an answer is one a hint could not say by chance: longer than a word like
/// `true` or a small number.
fn telling(answer: &str) -> bool {
    answer.chars().count() >= 5 && !matches!(answer, "true" | "false")
}

fn visibility_word(visibility: Visibility) -> &'static str {
    match visibility {
        Visibility::Visible => "visible",
        Visibility::Hidden => "hidden",
        Visibility::AfterDueDate => "hidden until the due date",
        Visibility::AfterPublished => "hidden until published",
    }
}

/// Bulk groups whose timeout the reference itself comes close to. The reference answers
/// under the group's timeout; one that runs past it is told by the watch, which stops lint.
fn timeouts_without_room(suite: &Suite, reference: &Submission) -> Vec<SpecError> {
    let watch = ReferenceWatch::new();
    let mut found = Vec::new();
    for (group, test) in suite.tests() {
        if test.grading != Grading::Bulk {
            continue;
        }
        let took = watch.answering(&test.id, group.timeout, || {
            let started = Instant::now();
            test.request.respond(reference, &mut |_| true);
            started.elapsed()
        });
        if !leaves_room(took, group.timeout) {
            found.push(at_group(
                group,
                format!(
                    "the reference takes {} of group `{}`'s {} timeout; a correct submission, answering through the runner, may take {ROOM_FOR_A_SUBMISSION} times as long: give `timeout_ms` at least {}",
                    millis(took),
                    group.name,
                    millis(group.timeout),
                    (took * ROOM_FOR_A_SUBMISSION * 2).as_millis()
                ),
            ));
        }
    }
    found
}

/// Whether a timeout leaves a correct submission room, when the reference takes `took`.
fn leaves_room(took: Duration, timeout: Duration) -> bool {
    took * ROOM_FOR_A_SUBMISSION <= timeout
}

fn millis(duration: Duration) -> String {
    format!("{} ms", duration.as_millis())
}

fn at_group(group: &Group, message: String) -> SpecError {
    SpecError {
        file: group.file.clone(),
        location: group.location,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_leaves_room_for_a_submission_four_times_slower() {
        let ms = Duration::from_millis;
        assert!(leaves_room(ms(500), ms(2_000)));
        assert!(!leaves_room(ms(501), ms(2_000)));
        assert!(!leaves_room(ms(1_900), ms(2_000)));
    }

    #[test]
    fn a_hint_names_an_answer_only_when_the_answer_is_more_than_a_word() {
        assert!(telling("straight flush"));
        assert!(telling("[9, 5]"));
        assert!(!telling("true"));
        assert!(!telling("false"));
        assert!(!telling("135"));
    }
}
