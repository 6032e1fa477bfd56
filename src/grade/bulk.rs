//! Bulk groups: generated or exhaustive inputs, streamed to one runner or split across
//! several, compared with the reference's answers (computed or kept) as they arrive.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::{SyncSender, sync_channel};

use grader_api::Submission;
use grader_api::protocol::group_digits;
use grader_api::source::Window;
use grader_api::unit::{Asked, Compared};

use super::failure::{describe_ending, finish, show_difference, trouble_of};
use super::patience::{patience, timed};
use crate::answers::{Answers, BLOCK_INPUTS, Blocks, Store};
use crate::runner::{Ending, Exchange, Runner};
use crate::spec::{Group, Scoring, TestCase};
use crate::verdict::{Credit, Failure, Tone, Value, Verdict, WrongKind};

mod comparison;

use comparison::{BulkComparison, More, SHOWN_BREAKDOWN, UNWRITTEN_EXPECTED, Wanted};

/// Inputs answered by the reference per message to the comparing thread: a block of the
/// kept entry, compressed from the chunk itself.
const CHUNK_INPUTS: u64 = BLOCK_INPUTS;

/// Inputs a bulk group holds per runner it is split across: a runner starts in a few
/// milliseconds, the time the reference takes to answer about this many hands.
const INPUTS_PER_RUNNER: u64 = 50_000;

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
/// there yet, computed (a thread per window) and kept. Wrong answers are held for a
/// diagnosis where `holds_wrong`. Returns the verdict, and for each runner whether it
/// survived.
pub fn grade_bulk(
    runners: &mut [Runner],
    reference: &Submission,
    (store, holds_wrong): (Option<&Store>, bool),
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
            let mut comparison = BulkComparison::new(request, wanted, &panics);
            comparison.first_input = window.start;
            if !holds_wrong {
                comparison.wrong.unknown();
            }
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
    sender: SyncSender<Answers>,
) -> Option<Blocks> {
    let mut computed = Blocks::default();
    let mut chunk = Answers::default();
    request.respond_within(reference, window, &mut |answered| {
        chunk.push(answered);
        if chunk.inputs() < CHUNK_INPUTS {
            return true;
        }
        if keep {
            computed.add(&chunk);
        }
        let next = chunk.with_room_of();
        sender.send(std::mem::replace(&mut chunk, next)).is_ok()
    });
    if keep {
        computed.add(&chunk);
    }
    let _ = sender.send(chunk);
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

/// What a bulk test earns under its group's scoring: each of its `checks` an equal share,
/// earned by the inputs it answered right (an input never answered is not right), and the
/// count a report shows beside the points.
fn credit(
    scoring: Scoring,
    comparison: &BulkComparison,
    total: u64,
    checks: usize,
    complete: bool,
) -> Credit {
    let right_on = |check: usize| {
        let wrong = match checks {
            1 => comparison.wrong_inputs,
            _ => comparison.wrong_by_check.get(check).copied().unwrap_or(0),
        };
        comparison.inputs_compared.min(total).saturating_sub(wrong)
    };
    let earned_by_check: Vec<u64> = (0..checks)
        .map(|check| {
            let right = right_on(check);
            match scoring {
                Scoring::AllOrNothing if complete && right == total => total,
                Scoring::AllOrNothing => 0,
                Scoring::Proportional => right,
                Scoring::Threshold(fraction) if right as f64 >= fraction * total as f64 => total,
                Scoring::Threshold(_) => 0,
            }
        })
        .collect();
    let earned = earned_by_check.iter().sum();
    let unanswered = total.saturating_sub(comparison.inputs_compared);
    let mut tally = format!(
        "{} of {} wrong",
        group_digits(comparison.wrong_inputs),
        group_digits(total)
    );
    if unanswered > 0 {
        tally += &format!(", {} not answered", group_digits(unanswered));
    }
    // Points beside the count would read as earned per input; they are earned per check,
    // which a student sees only if told how many checks earned theirs.
    let whole = earned_by_check.iter().filter(|&&e| e == total).count();
    tally += &match (scoring, checks) {
        (Scoring::AllOrNothing, 1) => ", all or nothing".to_string(),
        (Scoring::AllOrNothing, _) => {
            format!("; {whole} of {checks} checks right on every input, all or nothing per check")
        }
        (Scoring::Proportional, _) => ", scored in proportion".to_string(),
        (Scoring::Threshold(fraction), 1) => {
            format!(", full points from {} right", percent(fraction))
        }
        (Scoring::Threshold(fraction), _) => format!(
            "; {whole} of {checks} checks right on {} of the inputs or more, full points per check from there",
            percent(fraction)
        ),
    };
    Credit {
        right: earned,
        of: total * checks as u64,
        tally,
    }
}

/// 0.999 as `99.9%`, with no more digits than the fraction has.
fn percent(fraction: f64) -> String {
    let shown = format!("{:.4}", fraction * 100.0);
    format!("{}%", shown.trim_end_matches('0').trim_end_matches('.'))
}

/// Input `number` (from 0) of `request`, as the reference is given it.
fn input_numbered(reference: &Submission, request: &dyn Asked, number: u64) -> Vec<u8> {
    let mut found = Vec::new();
    let only = Window {
        start: number,
        end: number + 1,
    };
    request.respond_within(reference, only, &mut |answered| {
        found = answered.input.to_vec();
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
    }
    failure.credit = Some(credit(group.scoring, &comparison, total, checks, complete));
    if !complete {
        comparison.wrong.unknown();
    }
    failure.wrong = Some(Arc::new(std::mem::take(&mut comparison.wrong)));
    if !complete {
        failure.trouble = trouble_of(&exchange.ending);
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
                actual: actual.as_str().into(),
                count: group_digits(**count),
            })
            .collect();
        let more = kinds.len().saturating_sub(SHOWN_BREAKDOWN);
        failure.push("by answer", Value::Breakdown(listed, more));
    }
    for (index, sample) in comparison.samples.iter().enumerate() {
        let mut example = Failure::default();
        let difference = request.difference(Compared {
            reference,
            input: &sample.input,
            position: sample.position,
            expected: &sample.expected,
            actual: Some(&sample.actual),
        });
        show_difference(&mut example, difference, String::new());
        failure.push(
            &format!("example {} of a wrong answer", index + 1),
            Value::Example(example),
        );
    }
    finish(&mut failure, group, &exchange);
    Verdict::Failed(failure)
}
