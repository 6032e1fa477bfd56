//! Runs of the harness: each test alone in a process of its own, on one implementation
//! (its stdin linked to the oracle answering with it) or on the student's own code.
//!
//! Every run of a test on an implementation is the same process: the same executable,
//! arguments, environment and folders, one test in it; only the oracle's answers differ.
//! The runs of a grading go in an order shuffled afresh, so neither when a run starts nor
//! what ran before it says which implementation it has. A run's verdict is its exit status,
//! which no text the test prints can change; what it printed is only shown.

use std::hash::BuildHasher;
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use grader_api::oracle::Record;
use grader_api::transcript::Report;

use super::oracle::{Implementation, Oracle};
use crate::runner::Launcher;
use crate::runner::once::{Ending, Ran};

/// What a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    Implementation(Implementation),
    /// The student's own code.
    Yours,
}

/// How one run of a test came out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Passed,
    /// It failed, with what it said or what ended it.
    Failed(String),
    /// The group's time ran out before it started.
    NotRun,
}

/// One run: a test, by its full path in the harness, on a target.
pub type Run = (String, Target);

/// How a run came out, and the oracle's report of it when one was asked.
pub type Reported = (Outcome, Option<Report>);

/// A run due in a round (counted from 0), handed to the oracle as its record says.
pub type Due = (usize, Run, Record);

/// The runs of later rounds that a run makes due once it has come out.
pub type Next<'a> = dyn Fn(&Due, &Reported) -> Vec<Due> + Sync + 'a;

/// What the runs of a grading need.
pub struct Runs<'a> {
    pub harness: &'a Launcher,
    pub oracle: &'a Oracle,
    /// The most one run may take.
    pub timeout: Duration,
    /// When the group's time ends: runs not started by then are not run.
    pub end: Instant,
    /// Set once the grading is no longer wanted: runs not started by then are not run.
    pub abandoned: &'a AtomicBool,
}

impl Runs<'_> {
    /// How each of `runs` came out, and each run `next` makes due after them, run two a
    /// core: what is due at once goes in an order shuffled afresh, and a run's own next
    /// runs are due as soon as it has come out, before any run on the student's code, for
    /// which nothing waits.
    pub fn outcomes(&self, runs: Vec<Due>, next: &Next) -> Vec<(Due, Reported)> {
        let key = std::collections::hash_map::RandomState::new();
        // The queue is taken from its end.
        let shuffled = |mut runs: Vec<Due>| {
            runs.sort_by_cached_key(|(round, run, _)| {
                (run.1 != Target::Yours, key.hash_one((round, run)))
            });
            runs
        };
        // Two runs a core: a run is more waiting (a sandbox set up, a process started and
        // reaped, the oracle's replays) than computing.
        let workers = 2 * std::thread::available_parallelism().map_or(1, usize::from);
        each_and_after(shuffled(runs), workers, |due: Due| {
            let wanted = Instant::now() < self.end && !self.abandoned.load(Ordering::Relaxed);
            let reported = match wanted {
                true => self.outcome(&due.1, due.2),
                false => (Outcome::NotRun, None),
            };
            let then = shuffled(next(&due, &reported));
            ((due, reported), then)
        })
    }

    fn outcome(&self, (test, target): &Run, record: Record) -> Reported {
        let args: Vec<String> = ["--exact", test, "--test-threads=1", "--color=never"]
            .map(String::from)
            .to_vec();
        let mut report = None;
        let ran = match target {
            Target::Yours => self.harness.run_once(&args, self.timeout),
            Target::Implementation(implementation) => {
                UnixStream::pair().and_then(|(test_end, oracle_end)| {
                    // The oracle's end goes to the oracle alone: the link ends with the test.
                    report = self.oracle.answer(*implementation, oracle_end, record)?;
                    self.harness
                        .run_with_stdin(&args, self.timeout, Some(OwnedFd::from(test_end)))
                })
            }
        };
        match ran {
            Ok(ran) => (
                judged(test, &ran),
                report.and_then(|socket| self.oracle.report(&socket, self.end)),
            ),
            Err(error) => (
                Outcome::Failed(format!("your tests could not be started: {error}")),
                None,
            ),
        }
    }
}

/// What `work` makes of each of `items` and of each item a work makes due after it,
/// `workers` at once: the items due are taken from the end of their list.
fn each_and_after<T: Send, R: Send>(
    items: Vec<T>,
    workers: usize,
    work: impl Fn(T) -> (R, Vec<T>) + Sync,
) -> Vec<R> {
    let queue = Mutex::new(Queue {
        due: items,
        running: 0,
    });
    let changed = Condvar::new();
    let found = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let mut waiting = queue.lock().unwrap_or_else(PoisonError::into_inner);
                loop {
                    let Some(item) = waiting.due.pop() else {
                        if waiting.running == 0 {
                            break;
                        }
                        waiting = changed
                            .wait(waiting)
                            .unwrap_or_else(PoisonError::into_inner);
                        continue;
                    };
                    waiting.running += 1;
                    drop(waiting);
                    let running = Running {
                        queue: &queue,
                        changed: &changed,
                    };
                    let (result, then) = work(item);
                    found
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(result);
                    running.ended(then);
                    waiting = queue.lock().unwrap_or_else(PoisonError::into_inner);
                }
            });
        }
    });
    found.into_inner().unwrap_or_else(PoisonError::into_inner)
}

