//! The runner's side of the pipe. It runs in the child process the grader starts, the only
//! process where a student's code runs.

use std::io::IoSlice;
use std::io::{self, BufReader, BufWriter, Write};
use std::num::NonZeroUsize;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU64, Ordering};

use nix::sys::memfd::{MFdFlags, memfd_create};
use nix::sys::mman::{MapFlags, ProtFlags, mmap};
use nix::sys::socket::{ControlMessage, MsgFlags, sendmsg};
use nix::unistd::ftruncate;

use crate::assignment::record_panic_location;
use crate::protocol::{self, Hello, PROGRESS_BYTES};
use crate::submission::Submission;
use crate::unit::{Serving, Sessions};
use crate::wire::invalid;

// The runner's entry points are `Submission`'s methods, written here so that the registry
// needs nothing of the runner.
impl Submission {
    /// Runs this submission as cardgrade's runner: the generated runner's `main` calls
    /// this. It never returns.
    pub fn serve(self) -> ! {
        serve(self, "")
    }

    /// As [`Submission::serve`], with panic locations shown relative to `source_root`, the
    /// folder the submission was built from (`src/lib.rs:12:9`). The generated runner's
    /// `main` names it, so no environment of the runner's carries the grader's paths.
    pub fn serve_relative_to(self, source_root: &'static str) -> ! {
        serve(self, source_root)
    }
}

/// Serves requests from the grader until it hangs up, then exits.
pub fn serve(submission: Submission, source_root: &'static str) -> ! {
    if std::env::var_os(protocol::CHANNEL_ENV).is_none() {
        eprintln!(
            "This program is a cardgrade runner: `grader check` starts it and talks to it. \
             Run `grader check` in your crate instead."
        );
        std::process::exit(2);
    }
    // Panics are reported as answers; printing each one would flood the captured output.
    std::panic::set_hook(Box::new(move |info| {
        let location = info.location().map(|l| {
            let file = l.file();
            let relative = file
                .strip_prefix(source_root)
                .filter(|_| !source_root.is_empty())
                .map_or(file, |rest| rest.trim_start_matches('/'));
            format!("{relative}:{}:{}", l.line(), l.column())
        });
        record_panic_location(location);
    }));
    let code = match take_channel().and_then(|channel| talk(&submission, channel)) {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("cardgrade runner: lost the grader: {error}");
            1
        }
    };
    std::process::exit(code)
}

/// Takes the grader's socket off stdin and leaves stdin empty, so student code that reads
/// it sees the end of input instead of the grader's requests.
pub(crate) fn take_channel() -> io::Result<UnixStream> {
    let channel = io::stdin().as_fd().try_clone_to_owned()?;
    let empty = std::fs::File::open("/dev/null")?;
    nix::unistd::dup2_stdin(&empty).map_err(io::Error::from)?;
    Ok(UnixStream::from(channel))
}

fn talk(submission: &Submission, stream: UnixStream) -> io::Result<()> {
    let mut requests = BufReader::new(stream.try_clone()?);
    let mut hello = Vec::new();
    Hello {
        protocol: protocol::PROTOCOL_VERSION,
        api_version: protocol::API_VERSION.to_string(),
        assignments: submission.assignments(),
    }
    .write(&mut hello)?;
    let progress = Progress::shared_with_hello(&stream, hello[0])?;
    let mut answers = BufWriter::with_capacity(1 << 16, stream);
    answers.write_all(&hello[1..])?;
    answers.flush()?;
    let mut sequence = 0u64;
    let mut sessions = Sessions::default();
    while let Some((name, payload, window)) = protocol::read_request(&mut requests)? {
        let unit = crate::assignments::assignment(&name).ok_or_else(|| {
            invalid(&format!(
                "a request for `{name}`, an assignment this api does not know"
            ))
        })?;
        let mut failure = None;
        let mut inputs_done = 0;
        progress.tell(inputs_done);
        unit.serve(Serving {
            submission,
            sessions: &mut sessions,
            payload: &payload,
            window,
            emit: &mut |frames| {
                inputs_done += 1;
                progress.tell(inputs_done);
                match answers.write_all(frames) {
                    Ok(()) => true,
                    Err(error) => {
                        failure = Some(error);
                        false
                    }
                }
            },
        })?;
        if let Some(error) = failure {
            return Err(error);
        }
        mark_end_of_output(sequence);
        protocol::write_end(&mut answers, sequence)?;
        answers.flush()?;
        sequence += 1;
    }
    Ok(())
}

/// How many inputs of the current request this runner has answered, on a page of memory it
/// shares with the grader. Answers wait in a buffer before they are sent; when the runner
/// hangs or dies, the page still says which input it was in, and the grader reads it
/// there, not from what reached it.
struct Progress(Option<&'static AtomicU64>);

impl Progress {
    /// Makes the page and sends it to the grader along with the hello's first byte (or
    /// only that byte, where no page can be made or sent: the grader then goes by the
    /// answers that reach it).
    fn shared_with_hello(mut stream: &UnixStream, first_byte: u8) -> io::Result<Progress> {
        if let Some((fd, count)) = Self::page() {
            let sent = sendmsg::<()>(
                stream.as_raw_fd(),
                &[IoSlice::new(&[first_byte])],
                &[ControlMessage::ScmRights(&[fd.as_raw_fd()])],
                MsgFlags::empty(),
                None,
            );
            if sent == Ok(1) {
                return Ok(Progress(Some(count)));
            }
        }
        stream.write_all(&[first_byte])?;
        Ok(Progress(None))
    }

    #[allow(unsafe_code)]
    fn page() -> Option<(OwnedFd, &'static AtomicU64)> {
        let fd = memfd_create(c"cardgrade-progress", MFdFlags::MFD_CLOEXEC).ok()?;
        ftruncate(&fd, PROGRESS_BYTES as i64).ok()?;
        // SAFETY: a fresh shared mapping of the whole file, never unmapped, so the count
        // lives as long as the process; the kernel aligns it to a page.
        let mapped = unsafe {
            mmap(
                None,
                NonZeroUsize::new(PROGRESS_BYTES)?,
                ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                MapFlags::MAP_SHARED,
                &fd,
                0,
            )
        }
        .ok()?;
        // SAFETY: eight aligned bytes that nothing else in this process addresses.
        Some((fd, unsafe { mapped.cast::<AtomicU64>().as_ref() }))
    }

    fn tell(&self, inputs_done: u64) {
        if let Some(count) = self.0 {
            count.store(inputs_done, Ordering::Relaxed);
        }
    }
}

fn mark_end_of_output(sequence: u64) {
    let marker = protocol::output_marker(sequence);
    // A closed stdout is the student's doing; the answers still go through.
    let mut out = io::stdout().lock();
    let _ = out
        .flush()
        .and_then(|()| out.write_all(&marker))
        .and_then(|()| out.flush());
    let mut err = io::stderr().lock();
    let _ = err.write_all(&marker).and_then(|()| err.flush());
}
