//! The audit's table: what grading each bug found, printed for staff, as text or as
//! Markdown, and what the untouched template passes.

use std::collections::BTreeMap;

use colored::Colorize;
use reference::bugs::{Bug, Library};

use crate::results::Points;
use crate::spec::Suite;

/// Where the list of tests that caught a bug wraps.
const LINE_WIDTH: usize = 100;
/// How far a bug's description and tests are indented under its name.
pub const INDENT: &str = "          ";

/// What grading a bug found: the ids of the tests that failed, or why it was not graded.
pub type Finding = Result<Vec<String>, String>;

/// The untouched template of an assignment, as `grader new --assignment` writes it: the
/// example test that catches each bug, and the tests it passes; each, or why it could not
/// be graded.
pub struct Template {
    pub examples: Result<BTreeMap<String, Option<String>>, String>,
    pub passes: Result<Vec<Earned>, String>,
}

/// A test the template passes, or earns a share of, and the points it earns: a test that
/// measures nothing, unless it grades the students' own tests, which the template's
/// example test may pass.
pub struct Earned {
    pub id: String,
    pub points: Points,
    pub of_student_tests: bool,
}

/// Prints each assignment's bugs, each with whether a test of `suite` caught it and which
/// did, and whether the template's example tests catch it; and what the untouched template
/// passes.
pub fn print_table(
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
pub fn print_template(assignment: &str, passes: &Result<Vec<Earned>, String>) {
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
pub fn print_markdown(suite: &Suite, bugs: &[(&Library, Bug)], findings: &[Finding]) {
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
pub fn without<'a>(prefix: &str, ids: &'a [String]) -> Vec<&'a str> {
    ids.iter()
        .map(|id| id.strip_prefix(prefix).unwrap_or(id))
        .collect()
}

/// Where the bug at `index` is the first of its assignment in `bugs` (which keep each
/// assignment's together), the count of that assignment's bugs, as `N bugs`.
pub fn first_of_its_assignment(bugs: &[(&Library, Bug)], index: usize) -> Option<String> {
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
pub fn escaped(suite: &Suite, failed: &[String], prefix: &str, test: &str) -> Option<&'static str> {
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
pub fn wrapped(lead: &str, pieces: &[&str], after: &str) -> String {
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
pub fn grouped(ids: &[&str]) -> Vec<String> {
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
pub fn count(n: usize, noun: &str) -> String {
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
