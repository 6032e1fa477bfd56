//! Grading one test: ask the runner, compare its reply frames with the reference's as
//! bytes, and explain any difference the way a student can act on, through the test's
//! decoded request; nothing here knows which assignment it grades.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::Duration;

use grader_api::Submission;
use grader_api::assignment::{Lines, shorten};
use grader_api::protocol::{each_frame, first_frame, group_digits, is_panic, panic_of};
use grader_api::source::Window;
use grader_api::spec::{self as api_spec, Driven, Transport};
use grader_api::unit::Asked;
use similar::{ChangeTag, TextDiff};

use crate::answers::{Answers, Blocks, KeptReader, Place, Store, place_at};
use crate::capture::Printed;
use crate::report::visible_controls;
use crate::runner::{Ending, Exchange, Replies, Runner};
use crate::spec::{Group, TestCase};
use crate::verdict::{Credit, Diff, DiffLine, Failure, Tone, Unwritten, Value, Verdict, WrongKind};

/// Characters of one answer a report shows; a submission may return anything.
const SHOWN_ANSWER: usize = 2_000;
/// Cells beyond which two lists are not diffed line by line.
const DIFFED_CELLS: usize = 64;

/// How many wrong inputs of a bulk group are shown in full.
const SHOWN_MISMATCHES: usize = 3;
/// How many kinds of wrong answer a bulk group's breakdown lists.
const SHOWN_BREAKDOWN: usize = 12;
/// A bulk group stops after this many wrong answers that panicked: a `todo!()` would
/// otherwise panic millions of times, and the count says nothing more than the first
/// thousand.
const PANICS_BEFORE_GIVING_UP: u64 = 1_000;
/// Kinds of wrong answer a bulk group's breakdown holds at most; answers of further kinds
/// are counted as wrong but not held, so a runner cannot grow the grader without end.
const HELD_BREAKDOWN: usize = 10_000;
/// Answers beyond those a listed test asks for that a runner may send before it is stopped.
const SURPLUS_ANSWERS: usize = 16;
/// Characters of an answer that a breakdown holds as its kind, as the assignments cut theirs.
const SHOWN_KIND: usize = 200;
/// What a breakdown says was expected where the answer was a `todo!()`.
const UNWRITTEN_EXPECTED: &str = "an answer";
/// Inputs answered by the reference per message to the comparing thread.
const CHUNK_INPUTS: u64 = 2048;
/// Inputs a bulk group holds per runner it is split across: a runner starts in a few
/// milliseconds, the time the reference takes to answer about this many hands.
const INPUTS_PER_RUNNER: u64 = 50_000;

/// Inputs with the reference's reply frames to them, all encoded.
pub type Expected = Vec<(Vec<u8>, Vec<Vec<u8>>)>;

