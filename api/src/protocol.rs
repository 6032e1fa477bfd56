//! What crosses the pipe between the grader and the runner, and the one dispatch that
//! answers a request whether the registry is the reference's or the student's.
//!
//! The encoding is a hand-written byte format (varints, tags): bulk groups stream millions
//! of answers, and the runner should not pay for a serialization framework.

use std::fmt;
use std::io::{self, Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::card::Card;
use crate::deck::HandSource;
use crate::plaisante::{Check, HandName};
use crate::submission::{Assignment, Submission};

/// Bumped whenever the byte format changes; the grader refuses a runner that differs.
pub const PROTOCOL_VERSION: u64 = 1;

/// The version of this crate, reported by the runner so the grader can name a mismatch.
pub const API_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The environment variable through which the grader tells the runner its socket path.
pub const SOCKET_ENV: &str = "CARDGRADE_SOCKET";

/// The environment variable that names the submission's folder, so panic locations can
/// be shown relative to it (`src/lib.rs:12:9`).
pub const SOURCE_ROOT_ENV: &str = "CARDGRADE_SOURCE_ROOT";

/// The environment variable that carries the runner's CPU-time limit in seconds.
pub const CPU_LIMIT_ENV: &str = "CARDGRADE_CPU_SECONDS";

/// Written by the runner to its stdout and stderr after each request, so the grader can
/// tell which request the student's printing belongs to.
pub fn output_marker(sequence: u64) -> Vec<u8> {
    format!("{}{sequence:016x}]\n", OUTPUT_MARKER_PREFIX).into_bytes()
}

pub const OUTPUT_MARKER_PREFIX: &str = "\n\u{1b}[cardgrade-end:";
/// Bytes of a whole marker: the prefix, 16 hex digits, `]` and a newline.
pub const OUTPUT_MARKER_LEN: usize = OUTPUT_MARKER_PREFIX.len() + 18;

/// The first thing a runner says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    pub protocol: u64,
    pub api_version: String,
    pub assignments: Vec<Assignment>,
}

/// A question for a submission. Each request is answered by a stream of [`Answer`]s
/// followed by an end mark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Every check in `checks` on every hand of `source`: answers come hand by hand,
    /// check by check within a hand.
    PlaisanteHands {
        source: HandSource,
        checks: Vec<Check>,
    },
}

impl Request {
    /// How many answers a complete response holds.
    pub fn answer_count(&self) -> u64 {
        match self {
            Request::PlaisanteHands { source, checks } => source.len() * checks.len() as u64,
        }
    }

    pub fn assignment(&self) -> Assignment {
        match self {
            Request::PlaisanteHands { .. } => Assignment::PlaisanteHand,
        }
    }
}

/// What a submission's method returned, or why it returned nothing.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Answer {
    Bool(bool),
    Hand(HandName),
    Number(i64),
    Cells(Vec<i64>),
    Panicked(Panic),
    NotRegistered(Assignment),
}

/// A panic caught inside the submission's code.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Panic {
    pub message: String,
    /// `file:line:column`, when the runner's panic hook saw it.
    pub location: Option<String>,
}

impl Panic {
    /// `todo!()` and `unimplemented!()`: the student has not written this yet.
    pub fn is_not_yet_implemented(&self) -> bool {
        self.message.starts_with("not yet implemented")
            || self.message.starts_with("not implemented")
    }
}

impl fmt::Display for Panic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = self
            .location
            .as_deref()
            .map(|at| format!(" at {at}"))
            .unwrap_or_default();
        if self.is_not_yet_implemented() {
            write!(f, "not yet implemented (todo!(){place})")
        } else {
            write!(f, "panicked{place}: {}", self.message)
        }
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Bool(value) => write!(f, "{value}"),
            Answer::Hand(name) => write!(f, "{name}"),
            Answer::Number(value) => write!(f, "{value}"),
            Answer::Cells(cells) => {
                let cells: Vec<String> = cells.iter().map(i64::to_string).collect();
                write!(f, "[{}]", cells.join(", "))
            }
            Answer::Panicked(panic) => write!(f, "{panic}"),
            Answer::NotRegistered(assignment) => write!(
                f,
                "not registered: submission() does not list {}",
                assignment.name()
            ),
        }
    }
}

