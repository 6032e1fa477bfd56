//! Driven tests: the assignment asks the runner itself, as a game asks its players.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use grader_api::Submission;
use grader_api::source::Window;
use grader_api::spec::{self as api_spec, Driven, Transport};

use super::failure::{describe_ending, trouble_of};
use crate::runner::{Ending, Runner};
use crate::spec::{Group, TestCase};
use crate::student_text::StudentText;
use crate::verdict::{Failure, Tone, Trouble, Verdict};

/// The runner as a driven test's transport: one request, one reply, within the group's
/// timeout; once an exchange loses it, every later request fails at once.
pub(super) struct RunnerLink {
    runner: RefCell<Runner>,
    assignment: &'static str,
    timeout: Duration,
    stall: Duration,
    survived: Cell<bool>,
    /// How the exchange that lost the runner ended, where that is a trouble.
    trouble: Cell<Option<Trouble>>,
}

impl Transport for RunnerLink {
    fn ask(&self, payload: Vec<u8>) -> Result<Vec<u8>, String> {
        if !self.survived.get() {
            return Err("the runner was lost earlier in this test".into());
        }
        let mut reply = None;
        let exchange = self.runner.borrow_mut().ask(
            self.assignment,
            &payload,
            Window::ALL,
            self.timeout,
            // The reference's strategies answer a turn at once: the group's limit holds.
            &mut |_| self.stall,
            &mut |frame: &[u8]| {
                reply = Some(frame.to_vec());
                true
            },
        );
        self.survived.set(exchange.runner_survived());
        match (exchange.ending, reply) {
            (Ending::Answered, Some(frame)) => Ok(frame),
            (Ending::Answered, None) => Err("no answer".into()),
            (ending, _) => {
                self.trouble.set(self.trouble.get().or(trouble_of(&ending)));
                Err(describe_ending(&ending))
            }
        }
    }
}

/// Runs a test the assignment drives itself, talking to the runner through a
/// [`Transport`]. Returns the verdict, the runner if it survived, and the test's notes.
pub fn grade_driven(
    runner: Runner,
    reference: &Submission,
    group: &Group,
    test: &TestCase,
) -> (Verdict, Option<Runner>, Vec<StudentText>) {
    let link = Rc::new(RunnerLink {
        runner: RefCell::new(runner),
        assignment: test.request.assignment(),
        timeout: group.timeout,
        stall: group.stall,
        survived: Cell::new(true),
        trouble: Cell::new(None),
    });
    let Driven {
        passed,
        fields,
        notes,
    } = test.request.drive(reference, link.clone());
    // They name the submission's strategies as it registered them.
    let notes: Vec<StudentText> = notes.into_iter().map(StudentText::from).collect();
    let trouble = link.trouble.get();
    let survivor = Rc::try_unwrap(link)
        .ok()
        .filter(|link| link.survived.get())
        .map(|link| link.runner.into_inner());
    if passed {
        return (Verdict::Passed, survivor, notes);
    }
    let mut failure = Failure {
        trouble,
        ..Failure::default()
    };
    for driven in fields {
        let tone = match driven.tone {
            api_spec::Tone::Plain => Tone::Plain,
            api_spec::Tone::Problem => Tone::Actual,
        };
        failure.text(driven.name, tone, driven.text);
    }
    if let Some(hint) = &group.hint {
        failure.text("hint", Tone::Hint, hint.clone());
    }
    (Verdict::Failed(failure), survivor, notes)
}
