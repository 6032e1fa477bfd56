//! Runs of the harness: its tests listed, and one implementation's tests run one at a
//! time, so that a test that hangs, floods or ends the process is the one named.

use std::collections::BTreeMap;
use std::time::Duration;

use super::ending_words;
use crate::runner::Launcher;
use crate::runner::once::{Ending, Ran};

/// How long listing the tests may take.
const LIST_TIMEOUT: Duration = Duration::from_secs(10);

/// Every test of the harness, by its full path.
pub fn list(launcher: &Launcher) -> Result<Vec<String>, String> {
    let args = ["--list", "--format", "terse"].map(String::from);
    let ran = launch(launcher, &args, LIST_TIMEOUT)?;
    if let Some(why) = ending_words(&ran.ending) {
        return Err(format!("your tests could not be listed: {why}"));
    }
    Ok(ran
        .stdout
        .lines()
        .filter_map(|line| line.strip_suffix(": test"))
        .map(str::to_string)
        .collect())
}

fn launch(launcher: &Launcher, args: &[String], timeout: Duration) -> Result<Ran, String> {
    launcher
        .run_once(args, timeout)
        .map_err(|error| format!("your tests could not be started: {error}"))
}

/// Each of `tests` (paths inside `module`) run on `module`: Ok when it passed, else what
/// it said. A test that ends the run (a hang, a flood, an exit) fails with that, and the
/// tests after it run again without it.
pub fn results(
    launcher: &Launcher,
    module: &str,
    tests: &[String],
    timeout: Duration,
) -> Vec<(String, Result<(), String>)> {
    let mut found: BTreeMap<String, Result<(), String>> = BTreeMap::new();
    while let Some(outcome) = run_remaining(launcher, module, tests, &found, timeout) {
        let progressed = !outcome.is_empty();
        found.extend(outcome);
        if !progressed {
            break;
        }
    }
    tests
        .iter()
        .map(|test| {
            let outcome = found
                .remove(test)
                .unwrap_or_else(|| Err("it did not run".to_string()));
            (test.clone(), outcome)
        })
        .collect()
}

/// The first of `tests` that fails on `module`, and what it said; None when all pass.
pub fn first_failure(
    launcher: &Launcher,
    module: &str,
    tests: &[String],
    timeout: Duration,
) -> Option<(String, String)> {
    // A run that ends early is not taken up again: its failure is enough.
    let found = run_remaining(launcher, module, tests, &BTreeMap::new(), timeout)?;
    tests.iter().find_map(|test| match found.get(test) {
        Some(Err(said)) => Some((test.clone(), said.clone())),
        _ => None,
    })
}