/// Answers `request` with `submission`, calling `emit` with each answer in order; stops
/// early when `emit` returns `false`. Panics in the submission's code become answers.
pub fn respond(submission: &Submission, request: &Request, mut emit: impl FnMut(Answer) -> bool) {
    match request {
        Request::PlaisanteHands { source, checks } => {
            respond_by_hand(submission, source, checks, |_, answers| {
                answers.into_iter().all(&mut emit)
            })
        }
    }
}

/// Answers `checks` on every hand of `source`, calling `on_hand` with each hand and its
/// answers; stops early when `on_hand` returns `false`.
pub fn respond_by_hand(
    submission: &Submission,
    source: &HandSource,
    checks: &[Check],
    mut on_hand: impl FnMut(Vec<Card>, Vec<Answer>) -> bool,
) {
    let Some(build) = submission.plaisante_hand_builder() else {
        let refusal = Answer::NotRegistered(Assignment::PlaisanteHand);
        source.for_each_hand(|cards| on_hand(cards, vec![refusal.clone(); checks.len()]));
        return;
    };
    source.for_each_hand(|cards| {
        let answers = match guarded(|| build(cards.clone())) {
            Ok(hand) => checks
                .iter()
                .map(|check| guarded(|| check.ask(&*hand)).unwrap_or_else(Answer::Panicked))
                .collect(),
            Err(panic) => vec![Answer::Panicked(panic); checks.len()],
        };
        on_hand(cards, answers)
    });
}

fn guarded<T>(call: impl FnOnce() -> T) -> Result<T, Panic> {
    catch_unwind(AssertUnwindSafe(call)).map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic with a non-text payload".to_string());
        Panic {
            message,
            location: crate::runner::take_panic_location(),
        }
    })
}

// ---- the byte format ------------------------------------------------------------------

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

fn write_varint(out: &mut impl Write, mut value: u64) -> io::Result<()> {
    let mut buf = [0u8; 10];
    let mut len = 0;
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            buf[len] = byte;
            len += 1;
            break;
        }
        buf[len] = byte | 0x80;
        len += 1;
    }
    out.write_all(&buf[..len])
}

fn read_u8(input: &mut impl Read) -> io::Result<u8> {
    let mut byte = [0u8; 1];
    input.read_exact(&mut byte)?;
    Ok(byte[0])
}

fn read_varint(input: &mut impl Read) -> io::Result<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = read_u8(input)?;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(invalid("varint longer than 64 bits"))
}

fn write_signed(out: &mut impl Write, value: i64) -> io::Result<()> {
    write_varint(out, ((value << 1) ^ (value >> 63)) as u64)
}

fn read_signed(input: &mut impl Read) -> io::Result<i64> {
    let raw = read_varint(input)?;
    Ok(((raw >> 1) as i64) ^ -((raw & 1) as i64))
}

fn write_str(out: &mut impl Write, text: &str) -> io::Result<()> {
    write_varint(out, text.len() as u64)?;
    out.write_all(text.as_bytes())
}

/// Texts longer than this are refused, so a hostile length cannot make us allocate.
const MAX_TEXT: u64 = 1 << 20;
/// Lists longer than this are refused for the same reason.
const MAX_LIST: u64 = 1 << 24;

fn read_len(input: &mut impl Read, limit: u64) -> io::Result<usize> {
    let len = read_varint(input)?;
    if len > limit {
        return Err(invalid("length beyond the protocol's limit"));
    }
    Ok(len as usize)
}

fn read_str(input: &mut impl Read) -> io::Result<String> {
    let len = read_len(input, MAX_TEXT)?;
    let mut bytes = vec![0u8; len];
    input.read_exact(&mut bytes)?;
    String::from_utf8(bytes).map_err(|_| invalid("text is not UTF-8"))
}

fn write_cards(out: &mut impl Write, cards: &[Card]) -> io::Result<()> {
    write_varint(out, cards.len() as u64)?;
    let indices: Vec<u8> = cards.iter().map(|c| c.index()).collect();
    out.write_all(&indices)
}

fn read_cards(input: &mut impl Read) -> io::Result<Vec<Card>> {
    let len = read_len(input, MAX_LIST)?;
    (0..len)
        .map(|_| Card::from_index(read_u8(input)?).ok_or_else(|| invalid("card index past 51")))
        .collect()
}

