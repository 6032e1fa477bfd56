//! A GitHub Actions job's log, which the runner reads for workflow commands: in
//! `--format github`, every line the grader prints to stdout or stderr passes through here
//! and comes out inert, whatever student text it quotes (a panic message, a build error,
//! a test's name). Only the grader's own commands, written with [`commands`], reach the log
//! as they are, after everything printed before them. So no student can forge an
//! annotation, mask a secret, or stop the commands that carry the real score.

use std::io::{self, BufRead, BufReader, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crate::student_text::StudentText;

/// The log, once started.
static LOG: OnceLock<Mutex<GithubLog>> = OnceLock::new();

struct GithubLog {
    /// The job's real stdout, where the grader's own commands go.
    log: std::fs::File,
    /// A line no student can know, which tells that a stream's lines so far are in the log.
    marker: String,
    /// Told when stdout's relay, then stderr's, reaches the marker.
    out_drained: Receiver<()>,
    err_drained: Receiver<()>,
}

/// Sends this process's stdout and stderr through the rendering for a GitHub log, from now
/// to its end. Once only; a second call changes nothing.
pub fn start() -> io::Result<()> {
    if LOG.get().is_some() {
        return Ok(());
    }
    let log = std::fs::File::from(io::stdout().as_fd().try_clone_to_owned()?);
    let errors = std::fs::File::from(io::stderr().as_fd().try_clone_to_owned()?);
    let marker = format!("cardgrade-log-{:016x}", {
        use std::hash::BuildHasher;
        std::collections::hash_map::RandomState::new().hash_one(std::process::id())
    });
    let (out_told, out_drained) = channel();
    let (err_told, err_drained) = channel();
    let (out_reader, out_writer) = io::pipe()?;
    let (err_reader, err_writer) = io::pipe()?;
    relay(out_reader, log.try_clone()?, marker.clone(), out_told);
    relay(err_reader, errors, marker.clone(), err_told);
    nix::unistd::dup2_stdout(OwnedFd::from(out_writer)).map_err(io::Error::from)?;
    nix::unistd::dup2_stderr(OwnedFd::from(err_writer)).map_err(io::Error::from)?;
    let _ = LOG.set(Mutex::new(GithubLog {
        log,
        marker,
        out_drained,
        err_drained,
    }));
    Ok(())
}

/// Copies `from` to `to` line by line, each made inert; on `marker`'s line, tells `drained`
/// instead.
fn relay(from: io::PipeReader, mut to: std::fs::File, marker: String, drained: Sender<()>) {
    std::thread::spawn(move || {
        let mut lines = BufReader::new(from);
        let mut line = Vec::new();
        while lines
            .read_until(b'\n', &mut line)
            .is_ok_and(|read| read > 0)
        {
            let text = String::from_utf8_lossy(&line);
            if text.trim_end() == marker {
                let _ = drained.send(());
            } else {
                // Any line the grader prints may quote the submission.
                let line = StudentText::from(text.into_owned());
                let _ = to.write_all(line.in_github_log().as_bytes());
            }
            line.clear();
        }
    });
}

/// Writes `text`, the grader's own workflow commands, to the log as they are, after every
/// line printed to stdout before them; printed as any text where the log was not started.
pub fn commands(text: &str) -> io::Result<()> {
    let Some(log) = LOG.get() else {
        print!("{text}");
        return io::stdout().flush();
    };
    let mut log = log.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    println!("{}", log.marker);
    io::stdout().flush()?;
    // A relay that died has nothing left to print before these.
    let _ = log.out_drained.recv_timeout(RELAY_PATIENCE);
    log.log.write_all(text.as_bytes())?;
    log.log.flush()
}

/// How long a relay may take to pass on what was printed before a marker.
const RELAY_PATIENCE: Duration = Duration::from_secs(10);

/// Waits until the lines printed so far, to stdout and stderr, are in the log: before the
/// process exits, which would end the relays with them.
pub fn finish() {
    let Some(log) = LOG.get() else {
        return;
    };
    let log = log.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    println!("{}", log.marker);
    eprintln!("{}", log.marker);
    let _ = io::stdout().flush();
    let _ = log.out_drained.recv_timeout(RELAY_PATIENCE);
    let _ = log.err_drained.recv_timeout(RELAY_PATIENCE);
}
