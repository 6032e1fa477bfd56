//! A process of the grader's that starts sandboxes by forking, for a program started many
//! times over, as a student's tests are (once per test and implementation): each start
//! then costs a fork of this small single-threaded process, not an exec of the grader,
//! whose loading and relocation were the largest part of such a short run.
//!
//! The grader sends each start over a link: the jail, the program's stdin, stdout and
//! stderr, and a socket for the reply. The forker forks stage 1 of the sandbox
//! ([`super::contain`]) as a process group of its own, replies with the stage's pidfd, and
//! once it has reaped the stage, with its wait status. Stage 1 watches the forker as it
//! watches the grader otherwise, and the forker ends when the grader's end of the link
//! closes, as it does when the grader is killed: nothing contained outlives the grader.

use std::io::{self, IoSlice, Read};
use std::os::fd::{AsFd, AsRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::socket::{
    AddressFamily, ControlMessage, MsgFlags, SockFlag, SockType, sendmsg, socketpair,
};
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::{Pid, setpgid};

use super::cgroup::Cgroup;
use super::contain::{fail, outside};
use super::ending::Ending;
use super::jail::{CONTAIN_COMMAND, Jail, SETUP_FAILED};
use super::kill::kill_stages;
use super::machine::Sandbox;
use crate::descriptors;

/// The stage name under [`CONTAIN_COMMAND`] that runs the forker.
pub const FORKER: &str = "forker";

/// The most a jail may take, as JSON, in one start.
const JAIL_BYTES: usize = 1 << 20;

/// The descriptors a start carries: the program's stdin, stdout, stderr, and the reply.
const START_FDS: usize = 4;

/// How long the grader waits for the forker's reply: a start is answered at once, and a
/// stage's wait status as soon as its pidfd says it ended.
const STATUS_PATIENCE: Duration = Duration::from_secs(5);

/// The grader's side of a running forker; it ends when this is dropped.
pub struct Forker {
    link: OwnedFd,
    process: Child,
}

/// A program started by a forker, in its sandbox.
pub struct Contained {
    pid: u32,
    ending: Ending,
    reply: UnixStream,
}

impl Forker {
    /// Starts a forker of `sandbox`'s grader.
    pub fn start(sandbox: &Sandbox) -> io::Result<Forker> {
        let (link, forkers) = seqpacket_pair()?;
        let process = Command::new(&sandbox.grader)
            .arg(CONTAIN_COMMAND)
            .arg(FORKER)
            .env_clear()
            .stdin(Stdio::from(forkers))
            .stdout(Stdio::null())
            .spawn()?;
        Ok(Forker { link, process })
    }

    /// Starts `jail`'s program contained, as [`Sandbox::command`] would, with `stdio` as
    /// its stdin, stdout and stderr, and the cgroup holding its tree.
    pub fn spawn(
        &self,
        sandbox: &Sandbox,
        jail: Jail,
        stdio: [OwnedFd; 3],
    ) -> io::Result<(Contained, Option<Cgroup>)> {
        let (jail, cgroup) = sandbox.prepare(jail)?;
        let text = serde_json::to_vec(&jail).map_err(io::Error::other)?;
        let (reply, forkers_reply) = seqpacket_pair()?;
        let fds: Vec<RawFd> = stdio
            .iter()
            .chain([&forkers_reply])
            .map(|fd| fd.as_raw_fd())
            .collect();
        sendmsg::<()>(
            self.link.as_raw_fd(),
            &[IoSlice::new(&text)],
            &[ControlMessage::ScmRights(&fds)],
            MsgFlags::empty(),
            None,
        )?;
        // Held by the forker and the program now: the program's ends are theirs alone.
        drop((stdio, forkers_reply));
        let gone = || io::Error::other("the sandbox's forker started nothing");
        let reply = UnixStream::from(reply);
        reply.set_read_timeout(Some(STATUS_PATIENCE))?;
        let (pid, fds) = received(&reply, &mut [0u8; 4])?.ok_or_else(gone)?;
        let pid = u32::from_ne_bytes(pid.try_into().map_err(|_| gone())?);
        let pidfd = fds.into_iter().next().ok_or_else(gone)?;
        let contained = Contained {
            pid,
            ending: Ending::from(pidfd),
            reply,
        };
        Ok((contained, cgroup))
    }
}

impl Drop for Forker {
    fn drop(&mut self) {
        let _ = nix::sys::socket::shutdown(self.link.as_raw_fd(), nix::sys::socket::Shutdown::Both);
        let _ = self.process.wait();
    }
}

impl Contained {
    /// Stage 1's pid, the leader of the sandbox's process group.
    pub fn id(&self) -> u32 {
        self.pid
    }

    /// Its end, to be waited for.
    pub fn ending(&self) -> &Ending {
        &self.ending
    }

    /// How it ended, after killing it with everything it started if it still runs.
    pub fn end(self) -> io::Result<ExitStatus> {
        if let Ok(pid) = i32::try_from(self.pid) {
            kill_stages(pid, || self.ending.has_ended());
        }
        let mut status = [0u8; 4];
        (&self.reply).read_exact(&mut status)?;
        Ok(ExitStatus::from_raw(i32::from_ne_bytes(status)))
    }
}

fn seqpacket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    Ok(socketpair(
        AddressFamily::Unix,
        SockType::SeqPacket,
        None,
        SockFlag::SOCK_CLOEXEC,
    )?)
}

