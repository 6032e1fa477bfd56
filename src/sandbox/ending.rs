//! Waiting for processes to end without looking every millisecond: a process's pidfd
//! becomes readable when it ends, so a wait wakes at once then, and not before.

use std::io;
use std::os::fd::{AsFd, FromRawFd, OwnedFd};
use std::time::Duration;

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

/// A process's end, to be waited for.
pub struct Ending(OwnedFd);

impl Ending {
    /// The end of the process `pid`, which must not yet have been reaped.
    #[allow(unsafe_code)]
    pub fn of(pid: u32) -> io::Result<Ending> {
        let pid = nix::libc::pid_t::try_from(pid).map_err(io::Error::other)?;
        // SAFETY: pidfd_open takes a pid and flags, and returns a new descriptor or -1.
        let fd = unsafe { nix::libc::syscall(nix::libc::SYS_pidfd_open, pid, 0) };
        match i32::try_from(fd) {
            // SAFETY: a descriptor just opened, owned by nothing else.
            Ok(fd) if fd >= 0 => Ok(Ending(unsafe { OwnedFd::from_raw_fd(fd) })),
            _ => Err(io::Error::last_os_error()),
        }
    }
}

impl Ending {
    /// Whether the process has ended, without waiting.
    pub fn has_ended(&self) -> bool {
        let mut fds = [PollFd::new(self.0.as_fd(), PollFlags::POLLIN)];
        matches!(poll(&mut fds, PollTimeout::ZERO), Ok(1..))
    }
}

/// A pidfd received from the process that opened it.
impl From<OwnedFd> for Ending {
    fn from(pidfd: OwnedFd) -> Ending {
        Ending(pidfd)
    }
}

impl AsFd for Ending {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.0.as_fd()
    }
}

/// The first of `processes` found ended, waiting at most `patience` (forever if `None`);
/// `None` when none ended within it.
pub fn first_ended(processes: &[&Ending], patience: Option<Duration>) -> io::Result<Option<usize>> {
    let timeout = match patience {
        // Rounded up, so a wait of less than a millisecond still waits.
        Some(patience) => {
            PollTimeout::try_from(patience.as_millis().saturating_add(1).min(i32::MAX as u128))
                .map_err(io::Error::other)?
        }
        None => PollTimeout::NONE,
    };
    let mut fds: Vec<PollFd> = processes
        .iter()
        .map(|process| PollFd::new(process.0.as_fd(), PollFlags::POLLIN))
        .collect();
    loop {
        match poll(&mut fds, timeout) {
            Ok(0) => return Ok(None),
            Ok(_) => {
                return Ok(fds
                    .iter()
                    .position(|fd| fd.revents().is_some_and(|events| !events.is_empty())));
            }
            Err(nix::errno::Errno::EINTR) => continue,
            Err(error) => return Err(error.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_ends_when_the_process_does_and_not_before() {
        let mut sleeper = std::process::Command::new("sleep")
            .arg("0.3")
            .spawn()
            .unwrap();
        let ending = Ending::of(sleeper.id()).unwrap();
        let started = std::time::Instant::now();
        assert_eq!(
            first_ended(&[&ending], Some(Duration::from_millis(20))).unwrap(),
            None
        );
        assert!(started.elapsed() >= Duration::from_millis(20));
        assert_eq!(first_ended(&[&ending], None).unwrap(), Some(0));
        assert!(
            sleeper.try_wait().unwrap().is_some(),
            "ended when the wait said so"
        );
    }
}