/// The items due and not started yet, and how many have started and not ended: each may
/// make more due.
struct Queue<T> {
    due: Vec<T>,
    running: usize,
}

/// One item started from the queue: when its work ends, or its worker panics, the queue
/// counts it ended and wakes the workers waiting for what it might make due, so that none
/// waits forever.
struct Running<'a, T> {
    queue: &'a Mutex<Queue<T>>,
    changed: &'a Condvar,
}

impl<T> Running<'_, T> {
    /// The work came out, making `then` due.
    fn ended(self, then: Vec<T>) {
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .due
            .extend(then);
    }
}

impl<T> Drop for Running<'_, T> {
    fn drop(&mut self) {
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .running -= 1;
        self.changed.notify_all();
    }
}

/// The outcome of test `test` from its run: its exit status, and what it said.
fn judged(test: &str, ran: &Ran) -> Outcome {
    let mut why = match &ran.ending {
        Ending::Exited { success: true, .. } if ran.notes.is_empty() => return Outcome::Passed,
        Ending::Exited { success: true, .. } => String::new(),
        Ending::Exited { how, .. } => said(&ran.stdout, test).unwrap_or_else(|| {
            let last = ran
                .stderr
                .lines()
                .rev()
                .find(|line| !line.trim().is_empty());
            match last {
                Some(last) => format!("the test process {how} (it printed: {last})"),
                None => format!("the test process {how}"),
            }
        }),
        ending => ending_words(ending).unwrap_or_default(),
    };
    for note in &ran.notes {
        if !why.is_empty() {
            why.push_str("; ");
        }
        why.push_str(note);
    }
    Outcome::Failed(why)
}

/// What test `name` printed when it failed, less the lines libtest adds; None when libtest
/// printed no failure for it.
fn said(stdout: &str, name: &str) -> Option<String> {
    let header = format!("---- {name} stdout ----");
    let start = stdout.find(&header)?;
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
    Some(match lines.is_empty() {
        true => "it failed".to_string(),
        false => lines.join("\n"),
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "\nrunning 1 test\ntest under_test::tests::b ... FAILED\n\nfailures:\n\n---- under_test::tests::b stdout ----\n\nthread 'under_test::tests::b' panicked at src/main.rs:12:5:\nassertion `left == right` failed: Größe::fünf\n  left: 1\n right: 2\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n    under_test::tests::b\n";

    #[test]
    fn work_made_due_by_other_work_is_done_and_a_panic_leaves_no_worker_waiting() {
        // Each number n > 0 makes n - 1 due.
        let mut done = each_and_after(vec![3, 2], 4, |n: u32| (n, (0..n).rev().take(1).collect()));
        done.sort();
        assert_eq!(done, [0, 0, 1, 1, 2, 2, 3]);
        let (ended, ending) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let panicked = std::panic::catch_unwind(|| {
                each_and_after(vec![1, 0], 2, |n: u32| match n {
                    0 => panic!("a worker's run panicked"),
                    n => (n, Vec::new()),
                })
            });
            let _ = ended.send(panicked.is_err());
        });
        let waited = Duration::from_secs(10);
        assert_eq!(
            ending.recv_timeout(waited),
            Ok(true),
            "a worker still waits"
        );
    }

    #[test]
    fn what_a_failure_said_is_read_from_libtests_output_whatever_its_letters() {
        assert_eq!(
            said(OUTPUT, "under_test::tests::b").as_deref(),
            Some("assertion `left == right` failed: Größe::fünf\n  left: 1\n right: 2")
        );
        assert_eq!(said(OUTPUT, "under_test::tests::a"), None);
    }

    #[test]
    fn the_exit_status_is_the_verdict_whatever_the_test_printed() {
        let ran = |success: bool, stdout: &str| Ran {
            stdout: stdout.to_string(),
            stderr: String::new(),
            ending: Ending::Exited {
                success,
                how: "exited with status 101".into(),
            },
            notes: Vec::new(),
        };
        let forged = "test under_test::tests::b ... ok\ntest result: ok. 1 passed";
        assert!(matches!(
            judged("under_test::tests::b", &ran(false, forged)),
            Outcome::Failed(_)
        ));
        assert_eq!(
            judged("under_test::tests::b", &ran(true, OUTPUT)),
            Outcome::Passed
        );
    }
}