/// Every input of `request` with the reference's replies, in order.
pub fn reference_answers(reference: &Submission, request: &dyn Asked) -> Expected {
    let mut expected = Vec::new();
    request.respond(reference, &mut |input, frames| {
        let mut replies = Vec::new();
        each_frame(frames, |frame| replies.push(frame.to_vec()));
        expected.push((input.to_vec(), replies));
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
    let mut failure = Failure::default();
    failure.text(
        request.input_label(input),
        Tone::Plain,
        request.describe_input(input, first),
    );
    failure.text("check", Tone::Plain, request.question(first));
    failure.text(
        "expected",
        Tone::Expected,
        shown(&request.show(&want[first])),
    );
    let actual_text = match (&exchange.ending, got) {
        (_, Some(frame)) => shown(&request.show(frame)),
        (Ending::Answered, None) => "no answer".to_string(),
        (ending, None) => describe_ending(ending),
    };
    failure.text("actual", Tone::Actual, actual_text);
    if let Some(got) = got {
        explain_difference(&mut failure, request, &want[first], got);
        failure.unwritten.extend(unwritten(request, first, got));
    }
    explain_by_reference(&mut failure, request, reference, input, &want[first], got);
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

/// The diff and any detail the assignment gives of where `expected` and `actual` part.
fn explain_difference(failure: &mut Failure, request: &dyn Asked, expected: &[u8], actual: &[u8]) {
    if let Some(diff) = answer_diff(request, expected, actual) {
        failure.push("diff", diff);
    }
    if let Some((label, detail)) = request.detail(expected, actual) {
        failure.text(label, Tone::Plain, detail);
    }
}

/// The question of reply `position` and where its `todo!()` is, when `reply` is one.
fn unwritten(request: &dyn Asked, position: usize, reply: &[u8]) -> Option<Unwritten> {
    let panic = panic_of(reply).filter(|panic| panic.is_not_yet_implemented())?;
    Some(Unwritten {
        question: request.question(position),
        todo: panic.to_string(),
    })
}

/// What the reference makes of `input` where its answer and the submission's part, if the
/// assignment says more than the answers do.
fn explain_by_reference(
    failure: &mut Failure,
    request: &dyn Asked,
    reference: &Submission,
    input: &[u8],
    expected: &[u8],
    actual: Option<&[u8]>,
) {
    if let Some(explanation) = request.explain(reference, input, expected, actual) {
        failure.text("reference", Tone::Plain, explanation);
    }
}

/// How many runners of `most` a bulk test is split across.
pub fn runners_for(test: &TestCase, most: usize) -> usize {
    let by_size = test.request.input_count() / INPUTS_PER_RUNNER;
    by_size.clamp(1, most.max(1) as u64) as usize
}

/// `total` inputs in `parts` windows one after another, as equal in size as can be.
fn windows(total: u64, parts: usize) -> Vec<Window> {
    let parts = parts.max(1) as u64;
    (0..parts)
        .map(|k| Window {
            start: total / parts * k + (total % parts).min(k),
            end: total / parts * (k + 1) + (total % parts).min(k + 1),
        })
        .collect()
}

/// The input a runner was answering when it stopped.
struct StoppedOn {
    input: Vec<u8>,
    /// The reply it had come to.
    through: usize,
    /// The input's number in the whole group, from 1.
    number: u64,
    /// The number of the first input it had answered without sending the answers, lost
    /// with it, when there was one.
    first_unsent: Option<u64>,
}

/// What one runner made of its window of a bulk group.
struct Range<'a> {
    window: Window,
    exchange: Exchange,
    stopped_on: Option<StoppedOn>,
    comparison: BulkComparison<'a>,
}

/// Runs a generated or exhaustive group: split into one window of inputs per runner,
/// each runner answering its window in one stream, compared as they arrive with the
/// reference's answers, which are read in place from `store` or, when they are not kept
/// there yet, computed (a thread per window) and kept. Returns the verdict, and for each
/// runner whether it survived.
pub fn grade_bulk(
    runners: &mut [Runner],
    reference: &Submission,
    store: Option<&Store>,
    group: &Group,
    test: &TestCase,
) -> (Verdict, Vec<bool>) {
    let request = &*test.request;
    let total = request.input_count();
    let windows = windows(total, runners.len());
    let panics = AtomicU64::new(0);
    let kept = store.and_then(|store| store.open(request));
    let ranges = std::thread::scope(|scope| {
        let mut computing = Vec::new();
        let mut answering = Vec::new();
        for (runner, &window) in runners.iter_mut().zip(&windows) {
            let wanted = match &kept {
                Some(kept) => Wanted::new(More::Kept {
                    reader: kept.reader(window),
                    reference,
                    request,
                    end: window.end,
                }),
                None => {
                    let (sender, receiver) = sync_channel(8);
                    let keep = store.is_some();
                    computing.push(
                        scope.spawn(move || compute(reference, request, window, keep, sender)),
                    );
                    Wanted::new(More::Computed(receiver))
                }
            };
            let comparison = BulkComparison::new(request, wanted, &panics);
            answering.push(scope.spawn(move || {
                answer_window(runner, reference, request, group, window, comparison)
            }));
        }
        let ranges: Vec<Range> = answering.into_iter().map(joined).collect();
        let computed =
            computing
                .into_iter()
                .map(joined)
                .try_fold(Blocks::default(), |mut all, part| {
                    all.append(part?);
                    Some(all)
                });
        if let Some(store) = store
            && ranges.iter().any(|range| range.comparison.wanted.damaged)
        {
            store.remove(request);
        }
        // Kept only when the reference answered every input; a store that cannot be
        // written costs the next grading the time, nothing more.
        if let (Some(store), Some(computed)) = (store, computed)
            && kept.is_none()
            && computed.inputs() == total
        {
            let _ = store.save(request, computed);
        }
        ranges
    });
    let survived = ranges
        .iter()
        .map(|range| range.exchange.runner_survived())
        .collect();
    let verdict = judge_bulk(reference, group, request, as_one_runner(ranges));
    (verdict, survived)
}

/// A thread's result; a panic in it is the grader's own and goes on.
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// The reference's answers to the inputs in `window`, sent in chunks as they come and,
/// when `keep` and it answered all of them before the comparison stopped, returned in
/// blocks.
fn compute(
    reference: &Submission,
    request: &dyn Asked,
    window: Window,
    keep: bool,
    sender: SyncSender<Vec<u8>>,
) -> Option<Blocks> {
    let mut computed = Blocks::default();
    let mut chunk = Answers::default();
    request.respond_within(reference, window, &mut |input, frames| {
        chunk.push(input, frames);
        if chunk.inputs() < CHUNK_INPUTS {
            return true;
        }
        if keep {
            computed.add(&chunk);
        }
        sender
            .send(std::mem::take(&mut chunk).into_stream())
            .is_ok()
    });
    if keep {
        computed.add(&chunk);
    }
    let _ = sender.send(chunk.into_stream());
    (keep && computed.inputs() == window.end - window.start).then_some(computed)
}

/// Asks `runner` for the inputs in `window` and compares its answers as they come.
fn answer_window<'a>(
    runner: &mut Runner,
    reference: &Submission,
    request: &dyn Asked,
    group: &Group,
    window: Window,
    mut comparison: BulkComparison<'a>,
) -> Range<'a> {
    let exchange = runner.ask(
        request.assignment(),
        request.payload(),
        window,
        group.timeout,
        &mut patience(group.stall, |done| {
            timed(|| {
                input_numbered(reference, request, window.start + done);
            })
        }),
        &mut comparison,
    );
    // What the runner was answering when it stopped, before the reference thread is
    // stopped with it: by the runner's own count where it had answered inputs whose answers
    // never reached the grader, lost in its buffer.
    let unsent = exchange
        .inputs_done
        .filter(|&done| done > comparison.inputs_compared && done < window.end - window.start);
    let stopped_on = match (&exchange.ending, unsent) {
        (Ending::Answered, _) => None,
        (_, Some(done)) => Some(StoppedOn {
            input: input_numbered(reference, request, window.start + done),
            through: 0,
            number: window.start + done + 1,
            first_unsent: Some(window.start + comparison.inputs_compared + 1),
        }),
        (_, None) => comparison
            .input_in_progress()
            .map(|(input, through, number)| StoppedOn {
                input,
                through,
                number: window.start + number,
                first_unsent: None,
            }),
    };
    comparison.count_partly_answered_input();
    // Stops the reference thread if the runner ended early.
    comparison.close();
    Range {
        window,
        exchange,
        stopped_on,
        comparison,
    }
}

