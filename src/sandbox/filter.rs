//! A seccomp filter for where no network namespace can be made: no socket of the internet
//! or packet families, so no TCP, UDP or raw traffic; sockets between local processes stay.

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

/// The families refused by `socket(2)`.
const REFUSED_FAMILIES: &[i32] = &[
    nix::libc::AF_INET,
    nix::libc::AF_INET6,
    nix::libc::AF_PACKET,
];

/// Refuses, to this thread and whatever it starts or executes, every socket of the
/// refused families, with `EACCES`.
pub fn deny_internet_sockets() -> Result<(), String> {
    let fail = |error: &dyn std::fmt::Display| format!("seccomp: {error}");
    let mut rules = Vec::new();
    for family in REFUSED_FAMILIES {
        let condition =
            SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, *family as u64)
                .map_err(|e| fail(&e))?;
        rules.push(SeccompRule::new(vec![condition]).map_err(|e| fail(&e))?);
    }
    let arch = std::env::consts::ARCH.try_into().map_err(|e| fail(&e))?;
    let filter = SeccompFilter::new(
        [(nix::libc::SYS_socket, rules)].into_iter().collect(),
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

    #[test]
    fn a_filtered_thread_opens_no_internet_socket_but_local_ones() {
        // A filter binds the thread that installs it: this one, not the test harness.
        std::thread::spawn(|| {
            nix::sys::prctl::set_no_new_privs().unwrap();
            deny_internet_sockets().unwrap();
            let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap_err();
            assert_eq!(udp.kind(), std::io::ErrorKind::PermissionDenied, "{udp}");
            let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap_err();
            assert_eq!(tcp.kind(), std::io::ErrorKind::PermissionDenied, "{tcp}");
            assert!(std::os::unix::net::UnixStream::pair().is_ok());
        })
        .join()
        .unwrap();
        assert!(std::net::UdpSocket::bind("127.0.0.1:0").is_ok());
    }
}
