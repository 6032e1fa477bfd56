//! A control group per contained process tree: memory and task limits for the whole tree,
//! a count of what is still running in it, and a kill of everything in it.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};

const ROOT: &str = "/sys/fs/cgroup";

/// Which cgroup interface the machine lets the grader use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CgroupKind {
    /// The v1 `memory` and `pids` hierarchies, one group in each.
    V1,
    /// One group in the unified hierarchy, below the grader's own group.
    V2,
}

impl std::fmt::Display for CgroupKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CgroupKind::V1 => "cgroup v1 (memory and pids)",
            CgroupKind::V2 => "cgroup v2 (memory and pids)",
        })
    }
}

/// How many processes and threads a group holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Population {
    pub processes: usize,
    pub threads: usize,
}

/// A group made for one contained tree; dropping it kills what is left and removes it.
#[derive(Debug)]
pub struct Cgroup {
    kind: CgroupKind,
    /// v1: the memory group, then the pids group; v2: the one group.
    dirs: Vec<PathBuf>,
}

impl Cgroup {
    /// Finds the interface this machine lets the grader write, by making and removing a group.
    /// Empty groups that graders killed outright left behind are removed on the way.
    pub fn detect() -> Option<CgroupKind> {
        let kind = [CgroupKind::V1, CgroupKind::V2]
            .into_iter()
            .find(|&kind| Cgroup::create(kind, u64::MAX, u64::MAX).is_ok())?;
        let parents = match kind {
            CgroupKind::V1 => vec![Path::new(ROOT).join("memory"), Path::new(ROOT).join("pids")],
            CgroupKind::V2 => v2_parent().into_iter().collect(),
        };
        for parent in parents {
            crate::leftovers::sweep(&parent, |group| std::fs::remove_dir(group));
        }
        Some(kind)
    }

    /// A new group holding at most `memory_bytes` of memory and `max_tasks` threads.
    pub fn create(kind: CgroupKind, memory_bytes: u64, max_tasks: u64) -> io::Result<Cgroup> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "cardgrade-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let dirs = match kind {
            CgroupKind::V1 => vec![
                Path::new(ROOT).join("memory").join(&name),
                Path::new(ROOT).join("pids").join(&name),
            ],
            CgroupKind::V2 => vec![v2_parent()?.join(&name)],
        };
        for (made, dir) in dirs.iter().enumerate() {
            if let Err(error) = std::fs::create_dir(dir) {
                // A group is whole or not at all: the folders made so far go.
                for dir in dirs[..made].iter().rev() {
                    let _ = std::fs::remove_dir(dir);
                }
                return Err(error);
            }
        }
        let group = Cgroup {
            kind,
            dirs: dirs.clone(),
        };
        let limit = |value: u64| {
            if value == u64::MAX {
                "max".to_string()
            } else {
                value.to_string()
            }
        };
        match kind {
            CgroupKind::V1 => {
                if memory_bytes != u64::MAX {
                    std::fs::write(
                        dirs[0].join("memory.limit_in_bytes"),
                        memory_bytes.to_string(),
                    )?;
                    // Without swap accounting the file is absent; the limit above still holds.
                    let _ = std::fs::write(
                        dirs[0].join("memory.memsw.limit_in_bytes"),
                        memory_bytes.to_string(),
                    );
                }
                std::fs::write(dirs[1].join("pids.max"), limit(max_tasks))?;
            }
            CgroupKind::V2 => {
                std::fs::write(dirs[0].join("memory.max"), limit(memory_bytes))?;
                let _ = std::fs::write(dirs[0].join("memory.swap.max"), "0");
                std::fs::write(dirs[0].join("pids.max"), limit(max_tasks))?;
            }
        }
        Ok(group)
    }

    /// The files a process writes its own pid to, to join the group.
    pub fn join_files(&self) -> Vec<PathBuf> {
        self.dirs.iter().map(|d| d.join("cgroup.procs")).collect()
    }

    fn count_dir(&self) -> &Path {
        self.dirs.last().expect("a group has at least one folder")
    }

    /// What is running in the group now.
    pub fn population(&self) -> Population {
        let lines = |file: &str| {
            std::fs::read_to_string(self.count_dir().join(file))
                .map(|text| text.lines().count())
                .unwrap_or(0)
        };
        Population {
            processes: lines("cgroup.procs"),
            threads: match self.kind {
                CgroupKind::V1 => lines("tasks"),
                CgroupKind::V2 => {
                    read_number(&self.count_dir().join("pids.current")).unwrap_or(0) as usize
                }
            },
        }
    }

    /// Whether the kernel killed a process of the group for going over the memory limit.
    pub fn ran_out_of_memory(&self) -> bool {
        let (dir, file) = match self.kind {
            CgroupKind::V1 => (&self.dirs[0], "memory.oom_control"),
            CgroupKind::V2 => (&self.dirs[0], "memory.events"),
        };
        event_count(&dir.join(file), "oom_kill") > 0
    }

    /// Whether a fork or thread was refused because the group held its maximum of tasks.
    pub fn hit_task_limit(&self) -> bool {
        event_count(&self.count_dir().join("pids.events"), "max") > 0
    }

    /// Kills every process in the group and waits, briefly, until none is left.
    pub fn kill_all(&self) -> bool {
        if self.kind == CgroupKind::V2 {
            let _ = std::fs::write(self.dirs[0].join("cgroup.kill"), "1");
        }
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            let pids =
                std::fs::read_to_string(self.count_dir().join("cgroup.procs")).unwrap_or_default();
            if pids.trim().is_empty() {
                return true;
            }
            for pid in pids
                .lines()
                .filter_map(|line| line.trim().parse::<i32>().ok())
            {
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        self.kill_all();
        for dir in self.dirs.iter().rev() {
            // A dying process may hold the group for a moment after the kill.
            for _ in 0..100 {
                if std::fs::remove_dir(dir).is_ok() || !dir.exists() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }
}

/// The grader's own v2 group, if memory and pids are enabled for the groups below it.
fn v2_parent() -> io::Result<PathBuf> {
    let own = std::fs::read_to_string("/proc/self/cgroup")?;
    let path = own
        .lines()
        .find_map(|line| line.strip_prefix("0::"))
        .ok_or_else(|| io::Error::other("no unified cgroup"))?;
    let parent = Path::new(ROOT).join(path.trim_start_matches('/'));
    let enabled = std::fs::read_to_string(parent.join("cgroup.subtree_control"))?;
    let has = |controller: &str| enabled.split_whitespace().any(|c| c == controller);
    if has("memory") && has("pids") {
        Ok(parent)
    } else {
        Err(io::Error::other(
            "memory and pids are not enabled below the grader's cgroup",
        ))
    }
}

fn read_number(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// The number after `key` in a flat-keyed file such as `memory.events`.
fn event_count(path: &Path, key: &str) -> u64 {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(' ')?;
            (name == key).then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0)
}