/// Input `number` (from 0) of `request`, as the reference is given it.
fn input_numbered(reference: &Submission, request: &dyn Asked, number: u64) -> Vec<u8> {
    let mut found = Vec::new();
    let only = Window {
        start: number,
        end: number + 1,
    };
    request.respond_within(reference, only, &mut |input, _| {
        found = input.to_vec();
        false
    });
    found
}

/// The ranges as one runner answering every input in order would have left them: each
/// range added to those before it, up to the first that did not answer its whole window.
fn as_one_runner(ranges: Vec<Range>) -> Range {
    let mut ranges = ranges.into_iter();
    let mut all = ranges
        .next()
        .expect("a bulk test is given at least one runner");
    for range in ranges {
        let whole_so_far = all.exchange.ending == Ending::Answered
            && all.comparison.inputs_compared == all.window.end - all.window.start;
        if !whole_so_far {
            break;
        }
        all.window.end = range.window.end;
        all.exchange.ending = range.exchange.ending;
        all.exchange.stdout.append(&range.exchange.stdout);
        all.exchange.stderr.append(&range.exchange.stderr);
        all.stopped_on = range.stopped_on;
        all.comparison.absorb(range.comparison);
    }
    all
}

/// The verdict on a bulk group from its answers compared.
fn judge_bulk(reference: &Submission, group: &Group, request: &dyn Asked, all: Range) -> Verdict {
    let Range {
        exchange,
        stopped_on,
        mut comparison,
        ..
    } = all;
    let total = request.input_count();
    let complete = exchange.ending == Ending::Answered && comparison.inputs_compared == total;
    if complete && comparison.wrong_inputs == 0 {
        return Verdict::Passed;
    }
    let mut failure = Failure::default();
    failure.text("inputs", Tone::Plain, request.describe_inputs());
    if comparison.inputs_compared > 0 {
        let mut verdict_line = format!(
            "{} of {} answered wrongly",
            group_digits(comparison.wrong_inputs),
            group_digits(comparison.inputs_compared)
        );
        // Where an input has several answers, the breakdown counts answers: say both.
        if comparison.answers_compared != comparison.inputs_compared {
            verdict_line += &format!(
                " ({} of {} answers)",
                group_digits(comparison.wrong_answers),
                group_digits(comparison.answers_compared)
            );
        }
        failure.text("wrong", Tone::Actual, verdict_line);
    }
    if comparison.wrong_answers > 0 && comparison.unwritten_answers == comparison.wrong_answers {
        failure.unwritten = std::mem::take(&mut comparison.unwritten);
    }
    let checks = request.scored_checks();
    // Before any answer is compared, no check is right or wrong yet.
    if checks > 1 && comparison.answers_compared > 0 {
        let wrong = &comparison.wrong_by_check;
        let lines: Vec<String> = (0..checks)
            .map(|check| match wrong.get(check).copied().unwrap_or(0) {
                0 if complete => format!("{}  right on every input", request.question(check)),
                0 => format!(
                    "{}  right until the runner stopped",
                    request.question(check)
                ),
                count => format!(
                    "{}  wrong on {}",
                    request.question(check),
                    group_digits(count)
                ),
            })
            .collect();
        failure.text("by check", Tone::Plain, lines.join("\n"));
        if complete {
            let right = (0..checks).filter(|&c| wrong.get(c).is_none_or(|&n| n == 0));
            failure.credit = Some(Credit {
                right: right.count(),
                of: checks,
            });
        }
    }
    if !complete {
        let stopped = match &exchange.ending {
            Ending::Answered => {
                "the runner's answers did not add up to the inputs sent".to_string()
            }
            Ending::Abandoned if comparison.surplus => {
                "the runner sent more answers than there were inputs; it was stopped".to_string()
            }
            ending => describe_ending(ending),
        };
        let line = format!(
            "after {} of {}: {stopped}",
            group_digits(comparison.inputs_compared),
            group_digits(total)
        );
        failure.text("stopped", Tone::Actual, line);
        if let Some(stopped) = stopped_on {
            let mut heading = format!("input {}", group_digits(stopped.number));
            if let Some(first) = stopped.first_unsent {
                let answered = match stopped.number - first {
                    1 => format!("input {}", group_digits(first)),
                    _ => format!(
                        "inputs {} to {}",
                        group_digits(first),
                        group_digits(stopped.number - 1)
                    ),
                };
                heading +=
                    &format!(" (it had answered {answered}, but not yet sent those answers)");
            }
            let described = request.describe_input(&stopped.input, stopped.through);
            failure.text("stopped on", Tone::Plain, format!("{heading}\n{described}"));
        }
    }
    if !comparison.breakdown.is_empty() {
        let mut kinds: Vec<_> = comparison.breakdown.iter().collect();
        // Real wrong answers first, so that `todo!()`s never bury one.
        kinds.sort_by_key(|&(kind, count)| {
            (
                kind.1 == UNWRITTEN_EXPECTED,
                std::cmp::Reverse(*count),
                kind,
            )
        });
        let listed = kinds
            .iter()
            .take(SHOWN_BREAKDOWN)
            .map(|((question, expected, actual), count)| WrongKind {
                question: question.clone(),
                expected: expected.clone(),
                actual: actual.clone(),
                count: group_digits(**count),
            })
            .collect();
        let more = kinds.len().saturating_sub(SHOWN_BREAKDOWN);
        failure.push("by answer", Value::Breakdown(listed, more));
    }
    for (index, sample) in comparison.samples.iter().enumerate() {
        let mut example = Failure::default();
        example.text(
            "input",
            Tone::Plain,
            request.describe_input(&sample.input, sample.position),
        );
        example.text("check", Tone::Plain, request.question(sample.position));
        example.text(
            "expected",
            Tone::Expected,
            shown(&request.show(&sample.expected)),
        );
        example.text("actual", Tone::Actual, shown(&request.show(&sample.actual)));
        explain_difference(&mut example, request, &sample.expected, &sample.actual);
        explain_by_reference(
            &mut example,
            request,
            reference,
            &sample.input,
            &sample.expected,
            Some(&sample.actual),
        );
        failure.push(
            &format!("example {} of a wrong answer", index + 1),
            Value::Example(example),
        );
    }
    finish(&mut failure, group, &exchange);
    Verdict::Failed(failure)
}

