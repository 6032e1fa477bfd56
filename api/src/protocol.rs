//! The process contract between the grader and the runner: the handshake, request and
//! reply frames, and the markers that split the student's printing by request.
//!
//! The core sees every request and answer only as bytes. A request frame names its
//! assignment; a reply frame carries its payload with its length, so the grader can read
//! and compare a reply without knowing the assignment's types, and decode it only to
//! explain a difference.

use std::fmt;
use std::io::{self, Read, Write};

use crate::source::Window;
pub use crate::text::group_digits;
use crate::wire::{Wire, invalid, put_varint, take_varint};

/// Bumped whenever the byte format changes; the grader refuses a runner that differs.
pub const PROTOCOL_VERSION: u64 = 12;

/// The version of this crate, reported by the runner so the grader can name a mismatch.
pub const API_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Set by the grader for the runner it starts: the runner's stdin is its end of a socket
/// pair, inherited rather than found by a path any process could connect to.
pub const CHANNEL_ENV: &str = "CARDGRADE_CHANNEL";

/// Written by the runner to its stdout and stderr after each request, so the grader can
/// tell which request the student's printing belongs to.
pub fn output_marker(sequence: u64) -> Vec<u8> {
    format!("{}{sequence:016x}]\n", OUTPUT_MARKER_PREFIX).into_bytes()
}

pub const OUTPUT_MARKER_PREFIX: &str = "\n\u{1b}[cardgrade-end:";
/// Bytes of a whole marker: the prefix, 16 hex digits, `]` and a newline.
pub const OUTPUT_MARKER_LEN: usize = OUTPUT_MARKER_PREFIX.len() + 18;

/// The runner's progress page, sent with its hello's first byte: the number of inputs of
/// the current request it has answered, a native-endian `u64` at offset 0.
pub const PROGRESS_BYTES: usize = 8;

/// A reply payload longer than this is refused, so a hostile length cannot make the grader
/// allocate without end.
pub const MOST_REPLY_BYTES: u64 = 1 << 24;

/// A hello longer than this is refused: it names a few assignments, and a runner must not
/// make the grader read and hold without end before its first request.
pub const MOST_HELLO_BYTES: u64 = 1 << 16;

/// The first thing a runner says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    pub protocol: u64,
    pub api_version: String,
    /// The names of the assignments the submission registers.
    pub assignments: Vec<String>,
}

crate::wire_struct!(Hello {
    protocol,
    api_version,
    assignments
});

impl Hello {
    pub fn write(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        self.put(out)
    }

    /// Reads a hello, refusing one longer than [`MOST_HELLO_BYTES`].
    pub fn read(input: &mut (impl Read + ?Sized)) -> io::Result<Hello> {
        let mut within = input.take(MOST_HELLO_BYTES);
        match Hello::read_within(&mut within) {
            Err(_) if within.limit() == 0 => Err(invalid("a hello longer than the grader reads")),
            read => read,
        }
    }

    fn read_within(input: &mut impl Read) -> io::Result<Hello> {
        let protocol = u64::take(input)?;
        if protocol != PROTOCOL_VERSION {
            // Nothing after the version can be trusted to have our shape.
            return Ok(Hello {
                protocol,
                api_version: String::new(),
                assignments: Vec::new(),
            });
        }
        Ok(Hello {
            protocol,
            api_version: Wire::take(input)?,
            assignments: Wire::take(input)?,
        })
    }
}

/// A panic caught inside the submission's code.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Panic {
    pub message: String,
    /// `file:line:column`, when the runner's panic hook saw it.
    pub location: Option<String>,
}

crate::wire_struct!(Panic { message, location });

impl Panic {
    /// `todo!()` and `unimplemented!()`: the student has not written this yet.
    pub fn is_not_yet_implemented(&self) -> bool {
        self.message.starts_with("not yet implemented")
            || self.message.starts_with("not implemented")
    }

