//! `grader spec audit --mutants`: the mutants cargo-mutants makes of the reference's module
//! of an assignment, each made a bug of the library (an edit of the reference's text) and
//! graded as the library's bugs are, so that staff see which changes of the reference no
//! test of the specs notices; a chosen one can be kept as a bug for `student_tests`.

use std::borrow::Cow;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::Command;

use colored::Colorize;
use reference::bugs::{Bug, Library};
use serde::Deserialize;

use super::args::AuditArgs;
use super::libraries::libraries_of;
use super::table::{Finding, INDENT, count, grouped, without, wrapped};
use crate::exit::Stop;
use crate::mutant::{Mutant, module_source, own_file};
use crate::spec::{Suite, kept};
use grader_api::spec::{KeptEdit, KeptMutant};

/// How staff install the tool, as the message of its absence says.
pub const INSTALL: &str = "cargo install --locked cargo-mutants";

/// The tool's executable, found on PATH as cargo finds its subcommands.
const TOOL: &str = "cargo-mutants";

/// Functions of a reference module that wire it into a submission: no student writes them,
/// and a runner without them grades nothing.
const WIRING: [&str; 1] = ["register"];

/// A mutant as `cargo mutants --list --json` gives it.
#[derive(Deserialize)]
struct Listed {
    /// `src/lib.rs:31:9: replace … with …`, which `--re` matches.
    name: String,
    replacement: String,
    span: Span,
    function: Option<Function>,
}

#[derive(Deserialize)]
struct Function {
    function_name: String,
}

#[derive(Deserialize, Clone, Copy)]
struct Span {
    start: LineColumn,
    end: LineColumn,
}

/// A place in the mutated file: both counted from 1, the column in characters.
#[derive(Deserialize, Clone, Copy)]
struct LineColumn {
    line: usize,
    column: usize,
}

/// A mutant of an assignment's reference module.
pub struct Generated {
    /// Its number among its assignment's mutants, in cargo-mutants' order: `--keep` names it.
    pub number: usize,
    /// Where it is in the reference: `reference/src/<assignment>.rs:52:9`.
    pub place: String,
    /// What it changes, in cargo-mutants' words: `replace … with …`.
    pub change: String,
    /// It as a bug of the library: what grading builds and keeping writes.
    pub bug: Bug,
}

/// An assignment's mutants, those selected.
pub struct Listing {
    pub library: &'static Library,
    /// How many mutants its module has in all.
    pub total: usize,
    pub mutants: Vec<Generated>,
}

/// The mutants of each assignment `suite` grades (or `args.assignment` alone) that
/// `args.re` selects.
pub fn of_suite(suite: &Suite, args: &AuditArgs, target: &Path) -> Result<Vec<Listing>, Stop> {
    let libraries = libraries_of(suite);
    let chosen: Vec<&'static Library> = match &args.assignment {
        None => libraries,
        Some(name) => {
            let Some(library) = libraries.iter().find(|library| library.assignment == name) else {
                let graded: Vec<&str> =
                    libraries.iter().map(|library| library.assignment).collect();
                return Err(Stop::Usage(format!(
                    "the specs grade no assignment `{name}`; they grade {}",
                    graded.join(", ")
                )));
            };
            vec![*library]
        }
    };
    let mut listings = Vec::new();
    for library in chosen {
        let (total, mutants) = generate(library, target, args.re.as_deref())?;
        listings.push(Listing {
            library,
            total,
            mutants,
        });
    }
    // What --keep names is found before any mutant is graded.
    for wanted in &args.keep {
        to_keep(&listings, suite, args, wanted)?;
    }
    if listings.iter().all(|listing| listing.mutants.is_empty()) {
        let total: usize = listings.iter().map(|listing| listing.total).sum();
        return Err(Stop::NoTests(format!(
            "--re selects none of the {} of the reference",
            count(total, "mutant")
        )));
    }
    Ok(listings)
}

/// How a mutant came out.
enum Outcome {
    Caught,
    Survived,
    /// It does not build, or could not be graded.
    Unviable,
}

fn outcome(finding: &Finding) -> Outcome {
    match finding {
        Ok(failed) if failed.is_empty() => Outcome::Survived,
        Ok(_) => Outcome::Caught,
        Err(_) => Outcome::Unviable,
    }
}

