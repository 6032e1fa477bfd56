//! What the oracle keeps of a link between a test and an implementation: every message,
//! in order ([`Transcript`]), kept by a recording [`crate::stand_in::Link`] and replayed by
//! the oracle ([`crate::oracle`]); and what it reports of it to the grader ([`Report`]).

use std::hash::Hasher;
use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use crate::wire::{put_varint, take_varint};

/// The most a transcript keeps: a test that says more is run on every implementation.
const TRANSCRIPT_CAP: usize = 16 << 20;

/// Which side of the recording link a message came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Said {
    ByThisSide,
    ByTheOtherSide,
}

/// The messages of one link, in order, while they fit in [`TRANSCRIPT_CAP`].
#[derive(Debug, Default)]
pub(crate) struct Transcript {
    messages: Vec<(Said, Vec<u8>)>,
    bytes: usize,
    overflowed: bool,
}

impl Transcript {
    pub(crate) fn keep(&mut self, said: Said, body: &[u8]) {
        self.bytes = self.bytes.saturating_add(body.len());
        if self.bytes > TRANSCRIPT_CAP {
            self.overflowed = true;
            self.messages = Vec::new();
        }
        if !self.overflowed {
            self.messages.push((said, body.to_vec()));
        }
    }

    /// Written for the process that replays it; an overflowed one as nothing.
    pub(crate) fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        if self.overflowed {
            return Ok(());
        }
        let mut bytes = vec![1u8];
        for (said, body) in &self.messages {
            bytes.push(u8::from(*said == Said::ByThisSide));
            put_varint(&mut bytes, body.len() as u64)?;
            bytes.extend_from_slice(body);
        }
        out.write_all(&bytes)
    }

    /// A transcript as [`Transcript::write_to`] wrote it; None when it was not written whole.
    pub(crate) fn read_from(input: &mut impl Read) -> Option<Transcript> {
        let mut bytes = Vec::new();
        input
            .take(TRANSCRIPT_CAP as u64 * 2)
            .read_to_end(&mut bytes)
            .ok()?;
        let (&written, mut rest) = bytes.split_first()?;
        if written != 1 {
            return None;
        }
        let mut transcript = Transcript::default();
        while let Some((&side, after)) = rest.split_first() {
            rest = after;
            let length = usize::try_from(take_varint(&mut rest).ok()?).ok()?;
            let body = rest.get(..length)?;
            let said = match side {
                1 => Said::ByThisSide,
                _ => Said::ByTheOtherSide,
            };
            transcript.messages.push((said, body.to_vec()));
            rest = &rest[length..];
        }
        Some(transcript)
    }

    /// Its messages, in order, each with the side that said it.
    pub(crate) fn messages(&self) -> &[(Said, Vec<u8>)] {
        &self.messages
    }

    /// The same for the same messages in the same order, in one build of the oracle.
    pub(crate) fn fingerprint(&self) -> u64 {
        let mut hasher = std::hash::DefaultHasher::new();
        for (said, body) in &self.messages {
            hasher.write_u8(u8::from(*said == Said::ByThisSide));
            hasher.write_usize(body.len());
            hasher.write(body);
        }
        hasher.finish()
    }
}

/// What the oracle tells of one recorded link, once the test has hung up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Equal for two runs that said the same.
    pub fingerprint: u64,
    /// By implementation, in the oracle's order: whether it answered every message of the
    /// run as the implementation the run had did. Empty when no replay was asked.
    pub alike: Vec<bool>,
}

impl Report {
    pub(crate) fn write_to(report: Option<&Report>, out: &mut impl Write) -> io::Result<()> {
        let mut bytes = Vec::new();
        if let Some(report) = report {
            bytes.extend_from_slice(&report.fingerprint.to_le_bytes());
            bytes.extend(report.alike.iter().map(|&alike| u8::from(alike)));
        }
        out.write_all(&bytes)
    }

    /// The report on `stream`, waiting at most `patience`; None when the run could not be
    /// kept (too long, or the oracle's process was lost).
    pub fn read(stream: &UnixStream, patience: Duration) -> Option<Report> {
        stream.set_read_timeout(Some(patience)).ok()?;
        let mut bytes = Vec::new();
        let mut stream = stream;
        stream.read_to_end(&mut bytes).ok()?;
        let (fingerprint, alike) = bytes.split_first_chunk::<8>()?;
        Some(Report {
            fingerprint: u64::from_le_bytes(*fingerprint),
            alike: alike.iter().map(|&byte| byte == 1).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A transcript of two calls and their answers, `plus` added to each answer's bytes.
    fn transcript_of(plus: u8) -> Transcript {
        let mut transcript = Transcript::default();
        for args in [vec![1u8, 2], vec![3]] {
            transcript.keep(Said::ByTheOtherSide, &args);
            let answer: Vec<u8> = args.iter().map(|byte| byte * 2 + plus).collect();
            transcript.keep(Said::ByThisSide, &answer);
        }
        transcript
    }

    #[test]
    fn a_transcript_sent_to_the_replayer_is_read_back_the_same() {
        let transcript = transcript_of(0);
        let mut bytes = Vec::new();
        transcript.write_to(&mut bytes).expect("written");
        let read = Transcript::read_from(&mut bytes.as_slice()).expect("read whole");
        assert_eq!(read.messages, transcript.messages);
        assert_eq!(read.fingerprint(), transcript.fingerprint());
        assert_ne!(read.fingerprint(), transcript_of(1).fingerprint());
        assert!(Transcript::read_from(&mut &bytes[..bytes.len() - 1]).is_none());
    }

    #[test]
    fn a_transcript_past_its_cap_is_not_sent_and_reads_as_none() {
        let mut transcript = Transcript::default();
        transcript.keep(Said::ByTheOtherSide, &vec![0; TRANSCRIPT_CAP]);
        transcript.keep(Said::ByThisSide, &[1]);
        let mut bytes = Vec::new();
        transcript.write_to(&mut bytes).expect("written");
        assert!(Transcript::read_from(&mut bytes.as_slice()).is_none());
    }

    #[test]
    fn a_report_reads_back_as_written_and_none_reads_as_none() {
        let report = Report {
            fingerprint: 0x0123_4567_89ab_cdef,
            alike: vec![true, false, true],
        };
        for written in [Some(&report), None] {
            let (mut ours, theirs) = UnixStream::pair().expect("a socket pair");
            Report::write_to(written, &mut ours).expect("written");
            drop(ours);
            assert_eq!(
                Report::read(&theirs, Duration::from_secs(5)).as_ref(),
                written
            );
        }
    }
}
