//! The runner's side of the pipe. It runs in the child process the grader starts, the only
//! process where a student's code runs.

use std::cell::RefCell;
use std::io::{self, BufReader, BufWriter, Write};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;

use crate::assignment::Sessions;
use crate::protocol::{self, Hello};
use crate::submission::Submission;
use crate::wire::invalid;

thread_local! {
    static PANIC_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Where the last panic on this thread happened, if the runner's hook saw it.
pub(crate) fn take_panic_location() -> Option<String> {
    PANIC_LOCATION.with(|slot| slot.borrow_mut().take())
}

/// Serves requests from the grader until it hangs up, then exits.
pub fn serve(submission: Submission) -> ! {
    if std::env::var_os(protocol::CHANNEL_ENV).is_none() {
        eprintln!(
            "This program is a cardgrade runner: `grader check` starts it and talks to it. \
             Run `grader check` in your crate instead."
        );
        std::process::exit(2);
    }
    // Panics are reported as answers; printing each one would flood the captured output.
    let source_root = std::env::var(protocol::SOURCE_ROOT_ENV).unwrap_or_default();
    std::panic::set_hook(Box::new(move |info| {
        let location = info.location().map(|l| {
            let file = l.file();
            let relative = file
                .strip_prefix(source_root.as_str())
                .filter(|_| !source_root.is_empty())
                .map_or(file, |rest| rest.trim_start_matches('/'));
            format!("{relative}:{}:{}", l.line(), l.column())
        });
        PANIC_LOCATION.with(|slot| *slot.borrow_mut() = location);
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
fn take_channel() -> io::Result<UnixStream> {
    let channel = io::stdin().as_fd().try_clone_to_owned()?;
    let empty = std::fs::File::open("/dev/null")?;
    nix::unistd::dup2_stdin(&empty).map_err(io::Error::from)?;
    Ok(UnixStream::from(channel))
}

fn talk(submission: &Submission, stream: UnixStream) -> io::Result<()> {
    let mut requests = BufReader::new(stream.try_clone()?);
    let mut answers = BufWriter::with_capacity(1 << 16, stream);
    Hello {
        protocol: protocol::PROTOCOL_VERSION,
        api_version: protocol::API_VERSION.to_string(),
        assignments: submission.assignments(),
    }
    .write(&mut answers)?;
    answers.flush()?;
    let mut sequence = 0u64;
    let mut sessions = Sessions::default();
    while let Some((name, payload, window)) = protocol::read_request(&mut requests)? {
        let unit = crate::assignment(&name).ok_or_else(|| {
            invalid(&format!(
                "a request for `{name}`, an assignment this api does not know"
            ))
        })?;
        let mut failure = None;
        unit.serve(
            submission,
            &mut sessions,
            &payload,
            window,
            &mut |frames| match answers.write_all(frames) {
                Ok(()) => true,
                Err(error) => {
                    failure = Some(error);
                    false
                }
            },
        )?;
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
