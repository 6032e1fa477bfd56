//! The library of bugs against the shipped specs, a trial per bug, so that a bug added to
//! a library is tested with no test written for it: each names two tests or more that catch
//! it (a listed case and a bulk group, or two listed cases), so that no bug rests on one
//! test; it fails; the tests it names fail; and each failure block names the difference,
//! by value, and gives the group's hint. The every-hand groups (seconds each) run only for
//! the bugs that name them. And, over the whole library, each bug is diagnosed by its own
//! name on every check it gets wrong, or the audit says why not.

mod support;

use std::sync::OnceLock;

use libtest_mimic::{Arguments, Failed, Trial};
use reference::bugs::{Bug, LIBRARIES, Library};

use support::{check, failure_of, result_line};

fn main() {
    let arguments = Arguments::from_args();
    let trials = LIBRARIES
        .iter()
        .flat_map(|library| {
            (library.bugs)().into_iter().map(move |bug| {
                Trial::test(format!("{}::{}", library.assignment, bug.name), move || {
                    is_caught(library, &bug)
                })
            })
        })
        .chain([Trial::test(
            "the untouched template earns no point of the code's tests",
            the_template_earns_no_point_of_the_codes_tests,
        )])
        .collect();
    libtest_mimic::run(&arguments, trials).exit();
}

/// The audit grades every assignment's untouched template and lists each test it passes:
/// of the built-in specs, none of a group of the code's tests (its every method is a
/// `todo!()`, the dealer's discards too, though seed 004 lets a student's stub keep every
/// card); a group of the students' own tests may earn a share by the template's example
/// test, as the README says. And every template's example tests can be graded against the
/// reference and the bugs, so the audit says which bugs they catch.
fn the_template_earns_no_point_of_the_codes_tests() -> Result<(), Failed> {
    let table = audit();
    let mut problems = Vec::new();
    let assignments: Vec<&str> = LIBRARIES.iter().map(|library| library.assignment).collect();
    for assignment in assignments {
        let lead = format!("  the untouched template (grader new --assignment {assignment})");
        let Some(at) = table.find(&lead) else {
            problems.push(format!("no line of {assignment}'s template in:\n{table}"));
            continue;
        };
        let mut lines = table[at..].lines().peekable();
        let said = lines.next().unwrap_or_default();
        if said.contains("cannot be graded") {
            problems.push(said.to_string());
        }
        while let Some(passed) = lines.next_if(|line| line.starts_with("          passes ")) {
            if passed.ends_with("in a group of the code's tests: does it measure anything?") {
                problems.push(format!("{assignment}: {passed}"));
            }
        }
        // Its example tests are graded against the reference and the bugs, said just after.
        if let Some(why) = lines.next_if(|line| line.contains("example tests cannot be graded")) {
            problems.push(format!("{assignment}: {why}"));
        }
    }
    match problems.is_empty() {
        true => Ok(()),
        false => Err(problems.join("\n").into()),
    }
}

/// Grades `bug` on its assignment alone; every way it falls short of being caught as the
/// library says, not only the first.
fn is_caught(library: &Library, bug: &Bug) -> Result<(), Failed> {
    let assignment = library.assignment;
    let mut problems = Vec::new();
    let mut catchers: Vec<&str> = bug.caught.iter().map(|caught| caught.test).collect();
    catchers.sort_unstable();
    catchers.dedup();
    match catchers[..] {
        [] => return Err("it names no test that catches it".into()),
        [only] => problems.push(format!("it names one catcher: {only}; every bug needs two")),
        _ => {}
    }
    let mut args = vec!["--assignment", assignment];
    if !bug.caught.iter().any(|caught| caught.test == "every_hand") {
        args.extend(["--skip", "every_hand"]);
    }
    let (code, stdout, stderr) = check(&support::write_bug(library, bug), &args);
    if code != 1 {
        return Err(
            format!("it should fail with exit code 1, not {code}:\n{stdout}\n{stderr}").into(),
        );
    }
    // A breakdown names what was wrong by value, never "its" answer against "another".
    problems.extend(
        stdout
            .lines()
            .filter(|line| {
                [
                    "expected its ",
                    "but got another ",
                    "expected the reference's ",
                ]
                .iter()
                .any(|vague| line.contains(vague))
            })
            .map(|line| format!("a breakdown line names no value: {line}")),
    );
    for caught in &bug.caught {
        let id = format!("{assignment}::{}", caught.test);
        if !result_line(&stdout, &id).ends_with("FAILED") {
            problems.push(format!("{id} did not fail:\n{stdout}"));
            continue;
        }
        let block = failure_of(&stdout, &id);
        for phrase in caught.says.iter().chain(&["hint"]) {
            if !block.contains(phrase) {
                problems.push(format!("`{phrase}` missing from:\n{block}"));
            }
        }
    }
    problems.extend(undiagnosed(&bug.name));
    match problems.is_empty() {
        true => Ok(()),
        false => Err(problems.join("\n\n").into()),
    }
}

/// The audit of every built-in spec, which grades each bug as a student's crate and keeps
/// its wrong answers as a known mistake: its table, run once for every trial, into an
/// answers store of its own.
fn audit() -> &'static str {
    static TABLE: OnceLock<String> = OnceLock::new();
    TABLE.get_or_init(|| {
        let store = support::scratch().join("mutants-known-mistakes");
        let _ = std::fs::remove_dir_all(&store);
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_grader"));
        let run = support::grader_env(&mut command)
            .env("CARDGRADE_ANSWERS_DIR", &store)
            .args(["spec", "audit", "--jobs", "2"])
            .output()
            .expect("the grader binary runs");
        String::from_utf8_lossy(&run.stdout).into_owned()
    })
}

/// Where the audit says bug `name` is not named by its own name alone on a check it gets
/// wrong, for no reason it gives: another bug answering alike there, or answers not all
/// known. Each such line.
fn undiagnosed(name: &str) -> Vec<String> {
    let table = audit();
    let Some(at) = table.find(&format!("  caught  {name}\n")) else {
        return vec![format!("the audit has no row for {name}:\n{table}")];
    };
    let row = &table[at + 2..];
    let row = &row[..row.find("\n  caught  ").unwrap_or(row.len())];
    let said: Vec<&str> = row
        .lines()
        .map(str::trim)
        .filter(|line| {
            ["diagnos", "indistinguishable", "named as"]
                .iter()
                .any(|w| line.contains(w))
        })
        .collect();
    if said.is_empty() {
        return vec![format!("the audit says nothing of its diagnosis:\n{row}")];
    }
    said.into_iter()
        .filter(|line| {
            *line != "diagnosed by its name on every check it gets wrong"
                && !line.contains(": indistinguishable from ")
                && !line.ends_with(": not diagnosed, as it did not answer every input")
        })
        .map(|line| format!("not diagnosed as itself: {line}"))
        .collect()
}
