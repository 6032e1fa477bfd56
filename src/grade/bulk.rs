//! Bulk groups: generated or exhaustive inputs, streamed to one runner or split across
//! several, compared with the reference's answers (computed or kept) as they arrive.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use grader_api::Submission;
use grader_api::assignment::{Asked, shorten};
use grader_api::protocol::{each_frame, first_frame, group_digits, is_panic};
use grader_api::source::Window;

use super::failure::{
    describe_ending, explain_by_reference, explain_difference, finish, shown, unwritten,
};
use super::{patience, timed};
use crate::answers::{Answers, Blocks, KeptReader, Place, Store, place_at};
use crate::runner::{Ending, Exchange, Replies, Runner};
use crate::spec::{Group, Scoring, TestCase};
use crate::verdict::{Credit, Failure, Tone, Unwritten, Value, Verdict, WrongKind};

/// How many wrong inputs of a bulk group are shown in full.
pub(super) const SHOWN_MISMATCHES: usize = 3;

/// How many kinds of wrong answer a bulk group's breakdown lists.
pub(super) const SHOWN_BREAKDOWN: usize = 12;

/// A bulk group stops after this many wrong answers that panicked: a `todo!()` would
/// otherwise panic millions of times, and the count says nothing more than the first
/// thousand.
pub(super) const PANICS_BEFORE_GIVING_UP: u64 = 1_000;

/// Kinds of wrong answer a bulk group's breakdown holds at most; answers of further kinds
/// are counted as wrong but not held, so a runner cannot grow the grader without end.
pub(super) const HELD_BREAKDOWN: usize = 10_000;

/// Characters of an answer that a breakdown holds as its kind, as the assignments cut theirs.
pub(super) const SHOWN_KIND: usize = 200;

/// What a breakdown says was expected where the answer was a `todo!()`.
pub(super) const UNWRITTEN_EXPECTED: &str = "an answer";

/// Inputs answered by the reference per message to the comparing thread.
pub(super) const CHUNK_INPUTS: u64 = 2048;

/// Inputs a bulk group holds per runner it is split across: a runner starts in a few
/// milliseconds, the time the reference takes to answer about this many hands.
pub(super) const INPUTS_PER_RUNNER: u64 = 50_000;

/// How many runners of `most` a bulk test is split across.
pub fn runners_for(test: &TestCase, most: usize) -> usize {
    let by_size = test.request.input_count() / INPUTS_PER_RUNNER;
    by_size.clamp(1, most.max(1) as u64) as usize
}

/// `total` inputs in `parts` windows one after another, as equal in size as can be.
pub(super) fn windows(total: u64, parts: usize) -> Vec<Window> {
    let parts = parts.max(1) as u64;
    (0..parts)
        .map(|k| Window {
            start: total / parts * k + (total % parts).min(k),
            end: total / parts * (k + 1) + (total % parts).min(k + 1),
        })
        .collect()
}

/// The input a runner was answering when it stopped.
pub(super) struct StoppedOn {
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
pub(super) struct Range<'a> {
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
pub(super) fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// The reference's answers to the inputs in `window`, sent in chunks as they come and,
/// when `keep` and it answered all of them before the comparison stopped, returned in
/// blocks.
pub(super) fn compute(
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
pub(super) fn answer_window<'a>(
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
pub(super) fn credit(
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
    let earned = (0..checks)
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
        .sum();
    let unanswered = total.saturating_sub(comparison.inputs_compared);
    let mut tally = format!(
        "{} of {} wrong",
        group_digits(comparison.wrong_inputs),
        group_digits(total)
    );
    if unanswered > 0 {
        tally += &format!(", {} not answered", group_digits(unanswered));
    }
    tally += match scoring {
        Scoring::AllOrNothing => ", all or nothing".to_string(),
        Scoring::Proportional => ", scored in proportion".to_string(),
        Scoring::Threshold(fraction) => format!(", full points from {} right", percent(fraction)),
    }
    .as_str();
    Credit {
        right: earned,
        of: total * checks as u64,
        tally,
    }
}

/// 0.999 as `99.9%`, with no more digits than the fraction has.
pub(super) fn percent(fraction: f64) -> String {
    let shown = format!("{:.4}", fraction * 100.0);
    format!("{}%", shown.trim_end_matches('0').trim_end_matches('.'))
}

/// Input `number` (from 0) of `request`, as the reference is given it.
pub(super) fn input_numbered(reference: &Submission, request: &dyn Asked, number: u64) -> Vec<u8> {
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
pub(super) fn as_one_runner(ranges: Vec<Range>) -> Range {
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
pub(super) fn judge_bulk(
    reference: &Submission,
    group: &Group,
    request: &dyn Asked,
    all: Range,
) -> Verdict {
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

pub(super) struct Sample {
    input: Vec<u8>,
    position: usize,
    expected: Vec<u8>,
    actual: Vec<u8>,
    /// Its kind of wrong answer: examples show different kinds where there are several.
    kind: (String, String, String),
}

/// The reference's answers as a comparison reads them: records laid end to end (see
/// [`Answers`]), a block at a time from a kept entry, or in chunks while they are computed.
pub(super) struct Wanted<'a> {
    records: Vec<u8>,
    /// Where the next record starts.
    at: usize,
    more: More<'a>,
    /// A block of the kept entry was damaged: the reference answered in its place.
    damaged: bool,
}

/// Where a comparison's further records come from.
pub(super) enum More<'a> {
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
pub(super) struct Current {
    place: Place,
    cursor: usize,
}

/// Compares a stream of reply frames with the reference's, input by input, as bytes;
/// decodes only the replies that differ.
pub(super) struct BulkComparison<'a> {
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
pub(super) fn frames_in(frames: &[u8]) -> u64 {
    let mut count = 0;
    each_frame(frames, |_| count += 1);
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use grader_api::protocol::{Panic, Reply, put_reply};
    use grader_api::spec::Grading;

    #[test]
    fn a_todo_panic_with_a_long_location_is_held_cut_in_the_breakdown() {
        let suite = crate::spec::load(&[], &[], None).unwrap();
        let (_, test) = suite
            .tests()
            .find(|(_, test)| test.grading == Grading::Bulk)
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
}
