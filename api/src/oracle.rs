//! The oracle's side of the stand-ins: a program of the grader's holding the reference and
//! the bugs, which answers each link the grader hands it ([`hand_link`]) with one of them,
//! in a process of its own ([`serve_handed_links`]).
//!
//! A link handed with a socket for a report is recorded, to skip the runs that could not end
//! otherwise: each other implementation is handed the test's messages again, one after
//! another in a child process, and where it answers every one exactly as the implementation recorded did,
//! the test (which asks what it asks from what it was answered) would have asked the same
//! and passed again. Only the implementations that answer differently need a run of the
//! test. A test that asks differently from run to run (a random hand, a `HashSet`'s order)
//! has two runs on the reference with different fingerprints; the grader then runs it on
//! every implementation, as if nothing were kept.

use std::io;
use std::os::unix::net::UnixStream;
use std::time::Duration;

use crate::stand_in::{Link, Register, server};
use crate::submission::Submission;
use crate::transcript::{Report, Said, Transcript};

/// One link the grader hands the oracle: the implementation to answer with, by its place
/// in the oracle's list, how many seconds of CPU it may use, and what to report of it.
pub struct Handed {
    pub implementation: u32,
    pub cpu_seconds: u32,
    pub record: Record,
}

/// What the oracle keeps of a link's messages, and reports on a socket handed beside it
/// once the test hangs up ([`Report`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Record {
    Nothing,
    /// The messages' fingerprint.
    Fingerprint,
    /// The fingerprint, and which implementations answer the same messages alike.
    Replays,
}

/// How long a [`Handed`] is on the wire.
const HANDED_BYTES: usize = 12;

/// The oracle: takes links from the grader on stdin (each a socket passed with
/// [`hand_link`]), and answers each in a process of its own, forked, with a fresh
/// implementation of `assignment` made by `implementations[n]`, until the grader hangs up.
/// Nothing one link leaves (objects, memory, a loop) reaches another's.
pub fn serve_handed_links(implementations: &[Register], assignment: &str) -> ! {
    // A panic is an answer: the test panics with its message, and nothing is printed here.
    std::panic::set_hook(Box::new(|_| {}));
    let served = crate::serve::take_channel().and_then(|grader| {
        loop {
            let Some((handed, link, report)) = take_link(&grader)? else {
                return Ok(());
            };
            let served = usize::try_from(handed.implementation)
                .ok()
                .filter(|&n| n < implementations.len())
                .ok_or_else(|| io::Error::other("no such implementation"))?;
            if fork_reaped()?.is_none() {
                drop(grader);
                let link = match report {
                    Some(report) => {
                        recording(link, implementations, served, &handed, assignment, report)
                    }
                    None => Ok((Link::new(link), None)),
                };
                match link {
                    Ok((link, replayer)) => answer_in_this_process(
                        implementations[served],
                        assignment,
                        handed.cpu_seconds,
                        link,
                        replayer,
                    ),
                    Err(_) => std::process::exit(1),
                }
            }
        }
    });
    std::process::exit(i32::from(served.is_err()))
}

/// In a process of the oracle's own: answers `link` with the implementation `register`
/// makes, using at most `cpu_seconds` of CPU, and ends with the link. A recording link's
/// transcript goes to `replayer` as this one ends.
fn answer_in_this_process(
    register: Register,
    assignment: &str,
    cpu_seconds: u32,
    link: Link,
    replayer: Option<UnixStream>,
) -> ! {
    let _ = nix::sys::resource::setrlimit(
        nix::sys::resource::Resource::RLIMIT_CPU,
        u64::from(cpu_seconds),
        u64::from(cpu_seconds),
    );
    let answered = serve_with(register, assignment, &link);
    if let (Some(transcript), Some(mut replayer)) = (link.transcript(), replayer) {
        // A transcript of a link that broke off is not sent: the replay is then refused,
        // and the test runs on every implementation.
        if answered.is_ok()
            && let Ok(transcript) = transcript.lock()
        {
            let _ = transcript.write_to(&mut replayer);
        }
    }
    std::process::exit(i32::from(answered.is_err()))
}

