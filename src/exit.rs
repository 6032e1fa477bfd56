//! The exit codes the grader documents (`grader --help`, README), and the reasons a
//! command stops before it has anything to grade.

use std::process::ExitCode;

use colored::Colorize;

pub const PASSED: u8 = 0;
pub const FAILED: u8 = 1;
pub const USAGE: u8 = 2;
pub const BUILD: u8 = 3;
/// The filters select no test, as cargo-nextest's code for "no tests run".
pub const NO_TESTS: u8 = 4;

/// Why a command stopped before grading; each says its own message and exit code.
#[derive(Debug, thiserror::Error)]
pub enum Stop {
    /// A bad flag or path, a sandbox refused in strict mode, results that cannot be written.
    #[error("{0}")]
    Usage(String),
    /// A spec that does not load, or whose written expectation the reference contradicts.
    #[error("{0}")]
    Spec(String),
    /// The filters select no test.
    #[error("{0}")]
    NoTests(String),
    /// The submission built but registers nothing to grade.
    #[error("{0}")]
    NothingRegistered(String),
    /// The path is not a crate; the results file, if asked for, already says so test by test.
    #[error("{0}")]
    NotACrate(String),
}

impl Stop {
    pub fn exit_code(&self) -> u8 {
        match self {
            Stop::Usage(_) | Stop::Spec(_) | Stop::NotACrate(_) => USAGE,
            Stop::NoTests(_) => NO_TESTS,
            Stop::NothingRegistered(_) => BUILD,
        }
    }

    /// Whether the results file was written before the stop, with what the specs hold.
    pub fn results_written(&self) -> bool {
        matches!(self, Stop::NotACrate(_))
    }

    /// Prints the message on stderr and gives the exit code.
    pub fn report(&self) -> ExitCode {
        ExitCode::from(self.exit_code_reported())
    }

    /// Prints the message on stderr and gives the exit code as a number, for a thread
    /// that ends the process itself.
    pub fn exit_code_reported(&self) -> u8 {
        let label = match self {
            Stop::Spec(_) => "spec error:",
            _ => "error:",
        };
        eprintln!("{} {self}", label.red().bold());
        self.exit_code()
    }
}

/// The exit of a command that either did its work or stops for `Err`'s reason: a usage
/// error, said on stderr.
pub fn done_or_usage(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::from(PASSED),
        Err(message) => {
            eprintln!("{} {message}", "error:".red().bold());
            ExitCode::from(USAGE)
        }
    }
}

/// Makes a command that only prints end quietly when its reader goes, as `cat` does when
/// piped into `head`. Only such commands: a grader keeps SIGPIPE ignored, so a runner that
/// died is an error it reports, not the end of the grader.
#[allow(unsafe_code)]
pub fn end_quietly_when_the_reader_goes() {
    use nix::sys::signal::{SigHandler, Signal, signal};
    // SAFETY: the default action takes no handler code, and nothing has started a thread yet.
    let _ = unsafe { signal(Signal::SIGPIPE, SigHandler::SigDfl) };
}