/// How many times the reference's own time for an input a runner may take on it before it
/// is taken as stuck, when that is longer than the group's stall limit.
const STALL_REFERENCE_TIMES: u32 = 100;

/// How long a runner may answer no further input: `floor`, the group's stall limit, or a
/// hundred times what the reference takes on the input it is on (timed by
/// `time_reference`, given how many inputs the runner has answered, once per input),
/// whichever is longer.
fn patience<'a>(
    floor: Duration,
    time_reference: impl Fn(u64) -> Duration + 'a,
) -> impl FnMut(u64) -> Duration + 'a {
    let mut timed_input: Option<(u64, Duration)> = None;
    move |inputs_done| {
        let took = match timed_input {
            Some((input, took)) if input == inputs_done => took,
            _ => {
                let took = time_reference(inputs_done);
                timed_input = Some((inputs_done, took));
                took
            }
        };
        floor.max(took.saturating_mul(STALL_REFERENCE_TIMES))
    }
}

/// How long `work` takes.
fn timed(work: impl FnOnce()) -> Duration {
    let started = std::time::Instant::now();
    work();
    started.elapsed()
}

/// The runner as a driven test's transport: one request, one reply, within the group's
/// timeout; once an exchange loses it, every later request fails at once.
struct RunnerLink {
    runner: RefCell<Runner>,
    assignment: &'static str,
    timeout: Duration,
    stall: Duration,
    survived: Cell<bool>,
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
            (ending, _) => Err(describe_ending(&ending)),
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
) -> (Verdict, Option<Runner>, Vec<String>) {
    let link = Rc::new(RunnerLink {
        runner: RefCell::new(runner),
        assignment: test.request.assignment(),
        timeout: group.timeout,
        stall: group.stall,
        survived: Cell::new(true),
    });
    let Driven {
        passed,
        fields,
        notes,
    } = test.request.drive(reference, link.clone());
    let survivor = Rc::try_unwrap(link)
        .ok()
        .filter(|link| link.survived.get())
        .map(|link| link.runner.into_inner());
    if passed {
        return (Verdict::Passed, survivor, notes);
    }
    let mut failure = Failure::default();
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

struct Sample {
    input: Vec<u8>,
    position: usize,
    expected: Vec<u8>,
    actual: Vec<u8>,
    /// Its kind of wrong answer: examples show different kinds where there are several.
    kind: (String, String, String),
}

/// The reference's answers as a comparison reads them: records laid end to end (see
/// [`Answers`]), a block at a time from a kept entry, or in chunks while they are computed.
struct Wanted<'a> {
    records: Vec<u8>,
    /// Where the next record starts.
    at: usize,
    more: More<'a>,
    /// A block of the kept entry was damaged: the reference answered in its place.
    damaged: bool,
}