impl Hello {
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        write_varint(out, self.protocol)?;
        write_str(out, &self.api_version)?;
        write_varint(out, self.assignments.len() as u64)?;
        for assignment in &self.assignments {
            write_varint(out, assignment.code())?;
        }
        Ok(())
    }

    pub fn read(input: &mut impl Read) -> io::Result<Hello> {
        let protocol = read_varint(input)?;
        if protocol != PROTOCOL_VERSION {
            // Nothing after the version can be trusted to have our shape.
            return Ok(Hello {
                protocol,
                api_version: String::new(),
                assignments: Vec::new(),
            });
        }
        let api_version = read_str(input)?;
        let count = read_len(input, 64)?;
        let assignments = (0..count)
            .map(|_| {
                Assignment::from_code(read_varint(input)?)
                    .ok_or_else(|| invalid("unknown assignment"))
            })
            .collect::<io::Result<_>>()?;
        Ok(Hello {
            protocol,
            api_version,
            assignments,
        })
    }
}

impl Request {
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        match self {
            Request::PlaisanteHands { source, checks } => {
                write_varint(out, 1)?;
                match source {
                    HandSource::Listed(hands) => {
                        write_varint(out, 0)?;
                        write_varint(out, hands.len() as u64)?;
                        for hand in hands {
                            write_cards(out, hand)?;
                        }
                    }
                    HandSource::Generated {
                        count,
                        seed,
                        hand_size,
                    } => {
                        write_varint(out, 1)?;
                        write_varint(out, u64::from(*count))?;
                        write_varint(out, *seed)?;
                        write_varint(out, u64::from(*hand_size))?;
                    }
                    HandSource::Exhaustive { hand_size } => {
                        write_varint(out, 2)?;
                        write_varint(out, u64::from(*hand_size))?;
                    }
                }
                write_varint(out, checks.len() as u64)?;
                for check in checks {
                    write_varint(out, u64::from(check.code()))?;
                }
                Ok(())
            }
        }
    }

    /// The next request, or `None` when the grader closed the connection.
    pub fn read(input: &mut impl Read) -> io::Result<Option<Request>> {
        let tag = match read_varint(input) {
            Ok(tag) => tag,
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        };
        if tag != 1 {
            return Err(invalid("unknown request"));
        }
        let narrow = |value: u64| u8::try_from(value).map_err(|_| invalid("hand size too large"));
        let source = match read_varint(input)? {
            0 => {
                let count = read_len(input, MAX_LIST)?;
                HandSource::Listed(
                    (0..count)
                        .map(|_| read_cards(input))
                        .collect::<io::Result<_>>()?,
                )
            }
            1 => HandSource::Generated {
                count: u32::try_from(read_varint(input)?)
                    .map_err(|_| invalid("count too large"))?,
                seed: read_varint(input)?,
                hand_size: narrow(read_varint(input)?)?,
            },
            2 => HandSource::Exhaustive {
                hand_size: narrow(read_varint(input)?)?,
            },
            _ => return Err(invalid("unknown hand source")),
        };
        let count = read_len(input, 64)?;
        let checks = (0..count)
            .map(|_| {
                let code = u8::try_from(read_varint(input)?).ok();
                code.and_then(Check::from_code)
                    .ok_or_else(|| invalid("unknown check"))
            })
            .collect::<io::Result<_>>()?;
        Ok(Some(Request::PlaisanteHands { source, checks }))
    }
}

/// One item of a response stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    Answer(Answer),
    End,
}

