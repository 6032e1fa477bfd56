//! What the test runner tells its reporter, and the reporters: the runner and the
//! reporters are joined only by [`Event`], as in cargo-nextest, so every format runs its
//! tests the same way, in parallel.

use std::ops::Range;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use libtest_mimic::{Arguments, ColorSetting, Completion, Trial};

use crate::report::OUT_OF_TIME;
use crate::verdict::{Failure, Unwritten, Verdict};

/// What happened in a run, in order.
pub enum Event<'a> {
    RunStarted {
        tests: usize,
    },
    TestFinished {
        /// Its place in the suite, counting every test.
        index: usize,
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

/// libtest's report, as `cargo test` prints it, printed by libtest-mimic: its `run` is given
/// a trial per test of the suite, filtered by the same [`Arguments`] that select the tests
/// the runner runs, and each trial waits for the verdict the runner reports. The trials run
/// one at a time, in the suite's order, while the runner's threads grade ahead of them.
pub struct Libtest {
    arguments: Arguments,
    board: Arc<Board>,
    trials: Vec<Trial>,
    printing: Option<std::thread::JoinHandle<()>>,
}

/// The verdicts reported so far, by test index, which the trials wait on.
struct Board {
    verdicts: Mutex<Vec<Slot>>,
    changed: Condvar,
}

#[derive(Clone)]
enum Slot {
    Waiting,
    Done(Verdict),
    /// The run finished without it: the submission had used its time.
    NotRun,
}

impl Board {
    /// The slots of `tests` once none of them is waiting.
    fn wait_for(&self, tests: Range<usize>) -> Vec<Slot> {
        let mut verdicts = self.verdicts.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let slots = &verdicts[tests.clone()];
            if !slots.iter().any(|slot| matches!(slot, Slot::Waiting)) {
                return slots.to_vec();
            }
            verdicts = self
                .changed
                .wait(verdicts)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    fn set(&self, index: usize, slot: Slot) {
        if let Ok(mut verdicts) = self.verdicts.lock()
            && let Some(at) = verdicts.get_mut(index)
        {
            *at = slot;
        }
        self.changed.notify_all();
    }

    /// Every test still waiting did not run.
    fn close(&self) {
        if let Ok(mut verdicts) = self.verdicts.lock() {
            for slot in verdicts
                .iter_mut()
                .filter(|slot| matches!(slot, Slot::Waiting))
            {
                *slot = Slot::NotRun;
            }
        }
        self.changed.notify_all();
    }
}

/// A test as the libtest report knows it: its id, and the indexes of its group's tests.
pub struct Listed {
    pub id: String,
    pub group: Range<usize>,
}

impl Libtest {
    /// The report of `tests` (every test of the suite, in order), selected and printed as
    /// `arguments` say.
    pub fn new(arguments: &Arguments, tests: Vec<Listed>, color: bool) -> Libtest {
        let board = Arc::new(Board {
            verdicts: Mutex::new(vec![Slot::Waiting; tests.len()]),
            changed: Condvar::new(),
        });
        let ids: Arc<Vec<String>> = Arc::new(tests.iter().map(|test| test.id.clone()).collect());
        let trials = tests
            .into_iter()
            .enumerate()
            .map(|(index, test)| {
                let (board, ids) = (Arc::clone(&board), Arc::clone(&ids));
                Trial::ignorable_test(test.id, move || {
                    let group = test.group;
                    let own = board.wait_for(index..index + 1).remove(0);
                    match own {
                        Slot::Done(Verdict::Passed) => Ok(Completion::Completed),
                        Slot::Done(Verdict::Failed(failure)) if failure.unwritten.is_empty() => {
                            Err(failure.render(color).into())
                        }
                        Slot::Done(Verdict::Failed(failure)) => {
                            let slots = board.wait_for(group.clone());
                            Err(
                                unwritten_message(&failure, index, group.start, &slots, &ids)
                                    .into(),
                            )
                        }
                        Slot::Waiting | Slot::NotRun => Ok(Completion::ignored_with(OUT_OF_TIME)),
                    }
                })
            })
            .collect();
        Libtest {
            arguments: Arguments {
                // The runner grades in parallel; the report prints in the suite's order.
                test_threads: Some(1),
                color: Some(if color {
                    ColorSetting::Always
                } else {
                    ColorSetting::Never
                }),
                ..arguments.clone()
            },
            board,
            trials,
            printing: None,
        }
    }
}

/// What a test that failed on `todo!()`s says: the first such test of its group lists
/// every `todo!()` the group met, once; the others point to it.
fn unwritten_message(
    failure: &Failure,
    index: usize,
    group_start: usize,
    slots: &[Slot],
    ids: &[String],
) -> String {
    let unwritten: Vec<(usize, &Failure)> = slots
        .iter()
        .enumerate()
        .filter_map(|(at, slot)| match slot {
            Slot::Done(Verdict::Failed(failure)) if !failure.unwritten.is_empty() => {
                Some((group_start + at, failure))
            }
            _ => None,
        })
        .collect();
    // The test's own failure is among them, so the first is never later than it.
    let first = unwritten.first().map_or(index, |&(first, _)| first);
    if first != index {
        return format!(
            "not yet implemented: see the `todo!()`s listed under {}",
            ids[first]
        );
    }
    let mut todos: Vec<&Unwritten> = Vec::new();
    let all = unwritten.iter().map(|&(_, failure)| failure);
    for todo in all.chain([failure]).flat_map(|failure| &failure.unwritten) {
        if !todos.iter().any(|known| known.todo == todo.todo) {
            todos.push(todo);
        }
    }
    let count = match unwritten.len() {
        1 => "this test".to_string(),
        n => format!("{n} tests of its group"),
    };
    let mut text = format!("not yet implemented, in {count}:\n");
    for Unwritten { question, todo } in todos {
        text.push_str(&format!("  {question}: {todo}\n"));
    }
    text.trim_end().to_string()
}

impl Reporter for Libtest {
    fn report(&mut self, event: Event<'_>) {
        match event {
            Event::RunStarted { .. } => {
                let (arguments, trials) =
                    (self.arguments.clone(), std::mem::take(&mut self.trials));
                // A closed stdout (`| head`) makes libtest-mimic panic: that ends the
                // report, not the grading.
                // The exit code is the results', which count what its conclusion does.
                self.printing = Some(std::thread::spawn(move || {
                    let _conclusion = libtest_mimic::run(&arguments, trials);
                }));
            }
            Event::TestFinished { index, verdict, .. } => {
                self.board.set(index, Slot::Done(verdict.clone()));
            }
            Event::RunFinished { .. } => {
                self.board.close();
                if let Some(printing) = self.printing.take() {
                    let _ = printing.join();
                }
            }
        }
    }
}