/// Answers `link` with the implementation `register` makes, until the link ends.
fn serve_with(register: Register, assignment: &str, link: &Link) -> io::Result<()> {
    let submission = register(Submission::new());
    server(&submission, assignment)
        .ok_or_else(|| io::Error::other(format!("no stand-in for {assignment}")))
        .and_then(|mut answerer| link.serve(answerer.as_mut()))
}

/// `link`, recording, and the way to a pristine copy of the oracle, forked here, which
/// replays its transcript once the test hangs up and writes what it found to `report`, as
/// `handed` asks.
fn recording(
    link: UnixStream,
    implementations: &[Register],
    served: usize,
    handed: &Handed,
    assignment: &str,
    mut report: UnixStream,
) -> io::Result<(Link, Option<UnixStream>)> {
    let (mut transcript, replayer) = UnixStream::pair()?;
    if fork_reaped()?.is_none() {
        drop((replayer, link));
        let replayed = replay_and_report(
            &mut transcript,
            implementations,
            served,
            handed.record == Record::Replays,
            assignment,
            handed.cpu_seconds,
            &mut report,
        );
        std::process::exit(i32::from(replayed.is_err()));
    }
    drop((transcript, report));
    Ok((Link::recording(link), Some(replayer)))
}

/// Forks this process, whose children are reaped as they end: None in the child, the
/// child's pid in the parent. The oracle has one thread, so its child has all it had.
#[allow(unsafe_code)]
fn fork_reaped() -> io::Result<Option<nix::unistd::Pid>> {
    use nix::sys::signal::{SigHandler, Signal, signal};
    // SAFETY: the oracle runs one thread, so the fork copies no lock held elsewhere; the
    // handler set is the kernel's "ignore", which reaps ended children.
    unsafe {
        signal(Signal::SIGCHLD, SigHandler::SigIgn).map_err(io::Error::from)?;
        match nix::unistd::fork().map_err(io::Error::from)? {
            nix::unistd::ForkResult::Child => Ok(None),
            nix::unistd::ForkResult::Parent { child } => Ok(Some(child)),
        }
    }
}

/// The next link the grader hands over `grader`, with the socket for its report when it
/// asks for one, or None when it has hung up.
#[allow(unsafe_code)]
fn take_link(grader: &UnixStream) -> io::Result<Option<(Handed, UnixStream, Option<UnixStream>)>> {
    use nix::sys::socket::{ControlMessageOwned, MsgFlags, recvmsg};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    let mut bytes = [0u8; HANDED_BYTES];
    let mut space = nix::cmsg_space!([std::os::fd::RawFd; 2]);
    let mut parts = [io::IoSliceMut::new(&mut bytes)];
    let message = recvmsg::<()>(
        grader.as_raw_fd(),
        &mut parts,
        Some(&mut space),
        MsgFlags::MSG_CMSG_CLOEXEC,
    )
    .map_err(io::Error::from)?;
    if message.bytes == 0 {
        return Ok(None);
    }
    let mut sockets = Vec::new();
    for control in message.cmsgs().map_err(io::Error::from)? {
        if let ControlMessageOwned::ScmRights(received) = control {
            // SAFETY: the kernel has just made each of these this process's, in the
            // message; nothing else holds them.
            sockets.extend(
                received
                    .into_iter()
                    .map(|fd| UnixStream::from(unsafe { OwnedFd::from_raw_fd(fd) })),
            );
        }
    }
    if message.bytes != bytes.len() {
        return Err(io::Error::other("a link handed with a short message"));
    }
    let word =
        |n: usize| u32::from_le_bytes(bytes[4 * n..4 * n + 4].try_into().expect("four bytes"));
    let record = match word(2) {
        0 => Record::Nothing,
        1 => Record::Fingerprint,
        _ => Record::Replays,
    };
    let handed = Handed {
        implementation: word(0),
        cpu_seconds: word(1),
        record,
    };
    let mut sockets = sockets.into_iter();
    let (Some(link), report, None) = (sockets.next(), sockets.next(), sockets.next()) else {
        return Err(io::Error::other("a link handed with too many sockets"));
    };
    if report.is_some() != (record != Record::Nothing) {
        return Err(io::Error::other(
            "a link handed without the socket for its report",
        ));
    }
    Ok(Some((handed, link, report)))
}