    /// The panic as a breakdown counts it: its message's first line in brackets, cut short,
    /// and where it happened to the line, so that the panics of one mistake are one kind:
    /// `panicked (index out of bounds: the len is 14 but the index is 14) at src/hand.rs:44`.
    pub fn briefly(&self) -> String {
        if self.is_not_yet_implemented() {
            return self.to_string();
        }
        let message = crate::text::shorten(self.message.lines().next().unwrap_or_default(), 100);
        let place = self.location.as_deref().map(|at| {
            // `file:line:column`: the column tells no student anything the line does not.
            let to_the_line = at
                .rsplit_once(':')
                .filter(|(_, column)| {
                    !column.is_empty() && column.bytes().all(|b| b.is_ascii_digit())
                })
                .map_or(at, |(line, _)| line);
            format!(" at {}", crate::text::shorten(to_the_line, 200))
        });
        format!("panicked ({message}){}", place.unwrap_or_default())
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

/// What a submission's method returned, or why it returned nothing.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reply<A> {
    Answer(A),
    Panicked(Panic),
    /// The submission does not register the assignment.
    NotRegistered,
}

impl<A> Reply<A> {
    /// The same reply with its answer, if any, made into another type's.
    pub fn map<B>(self, into: impl FnOnce(A) -> B) -> Reply<B> {
        match self {
            Reply::Answer(answer) => Reply::Answer(into(answer)),
            Reply::Panicked(panic) => Reply::Panicked(panic),
            Reply::NotRegistered => Reply::NotRegistered,
        }
    }
}

/// The kinds of reply frame: a tag, then a length and that many bytes of payload.
const ANSWER: u8 = 1;
/// The tag of a reply that panicked, its message after it.
pub const PANICKED: u8 = 2;
const NOT_REGISTERED: u8 = 3;
/// Not a reply: the end of the replies to one request, with its sequence number.
const END: u8 = 0;

/// Appends `reply` to `out` as one frame.
pub fn put_reply<A: Wire>(out: &mut Vec<u8>, reply: &Reply<A>) {
    out.push(match reply {
        Reply::Answer(_) => ANSWER,
        Reply::Panicked(_) => PANICKED,
        Reply::NotRegistered => NOT_REGISTERED,
    });
    // One byte for the length, moved along in the rare case the payload needs more.
    let length_at = out.len();
    out.push(0);
    let written = match reply {
        Reply::Answer(answer) => answer.put(out),
        Reply::Panicked(panic) => panic.put(out),
        Reply::NotRegistered => Ok(()),
    };
    written.expect("writing to memory cannot fail");
    let length = (out.len() - length_at - 1) as u64;
    if length < 0x80 {
        out[length_at] = length as u8;
        return;
    }
    let mut length_bytes = Vec::with_capacity(10);
    put_varint(&mut length_bytes, length).expect("writing to memory cannot fail");
    out.splice(length_at..=length_at, length_bytes);
}

/// A reply frame's parts: the tag and the payload.
fn frame_parts(frame: &[u8]) -> io::Result<(u8, &[u8])> {
    let (&tag, mut rest) = frame
        .split_first()
        .ok_or_else(|| invalid("an empty reply"))?;
    let length = take_varint(&mut rest)?;
    if rest.len() as u64 != length {
        return Err(invalid("a reply whose length does not match"));
    }
    Ok((tag, rest))
}

/// The reply in `frame`, decoded.
pub fn decode_reply<A: Wire>(frame: &[u8]) -> io::Result<Reply<A>> {
    let (tag, mut payload) = frame_parts(frame)?;
    let reply = match tag {
        ANSWER => Reply::Answer(A::take(&mut payload)?),
        PANICKED => Reply::Panicked(Panic::take(&mut payload)?),
        NOT_REGISTERED => Reply::NotRegistered,
        _ => return Err(invalid("unknown reply tag")),
    };
    if !payload.is_empty() {
        return Err(invalid("a reply with bytes left over"));
    }
    Ok(reply)
}

/// The panic a reply frame reports, if it reports one.
pub fn panic_of(frame: &[u8]) -> Option<Panic> {
    match frame_parts(frame) {
        Ok((PANICKED, mut payload)) => Panic::take(&mut payload).ok(),
        _ => None,
    }
}

/// Whether a reply frame reports a panic.
pub fn is_panic(frame: &[u8]) -> bool {
    frame.first() == Some(&PANICKED)
}

/// The first frame of `frames`, several replies laid end to end (all of it, if garbled).
#[inline]
pub fn first_frame(frames: &[u8]) -> &[u8] {
    let Some(mut after_tag) = frames.get(1..) else {
        return frames;
    };
    let Ok(length) = take_varint(&mut after_tag) else {
        return frames;
    };
    let header = frames.len() - after_tag.len();
    let end = header.saturating_add(length as usize).min(frames.len());
    &frames[..end]
}

/// Calls `visit` with each frame of `frames`, several replies laid end to end.
pub fn each_frame(frames: &[u8], mut visit: impl FnMut(&[u8])) {
    let mut rest = frames;
    while !rest.is_empty() {
        let frame = first_frame(rest);
        visit(frame);
        rest = &rest[frame.len()..];
    }
}

/// Writes the end of the replies to request `sequence`.
pub fn write_end(out: &mut (impl Write + ?Sized), sequence: u64) -> io::Result<()> {
    out.write_all(&[END])?;
    put_varint(out, sequence)
}

/// One item of a reply stream, as the grader reads it.
#[derive(Debug, PartialEq, Eq)]
pub enum Item {
    /// A reply frame, now in the reader's buffer.
    Reply,
    /// The end of the replies to request number `0`, counting from 0.
    End(u64),
}

/// The item that `bytes` start with and its length, when all of it is there: a reply's
/// frame is `bytes[..length]`. `None` when it runs past their end.
pub fn item_in(bytes: &[u8]) -> Option<io::Result<(Item, usize)>> {
    match item_header(bytes)? {
        Ok((_, length)) if length > bytes.len() => None,
        read => Some(read),
    }
}

/// The item that `bytes` start with and its whole length, once its header is there:
/// the length may run past their end. `None` while the header does.
pub fn item_header(bytes: &[u8]) -> Option<io::Result<(Item, usize)>> {
    let (&tag, mut rest) = bytes.split_first()?;
    let varint = |rest: &mut &[u8]| match take_varint(rest) {
        Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => None,
        read => Some(read),
    };
    if tag == END {
        return Some(
            varint(&mut rest)?.map(|sequence| (Item::End(sequence), bytes.len() - rest.len())),
        );
    }
    if !matches!(tag, ANSWER | PANICKED | NOT_REGISTERED) {
        return Some(Err(invalid("unknown reply tag")));
    }
    let length = match varint(&mut rest)? {
        Ok(length) if length > MOST_REPLY_BYTES => {
            return Some(Err(invalid("a reply longer than the grader reads")));
        }
        Ok(length) => length as usize,
        Err(error) => return Some(Err(error)),
    };
    Some(Ok((Item::Reply, bytes.len() - rest.len() + length)))
}

/// Reads the next item; a reply's whole frame is left in `frame`.
pub fn read_item(input: &mut (impl Read + ?Sized), frame: &mut Vec<u8>) -> io::Result<Item> {
    let mut tag = [0u8];
    input.read_exact(&mut tag)?;
    if tag[0] == END {
        return Ok(Item::End(take_varint(input)?));
    }
    if !matches!(tag[0], ANSWER | PANICKED | NOT_REGISTERED) {
        return Err(invalid("unknown reply tag"));
    }
    let length = take_varint(input)?;
    if length > MOST_REPLY_BYTES {
        return Err(invalid("a reply longer than the grader reads"));
    }
    frame.clear();
    frame.push(tag[0]);
    put_varint(frame, length)?;
    let header = frame.len();
    frame.resize(header + length as usize, 0);
    input.read_exact(&mut frame[header..])?;
    Ok(Item::Reply)
}

/// Writes a request: the assignment it is for, its payload with its length, and the
/// window of its inputs to answer.
pub fn write_request(
    out: &mut (impl Write + ?Sized),
    assignment: &str,
    payload: &[u8],
    window: Window,
) -> io::Result<()> {
    assignment.to_string().put(out)?;
    put_varint(out, payload.len() as u64)?;
    out.write_all(payload)?;
    window.put(out)
}

/// Requests longer than this are refused by the runner.
const MOST_REQUEST_BYTES: u64 = 1 << 26;

/// The next request's assignment, payload and window, or `None` when the grader hung up.
pub fn read_request(
    input: &mut (impl Read + ?Sized),
) -> io::Result<Option<(String, Vec<u8>, Window)>> {
    let assignment = match String::take(input) {
        Ok(name) => name,
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    };
    let length = take_varint(input)?;
    if length > MOST_REQUEST_BYTES {
        return Err(invalid("a request longer than the runner reads"));
    }
    let mut payload = vec![0; length as usize];
    input.read_exact(&mut payload)?;
    Ok(Some((assignment, payload, Window::take(input)?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame_of<A: Wire>(reply: &Reply<A>) -> Vec<u8> {
        let mut frame = Vec::new();
        put_reply(&mut frame, reply);
        frame
    }

    #[test]
    fn every_reply_survives_the_pipe() {
        let long = "♥".repeat(300);
        for reply in [
            Reply::Answer(-7_000_000_000i64),
            Reply::Panicked(Panic {
                message: long.clone(),
                location: Some("src/lib.rs:3:5".into()),
            }),
            Reply::NotRegistered,
        ] {
            let frame = frame_of(&reply);
            assert_eq!(decode_reply::<i64>(&frame).unwrap(), reply);
            let mut stream = frame.clone();
            write_end(&mut stream, 7).unwrap();
            let mut input = stream.as_slice();
            let mut read = Vec::new();
            assert_eq!(read_item(&mut input, &mut read).unwrap(), Item::Reply);
            assert_eq!(read, frame);
            assert_eq!(read_item(&mut input, &mut read).unwrap(), Item::End(7));
        }
        let panicked = frame_of(&Reply::<i64>::Panicked(Panic {
            message: long,
            location: None,
        }));
        assert!(is_panic(&panicked));
        assert!(!is_panic(&frame_of(&Reply::Answer(3i64))));
    }

    #[test]
    fn frames_laid_end_to_end_come_apart() {
        let mut frames = Vec::new();
        put_reply(&mut frames, &Reply::Answer(true));
        put_reply(&mut frames, &Reply::Answer("x".repeat(200)));
        put_reply(&mut frames, &Reply::<bool>::NotRegistered);
        // Payloads of 127 and 128 bytes: the last length of one byte and the first of two.
        put_reply(&mut frames, &Reply::Answer("x".repeat(126)));
        put_reply(&mut frames, &Reply::Answer("x".repeat(127)));
        let mut seen = Vec::new();
        each_frame(&frames, |frame| seen.push(frame.to_vec()));
        assert_eq!(seen.len(), 5);
        assert_eq!(
            decode_reply::<String>(&seen[1]).unwrap(),
            Reply::Answer("x".repeat(200))
        );
        for (frame, length) in seen[3..].iter().zip([126, 127]) {
            assert_eq!(
                decode_reply::<String>(frame).unwrap(),
                Reply::Answer("x".repeat(length))
            );
        }
    }

    #[test]
    fn a_frame_cut_short_is_all_there_is() {
        let mut frame = Vec::new();
        put_reply(&mut frame, &Reply::Answer("x".repeat(10)));
        let cut = &frame[..frame.len() - 3];
        assert_eq!(first_frame(cut), cut);
        let mut long = Vec::new();
        put_reply(&mut long, &Reply::Answer("x".repeat(300)));
        assert_eq!(first_frame(&long[..100]), &long[..100]);
    }

    #[test]
    fn an_item_is_found_in_place_only_when_all_of_it_is_there() {
        let mut stream = Vec::new();
        put_reply(&mut stream, &Reply::Answer("x".repeat(300)));
        put_reply(&mut stream, &Reply::<bool>::NotRegistered);
        write_end(&mut stream, 7).unwrap();
        let mut read = Vec::new();
        let mut input = stream.as_slice();
        let mut at = 0;
        while !input.is_empty() {
            let item = read_item(&mut input, &mut read).unwrap();
            let length = stream.len() - at - input.len();
            for cut in 0..length {
                assert!(item_in(&stream[at..at + cut]).is_none(), "cut at {cut}");
            }
            let (found, found_length) = item_in(&stream[at..]).unwrap().unwrap();
            assert_eq!((&found, found_length), (&item, length));
            if item == Item::Reply {
                assert_eq!(&stream[at..at + length], read.as_slice());
            }
            at += length;
        }
        assert!(item_in(&[0x7f, 1, 2]).unwrap().is_err());
    }

    #[test]
    fn requests_round_trip() {
        let mut bytes = Vec::new();
        let window = Window { start: 7, end: 90 };
        write_request(&mut bytes, "blackjack", &[1, 2, 3], window).unwrap();
        write_request(&mut bytes, "poker", &[], Window::ALL).unwrap();
        let mut input = bytes.as_slice();
        assert_eq!(
            read_request(&mut input).unwrap(),
            Some(("blackjack".to_string(), vec![1, 2, 3], window))
        );
        assert_eq!(
            read_request(&mut input).unwrap(),
            Some(("poker".to_string(), vec![], Window::ALL))
        );
        assert_eq!(read_request(&mut input).unwrap(), None);
    }

    #[test]
    fn hello_round_trips() {
        let hello = Hello {
            protocol: PROTOCOL_VERSION,
            api_version: API_VERSION.into(),
            assignments: vec!["poker".into()],
        };
        let mut bytes = Vec::new();
        hello.write(&mut bytes).unwrap();
        assert_eq!(Hello::read(&mut bytes.as_slice()).unwrap(), hello);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let mut frame = Vec::new();
        assert!(read_item(&mut [99u8].as_slice(), &mut frame).is_err());
        assert!(
            read_item(
                &mut [1u8, 0xff, 0xff, 0xff, 0xff, 0x7f].as_slice(),
                &mut frame
            )
            .is_err()
        );
        assert!(decode_reply::<bool>(&[1, 1, 7]).is_err());
        assert!(decode_reply::<bool>(&[]).is_err());
    }

    #[test]
    fn markers_have_the_documented_length() {
        assert_eq!(output_marker(u64::MAX).len(), OUTPUT_MARKER_LEN);
    }
}