/// One message from `socket`, received into `buffer` (so at most its length), and the
/// descriptors it carries; `None` at the end of the link. A message cut short is refused,
/// its descriptors closed.
fn received(socket: &impl AsFd, buffer: &mut [u8]) -> io::Result<Option<(Vec<u8>, Vec<OwnedFd>)>> {
    let mut space = nix::cmsg_space!([RawFd; START_FDS]);
    let received = descriptors::receive(socket, buffer, &mut space)?;
    if received.cut {
        return Err(io::Error::other("a message to the forker was cut short"));
    }
    if received.bytes == 0 && received.fds.is_empty() {
        return Ok(None);
    }
    Ok(Some((buffer[..received.bytes].to_vec(), received.fds)))
}

/// A stage 1 the forker started and has not yet reaped.
struct Started {
    pid: Pid,
    ending: Ending,
    reply: OwnedFd,
}

/// The forker itself: starts what the link asks, reaps what it started, and ends with the
/// link. Never returns.
pub(super) fn serve() -> ! {
    let link = match std::io::stdin().as_fd().try_clone_to_owned() {
        Ok(link) => link,
        Err(error) => fail(&format!("the forker has no link: {error}")),
    };
    let mut started: Vec<Started> = Vec::new();
    // One buffer for every start: a megabyte zeroed for each one cost a grading of a
    // student's tests about 8% of its CPU (perf), more than the network namespace.
    let mut buffer = vec![0u8; JAIL_BYTES];
    loop {
        let (link_ready, ended) = {
            let mut fds: Vec<PollFd> = std::iter::once(link.as_fd())
                .chain(started.iter().map(|stage| stage.ending.as_fd()))
                .map(|fd| PollFd::new(fd, PollFlags::POLLIN))
                .collect();
            match poll(&mut fds, PollTimeout::NONE) {
                Err(nix::errno::Errno::EINTR) => continue,
                Err(error) => fail(&format!("the forker cannot wait: {error}")),
                Ok(_) => {}
            }
            let ready: Vec<bool> = fds
                .iter()
                .map(|fd| fd.revents().is_some_and(|events| !events.is_empty()))
                .collect();
            (ready[0], ready[1..].to_vec())
        };
        let mut at = 0;
        started.retain(|stage| {
            at += 1;
            if !ended[at - 1] {
                return true;
            }
            reap(stage);
            false
        });
        if link_ready {
            match received(&link, &mut buffer) {
                Ok(Some((jail, fds))) => started.extend(start(&jail, fds)),
                // The grader is gone: every stage 1 sees this process end, and ends its own.
                Ok(None) | Err(_) => std::process::exit(0),
            }
        }
    }
}

/// Sends the wait status of `stage`, which has ended, to whoever asked for it.
fn reap(stage: &Started) {
    let raw = match waitpid(stage.pid, None) {
        Ok(WaitStatus::Exited(_, code)) => (code & 0xff) << 8,
        Ok(WaitStatus::Signaled(_, signal, core)) => signal as i32 | if core { 0x80 } else { 0 },
        _ => (SETUP_FAILED & 0xff) << 8,
    };
    let _ = nix::unistd::write(&stage.reply, &raw.to_ne_bytes());
}

/// Forks stage 1 of `jail` (JSON) with `fds` as the start carried them; None, and every
/// descriptor closed, when the start is malformed, which its reply's closing tells.
#[allow(unsafe_code)]
fn start(jail: &[u8], fds: Vec<OwnedFd>) -> Option<Started> {
    let mut jail: Jail = serde_json::from_slice(jail).ok()?;
    let [stdin, stdout, stderr, reply]: [OwnedFd; START_FDS] = fds.try_into().ok()?;
    // Stage 1 watches this process, its parent, as the grader's stand-in.
    jail.grader = std::process::id();
    // SAFETY: the forker runs on its process's only thread, so the child may run any code.
    match unsafe { nix::unistd::fork() }.ok()? {
        nix::unistd::ForkResult::Child => {
            let redirected = nix::unistd::dup2_stdin(&stdin)
                .and_then(|_| nix::unistd::dup2_stdout(&stdout))
                .and_then(|_| nix::unistd::dup2_stderr(&stderr))
                .and_then(|_| setpgid(Pid::from_raw(0), Pid::from_raw(0)));
            if let Err(error) = redirected {
                fail(&format!("cannot hand the program its stdio: {error}"));
            }
            outside(&jail)
        }
        nix::unistd::ForkResult::Parent { child } => {
            let Ok(ending) = Ending::of(child.as_raw() as u32) else {
                let _ = nix::sys::signal::kill(child, nix::sys::signal::Signal::SIGKILL);
                let _ = waitpid(child, None);
                return None;
            };
            let pid = (child.as_raw() as u32).to_ne_bytes();
            let told = sendmsg::<()>(
                reply.as_raw_fd(),
                &[IoSlice::new(&pid)],
                &[ControlMessage::ScmRights(&[ending.as_fd().as_raw_fd()])],
                MsgFlags::empty(),
                None,
            );
            if told.is_err() {
                // Nobody waits for this program: it goes, and is reaped like any other.
                let _ = nix::sys::signal::kill(child, nix::sys::signal::Signal::SIGKILL);
            }
            Some(Started {
                pid: child,
                ending,
                reply,
            })
        }
    }
}