/// The grader's side: hands `link` to the oracle at the other end of `oracle`, to be
/// answered as `handed` says.
pub fn hand_link(
    oracle: &UnixStream,
    handed: &Handed,
    link: &impl std::os::fd::AsRawFd,
    report: Option<&UnixStream>,
) -> io::Result<()> {
    use nix::sys::socket::{ControlMessage, MsgFlags, sendmsg};
    use std::os::fd::AsRawFd;
    let record: u32 = match handed.record {
        Record::Nothing => 0,
        Record::Fingerprint => 1,
        Record::Replays => 2,
    };
    let mut bytes = [0u8; HANDED_BYTES];
    for (n, word) in [handed.implementation, handed.cpu_seconds, record]
        .into_iter()
        .enumerate()
    {
        bytes[4 * n..4 * n + 4].copy_from_slice(&word.to_le_bytes());
    }
    let fds: Vec<_> = std::iter::once(link.as_raw_fd())
        .chain(report.map(AsRawFd::as_raw_fd))
        .collect();
    let sent = sendmsg::<()>(
        oracle.as_raw_fd(),
        &[io::IoSlice::new(&bytes)],
        &[ControlMessage::ScmRights(&fds)],
        MsgFlags::empty(),
        None,
    )
    .map_err(io::Error::from)?;
    match sent == bytes.len() {
        true => Ok(()),
        false => Err(io::Error::other("the oracle took part of a link")),
    }
}

/// In the oracle's pristine copy: reads the transcript the recording process sends on
/// `transcript`, replays it on every implementation but `served` when `replays` says so,
/// and writes the report to `report`.
fn replay_and_report(
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
        true => replays_alike(
            &transcript,
            implementations,
            served,
            assignment,
            cpu_seconds,
        ),
        false => Vec::new(),
    };
    let kept = Report {
        fingerprint: transcript.fingerprint(),
        alike,
    };
    Report::write_to(Some(&kept), report)
}

/// Whether each of `implementations` answers each message of `transcript` as its recorded
/// side did (`served`, which did, is taken as alike): replayed one after another in a
/// child process, which may use `cpu_seconds` of CPU and writes a verdict as each replay
/// ends. A child that ends before its last verdict (an implementation looped past the
/// CPU, or crashed) leaves the one it was replaying not alike, and the rest to another.
fn replays_alike(
    transcript: &Transcript,
    implementations: &[Register],
    served: usize,
    assignment: &str,
    cpu_seconds: u32,
) -> Vec<bool> {
    let mut alike: Vec<Option<bool>> = (0..implementations.len())
        .map(|n| (n == served).then_some(true))
        .collect();
    loop {
        let due: Vec<usize> = (0..alike.len()).filter(|&n| alike[n].is_none()).collect();
        if due.is_empty() {
            break;
        }
        let registers: Vec<Register> = due.iter().map(|&n| implementations[n]).collect();
        let Ok((verdicts, child)) = start_replays(transcript, &registers, assignment, cpu_seconds)
        else {
            break;
        };
        // A second more than the child waits for an answer, so that a replay that timed out
        // there is told here as not alike rather than lost.
        let patience = replay_patience(cpu_seconds) + Duration::from_secs(1);
        for n in due {
            let verdict = verdict_within(&verdicts, patience);
            alike[n] = Some(verdict == Verdict::Alike);
            match verdict {
                Verdict::Alike | Verdict::Otherwise => {}
                Verdict::Ended => break,
                Verdict::Late => {
                    // Still running, as it holds its end: left waiting, it would hold the
                    // report's socket open, and the grader reads the report to its end.
                    let _ = nix::sys::signal::kill(child, nix::sys::signal::Signal::SIGKILL);
                    break;
                }
            }
        }
    }
    alike.into_iter().map(|n| n.unwrap_or(false)).collect()
}