/// Where a comparison's further records come from.
enum More<'a> {
    /// The kept entry's blocks, and what answers the rest of the window, up to input `end`,
    /// if one of them is damaged.
    Kept {
        reader: KeptReader<'a>,
        reference: &'a Submission,
        request: &'a dyn Asked,
        end: u64,
    },
    /// Chunks, while the reference is computing them.
    Computed(Receiver<Vec<u8>>),
    Nothing,
}

impl<'a> Wanted<'a> {
    fn new(more: More<'a>) -> Wanted<'a> {
        Wanted {
            records: Vec::new(),
            at: 0,
            more,
            damaged: false,
        }
    }

    /// Where the next record lies in [`Wanted::records`], waiting for more if need be.
    fn next(&mut self) -> Option<Place> {
        loop {
            if let Some(place) = place_at(&self.records, self.at) {
                self.at = place.end;
                return Some(place);
            }
            self.records = self.more_records()?;
            self.at = 0;
        }
    }

    fn more_records(&mut self) -> Option<Vec<u8>> {
        let (reference, request, first, end) = match &mut self.more {
            More::Computed(chunks) => return chunks.recv().ok(),
            More::Nothing => return None,
            More::Kept {
                reader,
                reference,
                request,
                end,
            } => match reader.next_records() {
                Ok(records) => return records,
                Err(first) => (*reference, *request, first, *end),
            },
        };
        self.damaged = true;
        self.more = More::Nothing;
        let mut rest = Answers::default();
        let window = Window { start: first, end };
        request.respond_within(reference, window, &mut |input, frames| {
            rest.push(input, frames);
            true
        });
        Some(rest.into_stream())
    }
}

/// The input being compared: where it and its frames lie, and how far the comparison has
/// come.
#[derive(Clone, Copy)]
struct Current {
    place: Place,
    cursor: usize,
}

/// Compares a stream of reply frames with the reference's, input by input, as bytes;
/// decodes only the replies that differ.
struct BulkComparison<'a> {
    request: &'a dyn Asked,
    wanted: Wanted<'a>,
    current: Option<Current>,
    position: usize,
    current_wrong: bool,
    inputs_compared: u64,
    wrong_inputs: u64,
    answers_compared: u64,
    wrong_answers: u64,
    /// Wrong answers by the position of the reply within its input: by check, where a
    /// request's checks are scored each on its own.
    wrong_by_check: Vec<u64>,
    /// Wrong answers that were a `todo!()`, and each question so answered.
    unwritten_answers: u64,
    unwritten: Vec<Unwritten>,
    /// Panicking answers of the whole group, counted by the comparisons of every window.
    panics: &'a AtomicU64,
    breakdown: BTreeMap<(String, String, String), u64>,
    samples: Vec<Sample>,
    /// The runner answered past the last input.
    surplus: bool,
}

