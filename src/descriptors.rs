//! Descriptors passed over a Unix socket: one message received with the descriptors it
//! carries, each owned as soon as it arrives, so that none is left open unclosed. The
//! runner's channel and the sandbox's forker both receive so; a floor below both.

use std::io::{self, IoSliceMut};
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};

use nix::sys::socket::{ControlMessageOwned, MsgFlags, recvmsg};

/// A message received: how many bytes of it were read, the descriptors it carried, and
/// whether the kernel cut it short (its bytes or its descriptors did not fit).
pub struct Received {
    pub bytes: usize,
    pub fds: Vec<OwnedFd>,
    pub cut: bool,
}

/// One message from `socket` into `buffer`, with room for the descriptors `space` (made by
/// `nix::cmsg_space!`) holds, received close-on-exec; received again when a signal
/// interrupts it.
#[allow(unsafe_code)]
pub fn receive(socket: &impl AsFd, buffer: &mut [u8], space: &mut Vec<u8>) -> io::Result<Received> {
    let mut slices = [IoSliceMut::new(buffer)];
    let message = loop {
        match recvmsg::<()>(
            socket.as_fd().as_raw_fd(),
            &mut slices,
            Some(&mut *space),
            MsgFlags::MSG_CMSG_CLOEXEC,
        ) {
            Err(nix::errno::Errno::EINTR) => continue,
            Err(error) => return Err(error.into()),
            Ok(message) => break message,
        }
    };
    let mut fds = Vec::new();
    for control in message.cmsgs().into_iter().flatten() {
        if let ControlMessageOwned::ScmRights(received) = control {
            // SAFETY: the kernel has just installed these descriptors in this process for
            // this message; nothing else holds them.
            fds.extend(
                received
                    .into_iter()
                    .map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }),
            );
        }
    }
    Ok(Received {
        bytes: message.bytes,
        fds,
        cut: message
            .flags
            .intersects(MsgFlags::MSG_TRUNC | MsgFlags::MSG_CTRUNC),
    })
}
