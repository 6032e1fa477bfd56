//! The grader's side of the runner: start it in the sandbox, ask, time out, kill, and say
//! what happened when it dies or leaves something running.
//!
//! A runner's life from start to kill (the launcher, the handle, `ask` with its watch) is
//! one story here; how a request ended and its words are `ending.rs`'s, and its channel,
//! watch, home and pool are apart.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::os::unix::fs::{FileExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use grader_api::protocol::{self, Hello};
use grader_api::source::Window;

use crate::capture::Capture;
use crate::deadline;
use crate::sandbox::cgroup::{Cgroup, Population};
use crate::sandbox::{self, Forker, Jail, Limits, Sandbox};

mod channel;
mod ending;
mod home;
pub(crate) mod once;
// The pool takes runners from the launcher here: named by its path, not re-exported, so
// that this file sits beneath it, as beneath `once`.
pub(crate) mod pool;
mod replies;
mod watch;

use channel::{DeadlineStream, progress_with_first_byte};
pub use ending::{Ending, Exchange, FLOOD_BYTES};
use ending::{describe_status, end_of, explain_death, quote_stderr};
use home::{HomeTmp, RunnerHome, Scratch};
use watch::{Seen, Watch};

use replies::{Passed, Stop};
pub use replies::{Replies, Taken, pass_arrived};

/// How long a runner may take to start and say hello.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// How long to wait for the student's output to catch up with an answer.
const OUTPUT_PATIENCE: Duration = Duration::from_millis(500);
/// How long a thread or process may take to end after its test has answered.
const LEFTOVER_PATIENCE: Duration = Duration::from_millis(50);

/// How often a runner that has sent nothing is looked at, for a stall or a flood.
const LOOK_EVERY: Duration = Duration::from_millis(50);

/// What one runner and everything it starts may use.
pub const RUNNER_LIMITS: Limits = Limits {
    cpu_seconds: Some(600),
    address_space: Some(4 << 30),
    file_size: Some(64 << 20),
    open_files: Some(256),
    processes: Some(256),
    tree_memory: 1 << 30,
    tree_tasks: 64,
};

/// The most a runner and everything it starts may write in its temp folder, its only
/// writable folder; held in memory, so counted in its memory too.
const TMP_BYTES: u64 = 256 << 20;

/// Starts runners of one submission: its executable copied where only the grader writes,
/// a uid of its own, a private temp folder per runner.
pub struct Launcher {
    sandbox: Sandbox,
    scratch: Scratch,
    executable: PathBuf,
    uid: u32,
    next: AtomicU64,
    /// Where each run sees its temp folder, the same for every run, where the sandbox has a
    /// mount namespace to put it there; else each run's own folder on disk.
    tmp_seen_at: Option<PathBuf>,
    /// Starts the executable's short runs, once the first is asked for.
    forker: OnceLock<Result<Forker, String>>,
}

impl Launcher {
    /// Copies `built`, the runner as the build left it and the grader checked it, from its
    /// start.
    pub fn new(sandbox: Sandbox, built: &File) -> io::Result<Launcher> {
        let scratch = Scratch::create()?;
        let executable = scratch.path().join("runner");
        let mut copy = File::create_new(&executable)?;
        let mut from = built;
        io::Seek::seek(&mut from, io::SeekFrom::Start(0))?;
        io::copy(&mut from, &mut copy)?;
        drop(copy);
        std::fs::set_permissions(&executable, std::fs::Permissions::from_mode(0o755))?;
        Ok(Launcher {
            uid: scratch.uid(),
            sandbox,
            scratch,
            executable,
            next: AtomicU64::new(0),
            tmp_seen_at: None,
            forker: OnceLock::new(),
        })
    }

    /// This launcher with every run's temp folder seen at `path`, a path no other folder of
    /// the jail lies in, where the sandbox can mount it there: runs then differ in nothing
    /// that the path of their folder could tell.
    pub fn with_tmp_seen_at(self, path: impl Into<PathBuf>) -> Launcher {
        Launcher {
            tmp_seen_at: Some(path.into()),
            ..self
        }
    }

