//! The grader's side of the runner: start it in its own process group, ask, time out,
//! kill, and say what happened when it dies.

use std::io::{self, BufReader, BufWriter, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use grader_api::protocol::{self, Answer, Hello, Item, Request};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use crate::capture::{Capture, Printed};

/// How long a runner may take to start and say hello.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// How long to wait for the student's output to catch up with an answer.
const OUTPUT_PATIENCE: Duration = Duration::from_millis(500);

/// A live runner process.
pub struct Runner {
    child: Child,
    answers: BufReader<DeadlineStream>,
    requests: BufWriter<UnixStream>,
    stdout: Capture,
    stderr: Capture,
    sequence: u64,
    hello: Hello,
    _socket_dir: SocketDir,
}

/// How a request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// Every answer arrived.
    Answered,
    /// No complete response within the timeout; the runner was killed.
    TimedOut(Duration),
    /// The runner process ended while answering.
    Died(String),
    /// The runner said something that is not the protocol; it was killed.
    Garbled(String),
    /// The grader stopped listening (it had seen enough); the runner was killed.
    Abandoned,
}

/// What one request produced.
#[derive(Debug)]
pub struct Exchange {
    pub ending: Ending,
    /// Answers received before the ending, complete or not.
    pub answered: u64,
    pub stdout: Printed,
    pub stderr: Printed,
}

impl Exchange {
    /// Whether the runner can take another request.
    pub fn runner_survived(&self) -> bool {
        self.ending == Ending::Answered
    }
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
    /// Starts the runner at `executable` and reads its hello.
    pub fn start(
        executable: &Path,
        source_root: &Path,
        cpu_seconds: u64,
    ) -> Result<Runner, StartError> {
        let spawn_error = |reason: String| StartError::Spawn {
            path: executable.to_path_buf(),
            reason,
        };
        let socket_dir = SocketDir::create().map_err(|e| spawn_error(e.to_string()))?;
        let listener =
            UnixListener::bind(socket_dir.socket()).map_err(|e| spawn_error(e.to_string()))?;
        let mut child = Command::new(executable)
            // Student code sees no grader environment: no paths, tokens or specs.
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env(protocol::SOCKET_ENV, socket_dir.socket())
            .env(protocol::CPU_LIMIT_ENV, cpu_seconds.to_string())
            .env(protocol::SOURCE_ROOT_ENV, source_root)
            .current_dir(&socket_dir.path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| spawn_error(e.to_string()))?;
        let stdout = Capture::start(child.stdout.take().expect("stdout was piped"));
        let mut stderr = Capture::start(child.stderr.take().expect("stderr was piped"));
        let stream = match accept(&listener, &mut child) {
            Ok(stream) => stream,
            Err(reason) => {
                kill_group(&mut child);
                let said = stderr
                    .take(u64::MAX, Instant::now() + OUTPUT_PATIENCE)
                    .text();
                return Err(StartError::NoHello(format!(
                    "{reason}{}",
                    quote_stderr(&said)
                )));
            }
        };
        let requests = BufWriter::new(stream.try_clone().map_err(|e| spawn_error(e.to_string()))?);
        let mut answers = BufReader::with_capacity(
            1 << 16,
            DeadlineStream {
                stream,
                deadline: Instant::now() + START_TIMEOUT,
            },
        );
        let hello = match Hello::read(&mut answers) {
            Ok(hello) => hello,
            Err(error) => {
                kill_group(&mut child);
                return Err(StartError::NoHello(format!("it said no hello ({error})")));
            }
        };
        Ok(Runner {
            child,
            answers,
            requests,
            stdout,
            stderr,
            sequence: 0,
            hello,
            _socket_dir: socket_dir,
        })
    }

    pub fn hello(&self) -> &Hello {
        &self.hello
    }

    /// Whether this runner has answered requests before (it may carry their leftovers).
    pub fn has_answered(&self) -> bool {
        self.sequence > 0
    }

