//! A bulk group's answers compared with the reference's as they arrive: counts, a
//! breakdown by kind, the first examples, and where a `todo!()` answered.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Receiver;

use grader_api::Submission;
use grader_api::protocol::{first_frame, is_panic};
use grader_api::source::Window;
use grader_api::text::shorten;
use grader_api::unit::Asked;

use crate::answers::{Answers, KeptReader, Place};
use crate::diagnosis::WrongAnswers;
use crate::grade::failure::{PANICS_BEFORE_GIVING_UP, unwritten};
use crate::runner::{Replies, Taken};
use crate::verdict::Unwritten;

/// How many wrong inputs of a bulk group are shown in full.
const SHOWN_MISMATCHES: usize = 3;

/// How many kinds of wrong answer a bulk group's breakdown lists.
pub(super) const SHOWN_BREAKDOWN: usize = 12;

/// What a breakdown says was expected where the answer was a `todo!()`.
pub(super) const UNWRITTEN_EXPECTED: &str = "an answer";

/// Kinds of wrong answer a bulk group's breakdown holds at most; answers of further kinds
/// are counted as wrong but not held, so a runner cannot grow the grader without end.
const HELD_BREAKDOWN: usize = 10_000;

/// Characters of an answer that a breakdown holds as its kind, as the assignments cut theirs.
const SHOWN_KIND: usize = 200;

pub(super) struct Sample {
    pub(super) input: Vec<u8>,
    pub(super) position: usize,
    pub(super) expected: Vec<u8>,
    pub(super) actual: Vec<u8>,
    /// Its kind of wrong answer: examples show different kinds where there are several.
    pub(super) kind: (String, String, String),
}

/// The reference's answers as a comparison reads them (see [`Answers`]), a block at a time
/// from a kept entry, or in chunks while they are computed.
pub(super) struct Wanted<'a> {
    pub(super) records: Answers,
    /// The number of the next record in them.
    pub(super) at: usize,
    pub(super) more: More<'a>,
    /// A block of the kept entry was damaged: the reference answered in its place.
    pub(super) damaged: bool,
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
    Computed(Receiver<Answers>),
    Nothing,
}

impl<'a> Wanted<'a> {
    pub(super) fn new(more: More<'a>) -> Wanted<'a> {
        Wanted {
            records: Answers::default(),
            at: 0,
            more,
            damaged: false,
        }
    }

    /// The number of the next record in [`Wanted::records`] and where it lies, waiting
    /// for more if need be.
    pub(super) fn next(&mut self) -> Option<(usize, Place)> {
        loop {
            if let Some(place) = self.records.place(self.at) {
                self.at += 1;
                return Some((self.at - 1, place));
            }
            if !self.more_records() {
                return None;
            }
            self.at = 0;
        }
    }

    /// Puts the next records in [`Wanted::records`]; `false` when there are no more.
    pub(super) fn more_records(&mut self) -> bool {
        let (reference, request, first, end) = match &mut self.more {
            More::Computed(chunks) => match chunks.recv() {
                Ok(chunk) => {
                    self.records = chunk;
                    return true;
                }
                Err(_) => return false,
            },
            More::Nothing => return false,
            More::Kept {
                reader,
                reference,
                request,
                end,
            } => match reader.next_records(&mut self.records) {
                Ok(more) => return more,
                Err(first) => (*reference, *request, first, *end),
            },
        };
        self.damaged = true;
        self.more = More::Nothing;
        let mut rest = Answers::default();
        let window = Window { start: first, end };
        request.respond_within(reference, window, &mut |answered| {
            rest.push(answered);
            true
        });
        self.records = rest;
        true
    }
}

/// The input being compared: its record's number and where it and its frames lie, and
/// how far the comparison has come.
#[derive(Clone)]
pub(super) struct Current {
    pub(super) number: usize,
    pub(super) place: Place,
    pub(super) cursor: usize,
}

/// How many bytes `a` and `b` begin with alike: compared a stretch at a time, and byte by
/// byte only within the first stretch that differs.
fn common_start(a: &[u8], b: &[u8]) -> usize {
    const STRETCH: usize = 1024;
    let mut same = 0;
    for (x, y) in a.chunks(STRETCH).zip(b.chunks(STRETCH)) {
        let length = x.len().min(y.len());
        let (x, y) = (&x[..length], &y[..length]);
        if x != y {
            return same + x.iter().zip(y).take_while(|(p, q)| p == q).count();
        }
        same += length;
    }
    same
}

/// Compares a stream of reply frames with the reference's, input by input, as bytes;
/// decodes only the replies that differ.
pub(super) struct BulkComparison<'a> {
    pub(super) request: &'a dyn Asked,
    pub(super) wanted: Wanted<'a>,
    pub(super) current: Option<Current>,
    pub(super) position: usize,
    pub(super) current_wrong: bool,
    pub(super) inputs_compared: u64,
    pub(super) wrong_inputs: u64,
    pub(super) answers_compared: u64,
    pub(super) wrong_answers: u64,
    /// Wrong answers by the position of the reply within its input: by check, where a
    /// request's checks are scored each on its own.
    pub(super) wrong_by_check: Vec<u64>,
    /// Wrong answers that were a `todo!()`, and each question so answered.
    pub(super) unwritten_answers: u64,
    pub(super) unwritten: Vec<Unwritten>,
    /// Panicking answers of the whole group, counted by the comparisons of every window.
    pub(super) panics: &'a AtomicU64,
    pub(super) breakdown: BTreeMap<(String, String, String), u64>,
    pub(super) samples: Vec<Sample>,
    /// The runner answered past the last input.
    pub(super) surplus: bool,
    /// The number of the window's first input in the whole group.
    pub(super) first_input: u64,
    /// Every wrong answer, by check and input, for a diagnosis.
    pub(super) wrong: WrongAnswers,
    /// Each check's question, by its place among an input's replies, as far as asked.
    questions: Vec<String>,
}

