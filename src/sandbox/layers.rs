//! The layers this machine gives the sandbox, as the probe finds them, and what a missing
//! one costs.

use serde::{Deserialize, Serialize};

use super::cgroup::CgroupKind;
use super::fence;

/// The layers this machine gives.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layers {
    /// The grader is root: contained processes switch to an unprivileged uid. Otherwise
    /// they keep the grader's user, inside a user namespace when there is one.
    pub root: bool,
    pub user_namespace: bool,
    pub pid_namespace: bool,
    pub net_namespace: bool,
    pub mount_namespace: bool,
    pub ipc_namespace: bool,
    /// The landlock ABI in force, if any.
    pub landlock: Option<u8>,
    pub cgroup: Option<CgroupKind>,
}

/// The landlock ABI from which files, TCP, signals and abstract sockets are all fenced.
const FULL_LANDLOCK: u8 = 6;

impl Layers {
    /// Each layer: whether it is present, its short name, and what it holds.
    pub fn lines(&self) -> Vec<(bool, &'static str, String)> {
        let user = if self.root {
            "runners and builds as uids of their own, never root"
        } else {
            "the grader's own uid, in a user namespace where one can be made"
        };
        vec![
            (
                self.root || self.user_namespace,
                "unprivileged user",
                user.to_string(),
            ),
            (
                self.pid_namespace,
                "PID namespace",
                "the grader out of sight, and everything left ends with the runner or the build"
                    .into(),
            ),
            (
                self.net_namespace,
                "network namespace",
                "no network at all (without it, a seccomp filter refuses internet and packet sockets)"
                    .into(),
            ),
            (
                self.mount_namespace,
                "mount namespace",
                "a private /proc, the toolchain mounted read-only".into(),
            ),
            (
                self.landlock.is_some_and(|abi| abi >= FULL_LANDLOCK),
                "landlock",
                self.landlock.map_or_else(
                    || "reads and writes fenced to the build or temp folder".to_string(),
                    |abi| format!("{}: reads and writes fenced", fence::describe(abi)),
                ),
            ),
            (
                self.cgroup.is_some(),
                "cgroup",
                self.cgroup.map_or_else(
                    || "memory and process limits for the whole tree".to_string(),
                    |kind| format!("{kind}: memory and process limits for the whole tree"),
                ),
            ),
            (
                true,
                "rlimits",
                "no_new_privs, a seccomp filter against sockets opened by path, rlimits (CPU, memory, file size, open files), a cleared environment"
                    .into(),
            ),
        ]
    }

    /// The layers missing, named briefly.
    pub fn missing(&self) -> Vec<&'static str> {
        let mut missing: Vec<&'static str> = self
            .lines()
            .into_iter()
            .filter(|(present, _, _)| !present)
            .map(|(_, name, _)| name)
            .collect();
        if let Some(at) = missing.iter().position(|name| *name == "landlock")
            && self.landlock.is_some()
        {
            missing[at] = "landlock signal scoping";
        }
        missing
    }

    /// One line naming what is missing and what still holds, or `None` when nothing is.
    pub fn warning(&self) -> Option<String> {
        let missing = self.missing();
        if missing.is_empty() {
            return None;
        }
        let held: Vec<&str> = self
            .lines()
            .into_iter()
            .filter(|(present, _, _)| *present)
            .map(|(_, name, _)| name)
            .collect();
        Some(format!(
            "sandbox without {} (this kernel or container refuses it); still held: {}. `grader doctor` says more",
            missing.join(", "),
            held.join(", ")
        ))
    }

    pub(super) fn namespaces(&self) -> nix::sched::CloneFlags {
        use nix::sched::CloneFlags;
        let mut flags = CloneFlags::empty();
        for (present, flag) in [
            (self.user_namespace && !self.root, CloneFlags::CLONE_NEWUSER),
            (self.pid_namespace, CloneFlags::CLONE_NEWPID),
            (self.net_namespace, CloneFlags::CLONE_NEWNET),
            (self.mount_namespace, CloneFlags::CLONE_NEWNS),
            (self.ipc_namespace, CloneFlags::CLONE_NEWIPC),
        ] {
            if present {
                flags |= flag;
            }
        }
        flags
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_layer() -> Layers {
        Layers {
            root: true,
            user_namespace: false,
            pid_namespace: true,
            net_namespace: true,
            mount_namespace: true,
            ipc_namespace: true,
            landlock: Some(7),
            cgroup: Some(CgroupKind::V1),
        }
    }

    #[test]
    fn every_layer_present_means_no_warning() {
        assert_eq!(every_layer().missing(), Vec::<&str>::new());
        assert_eq!(every_layer().warning(), None);
    }

    #[test]
    fn a_missing_layer_is_named_with_what_still_holds() {
        let layers = Layers {
            landlock: None,
            cgroup: None,
            ..every_layer()
        };
        let warning = layers.warning().expect("two layers are missing");
        assert!(
            warning.starts_with("sandbox without landlock, cgroup"),
            "{warning}"
        );
        assert!(warning.contains("still held: "), "{warning}");
        assert!(warning.contains("PID namespace"), "{warning}");
        assert!(!warning.contains("still held: landlock"), "{warning}");
        assert_eq!(warning.lines().count(), 1, "{warning}");
    }

    #[test]
    fn landlock_without_signal_scoping_is_not_every_layer() {
        let layers = Layers {
            landlock: Some(5),
            ..every_layer()
        };
        assert_eq!(layers.missing(), vec!["landlock signal scoping"]);
    }

    #[test]
    fn a_grader_that_is_not_root_needs_a_user_namespace() {
        let layers = Layers {
            root: false,
            ..every_layer()
        };
        assert_eq!(layers.missing(), vec!["unprivileged user"]);
        let mapped = Layers {
            user_namespace: true,
            ..layers
        };
        assert!(mapped.missing().is_empty());
        let user = nix::sched::CloneFlags::CLONE_NEWUSER;
        assert!(mapped.namespaces().contains(user));
        assert!(!every_layer().namespaces().contains(user));
    }
}