    /// The forker of this launcher's runs, started at the first.
    fn forker(&self) -> io::Result<&Forker> {
        self.forker
            .get_or_init(|| Forker::start(&self.sandbox).map_err(|error| error.to_string()))
            .as_ref()
            .map_err(|error| {
                io::Error::other(format!("cannot start the sandbox's forker: {error}"))
            })
    }

    /// Starts a runner and reads its hello.
    pub fn start(&self) -> Result<Runner, StartError> {
        let spawn_error = |error: io::Error| StartError::Spawn {
            path: self.executable.clone(),
            reason: error.to_string(),
        };
        let home = self.home().map_err(spawn_error)?;
        let (ours, theirs) = UnixStream::pair().map_err(spawn_error)?;
        let mut jail = self.jail(&home);
        jail.env
            .push((protocol::CHANNEL_ENV.into(), "stdin".into()));
        let (mut command, cgroup) = self.sandbox.command(jail).map_err(spawn_error)?;
        let mut child = command
            .stdin(std::os::fd::OwnedFd::from(theirs))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(spawn_error)?;
        // The command holds the runner's end of the channel: while it does, a runner that
        // dies before its hello would look silent, not gone.
        drop(command);
        let stdout = Capture::start(child.stdout.take().expect("stdout was piped"));
        let mut stderr = Capture::start(child.stderr.take().expect("stderr was piped"));
        let requests = BufWriter::new(ours.try_clone().map_err(spawn_error)?);
        let deadline = Instant::now() + START_TIMEOUT;
        let started = progress_with_first_byte(&ours, deadline);
        let mut answers = BufReader::with_capacity(
            1 << 16,
            DeadlineStream {
                stream: ours,
                deadline,
                look_every: None,
            },
        );
        let hello = started.and_then(|(first_byte, progress)| {
            Hello::read(&mut first_byte.as_slice().chain(&mut answers)).map(|h| (h, progress))
        });
        let (hello, progress) = match hello {
            Ok(hello) => hello,
            Err(error) => {
                // How it ended, if it did, before the kill makes every runner look killed.
                let status = wait_briefly(&mut child);
                sandbox::kill_tree(&mut child);
                let said = stderr
                    .take(u64::MAX, Instant::now() + OUTPUT_PATIENCE)
                    .text();
                let reason = match status {
                    Some(status) if !status.success() => {
                        format!("it {} before saying hello", describe_status(status))
                    }
                    _ => format!("it said no hello ({error})"),
                };
                return Err(StartError::NoHello(format!(
                    "{reason}{}",
                    quote_stderr(&said)
                )));
            }
        };
        let baseline = cgroup.as_ref().map(Cgroup::population).unwrap_or_default();
        Ok(Runner {
            child,
            answers,
            requests,
            stdout,
            stderr,
            sequence: 0,
            held: Vec::new(),
            replies_read: 0,
            hello,
            progress,
            cgroup,
            baseline,
            limits_hit: LimitsHit::default(),
            home,
        })
    }
}

impl Launcher {
    /// A home for the next run.
    fn home(&self) -> io::Result<RunnerHome> {
        let layers = self.sandbox.layers();
        let tmp = match layers.mount_namespace {
            true => HomeTmp::Mounted,
            false => HomeTmp::Folder {
                owner: layers.root.then_some(self.uid),
            },
        };
        RunnerHome::create(
            self.scratch.path(),
            self.next.fetch_add(1, Ordering::Relaxed),
            tmp,
        )
    }

