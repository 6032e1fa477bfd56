//! What the test runner tells its reporter, and the reporters: the runner and the
//! reporters are joined only by [`Event`], as in cargo-nextest, so every format runs its
//! tests the same way, in parallel.

use std::io::Write;
use std::time::Duration;

use colored::Colorize;

use crate::verdict::{Failure, Unwritten, Verdict};

/// What happened in a run, in order.
pub enum Event<'a> {
    RunStarted {
        tests: usize,
    },
    TestFinished {
        id: &'a str,
        /// The id of the test's group, `assignment::group`, as a filter selects it.
        group: &'a str,
        verdict: &'a Verdict,
    },
    RunFinished {
        passed: usize,
        failed: usize,
        filtered_out: usize,
        elapsed: Duration,
    },
}

pub trait Reporter {
    fn report(&mut self, event: Event<'_>);
}

/// Reports nothing as tests run: the machine formats write their results at the end.
pub struct Silent;

impl Reporter for Silent {
    fn report(&mut self, _: Event<'_>) {}
}

/// libtest's report, as `cargo test` prints it: a line (or, terse, a character) per test,
/// then each failure in full, then the summary line.
pub struct Libtest {
    pub terse: bool,
    pub color: bool,
    /// The width test names are padded to.
    pub name_width: usize,
    failures: Vec<(String, String)>,
    /// Groups whose failures were all `todo!()`s: the group, its failed tests, and each
    /// `todo!()` met, in the order first seen.
    unwritten: Vec<(String, Vec<String>, Vec<Unwritten>)>,
}

impl Libtest {
    pub fn new(terse: bool, color: bool, name_width: usize) -> Libtest {
        Libtest {
            terse,
            color,
            name_width,
            failures: Vec::new(),
            unwritten: Vec::new(),
        }
    }

    /// Records a failure: in full, or within its group's block when it is a `todo!()`.
    fn record(&mut self, id: &str, group: &str, failure: &Failure) {
        if failure.unwritten.is_empty() {
            self.failures
                .push((id.to_string(), failure.render(self.color)));
            return;
        }
        let at = match self.unwritten.iter().position(|(g, _, _)| g == group) {
            Some(at) => at,
            None => {
                self.unwritten
                    .push((group.to_string(), Vec::new(), Vec::new()));
                self.unwritten.len() - 1
            }
        };
        let (_, tests, todos) = &mut self.unwritten[at];
        tests.push(id.to_string());
        for todo in &failure.unwritten {
            if !todos.iter().any(|known| known.todo == todo.todo) {
                todos.push(todo.clone());
            }
        }
    }

    fn outcome(&self, passed: bool) -> String {
        match (passed, self.color) {
            (true, true) => "ok".green().to_string(),
            (true, false) => "ok".to_string(),
            (false, true) => "FAILED".red().to_string(),
            (false, false) => "FAILED".to_string(),
        }
    }
}

impl Reporter for Libtest {
    fn report(&mut self, event: Event<'_>) {
        let mut out = std::io::stdout().lock();
        // A closed stdout (`| head`) ends the report, not the grading.
        let _ = match event {
            Event::RunStarted { tests } => {
                let plural = if tests == 1 { "" } else { "s" };
                writeln!(out, "\nrunning {tests} test{plural}")
            }
            Event::TestFinished { id, group, verdict } => {
                let passed = matches!(verdict, Verdict::Passed);
                if let Verdict::Failed(failure) = verdict {
                    self.record(id, group, failure);
                }
                if self.terse {
                    let mark = if passed { "." } else { "F" };
                    let mark = match (passed, self.color) {
                        (_, false) => mark.to_string(),
                        (true, true) => mark.green().to_string(),
                        (false, true) => mark.red().to_string(),
                    };
                    write!(out, "{mark}").and_then(|()| out.flush())
                } else {
                    let width = self.name_width;
                    writeln!(out, "test {id:<width$} ... {}", self.outcome(passed))
                }
            }
            Event::RunFinished {
                passed,
                failed,
                filtered_out,
                elapsed,
            } => {
                let mut text = String::new();
                if self.terse {
                    text.push('\n');
                }
                if !self.failures.is_empty() || !self.unwritten.is_empty() {
                    text.push_str("\nfailures:\n\n");
                    for (group, tests, todos) in &self.unwritten {
                        let count = match tests.len() {
                            1 => "1 test".to_string(),
                            n => format!("{n} tests"),
                        };
                        text.push_str(&format!(
                            "---- {group}: {count}, not yet implemented ----\n"
                        ));
                        for Unwritten { question, todo } in todos {
                            text.push_str(&format!("  {question}: {todo}\n"));
                        }
                        text.push('\n');
                    }
                    for (id, message) in &self.failures {
                        text.push_str(&format!("---- {id} ----\n{message}\n\n"));
                    }
                    text.push_str("\nfailures:\n");
                    let unwritten = self.unwritten.iter().flat_map(|(_, tests, _)| tests);
                    for id in unwritten.chain(self.failures.iter().map(|(id, _)| id)) {
                        text.push_str(&format!("    {id}\n"));
                    }
                }
                text.push_str(&format!(
                    "\ntest result: {}. {passed} passed; {failed} failed; 0 ignored; 0 measured; {filtered_out} filtered out; finished in {:.2}s\n\n",
                    self.outcome(failed == 0),
                    elapsed.as_secs_f64()
                ));
                out.write_all(text.as_bytes())
            }
        };
    }
}