/// Prints each mutant with what came of it (`findings`, in the order of `listings`), then
/// the count of each outcome; keeps the mutants `args.keep` names. Whether none survived:
/// a survivor is a change of the reference that no test of `suite` notices.
pub fn report(
    listings: &[Listing],
    findings: &[Finding],
    suite: &Suite,
    args: &AuditArgs,
) -> Result<bool, Stop> {
    let mut findings = findings.iter();
    let (mut caught, mut survived, mut unviable) = (0, 0, 0);
    for listing in listings {
        let assignment = listing.library.assignment;
        println!(
            "{}: {} of {} of the reference",
            assignment.bold(),
            listing.mutants.len(),
            count(listing.total, "mutant")
        );
        let prefix = format!("{assignment}::");
        for (mutant, finding) in listing.mutants.iter().zip(findings.by_ref()) {
            let label = match outcome(finding) {
                Outcome::Caught => {
                    caught += 1;
                    format!("{:<9}", "caught").green()
                }
                Outcome::Survived => {
                    survived += 1;
                    format!("{:<9}", "SURVIVED").red().bold()
                }
                Outcome::Unviable => {
                    unviable += 1;
                    format!("{:<9}", "unviable").yellow()
                }
            };
            println!(
                "  {label}#{:<4}{} {}: {}",
                mutant.number,
                mutant.bug.name.bold(),
                mutant.place,
                mutant.change
            );
            match finding {
                Ok(failed) if failed.is_empty() => println!("{}no test fails", INDENT),
                Ok(failed) => {
                    let pieces = grouped(&without(&prefix, failed));
                    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
                    print!("{}", wrapped("caught by ", &pieces, ","));
                }
                // A build's failure starts with a line for students: the compiler's error
                // says what the mutant broke.
                Err(why) => println!(
                    "{}not graded: {}",
                    INDENT,
                    why.lines()
                        .find(|line| line.trim_start().starts_with("error"))
                        .or_else(|| why.lines().next())
                        .unwrap_or_default()
                        .trim()
                ),
            }
        }
    }
    println!(
        "{}: {caught} caught, {survived} survived, {unviable} unviable",
        count(caught + survived + unviable, "mutant")
    );
    for wanted in &args.keep {
        keep(listings, suite, args, wanted)?;
    }
    Ok(survived == 0)
}

/// Keeps the mutant `wanted` names (its number or its name) in the kept file beside the
/// spec file that grades its assignment, where a `student_tests` group can name it.
fn keep(listings: &[Listing], suite: &Suite, args: &AuditArgs, wanted: &str) -> Result<(), Stop> {
    let (mutant, spec) = to_keep(listings, suite, args, wanted)?;
    let path = kept::beside(spec);
    let mut all = kept::read(&path).map_err(Stop::Usage)?;
    let name = mutant.bug.name.to_string();
    let this = KeptMutant {
        name: name.clone(),
        description: mutant.bug.description.to_string(),
        edits: mutant
            .bug
            .edits
            .iter()
            .map(|(from, to)| KeptEdit {
                from: from.to_string(),
                to: to.clone(),
            })
            .collect(),
    };
    match all.iter().find(|kept| kept.name == name) {
        Some(kept) if kept.edits == this.edits => {
            println!("{name} is already kept in {}", path.display());
            return Ok(());
        }
        Some(_) => {
            return Err(Stop::Usage(format!(
                "--keep {wanted}: {} already keeps another mutant as `{name}`; rename that one there first",
                path.display()
            )));
        }
        None => all.push(this),
    }
    kept::write(&path, &all).map_err(Stop::Usage)?;
    println!(
        "kept {name} in {}: a `student_tests` group of {} may name it in `bugs:`",
        path.display(),
        spec.display()
    );
    Ok(())
}