impl<'a> BulkComparison<'a> {
    fn new(
        request: &'a dyn Asked,
        wanted: Wanted<'a>,
        panics: &'a AtomicU64,
    ) -> BulkComparison<'a> {
        BulkComparison {
            request,
            wanted,
            current: None,
            position: 0,
            current_wrong: false,
            inputs_compared: 0,
            wrong_inputs: 0,
            answers_compared: 0,
            wrong_answers: 0,
            wrong_by_check: Vec::new(),
            unwritten_answers: 0,
            unwritten: Vec::new(),
            panics,
            breakdown: BTreeMap::new(),
            samples: Vec::new(),
            surplus: false,
        }
    }

    /// The next input with replies to compare; skips any the reference answered with none.
    fn next_input(&mut self) -> Option<Current> {
        loop {
            let place = self.wanted.next()?;
            if place.frames_start < place.end {
                return Some(Current {
                    place,
                    cursor: place.frames_start,
                });
            }
            self.inputs_compared += 1;
        }
    }

    /// Starts comparing the next input the reference answered, if there is one.
    fn start_input(&mut self) {
        self.current = self.next_input();
        self.position = 0;
        self.current_wrong = false;
    }

    fn end_input(&mut self) {
        self.inputs_compared += 1;
        self.wrong_inputs += u64::from(self.current_wrong);
        self.current = None;
    }

    /// Compares one reply of the `current` input; `false` once enough wrong replies
    /// panicked, in every window of the group, to stop asking.
    fn compare(&mut self, mut current: Current, actual: &[u8]) -> bool {
        let records = &self.wanted.records;
        let rest = &records[current.cursor..current.place.end];
        let mut panicked = false;
        // A whole frame the reference's replies start with is its reply: a frame's header
        // gives its length.
        current.cursor += match rest.starts_with(actual) {
            true => actual.len(),
            false => {
                panicked = is_panic(actual);
                let want = first_frame(rest);
                let input = records[current.place.start..current.place.frames_start].to_vec();
                let length = want.len().max(1);
                self.note_wrong(input, want.to_vec(), actual);
                length
            }
        };
        self.position += 1;
        match current.cursor >= current.place.end {
            true => self.end_input(),
            false => self.current = Some(current),
        }
        let panics = match panicked {
            true => self.panics.fetch_add(1, Ordering::Relaxed) + 1,
            false => self.panics.load(Ordering::Relaxed),
        };
        panics <= PANICS_BEFORE_GIVING_UP
    }

    /// Counts and describes a reply that differs from the reference's.
    fn note_wrong(&mut self, input: Vec<u8>, want: Vec<u8>, actual: &[u8]) {
        self.current_wrong = true;
        self.wrong_answers += 1;
        if self.wrong_by_check.len() <= self.position {
            self.wrong_by_check.resize(self.position + 1, 0);
        }
        self.wrong_by_check[self.position] += 1;
        let kind = match unwritten(self.request, self.position, actual) {
            Some(todo) => {
                self.unwritten_answers += 1;
                self.note_unwritten(todo);
                // One line whatever was expected: a `todo!()` is not a wrong value.
                let question = self.request.question_kind(self.position);
                // Cut, as every kind is: a runner's panic location may be a megabyte.
                (
                    question,
                    UNWRITTEN_EXPECTED.into(),
                    shorten(&self.request.show(actual), SHOWN_KIND),
                )
            }
            None => self.request.breakdown(self.position, &want, actual),
        };
        self.count_kind(kind.clone(), 1);
        self.note_sample(Sample {
            input,
            position: self.position,
            expected: want,
            actual: actual.to_vec(),
            kind,
        });
    }

    fn note_unwritten(&mut self, todo: Unwritten) {
        let known = self.unwritten.iter().any(|u| u.todo == todo.todo);
        if !known && self.unwritten.len() < SHOWN_BREAKDOWN {
            self.unwritten.push(todo);
        }
    }

    fn count_kind(&mut self, kind: (String, String, String), count: u64) {
        if self.breakdown.len() < HELD_BREAKDOWN || self.breakdown.contains_key(&kind) {
            *self.breakdown.entry(kind).or_default() += count;
        }
    }

    /// Keeps `sample` as an example if there is room and it is of a kind, and an input,
    /// not shown yet.
    fn note_sample(&mut self, sample: Sample) {
        let new_kind = self
            .samples
            .iter()
            .all(|s| s.kind != sample.kind && s.input != sample.input);
        if self.samples.len() < SHOWN_MISMATCHES && new_kind {
            self.samples.push(sample);
        }
    }

    /// Adds what the comparison of the inputs after these found, as if this one had gone
    /// on to compare them: each window keeps as many examples and kinds as the whole
    /// group shows, so the first of them in input order are among what the two hold.
    fn absorb(&mut self, later: BulkComparison) {
        self.inputs_compared += later.inputs_compared;
        self.wrong_inputs += later.wrong_inputs;
        self.answers_compared += later.answers_compared;
        self.wrong_answers += later.wrong_answers;
        if self.wrong_by_check.len() < later.wrong_by_check.len() {
            self.wrong_by_check.resize(later.wrong_by_check.len(), 0);
        }
        for (all, more) in self.wrong_by_check.iter_mut().zip(&later.wrong_by_check) {
            *all += more;
        }
        self.unwritten_answers += later.unwritten_answers;
        for todo in later.unwritten {
            self.note_unwritten(todo);
        }
        for (kind, count) in later.breakdown {
            self.count_kind(kind, count);
        }
        for sample in later.samples {
            self.note_sample(sample);
        }
        self.surplus = later.surplus;
    }

    /// The input the runner was answering, the reply it had come to, and its number in
    /// the window: the one being compared, or else the next the reference answered.
    fn input_in_progress(&mut self) -> Option<(Vec<u8>, usize, u64)> {
        let number = self.inputs_compared + 1;
        let (current, position) = match self.current {
            Some(current) => (current, self.position),
            None => (self.next_input()?, 0),
        };
        let place = current.place;
        Some((
            self.wanted.records[place.start..place.frames_start].to_vec(),
            position,
            number,
        ))
    }

    /// Counts an input the runner stopped in, having answered part of it wrongly, as
    /// compared and wrong: its wrong answers are already counted by check.
    fn count_partly_answered_input(&mut self) {
        if self.current.is_some() && self.current_wrong {
            self.inputs_compared += 1;
            self.wrong_inputs += 1;
        }
    }

    fn close(&mut self) {
        self.wanted.more = More::Nothing;
    }
}

