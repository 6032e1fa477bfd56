use super::*;
use crate::runner::pass_arrived;
use grader_api::protocol::{Panic, Reply, each_frame, put_reply};
use grader_api::spec::Grading;
use grader_api::unit::Answered;
use std::io::{self, BufReader, Read};
use std::sync::mpsc::sync_channel;

/// The reference's answers to 300 inputs of one to four replies (and one of none), in
/// two chunks, and a runner's replies to them, some of them wrong.
fn answers_and_replies() -> ([Answers; 2], Vec<u8>) {
    let mut chunks = [Answers::default(), Answers::default()];
    let mut sent = Vec::new();
    for n in 0..300u32 {
        let replies = if n == 100 { 0 } else { 1 + n % 4 };
        let (mut want, mut actual) = (Vec::new(), Vec::new());
        for position in 0..replies {
            let right = (n + position) % 3 == 0;
            put_reply(&mut want, &Reply::Answer(right));
            let wrong = (n * 7 + position) % 11 == 0;
            put_reply(&mut actual, &Reply::Answer(right != wrong));
        }
        chunks[usize::from(n >= 150)].push(Answered {
            input: &n.to_le_bytes(),
            frames: &want,
            replies: u64::from(replies),
        });
        sent.extend_from_slice(&actual);
    }
    (chunks, sent)
}

/// The replies taken, the counts, the wrong answers by check, the breakdown, and each
/// example's input, position, expected and actual reply.
type Found = (
    u64,
    [u64; 4],
    Vec<u64>,
    BTreeMap<(String, String, String), u64>,
    Vec<(Vec<u8>, usize, Vec<u8>, Vec<u8>)>,
);

/// What a comparison found of the replies of [`answers_and_replies`], given to it by
/// `feed`, which says how many it took.
fn compared(feed: impl FnOnce(&mut BulkComparison, &[u8]) -> u64) -> Found {
    let suite = crate::spec::load(&[], &[], None).unwrap();
    let (_, test) = suite
        .tests()
        .find(|(_, test)| test.grading == Grading::Bulk)
        .unwrap();
    let (chunks, sent) = answers_and_replies();
    let (sender, receiver) = sync_channel(2);
    for chunk in chunks {
        sender.send(chunk).unwrap();
    }
    drop(sender);
    let counted = AtomicU64::new(0);
    let wanted = Wanted::new(More::Computed(receiver));
    let mut comparison = BulkComparison::new(&*test.request, wanted, &counted);
    let taken = feed(&mut comparison, &sent);
    let samples = comparison
        .samples
        .iter()
        .map(|s| {
            (
                s.input.clone(),
                s.position,
                s.expected.clone(),
                s.actual.clone(),
            )
        })
        .collect();
    (
        taken,
        [
            comparison.inputs_compared,
            comparison.wrong_inputs,
            comparison.answers_compared,
            comparison.wrong_answers,
        ],
        comparison.wrong_by_check.clone(),
        comparison.breakdown.clone(),
        samples,
    )
}

#[test]
fn replies_arriving_in_pieces_of_any_size_between_reads_that_give_up_are_compared_as_one_by_one() {
    let one_by_one = compared(|comparison, sent| {
        let mut taken = 0;
        each_frame(sent, |frame| {
            assert!(comparison.take(frame));
            taken += 1;
        });
        taken
    });
    let [inputs, wrong_inputs, answers, wrong_answers] = one_by_one.1;
    assert_eq!((inputs, answers), (300, one_by_one.0));
    assert!(wrong_inputs > 10 && wrong_answers >= wrong_inputs);
    for (piece, capacity) in [(1, 8), (2, 8), (3, 5), (7, 8), (64, 50), (1 << 16, 8192)] {
        let in_pieces = compared(|comparison, sent| {
            let mut answers = BufReader::with_capacity(capacity, InPieces::of(sent, piece));
            let (mut held, mut taken) = (Vec::new(), 0);
            loop {
                match pass_arrived(&mut answers, &mut held, comparison) {
                    Ok(passed) => {
                        assert_eq!(passed.stop, None);
                        taken += passed.taken;
                    }
                    Err(error) if error.kind() == io::ErrorKind::TimedOut => {}
                    Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => break,
                    Err(error) => panic!("in pieces of {piece}: {error}"),
                }
            }
            assert!(held.is_empty());
            taken
        });
        assert_eq!(in_pieces, one_by_one, "in pieces of {piece}");
    }
}

/// A runner's bytes arriving in pieces, with a read that gives up before each, as a read
/// does that waits a while and then lets the grader look at the runner.
struct InPieces<'a> {
    pieces: std::slice::Chunks<'a, u8>,
    piece: &'a [u8],
    gave_up: bool,
}

impl<'a> InPieces<'a> {
    fn of(bytes: &'a [u8], size: usize) -> InPieces<'a> {
        InPieces {
            pieces: bytes.chunks(size),
            piece: &[],
            gave_up: false,
        }
    }
}

impl Read for InPieces<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        if self.piece.is_empty() {
            self.gave_up = !self.gave_up;
            if self.gave_up {
                return Err(io::ErrorKind::TimedOut.into());
            }
            self.piece = self.pieces.next().unwrap_or_default();
        }
        let length = buffer.len().min(self.piece.len());
        buffer[..length].copy_from_slice(&self.piece[..length]);
        self.piece = &self.piece[length..];
        Ok(length)
    }
}

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
        kept.push(Answered {
            input: &[],
            frames: &want,
            replies: 1,
        });
    }
    let counted = AtomicU64::new(0);
    let (sender, receiver) = sync_channel(1);
    sender.send(kept).unwrap();
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
        comparison.take(&todo);
    }
    assert_eq!(comparison.breakdown.len(), panics);
    let held: usize = comparison
        .breakdown
        .keys()
        .map(|(question, expected, actual)| question.len() + expected.len() + actual.len())
        .sum();
    assert!(held < panics * 1024, "the breakdown holds {held} bytes");
}