/// The mutant `wanted` names (its number or its name) among `listings`, and the spec file
/// of `suite` it is kept beside: that of its assignment's `student_tests` group, else of
/// its first group.
fn to_keep<'a>(
    listings: &'a [Listing],
    suite: &'a Suite,
    args: &AuditArgs,
    wanted: &str,
) -> Result<(&'a Generated, &'a Path), Stop> {
    let number = wanted.trim_start_matches('#').parse::<usize>().ok();
    let found: Vec<(&Library, &Generated)> = listings
        .iter()
        .flat_map(|listing| {
            listing
                .mutants
                .iter()
                .map(|mutant| (listing.library, mutant))
        })
        .filter(|(_, mutant)| mutant.bug.name == wanted || number == Some(mutant.number))
        .collect();
    let (library, mutant) = match found[..] {
        [one] => one,
        [] => {
            return Err(Stop::Usage(format!(
                "--keep {wanted}: no mutant graded here has that number or name; `--re` may have left it out"
            )));
        }
        _ => {
            return Err(Stop::Usage(format!(
                "--keep {wanted}: mutants of several assignments have that number; name the one meant (`mutant-…`) or give `--assignment`"
            )));
        }
    };
    let groups = || {
        suite
            .groups
            .iter()
            .filter(|group| group.assignment.name() == library.assignment)
    };
    let spec = groups()
        .find(|group| group.student_tests.is_some())
        .or_else(|| groups().next())
        .map(|group| Path::new(&group.file));
    let Some(spec) = spec.filter(|_| !args.specs.is_empty()) else {
        return Err(Stop::Usage(format!(
            "--keep {wanted}: kept mutants are written beside the spec of their assignment, and the built-in specs are not files to write beside; name yours (`grader spec audit MY_SPEC --mutants --keep …`)"
        )));
    };
    Ok((mutant, spec))
}

/// The mutants of `library`'s reference module (its functions but its wiring, not the
/// modules it uses, its tests or what follows them), numbered as the whole list is, and of
/// them those whose cargo-mutants name `re` matches; the crate cargo-mutants reads is
/// written under `target`.
fn generate(
    library: &Library,
    target: &Path,
    re: Option<&str>,
) -> Result<(usize, Vec<Generated>), Stop> {
    let tool = find_tool().ok_or_else(|| {
        Stop::Usage(format!(
            "`grader spec audit --mutants` needs cargo-mutants, which is not on PATH; install it with `{INSTALL}`"
        ))
    })?;
    let assignment = library.assignment;
    let crate_name = format!("reference-{}", assignment.replace('_', "-"));
    let reference = Mutant::new::<&str, &str>(
        library,
        &crate_name,
        "none: the reference, for cargo-mutants to mutate",
        &[],
    )
    .map_err(Stop::Usage)?;
    let dir = target.join("mutants").join(assignment);
    reference
        .write(&dir)
        .map_err(|error| Stop::Usage(format!("cannot write {}: {error}", dir.display())))?;
    let (path, own) = own_file(assignment).map_err(Stop::Usage)?;
    let module = module_source::<&str, &str>(library, &[]).map_err(Stop::Usage)?;
    // The crate's library is a line saying what it is, then the module's text.
    let header = reference.library.find('\n').map_or(0, |n| n + 1);
    let own_lines = 2..=1 + own.lines().count();
    let selected = match re {
        Some(re) => Some(list(&tool, &dir, Some(re))?),
        None => None,
    };
    let mut generated = Vec::new();
    let mut number = 0;
    for listed in list(&tool, &dir, None)? {
        let wiring = listed
            .function
            .as_ref()
            .is_some_and(|function| WIRING.contains(&function.function_name.as_str()));
        if wiring || !own_lines.contains(&listed.span.start.line) {
            continue;
        }
        number += 1;
        if selected
            .as_ref()
            .is_some_and(|selected| !selected.iter().any(|s| s.name == listed.name))
        {
            continue;
        }
        let range = byte_range(&reference.library, listed.span)
            .filter(|range| range.start >= header)
            .map(|range| range.start - header..range.end - header)
            .ok_or_else(|| {
                Stop::Usage(format!(
                    "cargo-mutants placed `{}` past the text",
                    listed.name
                ))
            })?;
        let (from, to) = once_in(&module, range, &listed.replacement)
            .map_err(|why| Stop::Usage(format!("{}: {why}", listed.name)))?;
        let change = listed
            .name
            .split_once(": ")
            .map_or(listed.name.as_str(), |(_, change)| change)
            .to_string();
        let start = listed.span.start;
        let place = format!("reference/src/{path}:{}:{}", start.line - 1, start.column);
        generated.push(Generated {
            number,
            bug: Bug {
                name: Cow::Owned(format!("mutant-{}-{number}", assignment.replace('_', "-"))),
                description: Cow::Owned(format!("{place}: {change} (a mutant by cargo-mutants)")),
                edits: vec![(Cow::Owned(from), to)],
                caught: Vec::new(),
            },
            place,
            change,
        });
    }
    Ok((number, generated))
}

