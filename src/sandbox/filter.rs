//! A seccomp filter on the sockets a contained process may open. No local socket can be
//! opened by itself, so none can connect to a socket by its path (landlock does not fence
//! that) and no datagram pair can send to one; a connected pair, as the answer channel is,
//! stays. Where no network namespace can be made, no socket of the internet or packet
//! families either, so no TCP, UDP or raw traffic.

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

/// The families `socket(2)` refuses everywhere: a socket of these could reach a process
/// outside by a path in the filesystem.
const LOCAL_FAMILIES: &[i32] = &[nix::libc::AF_UNIX];

/// The families `socket(2)` refuses where there is no network namespace.
const INTERNET_FAMILIES: &[i32] = &[
    nix::libc::AF_INET,
    nix::libc::AF_INET6,
    nix::libc::AF_PACKET,
];

/// The bits of a socket type that name its kind, below `SOCK_NONBLOCK` and `SOCK_CLOEXEC`.
const SOCKET_KIND: u64 = 0xf;

/// Refuses, to this thread and whatever it starts or executes, every socket that could
/// reach outside (and, with `no_internet`, every internet socket), with `EACCES`.
pub fn deny_sockets(no_internet: bool) -> Result<(), String> {
    let fail = |error: &dyn std::fmt::Display| format!("seccomp: {error}");
    let rule = |argument: u8, operation: SeccompCmpOp, value: i32| {
        SeccompCondition::new(argument, SeccompCmpArgLen::Dword, operation, value as u64)
            .and_then(|condition| SeccompRule::new(vec![condition]))
            .map_err(|e| fail(&e))
    };
    let refused: &[&[i32]] = if no_internet {
        &[LOCAL_FAMILIES, INTERNET_FAMILIES]
    } else {
        &[LOCAL_FAMILIES]
    };
    let socket = refused
        .iter()
        .flat_map(|families| families.iter())
        .map(|family| rule(0, SeccompCmpOp::Eq, *family))
        .collect::<Result<Vec<_>, _>>()?;
    let socketpair = vec![rule(
        1,
        SeccompCmpOp::MaskedEq(SOCKET_KIND),
        nix::libc::SOCK_DGRAM,
    )?];
    let arch = std::env::consts::ARCH.try_into().map_err(|e| fail(&e))?;
    let filter = SeccompFilter::new(
        [
            (nix::libc::SYS_socket, socket),
            (nix::libc::SYS_socketpair, socketpair),
        ]
        .into_iter()
        .collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(nix::libc::EACCES as u32),
        arch,
    )
    .map_err(|e| fail(&e))?;
    let program: BpfProgram = filter.try_into().map_err(|e| fail(&e))?;
    seccompiler::apply_filter(&program).map_err(|e| fail(&e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::ErrorKind::PermissionDenied;
    use std::os::unix::net::{UnixDatagram, UnixListener, UnixStream};

    /// A filter binds the thread that installs it: a thread of its own, not the harness.
    fn filtered(no_internet: bool, check: impl FnOnce() + Send + 'static) {
        std::thread::spawn(move || {
            nix::sys::prctl::set_no_new_privs().unwrap();
            deny_sockets(no_internet).unwrap();
            check();
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_filtered_thread_reaches_no_socket_by_its_path_but_keeps_a_connected_pair() {
        let dir = crate::temp::folder("test-filter").unwrap();
        let stream_path = dir.path().join("stream");
        let datagram_path = dir.path().join("datagram");
        let listener = UnixListener::bind(&stream_path).unwrap();
        listener.set_nonblocking(true).unwrap();
        let inbox = UnixDatagram::bind(&datagram_path).unwrap();
        inbox.set_nonblocking(true).unwrap();
        let stream = stream_path.clone();
        filtered(false, move || {
            let connect = UnixStream::connect(&stream).unwrap_err();
            assert_eq!(connect.kind(), PermissionDenied, "{connect}");
            let unbound = UnixDatagram::unbound().unwrap_err();
            assert_eq!(unbound.kind(), PermissionDenied, "{unbound}");
            let pair = UnixDatagram::pair().unwrap_err();
            assert_eq!(pair.kind(), PermissionDenied, "{pair}");
            assert!(UnixStream::pair().is_ok());
            assert!(std::net::UdpSocket::bind("127.0.0.1:0").is_ok());
        });
        assert!(listener.accept().is_err(), "nothing connected");
        assert!(inbox.recv(&mut [0; 8]).is_err(), "nothing was sent");
        // Unfiltered, the same connection is made: the test above could have failed.
        assert!(UnixStream::connect(&stream_path).is_ok());
    }

    #[test]
    fn without_a_network_namespace_no_internet_socket_opens_either() {
        filtered(true, || {
            let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap_err();
            assert_eq!(udp.kind(), PermissionDenied, "{udp}");
            let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap_err();
            assert_eq!(tcp.kind(), PermissionDenied, "{tcp}");
            assert!(UnixStream::pair().is_ok());
        });
        assert!(std::net::UdpSocket::bind("127.0.0.1:0").is_ok());
    }
}