/// How long a replay's answer is awaited: the CPU it may use, and a second more.
fn replay_patience(cpu_seconds: u32) -> Duration {
    Duration::from_secs(u64::from(cpu_seconds) + 1)
}

/// The CPU this process has used, in whole seconds rounded up.
fn cpu_used() -> u64 {
    use nix::sys::resource::{UsageWho, getrusage};
    getrusage(UsageWho::RUSAGE_SELF).map_or(0, |usage| {
        let (user, system) = (usage.user_time(), usage.system_time());
        let micros =
            (user.tv_sec() + system.tv_sec()) * 1_000_000 + (user.tv_usec() + system.tv_usec());
        u64::try_from(micros).unwrap_or(0).div_ceil(1_000_000)
    })
}

/// Starts the replays of `transcript` on the implementations `registers` make, one after
/// another in a child process where each may use `cpu_seconds` of CPU: the socket it
/// writes each one's verdict on, in their order, and the child. One fork for them all: a
/// fork each took most of the time a report was awaited.
fn start_replays(
    transcript: &Transcript,
    registers: &[Register],
    assignment: &str,
    cpu_seconds: u32,
) -> io::Result<(UnixStream, nix::unistd::Pid)> {
    let (ours, theirs) = UnixStream::pair()?;
    if let Some(child) = fork_reaped()? {
        return Ok((ours, child));
    }
    drop(ours);
    // A panic here ends this child, never unwinds into the oracle's code it was forked from.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        replay_each(transcript, registers, assignment, cpu_seconds, &theirs);
    }));
    std::process::exit(0)
}

/// In a replay child: replays `transcript` on each implementation `registers` make, in
/// turn, each with `cpu_seconds` of CPU of its own, and writes each verdict to `verdicts`.
fn replay_each(
    transcript: &Transcript,
    registers: &[Register],
    assignment: &str,
    cpu_seconds: u32,
    verdicts: &UnixStream,
) {
    use std::io::Write;
    for &register in registers {
        // Each replay's own CPU, whatever the ones before it used.
        let limit = cpu_used() + u64::from(cpu_seconds);
        let _ =
            nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_CPU, limit, limit);
        let alike = replays(transcript, replay_patience(cpu_seconds), |link| {
            let _ = serve_with(register, assignment, &link);
        });
        if (&*verdicts).write_all(&[u8::from(alike)]).is_err() {
            break;
        }
    }
}

/// What a replay child said of one implementation.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Alike,
    Otherwise,
    /// The child ended without saying.
    Ended,
    /// The child said nothing in time.
    Late,
}

/// The next verdict a replay writes on `verdicts`, awaited `patience`.
fn verdict_within(verdicts: &UnixStream, patience: Duration) -> Verdict {
    use std::io::Read;
    let mut byte = [0u8];
    if verdicts.set_read_timeout(Some(patience)).is_err() {
        return Verdict::Ended;
    }
    match (&*verdicts).read_exact(&mut byte) {
        Ok(()) if byte[0] == 1 => Verdict::Alike,
        Ok(()) => Verdict::Otherwise,
        Err(error)
            if matches!(
                error.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            Verdict::Late
        }
        Err(_) => Verdict::Ended,
    }
}

