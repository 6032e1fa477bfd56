//! The contained program's own view of the filesystem: a root of its own that holds only
//! what its jail lets it read or write, each mounted at the path it has outside, so that
//! nothing else of the machine is there to find: no `/tmp` with other users' sockets, no
//! `/etc/shadow`, no mount points of the host in `/proc/self/mountinfo`.

use std::path::{Path, PathBuf};

use nix::mount::{MntFlags, MsFlags, mount, umount2};
use nix::sched::{CloneFlags, unshare};
use nix::sys::statvfs::{FsFlags, statvfs};

use super::jail::{Jail, NOBODY};

/// What the root's own folders may hold: only the mount points made in it.
const ROOT_SIZE: &str = "size=1m,nr_inodes=4096,mode=0755";

/// Moves this process into a mount namespace of its own whose root holds only the jail's
/// paths (read-only, but for those it writes) and its private scratch folders. Stage 2
/// keeps the view it had, where it records how the program ended.
pub fn enter(jail: &Jail) -> Result<(), String> {
    let none: Option<&str> = None;
    let fail = |what: &str, path: &Path, error: nix::Error| {
        format!("{what} {}: {}", path.display(), error.desc())
    };
    unshare(CloneFlags::CLONE_NEWNS)
        .map_err(|e| fail("cannot unshare the mounts of", Path::new("/"), e))?;
    mount(none, "/", none, MsFlags::MS_REC | MsFlags::MS_PRIVATE, none)
        .map_err(|e| fail("cannot make private", Path::new("/"), e))?;
    let new_root = &jail.root_mount_point;
    std::fs::create_dir_all(new_root)
        .map_err(|e| format!("cannot make {}: {e}", new_root.display()))?;
    mount(
        Some("tmpfs"),
        new_root,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some(ROOT_SIZE),
    )
    .map_err(|e| fail("cannot mount a root at", new_root, e))?;
    for (path, writable) in views(jail) {
        let inside = beneath(new_root, &path);
        make_mount_point(&path, &inside)?;
        mount(
            Some(&path),
            &inside,
            none,
            MsFlags::MS_BIND | MsFlags::MS_REC,
            none,
        )
        .map_err(|e| fail("cannot show", &path, e))?;
        if !writable {
            // A remount must keep the flags the kernel locked on the original.
            let kept = statvfs(&inside)
                .map(|found| locked_flags(found.flags()))
                .unwrap_or(MsFlags::empty());
            mount(
                none,
                &inside,
                none,
                MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY | kept,
                none,
            )
            .map_err(|e| fail("cannot make read-only", &path, e))?;
        }
    }
    for (folder, bytes) in &jail.scratch {
        let inside = beneath(new_root, folder);
        std::fs::create_dir_all(&inside)
            .map_err(|e| format!("cannot make {}: {e}", inside.display()))?;
        let owner = if jail.layers.root { jail.uid } else { 0 };
        let options = format!(
            "size={bytes},nr_inodes=65536,mode=0700,uid={owner},gid={}",
            if jail.layers.root { NOBODY } else { 0 }
        );
        mount(
            Some("tmpfs"),
            &inside,
            Some("tmpfs"),
            MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
            Some(options.as_str()),
        )
        .map_err(|e| fail("cannot mount a private folder at", folder, e))?;
    }
    std::env::set_current_dir(new_root)
        .map_err(|e| format!("cannot enter {}: {e}", new_root.display()))?;
    // The old root goes beneath the new one, then is let go of: nothing of it stays in view.
    nix::unistd::pivot_root(".", ".").map_err(|e| fail("cannot change root to", new_root, e))?;
    umount2(".", MntFlags::MNT_DETACH).map_err(|e| fail("cannot let go of", Path::new("/"), e))?;
    std::env::set_current_dir("/").map_err(|e| format!("cannot enter the new root: {e}"))
}

/// The jail's paths that exist, each once, with whether it may be written; a folder before
/// what lies in it, so that what is mounted inside stays on top.
fn views(jail: &Jail) -> Vec<(PathBuf, bool)> {
    let mut views: Vec<(PathBuf, bool)> = jail
        .read
        .iter()
        .map(|path| (path.clone(), false))
        .chain(jail.write.iter().map(|path| (path.clone(), true)))
        .filter(|(path, _)| !jail.scratch.iter().any(|(folder, _)| folder == path))
        .filter(|(path, _)| path.is_absolute() && std::fs::metadata(path).is_ok())
        .collect();
    views.sort();
    // A path both read and written is written.
    views.dedup_by(|later, earlier| {
        let same = later.0 == earlier.0;
        if same {
            earlier.1 |= later.1;
        }
        same
    });
    views
}

/// `path`, an absolute path, as it lies under `root`.
fn beneath(root: &Path, path: &Path) -> PathBuf {
    root.join(path.strip_prefix("/").unwrap_or(path))
}

/// An empty folder or file at `inside` for `path` to be mounted on.
fn make_mount_point(path: &Path, inside: &Path) -> Result<(), String> {
    let made = if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        std::fs::create_dir_all(inside)
    } else {
        inside
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| {
                std::fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(inside)
                    .map(drop)
            })
    };
    made.map_err(|e| format!("cannot make a place for {}: {e}", path.display()))
}

/// The flags of a mount that a bind of it must keep when remounted.
fn locked_flags(found: FsFlags) -> MsFlags {
    let mut kept = MsFlags::empty();
    for (flag, locked) in [
        (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
        (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
        (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
        (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
        (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
        (FsFlags::ST_RELATIME, MsFlags::MS_RELATIME),
    ] {
        if found.contains(flag) {
            kept |= locked;
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_both_read_and_written_is_mounted_once_writable_after_its_folder() {
        let mut jail = Jail::new("/bin/true", 0, "/", "/nonexistent/status");
        jail.read = vec!["/usr".into(), "/dev/null".into(), "/usr/lib".into()];
        jail.write = vec!["/dev/null".into(), "/no/such/folder".into()];
        assert_eq!(
            views(&jail),
            vec![
                (PathBuf::from("/dev/null"), true),
                (PathBuf::from("/usr"), false),
                (PathBuf::from("/usr/lib"), false),
            ]
        );
    }

    #[test]
    fn a_private_scratch_folder_is_not_also_a_view_of_the_disk() {
        let mut jail = Jail::new("/bin/true", 0, "/", "/nonexistent/status");
        jail.write = vec!["/tmp".into()];
        jail.scratch = vec![("/tmp".into(), 1 << 20)];
        assert_eq!(views(&jail), Vec::new());
    }
}
