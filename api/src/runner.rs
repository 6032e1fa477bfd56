//! The runner's side of the pipe. It runs in the child process the grader starts, the only
//! process where a student's code runs.

use std::cell::RefCell;
use std::io::{self, BufReader, BufWriter, Write};
use std::os::unix::net::UnixStream;

use nix::sys::resource::{Resource, setrlimit};

use crate::protocol::{self, Hello, Item, Request, Strategies};
use crate::submission::Submission;

thread_local! {
    static PANIC_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Where the last panic on this thread happened, if the runner's hook saw it.
pub(crate) fn take_panic_location() -> Option<String> {
    PANIC_LOCATION.with(|slot| slot.borrow_mut().take())
}

/// Serves requests from the grader until it hangs up, then exits.
pub fn serve(submission: Submission) -> ! {
    let Ok(socket_path) = std::env::var(protocol::SOCKET_ENV) else {
        eprintln!(
            "This program is a cardgrade runner: `grader check` starts it and talks to it. \
             Run `grader check` in your crate instead."
        );
        std::process::exit(2);
    };
    apply_limits();
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
    let code = match talk(&submission, &socket_path) {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("cardgrade runner: lost the grader: {error}");
            1
        }
    };
    std::process::exit(code)
}

fn talk(submission: &Submission, socket_path: &str) -> io::Result<()> {
    let stream = UnixStream::connect(socket_path)?;
    let mut requests = BufReader::new(stream.try_clone()?);
    let mut answers = BufWriter::with_capacity(1 << 16, stream);
    Hello {
        protocol: protocol::PROTOCOL_VERSION,
        api_version: protocol::API_VERSION.to_string(),
        assignments: submission.assignments(),
        strategies: submission.strategy_names(),
    }
    .write(&mut answers)?;
    answers.flush()?;
    let mut sequence = 0u64;
    let mut strategies = Strategies::default();
    while let Some(request) = Request::read(&mut requests)? {
        let mut failure = None;
        if let Request::StrategyCall { slot, call } = &request {
            Item::Answer(strategies.answer(submission, *slot, call)).write(&mut answers)?;
        }
        protocol::respond(submission, &request, |answer| {
            match Item::Answer(answer).write(&mut answers) {
                Ok(()) => true,
                Err(error) => {
                    failure = Some(error);
                    false
                }
            }
        });
        if let Some(error) = failure {
            return Err(error);
        }
        mark_end_of_output(sequence);
        Item::End(sequence).write(&mut answers)?;
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

/// Limits set before any student code runs. A limit the kernel refuses is reported, not
/// fatal: the grader's timeout and output cap still hold.
fn apply_limits() {
    let cpu_seconds = std::env::var(protocol::CPU_LIMIT_ENV)
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(300);
    let limits = [
        (Resource::RLIMIT_CORE, 0),
        (Resource::RLIMIT_CPU, cpu_seconds),
        (Resource::RLIMIT_FSIZE, 64 << 20),
        (Resource::RLIMIT_AS, 4 << 30),
    ];
    for (resource, limit) in limits {
        if let Err(error) = setrlimit(resource, limit, limit) {
            eprintln!("cardgrade runner: warning: could not limit {resource:?}: {error}");
        }
    }
}