impl Item {
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let answer = match self {
            Item::End => return write_varint(out, 0),
            Item::Answer(answer) => answer,
        };
        match answer {
            Answer::Bool(false) => write_varint(out, 1),
            Answer::Bool(true) => write_varint(out, 2),
            Answer::Hand(name) => {
                write_varint(out, 3)?;
                write_varint(out, u64::from(name.code()))
            }
            Answer::Number(value) => {
                write_varint(out, 4)?;
                write_signed(out, *value)
            }
            Answer::Cells(cells) => {
                write_varint(out, 5)?;
                write_varint(out, cells.len() as u64)?;
                cells.iter().try_for_each(|&cell| write_signed(out, cell))
            }
            Answer::Panicked(panic) => {
                write_varint(out, 6)?;
                write_str(out, &panic.message)?;
                write_str(out, panic.location.as_deref().unwrap_or(""))
            }
            Answer::NotRegistered(assignment) => {
                write_varint(out, 7)?;
                write_varint(out, assignment.code())
            }
        }
    }

    pub fn read(input: &mut impl Read) -> io::Result<Item> {
        let answer = match read_varint(input)? {
            0 => return Ok(Item::End),
            1 => Answer::Bool(false),
            2 => Answer::Bool(true),
            3 => {
                let code = u8::try_from(read_varint(input)?).ok();
                Answer::Hand(
                    code.and_then(HandName::from_code)
                        .ok_or_else(|| invalid("unknown hand name"))?,
                )
            }
            4 => Answer::Number(read_signed(input)?),
            5 => {
                let len = read_len(input, MAX_LIST)?;
                Answer::Cells(
                    (0..len)
                        .map(|_| read_signed(input))
                        .collect::<io::Result<_>>()?,
                )
            }
            6 => {
                let message = read_str(input)?;
                let location = read_str(input)?;
                Answer::Panicked(Panic {
                    message,
                    location: (!location.is_empty()).then_some(location),
                })
            }
            7 => Answer::NotRegistered(
                Assignment::from_code(read_varint(input)?)
                    .ok_or_else(|| invalid("unknown assignment"))?,
            ),
            _ => return Err(invalid("unknown answer")),
        };
        Ok(Item::Answer(answer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip_item(item: Item) {
        let mut bytes = Vec::new();
        item.write(&mut bytes).unwrap();
        assert_eq!(Item::read(&mut bytes.as_slice()).unwrap(), item);
    }

    #[test]
    fn every_answer_survives_the_pipe() {
        for item in [
            Item::End,
            Item::Answer(Answer::Bool(true)),
            Item::Answer(Answer::Bool(false)),
            Item::Answer(Answer::Hand(HandName::FullHouse)),
            Item::Answer(Answer::Number(-7_000_000_000)),
            Item::Answer(Answer::Cells(vec![0, 1, 2, -3, i64::MAX, i64::MIN])),
            Item::Answer(Answer::Panicked(Panic {
                message: "boom ♥".into(),
                location: Some("src/lib.rs:3:5".into()),
            })),
            Item::Answer(Answer::Panicked(Panic {
                message: "x".into(),
                location: None,
            })),
            Item::Answer(Answer::NotRegistered(Assignment::PlaisanteHand)),
        ] {
            round_trip_item(item);
        }
    }

    #[test]
    fn every_request_survives_the_pipe() {
        let king: Card = "KH".parse().unwrap();
        for source in [
            HandSource::Listed(vec![vec![king], vec![]]),
            HandSource::Generated {
                count: 10_000,
                seed: u64::MAX,
                hand_size: 5,
            },
            HandSource::Exhaustive { hand_size: 5 },
        ] {
            let request = Request::PlaisanteHands {
                source,
                checks: Check::ALL.to_vec(),
            };
            let mut bytes = Vec::new();
            request.write(&mut bytes).unwrap();
            assert_eq!(Request::read(&mut bytes.as_slice()).unwrap(), Some(request));
        }
        assert_eq!(Request::read(&mut [].as_slice()).unwrap(), None);
    }

    #[test]
    fn hello_round_trips() {
        let hello = Hello {
            protocol: PROTOCOL_VERSION,
            api_version: API_VERSION.into(),
            assignments: vec![Assignment::PlaisanteHand],
        };
        let mut bytes = Vec::new();
        hello.write(&mut bytes).unwrap();
        assert_eq!(Hello::read(&mut bytes.as_slice()).unwrap(), hello);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(Item::read(&mut [99u8].as_slice()).is_err());
        assert!(Item::read(&mut [5u8, 0xff, 0xff, 0xff, 0xff, 0x7f].as_slice()).is_err());
        assert!(Request::read(&mut [1u8, 7].as_slice()).is_err());
    }

    #[test]
    fn markers_have_the_documented_length() {
        assert_eq!(output_marker(u64::MAX).len(), OUTPUT_MARKER_LEN);
    }
}
