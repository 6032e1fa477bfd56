//! The sandbox every process of a submission runs in: the build (cargo, rustc, build
//! scripts, proc macros) and the runner.
//!
//! The grader re-executes itself (`grader __contain`) in three stages, so that each step
//! runs in a process with one thread, where the kernel allows it:
//! 1. outside: joins nothing, unshares the namespaces, starts stage 2, watches the grader,
//!    and ends the way the contained program ended;
//! 2. the first process of the new PID namespace: joins the cgroup, mounts a private
//!    `/proc` and the toolchain, starts stage 3, reaps, records how it ended; when it goes,
//!    the kernel kills everything left in the namespace;
//! 3. the program's own process: drops to an unprivileged uid, limits, no_new_privs,
//!    landlock, then executes the program.
//!
//! Each layer is detected once ([`Sandbox::probe`]), used where present, and named in a
//! warning where absent.

pub mod cgroup;
mod contain;
pub mod ending;
mod fence;
mod filter;
mod forker;
mod root;

use std::io;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use cgroup::{Cgroup, CgroupKind};
pub use contain::{Recorded, run_stage};
pub use forker::{Contained, Forker};

/// The hidden first argument with which the grader runs one of its own stages.
pub const CONTAIN_COMMAND: &str = "__contain";
/// Carries the [`Jail`] from one stage to the next.
const JAIL_ENV: &str = "CARDGRADE_JAIL";
/// The exit status of a stage that could not set up a layer it was asked for.
pub const SETUP_FAILED: i32 = 125;

/// How strictly `grader check` holds to the sandbox.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// Use every layer the kernel gives; warn in one line about those it refuses.
    Auto,
    /// Refuse to grade unless every layer is present (for CI).
    Strict,
}

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

    fn namespaces(&self) -> nix::sched::CloneFlags {
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

/// Resource limits set on the contained program before it starts.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Limits {
    pub cpu_seconds: Option<u64>,
    pub address_space: Option<u64>,
    pub file_size: Option<u64>,
    pub open_files: Option<u64>,
    /// Processes of the contained uid; binds only when that uid is not root.
    pub processes: Option<u64>,
    /// Memory of the whole tree, held by the cgroup.
    pub tree_memory: u64,
    /// Threads of the whole tree, held by the cgroup.
    pub tree_tasks: u64,
}

/// Everything a stage needs to contain one program.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Jail {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// The program's whole environment.
    pub env: Vec<(String, String)>,
    pub workdir: PathBuf,
    /// The uid to switch to when the grader is root; 0 keeps root, without capabilities.
    pub uid: u32,
    /// Read and execute only beneath these.
    pub read: Vec<PathBuf>,
    /// Read and write beneath these.
    pub write: Vec<PathBuf>,
    /// Read-only bind mounts, source then mount point, for a toolchain the uid cannot reach.
    pub binds: Vec<(PathBuf, PathBuf)>,
    /// Folders the program sees fresh and empty, each in memory of at most so many bytes,
    /// in place of what is at their path; where there is no mount namespace, the folder
    /// on disk serves as it is.
    pub scratch: Vec<(PathBuf, u64)>,
    pub limits: Limits,
    /// Where stage 2 records how the program ended; out of the program's reach.
    pub status_file: PathBuf,
    layers: Layers,
    cgroup_join: Vec<PathBuf>,
    /// The grader: stage 1 ends everything when it goes.
    grader: u32,
}

impl Jail {
    pub fn new(
        program: impl Into<PathBuf>,
        uid: u32,
        workdir: impl Into<PathBuf>,
        status_file: impl Into<PathBuf>,
    ) -> Jail {
        Jail {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            status_file: status_file.into(),
            workdir: workdir.into(),
            uid,
            read: Vec::new(),
            write: Vec::new(),
            binds: Vec::new(),
            scratch: Vec::new(),
            limits: Limits::default(),
            layers: Layers::default(),
            cgroup_join: Vec::new(),
            grader: std::process::id(),
        }
    }

    /// Reading `/dev/urandom`, writing `/dev/null`, and reading the private `/proc` of the
    /// program's own PID namespace where there is one (std reads its stack bounds there).
    pub fn grant_devices(&mut self, layers: &Layers) {
        self.read.push("/dev/urandom".into());
        self.write.push("/dev/null".into());
        if layers.pid_namespace && layers.mount_namespace {
            self.read.push(PRIVATE_PROC.into());
        }
    }
}

