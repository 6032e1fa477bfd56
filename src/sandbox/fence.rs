//! Landlock: the files a contained process may read or write, no TCP, and no signals or
//! abstract sockets reaching outside its domain.

use std::path::PathBuf;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};

/// The newest ABI this code asks for; older kernels give what they have.
const WANTED: ABI = ABI::V10;

/// Restricts this process, and whatever it executes, to reading and executing `read` and
/// reading and writing `write`. Paths that do not exist are skipped. Returns the landlock
/// ABI in force, or `None` when the kernel has no landlock.
pub fn restrict(read: &[PathBuf], write: &[PathBuf]) -> Result<Option<u8>, String> {
    let fail = |error: landlock::RulesetError| format!("landlock: {error}");
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(WANTED))
        .map_err(fail)?
        .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
        .map_err(fail)?
        .scope(Scope::AbstractUnixSocket | Scope::Signal)
        .map_err(fail)?
        .create()
        .map_err(fail)?;
    let grants = read
        .iter()
        .map(|path| (path, AccessFs::from_read(WANTED)))
        .chain(write.iter().map(|path| (path, AccessFs::from_all(WANTED))));
    for (path, access) in grants {
        let access = if path.is_dir() {
            access
        } else {
            access & AccessFs::from_file(WANTED)
        };
        let Ok(fd) = PathFd::new(path) else {
            continue;
        };
        ruleset = ruleset
            .add_rule(PathBeneath::new(fd, access))
            .map_err(fail)?;
    }
    let status = ruleset.restrict_self().map_err(fail)?;
    Ok(match (status.ruleset, status.landlock) {
        (RulesetStatus::NotEnforced, _) => None,
        (_, LandlockStatus::Available { effective_abi, .. }) => Some(effective_abi as u8),
        _ => None,
    })
}

/// What each landlock ABI adds that the grader relies on.
pub fn describe(abi: u8) -> String {
    let mut held = vec!["files"];
    if abi >= 4 {
        held.push("TCP");
    }
    if abi >= 6 {
        held.push("signals and abstract sockets");
    }
    format!("landlock ABI {abi} ({})", held.join(", "))
}