impl Replies for BulkComparison<'_> {
    /// Where the rest of an input's replies are the reference's byte for byte, they are
    /// passed over in one comparison; the others are compared reply by reply.
    fn take(&mut self, frames: &[u8], count: u64) -> bool {
        self.answers_compared += count;
        let mut rest = frames;
        while !rest.is_empty() {
            if self.current.is_none() {
                self.start_input();
            }
            let Some(current) = self.current else {
                self.surplus = true;
                self.answers_compared -= frames_in(rest);
                return false;
            };
            let wanted = &self.wanted.records[current.cursor..current.place.end];
            if rest.starts_with(wanted) {
                rest = &rest[wanted.len()..];
                self.end_input();
                continue;
            }
            let frame = first_frame(rest);
            rest = &rest[frame.len()..];
            if !self.compare(current, frame) {
                self.answers_compared -= frames_in(rest);
                return false;
            }
        }
        true
    }
}

/// How many frames `frames` holds, laid end to end.
fn frames_in(frames: &[u8]) -> u64 {
    let mut count = 0;
    each_frame(frames, |_| count += 1);
    count
}

/// The group's hint and what the submission printed, after what differs.
fn finish(failure: &mut Failure, group: &Group, exchange: &Exchange) {
    if let Some(note) = &exchange.limits {
        failure.text("limits", Tone::Actual, note.clone());
    }
    if let Some(hint) = &group.hint {
        failure.text("hint", Tone::Hint, hint.clone());
    }
    printed(failure, "stdout", &exchange.stdout);
    printed(failure, "stderr", &exchange.stderr);
}

fn printed(failure: &mut Failure, name: &str, printed: &Printed) {
    if !printed.is_empty() {
        failure.text(
            &format!("{name} of your code"),
            Tone::Plain,
            visible_controls(printed.text().trim_end()),
        );
    }
}

/// A reply as a report shows it, cut so that a huge one cannot flood the report, and
/// with any control character a panic message holds made visible.
fn shown(text: &str) -> String {
    visible_controls(&shorten(text, SHOWN_ANSWER))
}

fn describe_ending(ending: &Ending) -> String {
    match ending {
        Ending::Answered => "answered".into(),
        Ending::TimedOut(limit) => format!(
            "not finished within {} ms, its time limit; the runner was killed and restarted for the other tests",
            group_digits(limit.as_millis() as u64)
        ),
        Ending::Stalled { quiet, .. } => format!(
            "no answer for {} ms (an endless loop?); the runner was killed and restarted for the other tests",
            group_digits(quiet.as_millis() as u64)
        ),
        Ending::Flooded(printed) => format!(
            "it printed {} MB, more than the {} MB a test may print, so it was stopped: remove the printing from your code; the runner was restarted for the other tests",
            group_digits(printed / 1_000_000),
            group_digits(crate::runner::FLOOD_BYTES / 1_000_000)
        ),
        Ending::Died(how) => format!("no answer: the runner process {how} while running your code"),
        Ending::Garbled(what) => {
            format!("no answer: the runner's reply was not understood ({what}); it was killed")
        }
        Ending::Abandoned => format!(
            "more than {} answers panicked, so the rest were not run",
            group_digits(PANICS_BEFORE_GIVING_UP)
        ),
    }
}

/// A line diff of two replies of the same kind that span several lines (lists, states,
/// rounds), emphasising what differs; `None` where expected and actual say it all.
fn answer_diff(request: &dyn Asked, expected: &[u8], actual: &[u8]) -> Option<Value> {
    lines_diff(request.lines(expected)?, request.lines(actual)?)
}

