//! One run of the launcher's executable as a program, not a runner: given arguments, its
//! output read with caps, stopped at a time limit or a flood, in the runner's sandbox and
//! limits. Students' test harnesses run this way.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;

use nix::fcntl::OFlag;
use nix::unistd::pipe2;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::Launcher;
use super::ending::{FLOOD_BYTES, describe_status};
use super::home::RunnerHome;
use crate::sandbox::ending::first_ended;
use crate::sandbox::{self, Recorded};

/// The most of each stream kept; the rest is read, counted and dropped.
const KEPT_BYTES: usize = 1 << 20;

/// How long a run is left between looks at how much it has printed.
const FLOOD_LOOKS: Duration = Duration::from_millis(10);

/// How one run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ending {
    Exited {
        success: bool,
        how: String,
    },
    /// Still running at the time limit, and killed.
    TimedOut(Duration),
    /// Printed more than [`FLOOD_BYTES`], and killed.
    Flooded,
}

/// What one run printed and how it ended.
pub(crate) struct Ran {
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) ending: Ending,
    /// What it left running or the limits it hit, in words.
    pub(crate) notes: Vec<String>,
}

/// A program started beside a run, answering it over the run's stdin, killed when dropped.
pub(crate) struct Partner {
    child: std::process::Child,
    cgroup: Option<crate::sandbox::cgroup::Cgroup>,
    _home: RunnerHome,
}

impl Drop for Partner {
    fn drop(&mut self) {
        sandbox::kill_tree(&mut self.child);
        if let Some(cgroup) = &self.cgroup {
            cgroup.kill_all();
        }
    }
}

impl Launcher {
    /// Runs the executable with `args` until it ends or `timeout` passes.
    pub(crate) fn run_once(&self, args: &[String], timeout: Duration) -> io::Result<Ran> {
        self.run_with_stdin(args, timeout, None)
    }

    /// Starts the executable with `args`, its stdin `linked`: it answers whoever holds the
    /// other end, printing nothing anyone reads, until it is dropped.
    pub(crate) fn start_partner(&self, args: &[String], linked: OwnedFd) -> io::Result<Partner> {
        let home = self.home()?;
        let mut jail = self.jail(&home);
        jail.args = args.to_vec();
        let (mut command, cgroup) = self.sandbox.command(jail)?;
        let child = command
            .stdin(linked)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()?;
        Ok(Partner {
            child,
            cgroup,
            _home: home,
        })
    }

    /// Runs the executable with `args` and `stdin` (else nothing) until it ends or `timeout`
    /// passes. Started by the launcher's forker: a run is short, and may be one of many.
    pub(crate) fn run_with_stdin(
        &self,
        args: &[String],
        timeout: Duration,
        stdin: Option<OwnedFd>,
    ) -> io::Result<Ran> {
        let home = self.home()?;
        let mut jail = self.jail(&home);
        jail.args = args.to_vec();
        let stdin = match stdin {
            Some(stdin) => stdin,
            None => std::fs::File::open("/dev/null")?.into(),
        };
        // Close-on-exec, so that no other process the grader starts meanwhile holds a
        // write end and keeps the reads below from ending.
        let (stdout_read, stdout_write) = pipe2(OFlag::O_CLOEXEC)?;
        let (stderr_read, stderr_write) = pipe2(OFlag::O_CLOEXEC)?;
        let (contained, cgroup) =
            self.forker()?
                .spawn(&self.sandbox, jail, [stdin, stdout_write, stderr_write])?;
        let printed = Arc::new(AtomicU64::new(0));
        let stdout = read_kept(Some(File::from(stdout_read)), Arc::clone(&printed));
        let stderr = read_kept(Some(File::from(stderr_read)), Arc::clone(&printed));
        let deadline = crate::deadline::after(timeout);
        let stopped = loop {
            if contained.ending().has_ended() {
                break None;
            }
            if Instant::now() >= deadline {
                break Some(Ending::TimedOut(timeout));
            }
            if printed.load(Ordering::Relaxed) > FLOOD_BYTES {
                break Some(Ending::Flooded);
            }
            // Woken at once by its end; a flood is looked for between waits.
            let patience = deadline
                .saturating_duration_since(Instant::now())
                .min(FLOOD_LOOKS);
            first_ended(&[contained.ending()], Some(patience))?;
        };
        let status = contained.end()?;
        let ending = stopped.unwrap_or_else(|| exited(status));
        let mut notes = Vec::new();
        if let Some(recorded) = Recorded::read(&home.status_file())
            && recorded.left > 0
        {
            notes.push(format!(
                "it left {} process{} running, which the sandbox killed",
                recorded.left,
                if recorded.left == 1 { "" } else { "es" }
            ));
        }
        if let Some(cgroup) = &cgroup {
            if cgroup.hit_task_limit() {
                notes.push("it started more processes or threads than the limit allows".into());
            }
            if cgroup.ran_out_of_memory() {
                notes.push("it ran out of memory and was killed".into());
            }
            cgroup.kill_all();
        }
        let patience = Duration::from_secs(2);
        Ok(Ran {
            stdout: stdout.recv_timeout(patience).unwrap_or_default(),
            stderr: stderr.recv_timeout(patience).unwrap_or_default(),
            ending,
            notes,
        })
    }
}

fn exited(status: ExitStatus) -> Ending {
    Ending::Exited {
        success: status.success(),
        how: describe_status(status),
    }
}

/// Reads `stream` to its end on a thread of its own, counting every byte in `printed` and
/// keeping the first [`KEPT_BYTES`].
fn read_kept(
    stream: Option<impl Read + Send + 'static>,
    printed: Arc<AtomicU64>,
) -> std::sync::mpsc::Receiver<String> {
    let (sender, kept) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = Vec::new();
        if let Some(mut stream) = stream {
            let mut chunk = vec![0; 1 << 16];
            while let Ok(read) = stream.read(&mut chunk) {
                if read == 0 {
                    break;
                }
                printed.fetch_add(read as u64, Ordering::Relaxed);
                let room = KEPT_BYTES.saturating_sub(text.len()).min(read);
                text.extend_from_slice(&chunk[..room]);
            }
        }
        let _ = sender.send(String::from_utf8_lossy(&text).into_owned());
    });
    kept
}
