//! What the oracle keeps of a test's run on the reference, to skip the runs that could not
//! end otherwise: each other implementation is handed the test's messages again, in a
//! process of its own, and where it answers every one exactly as the reference did, the
//! test (which asks what it asks from what it was answered) would have asked the same and
//! passed again. Only the implementations that answer differently need a run of the test.
//!
//! A test that asks differently from run to run (a random hand, a `HashSet`'s order) has
//! two runs on the reference with different fingerprints; the grader then runs it on every
//! implementation, as if nothing were kept.

use std::hash::Hasher;
use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use super::{Link, Register};
use crate::wire::{put_varint, take_varint};

/// The most a transcript keeps: a test that says more is run on every implementation.
const TRANSCRIPT_CAP: usize = 16 << 20;

/// Which side of the recording link a message came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Said {
    ByThisSide,
    ByTheOtherSide,
}

/// The messages of one link, in order, while they fit in [`TRANSCRIPT_CAP`].
#[derive(Debug, Default)]
pub(super) struct Transcript {
    messages: Vec<(Said, Vec<u8>)>,
    bytes: usize,
    overflowed: bool,
}

impl Transcript {
    pub(super) fn keep(&mut self, said: Said, body: &[u8]) {
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
    pub(super) fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
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
    pub(super) fn read_from(input: &mut impl Read) -> Option<Transcript> {
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

    /// The same for the same messages in the same order, in one build of the oracle.
    fn fingerprint(&self) -> u64 {
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
    fn write_to(report: Option<&Report>, out: &mut impl Write) -> io::Result<()> {
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

/// In the oracle's pristine copy: reads the transcript the recording process sends on
/// `transcript`, replays it on every implementation but `served` when `replays` says so,
/// and writes the report to `report`.
pub(super) fn replay_and_report(
    transcript: &mut UnixStream,
    implementations: &[Register],
    served: usize,
    replays: bool,
    assignment: &str,
    cpu_seconds: u32,
    report: &mut UnixStream,
) -> io::Result<()> {
    let Some(transcript) = Transcript::read_from(transcript) else {
        return Report::write_to(None, report);
    };
    let alike = match replays {
        true => implementations
            .iter()
            .enumerate()
            .map(|(n, register)| {
                n == served || answers_alike(&transcript, *register, assignment, cpu_seconds)
            })
            .collect(),
        false => Vec::new(),
    };
    let kept = Report {
        fingerprint: transcript.fingerprint(),
        alike,
    };
    Report::write_to(Some(&kept), report)
}

/// Whether the implementation `register` makes answers each message of `transcript` as
/// its recorded side did, the other side's messages sent to it as they came: in a child
/// process, which may use `cpu_seconds` of CPU, each answer awaited as long.
fn answers_alike(
    transcript: &Transcript,
    register: Register,
    assignment: &str,
    cpu_seconds: u32,
) -> bool {
    let Ok((ours, theirs)) = UnixStream::pair() else {
        return false;
    };
    let Ok(child) = super::fork_reaped() else {
        return false;
    };
    let Some(child) = child else {
        drop(ours);
        super::answer_in_this_process(register, assignment, cpu_seconds, Link::new(theirs), None);
    };
    drop(theirs);
    let alike = ours
        .set_read_timeout(Some(Duration::from_secs(u64::from(cpu_seconds) + 1)))
        .is_ok()
        && replayed(transcript, &Link::new(ours));
    let _ = nix::sys::signal::kill(child, nix::sys::signal::Signal::SIGKILL);
    alike
}

/// Whether `link`'s other end answered the transcript's messages as its recorded side did,
/// and said nothing more before hanging up.
fn replayed(transcript: &Transcript, link: &Link) -> bool {
    for (said, body) in &transcript.messages {
        let step = match said {
            Said::ByTheOtherSide => link.send_body(body).is_ok(),
            Said::ByThisSide => link.receive_body().is_ok_and(|answered| answered == *body),
        };
        if !step {
            return false;
        }
    }
    let _ = link.stream.shutdown(std::net::Shutdown::Write);
    matches!(link.receive_body(), Err(error) if error.kind() == io::ErrorKind::UnexpectedEof)
}

#[cfg(test)]
mod tests {
    use super::super::{Answerer, Call, NoCallbacks};
    use super::*;

    /// Answers every call with its arguments, each byte doubled and `plus` added.
    struct Doubler {
        plus: u8,
    }

    impl Answerer for Doubler {
        fn answer(&mut self, call: Call<'_>) -> io::Result<()> {
            call.out.extend(
                call.args
                    .iter()
                    .map(|byte| byte.wrapping_mul(2) + self.plus),
            );
            Ok(())
        }
    }

    /// The transcript the oracle's side keeps of two calls answered by `answerer`.
    fn transcript_of(mut answerer: Doubler) -> Transcript {
        let (test, oracle) = UnixStream::pair().expect("a socket pair");
        let server = std::thread::spawn(move || {
            let recording = Link::recording(oracle);
            recording.serve(&mut answerer).expect("served");
            recording.transcript.expect("recorded")
        });
        let link = Link::new(test);
        for args in [vec![1, 2], vec![3]] {
            link.call(0, 0, args, &mut NoCallbacks)
                .expect("called")
                .expect("answered");
        }
        drop(link);
        let transcript = server.join().expect("the server ends");
        std::sync::Arc::into_inner(transcript)
            .expect("one holder")
            .into_inner()
            .expect("not poisoned")
    }

    fn replays_on(transcript: &Transcript, mut answerer: Doubler) -> bool {
        let (ours, theirs) = UnixStream::pair().expect("a socket pair");
        std::thread::spawn(move || Link::new(theirs).serve(&mut answerer));
        replayed(transcript, &Link::new(ours))
    }

    #[test]
    fn an_implementation_that_answers_alike_replays_and_one_that_does_not_does_not() {
        let transcript = transcript_of(Doubler { plus: 0 });
        assert_eq!(transcript.messages.len(), 4);
        assert!(replays_on(&transcript, Doubler { plus: 0 }));
        assert!(!replays_on(&transcript, Doubler { plus: 1 }));
    }

    #[test]
    fn a_transcript_sent_to_the_replayer_is_read_back_the_same() {
        let transcript = transcript_of(Doubler { plus: 0 });
        let mut bytes = Vec::new();
        transcript.write_to(&mut bytes).expect("written");
        let read = Transcript::read_from(&mut bytes.as_slice()).expect("read whole");
        assert_eq!(read.messages, transcript.messages);
        assert_eq!(read.fingerprint(), transcript.fingerprint());
        assert_ne!(
            read.fingerprint(),
            transcript_of(Doubler { plus: 1 }).fingerprint()
        );
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