/// One run of the tests not yet in `found`; None when none is left.
fn run_remaining(
    launcher: &Launcher,
    module: &str,
    tests: &[String],
    found: &BTreeMap<String, Result<(), String>>,
    timeout: Duration,
) -> Option<BTreeMap<String, Result<(), String>>> {
    let remaining: Vec<&String> = tests.iter().filter(|t| !found.contains_key(*t)).collect();
    if remaining.is_empty() {
        return None;
    }
    let mut args: Vec<String> = ["--exact", "--test-threads=1", "--color=never"]
        .map(String::from)
        .to_vec();
    args.extend(remaining.iter().map(|test| format!("{module}::{test}")));
    let ran = match launch(launcher, &args, timeout) {
        Ok(ran) => ran,
        Err(why) => {
            return Some(
                remaining
                    .iter()
                    .map(|t| ((*t).clone(), Err(why.clone())))
                    .collect(),
            );
        }
    };
    let mut outcome = parse(&ran.stdout, module);
    let complete = remaining.iter().all(|test| outcome.contains_key(*test));
    // libtest exits with 101 when a test failed: only a run cut short says something.
    let cut_short = match &ran.ending {
        Ending::Exited { .. } if complete => None,
        Ending::Exited { how, .. } => Some(format!("the test process {how} before the test ended")),
        ending => ending_words(ending),
    };
    if let Some(mut why) = cut_short {
        let said: Vec<&str> = ran
            .stderr
            .lines()
            .filter(|l| !l.trim().is_empty())
            .collect();
        if let Some(last) = said.last() {
            why.push_str(&format!(
                " (it printed: {})",
                last.replace(&format!("{module}::"), "")
            ));
        }
        // The test that was running: its name printed, its result not.
        let running = ran.stdout.lines().rev().find_map(|line| {
            let name = line
                .trim_end()
                .strip_prefix("test ")?
                .strip_suffix(" ...")?;
            name.strip_prefix(&format!("{module}::"))
        });
        let notes = if ran.notes.is_empty() {
            String::new()
        } else {
            format!("; {}", ran.notes.join("; "))
        };
        match running {
            Some(running) => {
                outcome.insert(running.to_string(), Err(format!("{why}{notes}")));
            }
            // Before any test started: none of them can run.
            None if outcome.is_empty() => {
                for test in &remaining {
                    outcome.insert((*test).clone(), Err(format!("{why}{notes}")));
                }
            }
            None => {}
        }
    } else if !ran.notes.is_empty() {
        // Something a test left running, found once the run ended: each test alone says
        // which.
        if remaining.len() == 1 {
            outcome.insert(remaining[0].clone(), Err(ran.notes.join("; ")));
        } else {
            for test in remaining {
                let alone = run_remaining(launcher, module, &[test.clone()], found, timeout);
                outcome.extend(alone.unwrap_or_default());
            }
        }
    }
    Some(outcome)
}

/// The results libtest printed for `module`'s tests, with what each failure said.
fn parse(stdout: &str, module: &str) -> BTreeMap<String, Result<(), String>> {
    let prefix = format!("{module}::");
    let mut outcome = BTreeMap::new();
    for line in stdout.lines() {
        let Some((name, result)) = line
            .strip_prefix("test ")
            .and_then(|rest| rest.rsplit_once(" ... "))
        else {
            continue;
        };
        let Some(name) = name.strip_prefix(&prefix) else {
            continue;
        };
        match result.trim() {
            "ok" => {
                outcome.insert(name.to_string(), Ok(()));
            }
            "FAILED" => {
                outcome.insert(name.to_string(), Err(said(stdout, module, name)));
            }
            _ => {}
        }
    }
    outcome
}

/// What test `name` printed when it failed, less the lines that place it in the harness.
fn said(stdout: &str, module: &str, name: &str) -> String {
    let header = format!("---- {module}::{name} stdout ----");
    let Some(start) = stdout.find(&header) else {
        return "it failed".to_string();
    };
    let body = &stdout[start + header.len()..];
    let end = ["\n---- ", "\nfailures:\n"]
        .iter()
        .filter_map(|marker| body.find(marker))
        .min()
        .unwrap_or(body.len());
    let lines: Vec<&str> = body[..end]
        .lines()
        .filter(|line| !line.starts_with("thread '") && !line.starts_with("note: "))
        .map(|line| line.trim_end())
        .filter(|line| !line.is_empty())
        .collect();
    if lines.is_empty() {
        "it failed".to_string()
    } else {
        lines.join("\n").replace(&format!("{module}::"), "")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "\nrunning 3 tests\ntest m1::tests::a ... ok\ntest m1::tests::b ... FAILED\ntest m1::tests::c ... \n\nfailures:\n\n---- m1::tests::b stdout ----\n\nthread 'm1::tests::b' panicked at src/main.rs:12:5:\nassertion `left == right` failed\n  left: 1\n right: 2\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n    m1::tests::b\n";

    #[test]
    fn results_and_what_failures_said_are_read_from_libtests_output() {
        let outcome = parse(OUTPUT, "m1");
        assert_eq!(outcome.len(), 2);
        assert_eq!(outcome["tests::a"], Ok(()));
        assert_eq!(
            outcome["tests::b"],
            Err("assertion `left == right` failed\n  left: 1\n right: 2".to_string())
        );
    }
}