    /// The sandbox of one run of the executable, at home in `home`.
    fn jail(&self, home: &RunnerHome) -> Jail {
        let tmp = match &self.tmp_seen_at {
            Some(path) if self.sandbox.layers().mount_namespace => path.clone(),
            _ => home.tmp(),
        };
        let mut jail = Jail::new(&self.executable, self.uid, &tmp, home.status_file());
        jail.root_mount_point = self.scratch.root_mount_point();
        jail.limits = RUNNER_LIMITS;
        jail.write = vec![tmp.clone()];
        jail.scratch = vec![(tmp.clone(), TMP_BYTES)];
        let tmp = tmp.display().to_string();
        // Student code sees no grader environment: no paths, tokens or specs.
        jail.env = vec![
            ("PATH".into(), "/usr/bin:/bin".into()),
            ("HOME".into(), tmp.clone()),
            ("TMPDIR".into(), tmp),
            // The runner's allocator (mimalloc) would reserve 1 GiB of address space at its
            // first allocation, a quarter of the limit: a large allocation would then fail
            // where the memory limit, which says what happened, should judge it.
            ("MIMALLOC_ARENA_RESERVE".into(), "0".into()),
        ];
        jail.read = sandbox::SYSTEM_LIBRARIES
            .iter()
            .map(PathBuf::from)
            .chain([self.executable.clone()])
            .collect();
        jail.grant_devices(self.sandbox.layers());
        jail
    }
}

/// A live runner process.
pub struct Runner {
    child: Child,
    answers: BufReader<DeadlineStream>,
    requests: BufWriter<UnixStream>,
    stdout: Capture,
    stderr: Capture,
    sequence: u64,
    /// An item the runner has sent part of, held until the rest comes.
    held: Vec<u8>,
    /// Reply frames read in all: where there is no progress page, how the runner is seen
    /// to move.
    replies_read: u64,
    hello: Hello,
    /// The runner's count of the inputs it has answered, where it shared one.
    progress: Option<File>,
    cgroup: Option<Cgroup>,
    /// What the runner's group held when it said hello: the sandbox's stages and the runner.
    baseline: Population,
    limits_hit: LimitsHit,
    home: RunnerHome,
}

/// Which of the tree's limits the kernel has enforced so far.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct LimitsHit {
    memory: bool,
    tasks: bool,
}

/// Why a runner could not be started.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot start the runner {path}: {reason}")]
    Spawn { path: PathBuf, reason: String },
    #[error("the runner did not start: {0}")]
    NoHello(String),
}

impl Runner {
    pub fn hello(&self) -> &Hello {
        &self.hello
    }

    /// Whether this runner has answered requests before (it may carry their leftovers).
    pub fn has_answered(&self) -> bool {
        self.sequence > 0
    }

    /// Sends the request in `payload` for `assignment`, to answer the inputs in `window`,
    /// and passes the reply frames to `replies` until the response ends, the timeout
    /// passes, the runner dies, floods its output, or stalls: answers no further input for
    /// as long as `patience` gives for the input it is on (by how many it has answered).
    pub fn ask(
        &mut self,
        assignment: &str,
        payload: &[u8],
        window: Window,
        timeout: Duration,
        patience: &mut dyn FnMut(u64) -> Duration,
        replies: &mut impl Replies,
    ) -> Exchange {
        let sequence = self.sequence;
        self.sequence += 1;
        let deadline = deadline::after(timeout);
        self.answers.get_mut().deadline = deadline;
        self.answers.get_mut().look_every = Some(LOOK_EVERY);
        let sent = protocol::write_request(&mut self.requests, assignment, payload, window)
            .and_then(|()| self.requests.flush());
        let mut watch = Watch::new(self.seen());
        let ending = match sent {
            Err(error) => self.ending_after(error),
            Ok(()) => loop {
                let looked = match self.read_items(sequence, replies) {
                    // A runner may flood its output while its answers keep coming.
                    Ok(None) => watch.flooded(self.printed()),
                    Ok(Some(Ending::Answered)) => break Ending::Answered,
                    Ok(Some(ending)) => Some(ending),
                    Err(error) if is_timeout(&error) && Instant::now() >= deadline => {
                        Some(Ending::TimedOut(timeout))
                    }
                    Err(error) if is_timeout(&error) => watch.look(self.seen(), patience),
                    Err(error) => break self.ending_after(error),
                };
                if let Some(ending) = looked {
                    sandbox::kill_tree(&mut self.child);
                    break ending;
                }
            },
        };
        self.answers.get_mut().look_every = None;
        // One deadline for both streams: a process that escaped the kill may hold them open.
        let deadline = Instant::now() + OUTPUT_PATIENCE;
        let stdout = self.stdout.take(sequence, deadline);
        let stderr = self.stderr.take(sequence, deadline);
        let inputs_done = match ending {
            Ending::TimedOut(_) | Ending::Died(_) | Ending::Flooded(_) => self.inputs_done(),
            Ending::Stalled { inputs_done, .. } => Some(inputs_done),
            _ => None,
        };
        let limits = match ending {
            Ending::Stalled { .. } | Ending::TimedOut(_) | Ending::Flooded(_) => self.limits_note(),
            _ => None,
        };
        let ending = match ending {
            Ending::Died(status) => Ending::Died(explain_death(&status, &stderr)),
            other => other,
        };
        Exchange {
            ending,
            inputs_done,
            stdout,
            stderr,
            limits,
        }
    }

