//! How a request to a runner ended, and the words for a runner's death.

use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

use crate::capture::Printed;
use crate::sandbox;
use crate::student_text::StudentText;

/// Bytes a runner may print, stdout and stderr together, while it answers one request: a
/// runner printing more is flooding its output, not answering, and is stopped.
pub const FLOOD_BYTES: u64 = 100_000_000;

/// How a request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// Every answer arrived.
    Answered,
    /// No complete response within the timeout, though it kept answering; the runner was
    /// killed.
    TimedOut(Duration),
    /// Its count of inputs answered did not move for `quiet` (the stall limit), with this
    /// many inputs answered: an endless loop, most likely. The runner was killed.
    Stalled { quiet: Duration, inputs_done: u64 },
    /// It printed this many bytes, more than [`FLOOD_BYTES`], while answering; the runner
    /// was killed.
    Flooded(u64),
    /// The runner process ended while answering.
    Died(String),
    /// The runner said something that is not the protocol; it was killed.
    Garbled(String),
    /// The grader stopped listening (it had seen enough); the runner was killed.
    Abandoned,
}

/// How the response to request `sequence` ended at an end mark of request `ended`.
pub(super) fn end_of(ended: u64, sequence: u64) -> Ending {
    match ended == sequence {
        true => Ending::Answered,
        false => Ending::Garbled("an end mark out of step with the requests".into()),
    }
}

/// What one request produced.
#[derive(Debug)]
pub struct Exchange {
    pub ending: Ending,
    /// When the runner hung or died: how many inputs of the request it had answered, by its
    /// own count, sent to the grader or not. A hostile runner may say anything here.
    pub inputs_done: Option<u64>,
    pub stdout: Printed,
    pub stderr: Printed,
    /// Where the runner was stopped while its tree was held by a limit (memory, processes):
    /// what the limit did, which may be why it stalled.
    pub limits: Option<String>,
}

impl Exchange {
    /// Whether the runner can take another request.
    pub fn runner_survived(&self) -> bool {
        self.ending == Ending::Answered
    }
}

/// How a runner that ended says so, by its exit status.
pub(super) fn describe_status(status: std::process::ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(101), _) => "panicked outside any test (exit status 101)".into(),
        (Some(sandbox::SETUP_FAILED), _) => {
            "could not be set up by the sandbox (exit status 125)".into()
        }
        (Some(code), _) => format!("exited with status {code} (std::process::exit)"),
        (_, Some(6)) => "aborted (SIGABRT)".into(),
        (_, Some(9)) => "was killed (SIGKILL)".into(),
        (_, Some(11)) => "crashed with a segmentation fault (SIGSEGV)".into(),
        (_, Some(24)) => "ran out of CPU time (SIGXCPU)".into(),
        (_, Some(25)) => "wrote more than the file-size limit allows (SIGXFSZ)".into(),
        (_, Some(signal)) => format!("was ended by signal {signal}"),
        (None, None) => "ended".into(),
    }
}

pub(super) fn explain_death(status: &str, stderr: &Printed) -> String {
    // Rust reports a stack overflow on stderr, then aborts; printing the words alone is not enough.
    let overflowed = String::from_utf8_lossy(&stderr.kept).contains("has overflowed its stack");
    if overflowed && status.contains("SIGABRT") {
        format!("overflowed its stack and {status}")
    } else {
        status.to_string()
    }
}

/// What a runner printed on stderr, for the message that it did not start: shown as a
/// terminal shows it, as every message is.
pub(super) fn quote_stderr(said: &StudentText) -> String {
    let said = said.on_terminal();
    if said.trim().is_empty() {
        String::new()
    } else {
        format!("; it printed:\n{}", said.trim_end())
    }
}
