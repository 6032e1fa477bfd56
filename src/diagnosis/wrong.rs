//! A test's wrong answers, check by check, as a grading notes them: what diagnosis compares
//! with the known mistakes', and what a batch fingerprints.

use std::collections::{BTreeMap, BTreeSet};

use grader_api::protocol::is_panic;

/// Wrong answers a test holds for diagnosis; past it, nothing is named for the test. A
/// library bug differs from the reference on a few percent of inputs at most.
pub(super) const HELD_WRONG: usize = 1 << 20;

/// What every panicking answer is held as: where a panic happened is no mistake of its own.
pub(super) const PANICKED: &[u8] = b"\0panicked";

/// Wrong answers to one check: each input answered wrongly, in increasing order, and the
/// answer given. Kept flat, in three vectors, since a grading may hold a million and an
/// answer is a byte or two.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Answers {
    pub(super) inputs: Vec<u64>,
    /// Where each input's answer ends in `bytes`.
    pub(super) ends: Vec<usize>,
    pub(super) bytes: Vec<u8>,
}

impl Answers {
    pub fn len(&self) -> usize {
        self.inputs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty()
    }

    pub(super) fn answer(&self, at: usize) -> &[u8] {
        let start = match at {
            0 => 0,
            _ => self.ends[at - 1],
        };
        &self.bytes[start..self.ends[at]]
    }

    /// Each input and its answer, in increasing order of input.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &[u8])> + '_ {
        (0..self.len()).map(|at| (self.inputs[at], self.answer(at)))
    }

    pub(super) fn get(&self, input: u64) -> Option<&[u8]> {
        let at = self.inputs.binary_search(&input).ok()?;
        Some(self.answer(at))
    }

    pub(super) fn contains(&self, input: u64) -> bool {
        self.inputs.binary_search(&input).is_ok()
    }

    /// `input` was answered `answer`: appended, as inputs come in order; else merged in.
    pub(super) fn put(&mut self, input: u64, answer: &[u8]) {
        match self.inputs.last() {
            Some(&last) if last >= input => {
                let mut one = Answers::default();
                one.put(input, answer);
                self.merge(&one);
            }
            _ => {
                self.inputs.push(input);
                self.bytes.extend_from_slice(answer);
                self.ends.push(self.bytes.len());
            }
        }
    }

    /// These answers and `later`'s together, `later`'s where both answered an input.
    pub(super) fn merge(&mut self, later: &Answers) {
        if self
            .inputs
            .last()
            .is_none_or(|&last| later.inputs.first().is_none_or(|&first| first > last))
        {
            for (input, answer) in later.iter() {
                self.put(input, answer);
            }
            return;
        }
        let mut merged = Answers::default();
        let (mut mine, mut theirs) = (self.iter().peekable(), later.iter().peekable());
        loop {
            let next = match (mine.peek(), theirs.peek()) {
                (Some(a), Some(b)) if a.0 < b.0 => mine.next(),
                (Some(a), Some(b)) if a.0 == b.0 => {
                    mine.next();
                    theirs.next()
                }
                (_, Some(_)) => theirs.next(),
                (Some(_), None) => mine.next(),
                (None, None) => break,
            };
            if let Some((input, answer)) = next {
                merged.inputs.push(input);
                merged.bytes.extend_from_slice(answer);
                merged.ends.push(merged.bytes.len());
            }
        }
        drop(mine);
        *self = merged;
    }

    /// The same answers, input `i` as `base | i`.
    pub(super) fn based(&self, base: u64) -> Answers {
        Answers {
            inputs: self.inputs.iter().map(|input| base | input).collect(),
            ..self.clone()
        }
    }
}

/// Wrong answers: for each check (`has_pair()`), each input answered wrongly and the answer
/// given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WrongAnswers {
    pub(super) by_check: BTreeMap<String, Answers>,
    /// Checks whose wrong answers were left unread, being more than a submission's: a
    /// known mistake explains nothing of them.
    pub(super) beyond: BTreeSet<String>,
    /// More were wrong than are held, or not every input was answered: nothing is named.
    pub(super) unknown: bool,
}

impl WrongAnswers {
    /// Input `input`'s reply to check `check` was `answer`, not the reference's.
    pub fn note(&mut self, input: u64, check: &str, answer: &[u8]) {
        if self.unknown {
            return;
        }
        if self.held() >= HELD_WRONG {
            self.unknown();
            return;
        }
        let answer = match is_panic(answer) {
            true => PANICKED,
            false => answer,
        };
        let answers = match self.by_check.get_mut(check) {
            Some(answers) => answers,
            None => self.by_check.entry(check.to_string()).or_default(),
        };
        answers.put(input, answer);
    }

    /// Not all the wrong answers are known: the test answered only some of its inputs.
    pub fn unknown(&mut self) {
        self.unknown = true;
        self.by_check.clear();
    }

    /// Adds the wrong answers of later inputs.
    pub fn absorb(&mut self, later: WrongAnswers) {
        if later.unknown {
            self.unknown();
        }
        self.beyond.extend(later.beyond);
        if self.unknown {
            return;
        }
        for (check, answers) in later.by_check {
            self.by_check.entry(check).or_default().merge(&answers);
        }
        if self.held() > HELD_WRONG {
            self.unknown();
        }
    }

    /// These wrong answers as those of test `test` of a group: its input `i` is the
    /// group's input `test << 40 | i`, so that a group's tests' answers can be put together.
    pub fn of_test(&self, test: usize) -> WrongAnswers {
        let base = (test as u64) << 40;
        WrongAnswers {
            by_check: self
                .by_check
                .iter()
                .map(|(check, answers)| (check.clone(), answers.based(base)))
                .collect(),
            beyond: self.beyond.clone(),
            unknown: self.unknown,
        }
    }

    /// The checks it holds wrong answers to.
    pub fn checks(&self) -> impl Iterator<Item = &str> + '_ {
        self.by_check
            .iter()
            .filter(|(_, answers)| !answers.is_empty())
            .map(|(check, _)| check.as_str())
    }

    /// Whether only some of the wrong answers are known.
    pub fn is_unknown(&self) -> bool {
        self.unknown
    }

    /// The fingerprint of its wrong answers to `check`, if it holds them all.
    pub fn fingerprint(&self, check: &str) -> Option<Fingerprint> {
        if self.unknown {
            return None;
        }
        let answers = self.of_check(check)?;
        Some(Fingerprint {
            check: check.to_string(),
            wrong: answers.len() as u64,
            digest: crate::compile::stable_hash(answers),
        })
    }

    pub(super) fn held(&self) -> usize {
        self.by_check.values().map(Answers::len).sum()
    }

    pub(super) fn of_check(&self, check: &str) -> Option<&Answers> {
        if self.beyond.contains(check) {
            return None;
        }
        self.by_check
            .get(check)
            .filter(|answers| !answers.is_empty())
    }

    /// How many wrong answers to each check it holds.
    pub fn counts(&self) -> BTreeMap<&str, usize> {
        self.by_check
            .iter()
            .map(|(check, answers)| (check.as_str(), answers.len()))
            .collect()
    }
}

/// A test's wrong answers to one check, as one number: two submissions with the same gave
/// the same wrong answer on every input either got wrong. Compared within one batch, whose
/// submissions one grader grades (the digest is std's hash, not promised across versions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    pub check: String,
    /// How many inputs it was wrong on.
    pub wrong: u64,
    pub digest: u64,
}
