//! The folders a runner lives in: its home, and a scratch folder for its temp files.

use std::io::{self};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::sandbox::{self};

/// The scratch folder's mount point of the runs' own roots: no home is named so.
const ROOT_MOUNT_POINT: &str = "root";

/// A folder of the grader's own, for one `grader check`: the runner's copy, and a home per
/// runner. Only the grader writes here, but for each runner's `tmp`. Removed when dropped.
pub(super) struct Scratch {
    folder: tempfile::TempDir,
}

impl Scratch {
    pub(super) fn create() -> io::Result<Scratch> {
        let folder = crate::temp::folder("runner")?;
        // Runners of a root grader run as other uids, which reach their executable here.
        std::fs::set_permissions(folder.path(), std::fs::Permissions::from_mode(0o755))?;
        std::fs::create_dir(folder.path().join(ROOT_MOUNT_POINT))?;
        Ok(Scratch { folder })
    }

    /// Where every run's own root is mounted, each in its own mount namespace.
    pub(super) fn root_mount_point(&self) -> PathBuf {
        self.path().join(ROOT_MOUNT_POINT)
    }

    pub(super) fn path(&self) -> &Path {
        self.folder.path()
    }

    /// A uid no other grading shares, so runners of two submissions cannot touch each other
    /// even where landlock is missing.
    pub(super) fn uid(&self) -> u32 {
        use std::hash::BuildHasher;
        let hash = std::collections::hash_map::RandomState::new().hash_one(self.path());
        200_000 + (hash % 1_000_000_000) as u32
    }
}

/// One runner's folder: the status its sandbox records, and `tmp`, the only place the
/// runner may write.
pub(super) struct RunnerHome {
    pub(super) path: PathBuf,
}

impl RunnerHome {
    /// A home, with its `tmp` made where the runner writes in it: only without a mount
    /// namespace, since in one `tmp` is a tmpfs of the runner's own root and the folder
    /// here is never written. A folder less for each run: on ext4, making a folder after
    /// many were removed is slow (its inode search skips recently freed ones), and a
    /// grading of a student's tests makes one or more for each of its many short runs.
    pub(super) fn create(scratch: &Path, number: u64, tmp: HomeTmp) -> io::Result<RunnerHome> {
        let path = scratch.join(format!("run-{number}"));
        std::fs::create_dir(&path)?;
        let home = RunnerHome { path };
        if let HomeTmp::Folder { owner } = tmp {
            std::fs::create_dir(home.tmp())?;
            std::fs::set_permissions(home.tmp(), std::fs::Permissions::from_mode(0o700))?;
            if let Some(uid) = owner {
                std::os::unix::fs::chown(home.tmp(), Some(uid), Some(sandbox::NOBODY))?;
            }
        }
        Ok(home)
    }

    pub(super) fn tmp(&self) -> PathBuf {
        self.path.join("tmp")
    }

    pub(super) fn status_file(&self) -> PathBuf {
        self.path.join("status")
    }
}

/// Where a runner's `tmp` is.
pub(super) enum HomeTmp {
    /// A tmpfs of its own root's, mounted where its jail says.
    Mounted,
    /// A folder of its home, belonging to `owner` when the grader may give it away.
    Folder { owner: Option<u32> },
}

impl Drop for RunnerHome {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