/// Whether `serve`, answering on a fresh link, answers each message of `transcript` as
/// its recorded side did, the other side's messages sent to it as they came, each answer
/// awaited `patience` at most. The implementation answers on this thread, whose stack is
/// the one it had in a process of its own; the messages go from a thread of their own.
fn replays(transcript: &Transcript, patience: Duration, serve: impl FnOnce(Link)) -> bool {
    let Ok((ours, theirs)) = UnixStream::pair() else {
        return false;
    };
    let timed = ours.set_read_timeout(Some(patience)).is_ok()
        && ours.set_write_timeout(Some(patience)).is_ok();
    if !timed {
        return false;
    }
    std::thread::scope(|scope| {
        let sending = std::thread::Builder::new()
            .spawn_scoped(scope, move || replayed(transcript, &Link::new(ours)));
        // Without its other end, the link ends at once.
        serve(Link::new(theirs));
        sending.is_ok_and(|sending| sending.join().unwrap_or(false))
    })
}

/// Whether `link`'s other end answered the transcript's messages as its recorded side did,
/// and said nothing more before hanging up.
fn replayed(transcript: &Transcript, link: &Link) -> bool {
    for (said, body) in transcript.messages() {
        let step = match said {
            Said::ByTheOtherSide => link.send_body(body).is_ok(),
            Said::ByThisSide => link.receive_body().is_ok_and(|answered| answered == *body),
        };
        if !step {
            return false;
        }
    }
    link.stop_sending();
    matches!(link.receive_body(), Err(error) if error.kind() == io::ErrorKind::UnexpectedEof)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stand_in::{Answerer, Call, NoCallbacks};

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
            recording.transcript().expect("recorded")
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
        replays(transcript, Duration::from_secs(5), move |link| {
            let _ = link.serve(&mut answerer);
        })
    }

    #[test]
    fn an_implementation_that_answers_alike_replays_and_one_that_does_not_does_not() {
        let transcript = transcript_of(Doubler { plus: 0 });
        assert_eq!(transcript.messages().len(), 4);
        assert!(replays_on(&transcript, Doubler { plus: 0 }));
        assert!(!replays_on(&transcript, Doubler { plus: 1 }));
    }

    fn as_registered(submission: Submission) -> Submission {
        submission
    }

    fn aborting(_: Submission) -> Submission {
        std::process::abort()
    }

    fn stalling(submission: Submission) -> Submission {
        std::thread::sleep(Duration::from_secs(60));
        submission
    }

    #[test]
    fn a_replay_that_ends_or_stalls_its_process_is_not_alike_and_the_rest_are_replayed_after_it() {
        // The replays fork, and their children are reaped by ignoring SIGCHLD: that is
        // done in a process of its own, this test run again alone.
        const ALONE: &str = "CARDGRADE_REPLAYS_ALONE";
        if std::env::var_os(ALONE).is_none() {
            let test = "oracle::tests::a_replay_that_ends_or_stalls_its_process_is_not_alike_and_the_rest_are_replayed_after_it";
            let status = std::process::Command::new(std::env::current_exe().expect("this test"))
                .args(["--exact", test, "--test-threads=1", "--quiet"])
                .env(ALONE, "1")
                .status()
                .expect("this test runs again");
            assert!(status.success(), "{status}");
            return;
        }
        // Nothing said: an implementation that hangs up at once answers it alike.
        let transcript = Transcript::default();
        let implementations: [Register; 5] = [
            as_registered,
            as_registered,
            aborting,
            stalling,
            as_registered,
        ];
        let started = std::time::Instant::now();
        assert_eq!(
            replays_alike(&transcript, &implementations, 0, "plaisante_hand", 1),
            [true, true, false, false, true]
        );
        // The stalled child was given up on at its patience, not waited for, and killed.
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
        let ours = format!("PPid:\t{}\n", std::process::id());
        let children_left = || {
            std::fs::read_dir("/proc")
                .expect("/proc")
                .flatten()
                .filter(|entry| {
                    std::fs::read_to_string(entry.path().join("status"))
                        .is_ok_and(|status| status.contains(&ours))
                })
                .count()
        };
        let gone_by = std::time::Instant::now() + Duration::from_secs(5);
        while children_left() > 0 && std::time::Instant::now() < gone_by {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(children_left(), 0, "a replay child is left");
    }
}