/// The cargo-mutants on PATH, if any.
fn find_tool() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(TOOL))
        .find(|candidate| candidate.is_file())
}

/// The mutants cargo-mutants lists of the crate at `dir`, those `re` matches if given.
fn list(tool: &Path, dir: &Path, re: Option<&str>) -> Result<Vec<Listed>, Stop> {
    let mut command = Command::new(tool);
    // As a cargo subcommand, it is told its own name first.
    command
        .args(["mutants", "--list", "--json", "--no-config", "--dir"])
        .arg(dir)
        // The crate's one dependency is the grader-api written beside it.
        .env("CARGO_NET_OFFLINE", "true");
    if let Some(re) = re {
        command.args(["--re", re]);
    }
    let output = command
        .output()
        .map_err(|error| Stop::Usage(format!("cannot run {}: {error}", tool.display())))?;
    if !output.status.success() {
        return Err(Stop::Usage(format!(
            "cargo-mutants could not list the mutants of {}: {}",
            dir.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    serde_json::from_slice(&output.stdout).map_err(|error| {
        Stop::Usage(format!(
            "cargo-mutants listed its mutants in a form this grader does not read ({error}); it reads cargo-mutants 27"
        ))
    })
}

/// The bytes of `text` that `span` covers.
fn byte_range(text: &str, span: Span) -> Option<Range<usize>> {
    let at = |place: LineColumn| -> Option<usize> {
        let line_start = match place.line.checked_sub(2) {
            None => 0,
            Some(newlines) => text.match_indices('\n').nth(newlines)?.0 + 1,
        };
        let line = &text[line_start..];
        let within = line
            .char_indices()
            .map(|(index, _)| index)
            .chain([line.len()])
            .nth(place.column.checked_sub(1)?)?;
        Some(line_start + within)
    };
    let range = at(span.start)?..at(span.end)?;
    (range.start <= range.end).then_some(range)
}

/// The edit that makes a mutant of `text` with `range` replaced by `replacement`: the whole
/// lines around `range`, as few as occur once in `text` (as a bug's edits must), and the
/// same lines mutated.
fn once_in(text: &str, range: Range<usize>, replacement: &str) -> Result<(String, String), String> {
    let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |n| n + 1);
    let line_end = |at: usize| text[at..].find('\n').map_or(text.len(), |n| at + n + 1);
    let (mut first, mut last) = (line_start(range.start), line_end(range.end));
    loop {
        let from = &text[first..last];
        if text.matches(from).count() == 1 {
            let to = format!(
                "{}{replacement}{}",
                &text[first..range.start],
                &text[range.end..last]
            );
            return Ok((from.to_string(), to));
        }
        if first == 0 && last == text.len() {
            return Err("its lines occur more than once, however many are taken".into());
        }
        first = line_start(first.saturating_sub(1));
        last = line_end(last);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mutant_edits_as_few_whole_lines_as_occur_once() {
        let text = "fn a() -> bool {\n    true\n}\nfn b() -> bool {\n    true\n}\n";
        let second_true = text.rfind("true").unwrap();
        let (from, to) = once_in(text, second_true..second_true + 4, "false").unwrap();
        assert_eq!(from, "fn b() -> bool {\n    true\n}\n");
        assert_eq!(to, "fn b() -> bool {\n    false\n}\n");
        assert_eq!(text.matches(&from).count(), 1);
    }

    #[test]
    fn a_span_counts_lines_and_characters_from_one() {
        let text = "// ♥ é\nlet x = a + b;\n";
        let span = Span {
            start: LineColumn {
                line: 2,
                column: 11,
            },
            end: LineColumn {
                line: 2,
                column: 12,
            },
        };
        assert_eq!(&text[byte_range(text, span).unwrap()], "+");
        let accented = Span {
            start: LineColumn { line: 1, column: 6 },
            end: LineColumn { line: 1, column: 7 },
        };
        assert_eq!(&text[byte_range(text, accented).unwrap()], "é");
    }
}