    /// Passes on the whole replies the runner has sent; how the response ended, once it
    /// has.
    fn read_items(
        &mut self,
        sequence: u64,
        replies: &mut impl Replies,
    ) -> io::Result<Option<Ending>> {
        let Passed { taken, stop, .. } = pass_arrived(&mut self.answers, &mut self.held, replies)?;
        self.replies_read += taken;
        Ok(stop.map(|stop| match stop {
            Stop::Refused => Ending::Abandoned,
            Stop::End(ended) => end_of(ended, sequence),
        }))
    }

    /// Bytes the runner has printed on stdout and stderr since it started.
    fn printed(&self) -> u64 {
        self.stdout.bytes_read() + self.stderr.bytes_read()
    }

    /// What its watch sees of it now.
    fn seen(&self) -> Seen {
        Seen {
            marker: (self.inputs_done(), self.replies_read),
            printed: self.printed(),
        }
    }

    /// What the runner's progress page says, now or after it stopped: the page outlives it.
    fn inputs_done(&self) -> Option<u64> {
        let mut count = [0u8; protocol::PROGRESS_BYTES];
        self.progress.as_ref()?.read_exact_at(&mut count, 0).ok()?;
        Some(u64::from_ne_bytes(count))
    }

    /// The runner stopped talking: it died (say how) or spoke garbage (kill it).
    fn ending_after(&mut self, error: io::Error) -> Ending {
        let eof = matches!(
            error.kind(),
            io::ErrorKind::UnexpectedEof
                | io::ErrorKind::BrokenPipe
                | io::ErrorKind::ConnectionReset
        );
        if !eof {
            sandbox::kill_tree(&mut self.child);
            return Ending::Garbled(error.to_string());
        }
        // The process may still be on its way out; give it a moment before killing.
        let status = wait_briefly(&mut self.child);
        sandbox::kill_tree(&mut self.child);
        let mut how = match status {
            Some(status) => describe_status(status),
            None => "closed its connection to the grader".to_string(),
        };
        if let Some(recorded) = sandbox::Recorded::read(&self.home.status_file())
            && recorded.left > 0
        {
            how.push_str(&format!(
                " and left {} running, which the sandbox killed",
                processes_left(recorded.left)
            ));
        }
        Ending::Died(match self.limits_note() {
            Some(note) => format!("{how}; {note}"),
            None => how,
        })
    }

    /// What the kernel's limits on the runner's tree did since the last look, in words.
    fn limits_note(&mut self) -> Option<String> {
        let cgroup = self.cgroup.as_ref()?;
        let now = LimitsHit {
            memory: cgroup.ran_out_of_memory(),
            tasks: cgroup.hit_task_limit(),
        };
        let mut notes = Vec::new();
        if now.memory && !self.limits_hit.memory {
            notes.push(format!(
                "it ran out of memory: the runner and everything it starts may use {} MiB in all, and the kernel killed a process",
                RUNNER_LIMITS.tree_memory >> 20
            ));
        }
        if now.tasks && !self.limits_hit.tasks {
            notes.push(format!(
                "it reached the limit of {} processes and threads, so a fork or thread was refused",
                RUNNER_LIMITS.tree_tasks
            ));
        }
        self.limits_hit = now;
        (!notes.is_empty()).then(|| notes.join("; "))
    }

