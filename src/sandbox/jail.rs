//! What a stage needs to contain one program (the `Jail`, carried from stage to stage),
//! and the words and numbers every stage and the grader agree on.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::layers::Layers;

/// The hidden first argument with which the grader runs one of its own stages.
pub const CONTAIN_COMMAND: &str = "__contain";
/// Carries the [`Jail`] from one stage to the next.
pub(super) const JAIL_ENV: &str = "CARDGRADE_JAIL";
/// The exit status of a stage that could not set up a layer it was asked for.
pub const SETUP_FAILED: i32 = 125;

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
    /// An empty folder of the grader's on which the program's own root is mounted, in the
    /// program's mount namespace only: no path of the jail lies beneath it. Beside the
    /// status file unless set; the runs of one launcher share one, made once, since making
    /// a folder for each short run was a cost of its own.
    pub root_mount_point: PathBuf,
    pub(super) layers: Layers,
    pub(super) cgroup_join: Vec<PathBuf>,
    /// The grader: stage 1 ends everything when it goes.
    pub(super) grader: u32,
}

impl Jail {
    pub fn new(
        program: impl Into<PathBuf>,
        uid: u32,
        workdir: impl Into<PathBuf>,
        status_file: impl Into<PathBuf>,
    ) -> Jail {
        let status_file: PathBuf = status_file.into();
        let mut root_mount_point = status_file.as_os_str().to_owned();
        root_mount_point.push(".root");
        Jail {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            status_file,
            root_mount_point: root_mount_point.into(),
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
pub(super) const PRIVATE_PROC: &str = "/proc";

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
