//! A bulk group's answers held in memory, a block or a computed chunk at a time: the
//! inputs and their reply frames laid end to end apart, and where each record ends.

use grader_api::source::Window;
use grader_api::unit::Answered;
use grader_api::wire::put_varint;

/// A bulk group's answers as the reference gave them, input by input: the inputs laid end
/// to end, and apart from them their reply frames laid end to end, so that replies to a
/// stretch of inputs are compared with the reference's in one comparison; an index of each
/// input's lengths and number of frames, as kept; and, read from it, where each record ends.
pub struct Answers {
    /// For each input, as varints: its length, its frames' length, and how many frames.
    index: Vec<u8>,
    inputs_laid: Vec<u8>,
    frames: Vec<u8>,
    /// Where each record ends, after one of zeros where the first begins.
    bounds: Vec<Bound>,
}

/// Where a record ends in the parts of [`Answers`]: the end of its input and of its
/// frames, and how many frames all the records up to it have.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bound {
    pub input: usize,
    pub frames: usize,
    pub replies: u64,
}

/// Where one input's record lies in the parts of [`Answers`]: the input, its frames, and
/// how many frames it has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub input: std::ops::Range<usize>,
    pub frames: std::ops::Range<usize>,
    pub replies: u64,
}

/// The varint at `at` in `bytes`, moving `at` past it.
fn varint_at(bytes: &[u8], at: &mut usize) -> Option<usize> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return usize::try_from(value).ok();
        }
    }
    None
}

impl Default for Answers {
    fn default() -> Answers {
        Answers {
            index: Vec::new(),
            inputs_laid: Vec::new(),
            frames: Vec::new(),
            bounds: vec![Bound::default()],
        }
    }
}

impl Answers {
    /// Adds one input and its reply frames.
    pub fn push(&mut self, answered: Answered) {
        let Answered {
            input,
            frames,
            replies,
        } = answered;
        for number in [input.len() as u64, frames.len() as u64, replies] {
            // Writing into memory cannot fail.
            let _ = put_varint(&mut self.index, number);
        }
        self.inputs_laid.extend_from_slice(input);
        self.frames.extend_from_slice(frames);
        let last = self.last();
        self.bounds.push(Bound {
            input: self.inputs_laid.len(),
            frames: self.frames.len(),
            replies: last.replies + replies,
        });
    }

    /// No answers, with room for a sixteenth more than these hold: a group's next chunk,
    /// about as large, fills it without growing (each growth copies and faults in pages).
    pub fn with_room_of(&self) -> Answers {
        let room = |part: &Vec<u8>| Vec::with_capacity(part.len() + part.len() / 16);
        let mut bounds = Vec::with_capacity(self.bounds.len() + self.bounds.len() / 16);
        bounds.push(Bound::default());
        Answers {
            index: room(&self.index),
            inputs_laid: room(&self.inputs_laid),
            frames: room(&self.frames),
            bounds,
        }
    }

    /// Empties these answers, keeping their room for the next.
    pub fn clear(&mut self) {
        for part in self.parts_mut() {
            part.clear();
        }
        self.bounds.truncate(1);
    }

    /// Adds the answers to the inputs that follow these.
    pub fn append(&mut self, later: &Answers) {
        let last = self.last();
        for (part, more) in self.parts_mut().into_iter().zip(later.parts()) {
            part.extend_from_slice(more);
        }
        self.bounds
            .extend(later.bounds[1..].iter().map(|bound| Bound {
                input: last.input + bound.input,
                frames: last.frames + bound.frames,
                replies: last.replies + bound.replies,
            }));
    }

    pub fn inputs(&self) -> u64 {
        self.records() as u64
    }

    fn records(&self) -> usize {
        self.bounds.len() - 1
    }

    fn last(&self) -> Bound {
        self.bounds.last().copied().unwrap_or_default()
    }

    /// The reply frames of every input, laid end to end.
    pub fn frames(&self) -> &[u8] {
        &self.frames
    }

    /// Where record `number` (from 0) begins, or where the last ends for the number after
    /// it; the end of the last for any number past that.
    pub fn start_of(&self, number: usize) -> Bound {
        self.bounds
            .get(number)
            .copied()
            .unwrap_or_else(|| self.last())
    }

    /// Where record `number` (from 0) lies, if there is one.
    pub fn place(&self, number: usize) -> Option<Place> {
        let (start, end) = (self.bounds.get(number)?, self.bounds.get(number + 1)?);
        Some(Place {
            input: start.input..end.input,
            frames: start.frames..end.frames,
            replies: end.replies - start.replies,
        })
    }

    /// How many records' frames begin before byte `at` of the frames: those some of whose
    /// frames lie before it, and those with none before one that has.
    pub fn begun_before(&self, at: usize) -> usize {
        self.bounds[..self.records()].partition_point(|bound| bound.frames < at)
    }

    /// The input whose record is at `place`.
    pub fn input(&self, place: &Place) -> &[u8] {
        self.inputs_laid
            .get(place.input.clone())
            .unwrap_or_default()
    }

    /// Reads where each record ends from the index; whether it holds `inputs` records
    /// that fill the parts.
    pub(super) fn read_bounds(&mut self, inputs: u64) -> bool {
        self.bounds.truncate(1);
        let mut at = 0;
        let mut last = Bound::default();
        while at < self.index.len() {
            let mut lengths = [0; 3];
            for length in &mut lengths {
                match varint_at(&self.index, &mut at) {
                    Some(number) => *length = number,
                    None => return false,
                }
            }
            let [input, frames, replies] = lengths;
            let (Some(input), Some(frames), Some(replies)) = (
                last.input.checked_add(input),
                last.frames.checked_add(frames),
                last.replies.checked_add(replies as u64),
            ) else {
                return false;
            };
            last = Bound {
                input,
                frames,
                replies,
            };
            self.bounds.push(last);
        }
        self.inputs() == inputs
            && last.input == self.inputs_laid.len()
            && last.frames == self.frames.len()
    }

    /// The answers to the inputs numbered (from 0) in `window`.
    pub(super) fn part(&self, window: Window) -> Answers {
        let mut part = Answers::default();
        let numbers = window.start.min(self.inputs())..window.end.min(self.inputs());
        for number in numbers {
            if let Some(place) = self.place(number as usize) {
                part.push(Answered {
                    input: self.input(&place),
                    frames: &self.frames[place.frames],
                    replies: place.replies,
                });
            }
        }
        part
    }

    pub(super) fn parts(&self) -> [&[u8]; 3] {
        [&self.index, &self.inputs_laid, &self.frames]
    }

    pub(super) fn parts_mut(&mut self) -> [&mut Vec<u8>; 3] {
        [&mut self.index, &mut self.inputs_laid, &mut self.frames]
    }
}
