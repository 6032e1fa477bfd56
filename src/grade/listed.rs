//! Listed tests: one input written in the spec, its replies compared with the reference's.

use std::sync::Arc;

use grader_api::Submission;
use grader_api::protocol::each_frame;
use grader_api::source::Window;
use grader_api::unit::{Asked, Compared};

use super::failure::{describe_ending, finish, show_difference, trouble_of, unwritten};
use super::patience::{patience, timed};
use crate::diagnosis::WrongAnswers;
use crate::runner::{Ending, Runner};
use crate::spec::{Group, TestCase};
use crate::verdict::{Failure, Tone, Verdict};

/// Answers beyond those a listed test asks for that a runner may send before it is stopped.
pub(super) const SURPLUS_ANSWERS: usize = 16;

/// Inputs with the reference's reply frames to them, all encoded.
pub type Expected = Vec<(Vec<u8>, Vec<Vec<u8>>)>;

/// Every input of `request` with the reference's replies, in order.
pub fn reference_answers(reference: &Submission, request: &dyn Asked) -> Expected {
    let mut expected = Vec::new();
    request.respond(reference, &mut |answered| {
        let mut replies = Vec::new();
        each_frame(answered.frames, |frame| replies.push(frame.to_vec()));
        expected.push((answered.input.to_vec(), replies));
        true
    });
    expected
}

/// Runs a test written out in a spec: one input, one or more replies.
pub fn grade_listed(
    runner: &mut Runner,
    reference: &Submission,
    group: &Group,
    test: &TestCase,
    expected: &Expected,
) -> (Verdict, bool) {
    let mut actual: Vec<Vec<u8>> = Vec::new();
    let asked = expected.first().map_or(0, |(_, replies)| replies.len());
    let most = asked + SURPLUS_ANSWERS;
    let request = &*test.request;
    let exchange = runner.ask(
        request.assignment(),
        request.payload(),
        Window::ALL,
        group.timeout,
        &mut patience(group.stall, |_| {
            timed(|| {
                reference_answers(reference, request);
            })
        }),
        &mut |frame: &[u8]| {
            actual.push(frame.to_vec());
            actual.len() <= most
        },
    );
    if actual.len() > most {
        let message = format!(
            "the runner sent more than {most} answers to a test that asks for {asked}; it was stopped"
        );
        return (Verdict::Failed(Failure::line(message)), false);
    }
    let survived = exchange.runner_survived();
    // Where the submission chose freely (the dealer's discards), the reference plays its choices.
    let pinned = request.pinned(&actual).map(|request| {
        let expected = reference_answers(reference, &*request);
        (request, expected)
    });
    let (request, expected): (&dyn Asked, &Expected) = match &pinned {
        Some((request, expected)) => (&**request, expected),
        None => (request, expected),
    };
    let Some((input, want)) = expected.first() else {
        return (Verdict::Passed, survived);
    };
    if exchange.ending == Ending::Answered && actual == *want {
        return (Verdict::Passed, survived);
    }
    // The first reply that differs, or the first one missing.
    let first = (0..want.len())
        .find(|&i| actual.get(i) != want.get(i))
        .unwrap_or(0);
    let got = actual.get(first).map(Vec::as_slice);
    let mut failure = Failure {
        trouble: trouble_of(&exchange.ending),
        ..Failure::default()
    };
    let missing = match &exchange.ending {
        Ending::Answered => "no answer".to_string(),
        ending => describe_ending(ending),
    };
    let difference = request.difference(Compared {
        reference,
        input,
        position: first,
        expected: &want[first],
        actual: got,
    });
    show_difference(&mut failure, difference, missing);
    if let Some(got) = got {
        failure.unwritten.extend(unwritten(request, first, got));
    }
    let mut wrong = WrongAnswers::default();
    for (check, want) in want.iter().enumerate() {
        match actual.get(check) {
            _ if pinned.is_some() => wrong.unknown(),
            Some(got) if got != want => wrong.note(0, &request.question(check), got),
            Some(_) => {}
            None => wrong.unknown(),
        }
    }
    failure.wrong = Some(Arc::new(wrong));
    let unchecked = want.len() - first - 1;
    if unchecked > 0 {
        let later = if unchecked == 1 { "answer" } else { "answers" };
        failure.text(
            "then",
            Tone::Quiet,
            format!("{unchecked} later {later} not compared"),
        );
    }
    finish(&mut failure, group, &exchange);
    (Verdict::Failed(failure), survived)
}