fn lines_diff(expected: Lines, actual: Lines) -> Option<Value> {
    let mut diff = Diff::default();
    let (old, new) = match (expected, actual) {
        (Lines::List(want), Lines::List(got)) => {
            if want.len().max(got.len()) > DIFFED_CELLS {
                return Some(Value::Text(
                    Tone::Plain,
                    format!("length {} where {} was expected", got.len(), want.len()),
                ));
            }
            if want.len() != got.len() {
                diff.lengths = Some((got.len(), want.len()));
            }
            (want.join("\n") + "\n", got.join("\n") + "\n")
        }
        (Lines::Text(want), Lines::Text(got)) => (want + "\n", got + "\n"),
        _ => return None,
    };
    let text = TextDiff::from_lines(&old, &new);
    for op in text.ops() {
        for change in text.iter_inline_changes(op) {
            let expected = match change.tag() {
                ChangeTag::Equal => continue,
                ChangeTag::Delete => true,
                ChangeTag::Insert => false,
            };
            let parts = change
                .iter_strings_lossy()
                .map(|(emphasized, text)| (emphasized, text.trim_end_matches('\n').to_string()))
                .collect();
            diff.lines.push(DiffLine { expected, parts });
        }
    }
    Some(Value::Diff(diff))
}

#[cfg(test)]
mod tests {
    use super::*;
    use grader_api::protocol::{Panic, Reply, put_reply};

    fn cells(values: &[i64]) -> Lines {
        Lines::List(
            values
                .iter()
                .enumerate()
                .map(|(index, count)| format!("cell {index:>2} = {count}"))
                .collect(),
        )
    }

    #[test]
    fn a_list_diff_names_the_cells_that_differ() {
        let mut want = vec![0i64; 15];
        want[13] = 2;
        want[3] = 1;
        let mut got = want.clone();
        got[13] = 3;
        let diff = lines_diff(cells(&want), cells(&got)).unwrap().plain();
        assert!(diff.contains("- expected cell 13 = 2"), "{diff}");
        assert!(diff.contains("+ actual   cell 13 = 3"), "{diff}");
        assert!(!diff.contains("cell  3"), "{diff}");
    }

    #[test]
    fn a_todo_panic_with_a_long_location_is_held_cut_in_the_breakdown() {
        let suite = crate::spec::load(&[], &[], None).unwrap();
        let (_, test) = suite
            .tests()
            .find(|(_, test)| test.grading == api_spec::Grading::Bulk)
            .unwrap();
        let panics = 100;
        let mut want = Vec::new();
        put_reply(&mut want, &Reply::Answer(true));
        let mut kept = Answers::default();
        for _ in 0..panics {
            kept.push(&[], &want);
        }
        let records = kept.into_stream();
        let counted = AtomicU64::new(0);
        let (sender, receiver) = sync_channel(1);
        sender.send(records).unwrap();
        drop(sender);
        let wanted = Wanted::new(More::Computed(receiver));
        let mut comparison = BulkComparison::new(&*test.request, wanted, &counted);
        for n in 0..panics {
            let mut todo = Vec::new();
            let location = format!("{n} {}", "x".repeat(1 << 16));
            put_reply(
                &mut todo,
                &Reply::<bool>::Panicked(Panic {
                    message: "not yet implemented".into(),
                    location: Some(location),
                }),
            );
            comparison.take(&todo, 1);
        }
        assert_eq!(comparison.breakdown.len(), panics);
        let held: usize = comparison
            .breakdown
            .keys()
            .map(|(question, expected, actual)| question.len() + expected.len() + actual.len())
            .sum();
        assert!(held < panics * 1024, "the breakdown holds {held} bytes");
    }

    #[test]
    fn patience_is_the_stall_limit_or_a_hundred_times_the_references_time_once_timed() {
        let timings = std::cell::Cell::new(0);
        let mut patience = patience(Duration::from_secs(1), |input| {
            timings.set(timings.get() + 1);
            Duration::from_millis([1, 50][input as usize % 2])
        });
        assert_eq!(patience(0), Duration::from_secs(1));
        assert_eq!(patience(0), Duration::from_secs(1));
        assert_eq!(timings.get(), 1, "the reference is timed once per input");
        assert_eq!(patience(1), Duration::from_secs(5));
        assert_eq!(timings.get(), 2);
    }

    #[test]
    fn a_short_list_says_its_length() {
        let diff = lines_diff(cells(&[0; 15]), cells(&[0; 14]))
            .unwrap()
            .plain();
        assert!(diff.contains("length 14 where 15 was expected"), "{diff}");
        assert!(diff.contains("- expected cell 14 = 0"), "{diff}");
    }
}
