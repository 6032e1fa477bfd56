//! Runs of the harness: its tests listed, and one implementation's tests run one at a
//! time, so that a test that hangs, floods or ends the process is the one named.

use std::collections::BTreeMap;
use std::time::Duration;

use super::ending_words;
use crate::runner::Launcher;
use crate::runner::once::{Ending, Ran};

fn launch(launcher: &Launcher, args: &[String], timeout: Duration) -> Result<Ran, String> {
    launcher
        .run_once(args, timeout)
        .map_err(|error| format!("your tests could not be started: {error}"))
}

/// Each of `tests` (full paths, each inside the module of its implementation): Ok when it
/// passed, else what it said. The implementations are shared out among the cores, a run
/// for each share at once (a student's test may take seconds, and it runs once per
/// implementation). A test that ends its run (a hang, a flood, an exit) fails with that,
/// and the tests after it run again without it; a run may take `timeout` for each
/// implementation it holds.
pub fn results(
    launcher: &Launcher,
    tests: &[String],
    timeout: Duration,
) -> BTreeMap<String, Result<(), String>> {
    let modules: Vec<&str> = tests
        .iter()
        .map(|test| module_of(test))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let shares: Vec<Vec<String>> = modules
        .chunks(modules.len().div_ceil(cores).max(1))
        .map(|share| {
            let tests = tests.iter().filter(|test| share.contains(&module_of(test)));
            tests.cloned().collect()
        })
        .collect();
    std::thread::scope(|scope| {
        let runs: Vec<_> = shares
            .iter()
            .map(|share| scope.spawn(|| results_of_share(launcher, share, timeout)))
            .collect();
        let mut found = BTreeMap::new();
        for (run, share) in runs.into_iter().zip(&shares) {
            found.extend(run.join().unwrap_or_else(|_| {
                let lost = || Err("its run was lost".to_string());
                share.iter().map(|test| (test.clone(), lost())).collect()
            }));
        }
        found
    })
}

/// The module of the implementation a test's full path is inside.
fn module_of(test: &str) -> &str {
    test.split("::").next().unwrap_or_default()
}

/// [`results`] of one share of the implementations, in one run after another.
fn results_of_share(
    launcher: &Launcher,
    tests: &[String],
    timeout: Duration,
) -> BTreeMap<String, Result<(), String>> {
    let modules: std::collections::BTreeSet<&str> =
        tests.iter().map(|test| module_of(test)).collect();
    let timeout = timeout * u32::try_from(modules.len().max(1)).unwrap_or(u32::MAX);
    let mut found: BTreeMap<String, Result<(), String>> = BTreeMap::new();
    while let Some(outcome) = run_remaining(launcher, tests, &found, timeout) {
        let progressed = !outcome.is_empty();
        found.extend(outcome);
        if !progressed {
            break;
        }
    }
    for test in tests {
        found
            .entry(test.clone())
            .or_insert_with(|| Err("it did not run".to_string()));
    }
    found
}

/// One run of the tests not yet in `found`; None when none is left.
fn run_remaining(
    launcher: &Launcher,
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
    args.extend(remaining.iter().map(|test| test.to_string()));
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
    // A process left behind by a test that ended may have printed over libtest's output:
    // each test alone says which left it, and what the others did.
    if !ran.notes.is_empty() && remaining.len() > 1 && matches!(ran.ending, Ending::Exited { .. }) {
        let mut outcome = BTreeMap::new();
        for test in remaining {
            let alone = run_remaining(launcher, std::slice::from_ref(test), found, timeout);
            outcome.extend(alone.unwrap_or_default());
        }
        return Some(outcome);
    }
    let mut outcome = parse(&ran.stdout);
    // A failure whose words are missing may have been printed over by a process that
    // escaped the count of those left behind: alone, the test says what it said.
    if remaining.len() > 1 {
        let unsaid: Vec<&String> = remaining
            .iter()
            .filter(|test| matches!(outcome.get(**test), Some(Err(said)) if said == NOTHING_SAID))
            .copied()
            .collect();
        for test in unsaid {
            let alone = run_remaining(launcher, std::slice::from_ref(test), found, timeout);
            outcome.extend(alone.unwrap_or_default());
        }
    }
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
            why.push_str(&format!(" (it printed: {})", unhidden(last)));
        }
        // The test that was running: its name printed, its result not.
        let running = ran
            .stdout
            .lines()
            .rev()
            .find_map(|line| line.trim_end().strip_prefix("test ")?.strip_suffix(" ..."));
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
        // The one test of the run left something running.
        outcome.insert(remaining[0].clone(), Err(ran.notes.join("; ")));
    }
    Some(outcome)
}

/// `text` without the hidden names of the implementations' modules.
pub fn unhidden(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("::") {
        let before = &rest[..at];
        let word_start = before
            .rfind(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .map_or(0, |n| n + 1);
        let word = &before[word_start..];
        let hidden = word.len() == 17
            && word.starts_with('m')
            && word[1..].chars().all(|c| c.is_ascii_hexdigit());
        shown.push_str(if hidden {
            &before[..word_start]
        } else {
            &rest[..at + 2]
        });
        rest = &rest[at + 2..];
    }
    shown.push_str(rest);
    shown
}

/// The results libtest printed, with what each failure said.
fn parse(stdout: &str) -> BTreeMap<String, Result<(), String>> {
    let mut outcome = BTreeMap::new();
    for line in stdout.lines() {
        let Some((name, result)) = line
            .strip_prefix("test ")
            .and_then(|rest| rest.rsplit_once(" ... "))
        else {
            continue;
        };
        match result.trim() {
            "ok" => {
                outcome.insert(name.to_string(), Ok(()));
            }
            "FAILED" => {
                outcome.insert(name.to_string(), Err(said(stdout, name)));
            }
            _ => {}
        }
    }
    outcome
}

/// What a failed test is said to have done when its output says nothing.
const NOTHING_SAID: &str = "it failed";

/// What test `name` printed when it failed, less the lines that place it in the harness.
fn said(stdout: &str, name: &str) -> String {
    let header = format!("---- {name} stdout ----");
    let Some(start) = stdout.find(&header) else {
        return NOTHING_SAID.to_string();
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
        NOTHING_SAID.to_string()
    } else {
        unhidden(&lines.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "\nrunning 3 tests\ntest m0123456789abcdef::tests::a ... ok\ntest m0123456789abcdef::tests::b ... FAILED\ntest m0123456789abcdef::tests::c ... \n\nfailures:\n\n---- m0123456789abcdef::tests::b stdout ----\n\nthread 'm0123456789abcdef::tests::b' panicked at src/main.rs:12:5:\nassertion `left == right` failed\n  left: 1\n right: 2\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n    m0123456789abcdef::tests::b\n";

    #[test]
    fn results_and_what_failures_said_are_read_from_libtests_output() {
        let outcome = parse(OUTPUT);
        assert_eq!(outcome.len(), 2);
        assert_eq!(outcome["m0123456789abcdef::tests::a"], Ok(()));
        assert_eq!(
            outcome["m0123456789abcdef::tests::b"],
            Err("assertion `left == right` failed\n  left: 1\n right: 2".to_string())
        );
    }
}