    /// After a test answered: what it left running or the limits it hit, in words. A runner
    /// with something to say is no longer fit for another test; drop it, which kills all.
    pub fn after_test(&mut self) -> Option<String> {
        let leftovers = self.leftovers();
        let limits = self.limits_note();
        let notes: Vec<String> = leftovers.into_iter().chain(limits).collect();
        (!notes.is_empty()).then(|| notes.join("; "))
    }

    fn leftovers(&self) -> Option<String> {
        let cgroup = self.cgroup.as_ref()?;
        let extra = |now: Population| {
            (
                now.processes.saturating_sub(self.baseline.processes),
                now.threads.saturating_sub(self.baseline.threads),
            )
        };
        let mut left = extra(cgroup.population());
        if left == (0, 0) {
            return None;
        }
        // A thread or child on its way out is not a leftover.
        std::thread::sleep(LEFTOVER_PATIENCE);
        left = extra(cgroup.population());
        match left {
            (0, 0) => None,
            (0, threads) => Some(format!(
                "it left {threads} thread{} running after it answered; the runner was killed",
                plural(threads)
            )),
            (processes, _) => Some(format!(
                "it left {} running after it answered; {} killed",
                processes_left(processes),
                if processes == 1 {
                    "it was"
                } else {
                    "they were"
                }
            )),
        }
    }
}

fn processes_left(count: usize) -> String {
    format!("{count} process{}", if count == 1 { "" } else { "es" })
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

impl Drop for Runner {
    fn drop(&mut self) {
        // Closing our end tells a healthy runner to exit; the kill takes whatever it left behind.
        let _ = self.requests.get_ref().shutdown(std::net::Shutdown::Both);
        sandbox::kill_tree(&mut self.child);
        if let Some(cgroup) = &self.cgroup {
            cgroup.kill_all();
        }
    }
}

/// How the runner ended, if it ends within a moment.
fn wait_briefly(child: &mut Child) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => return None,
        }
    }
}

fn is_timeout(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use nix::sys::memfd::{MFdFlags, memfd_create};
    use nix::sys::socket::{ControlMessage, MsgFlags, sendmsg};
    use std::io::IoSlice;
    use std::os::fd::{AsFd, AsRawFd, RawFd};

    /// What the grader keeps of a hello's first byte sent with `fds`.
    fn received_with(fds: &[&dyn AsFd]) -> (Vec<u8>, Option<File>) {
        let (grader, runner) = UnixStream::pair().unwrap();
        let raw: Vec<RawFd> = fds.iter().map(|fd| fd.as_fd().as_raw_fd()).collect();
        let rights = [ControlMessage::ScmRights(&raw)];
        let cmsgs = if raw.is_empty() { &[][..] } else { &rights[..] };
        sendmsg::<()>(
            runner.as_raw_fd(),
            &[IoSlice::new(b"\x0c")],
            cmsgs,
            MsgFlags::empty(),
            None,
        )
        .unwrap();
        progress_with_first_byte(&grader, Instant::now() + Duration::from_secs(5)).unwrap()
    }

    #[test]
    fn only_a_memory_file_is_kept_as_the_runners_progress() {
        let page = memfd_create(c"progress", MFdFlags::MFD_CLOEXEC).unwrap();
        nix::unistd::ftruncate(&page, 8).unwrap();
        File::from(page.try_clone().unwrap())
            .write_all_at(&41u64.to_ne_bytes(), 0)
            .unwrap();
        let (byte, progress) = received_with(&[&page]);
        assert_eq!(byte, b"\x0c");
        let mut count = [0u8; 8];
        progress.unwrap().read_exact_at(&mut count, 0).unwrap();
        assert_eq!(u64::from_ne_bytes(count), 41);

        // A pipe could be held empty to block the grader's read: refused, as is nothing.
        let (pipe, _writer) = nix::unistd::pipe().unwrap();
        let (byte, progress) = received_with(&[&pipe, &page]);
        assert_eq!((byte.as_slice(), progress.is_none()), (&b"\x0c"[..], true));
        assert!(received_with(&[]).1.is_none());
    }
}