/// Where stage 2 mounts the PID namespace's own /proc.
const PRIVATE_PROC: &str = "/proc";

/// Kills a contained program started as `child`, and reaps it: see [`kill_stages`].
pub fn kill_tree(child: &mut std::process::Child) {
    if !matches!(child.try_wait(), Ok(None)) {
        return;
    }
    if let Ok(pid) = i32::try_from(child.id()) {
        kill_stages(pid, || !matches!(child.try_wait(), Ok(None)));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Kills a contained program whose stage 1 is `pid`, unless `ended` says it has: stage 2
/// first, whose end ends the namespace and lets stage 1 reap it and exit, then stage 1 and
/// its process group. Killing both stages at once would leave stage 2 a zombie for
/// whatever init adopts it. One already ended is left alone: once reaped, its number may
/// belong to another process.
fn kill_stages(pid: i32, mut ended: impl FnMut() -> bool) {
    use nix::sys::signal::{Signal, kill, killpg};
    use nix::unistd::Pid;
    if ended() {
        return;
    }
    let stage_two =
        std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    for stage_two in stage_two.split_whitespace().filter_map(|p| p.parse().ok()) {
        let _ = kill(Pid::from_raw(stage_two), Signal::SIGKILL);
    }
    let patience = std::time::Instant::now() + STAGE_ONE_PATIENCE;
    while !ended() && std::time::Instant::now() < patience {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    if !ended() {
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    }
}

/// How long stage 1 may take to reap stage 2 and exit once stage 2 is killed.
const STAGE_ONE_PATIENCE: std::time::Duration = std::time::Duration::from_millis(500);

/// The gid of everything contained.
pub const NOBODY: u32 = 65534;

/// The system folders a dynamically linked program reads to start.
pub const SYSTEM_LIBRARIES: &[&str] = &[
    "/lib",
    "/lib64",
    "/usr/lib",
    "/usr/lib64",
    "/etc/ld.so.cache",
];

/// The layers of this machine, found once per `grader` process.
#[derive(Debug, Clone)]
pub struct Sandbox {
    layers: Layers,
    grader: PathBuf,
}

impl Sandbox {
    /// Tries each layer in a throwaway process of the grader's own binary.
    pub fn probe() -> io::Result<Sandbox> {
        let grader = std::env::current_exe()?;
        let output = Command::new(&grader)
            .arg(CONTAIN_COMMAND)
            .arg(contain::PROBE)
            .env_clear()
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()?;
        let mut layers: Layers = serde_json::from_slice(&output.stdout).map_err(|error| {
            io::Error::other(format!("the sandbox probe said no layers: {error}"))
        })?;
        layers.cgroup = Cgroup::detect();
        Ok(Sandbox { layers, grader })
    }

    pub fn layers(&self) -> &Layers {
        &self.layers
    }

    /// A command that runs `jail`'s program contained, and the cgroup holding its tree.
    /// The caller sets its stdio and spawns it.
    pub fn command(&self, jail: Jail) -> io::Result<(Command, Option<Cgroup>)> {
        let (jail, cgroup) = self.prepare(jail)?;
        let config = serde_json::to_string(&jail).map_err(io::Error::other)?;
        let mut command = Command::new(&self.grader);
        command
            .arg(CONTAIN_COMMAND)
            .arg(contain::OUTSIDE)
            .env_clear()
            .env(JAIL_ENV, config);
        Ok((command, cgroup))
    }

    /// `jail` with this machine's layers, and the cgroup its tree is to join.
    fn prepare(&self, mut jail: Jail) -> io::Result<(Jail, Option<Cgroup>)> {
        let cgroup = match self.layers.cgroup {
            Some(kind) => Some(Cgroup::create(
                kind,
                jail.limits.tree_memory,
                jail.limits.tree_tasks,
            )?),
            None => None,
        };
        jail.layers = self.layers.clone();
        jail.cgroup_join = cgroup.as_ref().map(Cgroup::join_files).unwrap_or_default();
        Ok((jail, cgroup))
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
