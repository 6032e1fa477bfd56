//! The student's report: libtest's, as `cargo test` prints it, through libtest-mimic, then
//! the score table.

use std::ops::Range;
use std::sync::{Arc, Condvar, Mutex};

use colored::Colorize;
use libtest_mimic::{Arguments, ColorSetting, Completion, Trial};

use super::{Event, Reporter};
use crate::results::OUT_OF_TIME;
use crate::spec::Suite;
use crate::student_tests::suite;
use crate::verdict::{Failure, Unwritten, Verdict};

/// libtest's report, as `cargo test` prints it, printed by libtest-mimic: its `run` is given
/// a trial per test of the suite, filtered by the same [`Arguments`] that select the tests
/// the runner runs, and each trial waits for the verdict the runner reports. The trials run
/// one at a time, in the suite's order, while the runner's threads grade ahead of them.
pub struct Libtest {
    arguments: Arguments,
    color: bool,
    board: Arc<Board>,
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

/// A test as the libtest report knows it: its id, the indexes of its group's tests, and
/// whether it is a bug the student's tests should catch, which the report tells in a block
/// of its group's (`Results::your_tests`), not as a test of its own.
struct Listed {
    id: String,
    group: Range<usize>,
    of_a_bug: bool,
}

/// Every test of `suite`, in order, as the libtest report knows it.
fn listed(suite: &Suite) -> Vec<Listed> {
    let mut tests = Vec::new();
    for group in &suite.groups {
        let start = tests.len();
        let group_range = start..start + group.tests.len();
        let bugs = suite::bug_tests(group);
        tests.extend(group.tests.iter().enumerate().map(|(at, test)| Listed {
            id: test.id.clone(),
            group: group_range.clone(),
            of_a_bug: bugs.contains(&at),
        }));
    }
    tests
}

/// A trial for each test of `suite`, in order, which waits on `board` for its verdict.
fn trials(suite: &Suite, board: &Arc<Board>, color: bool) -> Vec<Trial> {
    let tests = listed(suite);
    let ids: Arc<Vec<String>> = Arc::new(tests.iter().map(|test| test.id.clone()).collect());
    tests
        .into_iter()
        .enumerate()
        .filter(|(_, test)| !test.of_a_bug)
        .map(|(index, test)| {
            let (board, ids) = (Arc::clone(board), Arc::clone(&ids));
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
                        Err(unwritten_message(&failure, index, group.start, &slots, &ids).into())
                    }
                    Slot::Waiting | Slot::NotRun => Ok(Completion::ignored_with(OUT_OF_TIME)),
                }
            })
        })
        .collect()
}

impl Libtest {
    /// The report of the tests `arguments` select, printed as they say.
    pub fn new(arguments: &Arguments, color: bool) -> Libtest {
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
            color,
            board: Arc::new(Board {
                verdicts: Mutex::new(Vec::new()),
                changed: Condvar::new(),
            }),
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
        text.push_str(&format!("  {question}: {}\n", todo.on_terminal()));
    }
    text.trim_end().to_string()
}

impl Reporter for Libtest {
    fn report(&mut self, event: Event<'_>) -> Result<(), String> {
        match event {
            Event::RunStarted { suite } => {
                if let Ok(mut verdicts) = self.board.verdicts.lock() {
                    *verdicts = vec![Slot::Waiting; suite.tests().count()];
                }
                let trials = trials(suite, &self.board, self.color);
                let arguments = self.arguments.clone();
                // A closed stdout (`| head`) makes libtest-mimic panic: that ends the
                // report, not the grading. The exit code is the results', which count what
                // its conclusion does.
                self.printing = Some(std::thread::spawn(move || {
                    let _conclusion = libtest_mimic::run(&arguments, trials);
                }));
            }
            Event::TestFinished { index, verdict, .. } => {
                self.board.set(index, Slot::Done(verdict.clone()));
            }
            Event::BuildFailed { error, summary } => {
                eprintln!("{} {}", "error:".red().bold(), error.on_terminal());
                eprintln!("score: 0 ({summary})");
            }
            Event::Stopped { .. } => {}
            Event::RunFinished { results } => {
                self.board.close();
                let Some(printing) = self.printing.take() else {
                    return Ok(());
                };
                let _ = printing.join();
                print!("{}", results.your_tests());
                print!("{}", results.score_table());
                for note in &results.notes {
                    // A note names the submission's strategies, as it registered them.
                    println!("  {}", note.on_terminal().dimmed());
                }
            }
        }
        Ok(())
    }
}