    /// Sends `request` and passes each answer to `on_answer` until the response ends, the
    /// timeout passes or the runner dies.
    pub fn ask(
        &mut self,
        request: &Request,
        timeout: Duration,
        mut on_answer: impl FnMut(Answer) -> bool,
    ) -> Exchange {
        let sequence = self.sequence;
        self.sequence += 1;
        self.answers.get_mut().deadline = Instant::now() + timeout;
        let mut answered = 0u64;
        let sent = request
            .write(&mut self.requests)
            .and_then(|()| self.requests.flush());
        let ending = match sent {
            Err(error) => self.ending_after(error),
            Ok(()) => loop {
                match Item::read(&mut self.answers) {
                    Ok(Item::Answer(answer)) => {
                        answered += 1;
                        if !on_answer(answer) {
                            kill_group(&mut self.child);
                            break Ending::Abandoned;
                        }
                    }
                    Ok(Item::End(ended)) if ended == sequence => break Ending::Answered,
                    Ok(Item::End(_)) => {
                        kill_group(&mut self.child);
                        break Ending::Garbled("an end mark out of step with the requests".into());
                    }
                    Err(error) if is_timeout(&error) => {
                        kill_group(&mut self.child);
                        break Ending::TimedOut(timeout);
                    }
                    Err(error) => break self.ending_after(error),
                }
            },
        };
        // One deadline for both streams: a process that escaped the kill may hold them open.
        let deadline = Instant::now() + OUTPUT_PATIENCE;
        let stdout = self.stdout.take(sequence, deadline);
        let stderr = self.stderr.take(sequence, deadline);
        let ending = match ending {
            Ending::Died(status) => Ending::Died(explain_death(&status, &stderr)),
            other => other,
        };
        Exchange {
            ending,
            answered,
            stdout,
            stderr,
        }
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
            kill_group(&mut self.child);
            return Ending::Garbled(error.to_string());
        }
        // The process may still be on its way out; give it a moment before killing.
        let deadline = Instant::now() + Duration::from_secs(2);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => break None,
            }
        };
        kill_group(&mut self.child);
        Ending::Died(match status {
            Some(status) => describe_status(status),
            None => "closed its connection to the grader".to_string(),
        })
    }
}

impl Drop for Runner {
    fn drop(&mut self) {
        // Closing our end tells a healthy runner to exit; the kill takes whatever it left behind.
        let _ = self.requests.get_ref().shutdown(std::net::Shutdown::Both);
        kill_group(&mut self.child);
    }
}

/// Kills the runner's process group and reaps the runner. A runner already reaped is left
/// alone: its process-group number may since belong to another process.
fn kill_group(child: &mut Child) {
    if !matches!(child.try_wait(), Ok(None)) {
        return;
    }
    if let Ok(pid) = i32::try_from(child.id()) {
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn accept(listener: &UnixListener, child: &mut Child) -> Result<UnixStream, String> {
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false).map_err(|e| e.to_string())?;
                return Ok(stream);
            }
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => {}
            Err(error) => return Err(error.to_string()),
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("it {} before connecting", describe_status(status)));
        }
        if Instant::now() > deadline {
            return Err(format!(
                "it did not connect within {}s",
                START_TIMEOUT.as_secs()
            ));
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn describe_status(status: std::process::ExitStatus) -> String {
    match (status.code(), status.signal()) {
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

fn explain_death(status: &str, stderr: &Printed) -> String {
    // Rust reports a stack overflow on stderr, then aborts; printing the words alone is not enough.
    let overflowed = String::from_utf8_lossy(&stderr.kept).contains("has overflowed its stack");
    if overflowed && status.contains("SIGABRT") {
        format!("overflowed its stack and {status}")
    } else {
        status.to_string()
    }
}

fn quote_stderr(said: &str) -> String {
    if said.trim().is_empty() {
        String::new()
    } else {
        format!("; it printed:\n{}", said.trim_end())
    }
}

fn is_timeout(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// A socket whose reads give up at a deadline, however the buffered reader splits them.
struct DeadlineStream {
    stream: UnixStream,
    deadline: Instant,
}

impl Read for DeadlineStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::from(io::ErrorKind::TimedOut));
        }
        self.stream.set_read_timeout(Some(left))?;
        self.stream.read(buf)
    }
}

/// A private folder for the socket, removed when the runner goes.
struct SocketDir {
    path: PathBuf,
}

impl SocketDir {
    fn create() -> io::Result<SocketDir> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let path = std::env::temp_dir().join(format!(
            "cardgrade-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path)?;
        Ok(SocketDir { path })
    }

    fn socket(&self) -> PathBuf {
        self.path.join("runner.sock")
    }
}

impl Drop for SocketDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