impl<'a> BulkComparison<'a> {
    pub(super) fn new(
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
            first_input: 0,
            wrong: WrongAnswers::default(),
            questions: Vec::new(),
        }
    }

    /// The next input with replies to compare; skips any the reference answered with none.
    pub(super) fn next_input(&mut self) -> Option<Current> {
        loop {
            let (number, place) = self.wanted.next()?;
            if !place.frames.is_empty() {
                return Some(Current {
                    number,
                    cursor: place.frames.start,
                    place,
                });
            }
            self.inputs_compared += 1;
        }
    }

    /// Starts comparing the next input the reference answered, if there is one.
    pub(super) fn start_input(&mut self) {
        self.current = self.next_input();
        self.position = 0;
        self.current_wrong = false;
    }

    pub(super) fn end_input(&mut self) {
        self.inputs_compared += 1;
        self.wrong_inputs += u64::from(self.current_wrong);
        self.current = None;
    }

    /// Compares one reply of the `current` input; `false` once enough wrong replies
    /// panicked, in every window of the group, to stop asking.
    pub(super) fn compare(&mut self, mut current: Current, actual: &[u8]) -> bool {
        let records = &self.wanted.records;
        let rest = &records.frames()[current.cursor..current.place.frames.end];
        let mut panicked = false;
        // A whole frame the reference's replies start with is its reply: a frame's header
        // gives its length.
        current.cursor += match rest.starts_with(actual) {
            true => actual.len(),
            false => {
                panicked = is_panic(actual);
                let want = first_frame(rest).to_vec();
                let input = records.input(&current.place).to_vec();
                let length = want.len().max(1);
                self.note_wrong(input, want, actual);
                length
            }
        };
        self.position += 1;
        match current.cursor >= current.place.frames.end {
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
    pub(super) fn note_wrong(&mut self, input: Vec<u8>, want: Vec<u8>, actual: &[u8]) {
        self.current_wrong = true;
        self.wrong_answers += 1;
        if self.wrong_by_check.len() <= self.position {
            self.wrong_by_check.resize(self.position + 1, 0);
        }
        self.wrong_by_check[self.position] += 1;
        while self.questions.len() <= self.position {
            let question = self.request.question(self.questions.len());
            self.questions.push(question);
        }
        let question = &self.questions[self.position];
        self.wrong
            .note(self.first_input + self.inputs_compared, question, actual);
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

    pub(super) fn note_unwritten(&mut self, todo: Unwritten) {
        let known = self.unwritten.iter().any(|u| u.todo == todo.todo);
        if !known && self.unwritten.len() < SHOWN_BREAKDOWN {
            self.unwritten.push(todo);
        }
    }

    pub(super) fn count_kind(&mut self, kind: (String, String, String), count: u64) {
        if self.breakdown.len() < HELD_BREAKDOWN || self.breakdown.contains_key(&kind) {
            *self.breakdown.entry(kind).or_default() += count;
        }
    }

    /// Keeps `sample` as an example if there is room and it is of a kind, and an input,
    /// not shown yet.
    pub(super) fn note_sample(&mut self, sample: Sample) {
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
    pub(super) fn absorb(&mut self, later: BulkComparison) {
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
        self.wrong.absorb(later.wrong);
    }

    /// The input the runner was answering, the reply it had come to, and its number in
    /// the window: the one being compared, or else the next the reference answered.
    pub(super) fn input_in_progress(&mut self) -> Option<(Vec<u8>, usize, u64)> {
        let number = self.inputs_compared + 1;
        let (place, position) = match &self.current {
            Some(current) => (current.place.clone(), self.position),
            None => (self.next_input()?.place, 0),
        };
        Some((self.wanted.records.input(&place).to_vec(), position, number))
    }

    /// Counts an input the runner stopped in, having answered part of it wrongly, as
    /// compared and wrong: its wrong answers are already counted by check.
    pub(super) fn count_partly_answered_input(&mut self) {
        if self.current.is_some() && self.current_wrong {
            self.inputs_compared += 1;
            self.wrong_inputs += 1;
        }
    }

    pub(super) fn close(&mut self) {
        self.wanted.more = More::Nothing;
    }
}

impl Replies for BulkComparison<'_> {
    fn take(&mut self, frame: &[u8]) -> bool {
        if self.current.is_none() {
            self.start_input();
        }
        let Some(current) = self.current.take() else {
            self.surplus = true;
            return false;
        };
        self.answers_compared += 1;
        self.compare(current, frame)
    }

    /// The runner's bytes are compared with the reference's frames that follow in the
    /// block or chunk held, as bytes; the replies they match are taken at once, the inputs
    /// they end counted from where each record ends, and the reply that differs is left for
    /// [`Replies::take`]. A new block is read only for a reply: the end of the replies never
    /// waits for one.
    fn take_expected(&mut self, bytes: &[u8]) -> Taken {
        let records = &self.wanted.records;
        let (from, replies_before) = match &self.current {
            Some(current) => (
                current.cursor,
                records.start_of(current.number).replies + self.position as u64,
            ),
            None => {
                let start = records.start_of(self.wanted.at);
                (start.frames, start.replies)
            }
        };
        let frames = records.frames();
        let reach = from + common_start(bytes, frames.get(from..).unwrap_or_default());
        if reach == from {
            return Taken::default();
        }
        // The whole frames within `reach`: those of the records that end within it, then
        // of the last, which may go on past it.
        let last = records.begun_before(reach) - 1;
        let Some(place) = records.place(last) else {
            return Taken::default();
        };
        let (mut through, mut within) = match &self.current {
            Some(current) if current.number == last => (current.cursor, self.position),
            _ => (place.frames.start.max(from), 0),
        };
        while through < place.frames.end {
            let frame = first_frame(&frames[through..place.frames.end]);
            if through + frame.len() > reach {
                break;
            }
            through += frame.len();
            within += 1;
        }
        if through == from {
            return Taken::default();
        }
        // The records begun: those some of whose frames are taken, and those with none
        // before one that has; the last goes on if its frames do.
        let begun = records.begun_before(through);
        let going_on = records.start_of(begun).frames > through;
        let ended = begun - usize::from(going_on);
        let replies_after = match going_on {
            true => records.start_of(begun - 1).replies + within as u64,
            false => records.start_of(begun).replies,
        };
        let (going_on_place, going_on_number) = (records.place(begun - 1), begun - 1);
        let first_not_counted = match self.current.take() {
            Some(current) if going_on && current.number == going_on_number => {
                self.current = Some(Current {
                    cursor: through,
                    ..current
                });
                ended
            }
            Some(current) => {
                self.wrong_inputs += u64::from(self.current_wrong);
                current.number
            }
            None => self.wanted.at,
        };
        self.inputs_compared += ended.saturating_sub(first_not_counted) as u64;
        if going_on && self.current.is_none() {
            self.current = going_on_place.map(|place| Current {
                number: going_on_number,
                place,
                cursor: through,
            });
            self.current_wrong = false;
        }
        self.position = within;
        self.wanted.at = begun;
        let taken = Taken {
            bytes: through - from,
            replies: replies_after.saturating_sub(replies_before),
        };
        self.answers_compared += taken.replies;
        taken
    }
}

#[cfg(test)]
mod tests;
