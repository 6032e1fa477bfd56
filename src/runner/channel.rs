//! The runner's answer channel as the grader reads it: the first byte of its hello with
//! the progress page, then reads that give up at a deadline.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::RawFd;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use nix::fcntl::{FcntlArg, fcntl};

use crate::descriptors;

/// Reads the first byte of the runner's hello by itself, for the progress page that comes
/// with it: kept only if it is a memory file, which no read can block on, unlike a pipe or
/// a device a hostile runner might send instead.
pub(super) fn progress_with_first_byte(
    stream: &UnixStream,
    deadline: Instant,
) -> io::Result<(Vec<u8>, Option<File>)> {
    stream.set_read_timeout(Some(deadline.saturating_duration_since(Instant::now())))?;
    let mut first_byte = [0u8];
    // Room for as many descriptors as one message can carry, so none is cut off unclosed.
    let mut space = nix::cmsg_space!([RawFd; 253]);
    let received = descriptors::receive(stream, &mut first_byte, &mut space)?;
    let progress = received
        .fds
        .into_iter()
        .next()
        .filter(|fd| fcntl(fd, FcntlArg::F_GET_SEALS).is_ok())
        .map(File::from);
    Ok((first_byte[..received.bytes].to_vec(), progress))
}

/// A socket whose reads give up at a deadline, however the buffered reader splits them.
pub(super) struct DeadlineStream {
    pub(super) stream: UnixStream,
    pub(super) deadline: Instant,
    /// While a request is answered: how long a read waits before it gives up, so that the
    /// runner can be looked at in between.
    pub(super) look_every: Option<Duration>,
}

impl Read for DeadlineStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::from(io::ErrorKind::TimedOut));
        }
        let wait = self.look_every.map_or(left, |every| every.min(left));
        self.stream.set_read_timeout(Some(wait))?;
        self.stream.read(buf)
    }
}
