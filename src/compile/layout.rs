//! Where a submission is built: a folder of the grader's own, outside the submission, so
//! nothing a student ships (a `target/`, a link) decides what the grader reads or writes.

use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::embedded::{API_FILES, API_MANIFEST};
use super::manifest::SubmissionCrate;
use crate::sandbox::Sandbox;

/// Makes the builds of many submissions happen outside them, each in a folder of its own,
/// sharing grader-api compiled once in a cache no build can write.
pub const TARGET_DIR_ENV: &str = "CARDGRADE_TARGET_DIR";

/// A build folder: what the grader writes there, and the three places the build writes.
pub struct Layout {
    pub folder: PathBuf,
    /// grader-api as embedded in the grader.
    pub api: PathBuf,
    /// The copy of the submission that is built.
    pub submission: PathBuf,
    /// The generated crate (the build writes its Cargo.lock).
    pub runner: PathBuf,
    pub target: PathBuf,
    pub tmp: PathBuf,
    /// Mount points of the toolchain, for a build user who cannot reach it where it is.
    pub toolchain: PathBuf,
    pub bin_name: String,
    /// The generated crate is a libtest harness of its own `#[test]`s, not a runner.
    pub harness: bool,
}

impl Layout {
    /// A folder whose grader-api and toolchain mount points are in `shared` (the same for
    /// every build that shares compiled dependencies, since cargo rebuilds what it finds at
    /// another path), or in the folder itself.
    pub fn new(folder: PathBuf, shared: Option<&Path>, bin_name: String) -> Layout {
        let (api, toolchain) = match shared {
            Some(shared) => (shared_api(shared), shared.join("toolchain")),
            None => (folder.join("api"), folder.join("toolchain")),
        };
        Layout {
            api,
            submission: folder.join("submission"),
            runner: folder.join("runner"),
            target: folder.join("target"),
            tmp: folder.join("tmp"),
            toolchain,
            folder,
            bin_name,
            harness: false,
        }
    }

    /// The build folder of `submission`, under `shared` beside the cache of compiled
    /// dependencies (returned too), or else in the grader's own folder of builds, which a
    /// re-run reuses.
    pub fn for_submission(
        submission: &SubmissionCrate,
        shared: Option<&Path>,
    ) -> io::Result<(Layout, Option<PathBuf>)> {
        let name = submission.package.in_file_name(40);
        let tag = format!("{name}-{:016x}", stable_hash(&submission.root));
        let bin_name = format!("cardgrade-runner-{tag}");
        Ok(match shared {
            Some(shared) => (
                Layout::new(shared.join(&tag), Some(shared), bin_name),
                Some(shared.to_path_buf()),
            ),
            None => (Layout::new(own_builds()?.join(&tag), None, bin_name), None),
        })
    }
}

/// The folder [`TARGET_DIR_ENV`] names, if it is set: every build there shares compiled
/// dependencies.
pub fn shared_builds() -> Option<PathBuf> {
    std::env::var_os(TARGET_DIR_ENV)
        .map(|dir| std::path::absolute(PathBuf::from(&dir)).unwrap_or_else(|_| dir.into()))
}

/// The folder that holds every submission's build folder: [`TARGET_DIR_ENV`]'s, or the
/// grader user's own.
pub fn builds_folder() -> io::Result<PathBuf> {
    match shared_builds() {
        Some(shared) => Ok(shared),
        None => own_builds(),
    }
}

/// The grader user's own folder of builds in the temp folder: a cache, kept on purpose
/// after the grader ends (unlike its temporary folders, `crate::temp`), so that a re-run
/// builds only what changed. Under root, builds run as other users, who must reach it:
/// where `$TMPDIR` lies in a folder closed to them, the folder is made in `/tmp` instead.
fn own_builds() -> io::Result<PathBuf> {
    let user = nix::unistd::Uid::effective();
    let temp = std::env::temp_dir();
    if user.is_root() && closed_to_others(&temp.join(own_builds_name(user.as_raw()))).is_some() {
        own_builds_in(Path::new("/tmp"))
    } else {
        own_builds_in(&temp)
    }
}

/// The name of a user's own folder of builds: one per user, whom no other user's builds
/// may reach, and one per grader version and grader-api, so that graders of two versions
/// on one machine do not start each other's builds afresh. A folder of a version no
/// longer run stays until the temp folder is emptied.
fn own_builds_name(uid: u32) -> String {
    format!(
        "cardgrade-builds-{uid}-{}-{:016x}",
        env!("CARGO_PKG_VERSION"),
        api_digest()
    )
}

/// The grader user's own folder of builds in `temp`, made there if it is not, and refused
/// if it is not this user's alone: a folder that another user made first, or may write,
/// could hand a build what that user put there.
pub fn own_builds_in(temp: &Path) -> io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let user = nix::unistd::Uid::effective();
    // Root's builders pass through to the folders of their own uids, and list none.
    let mode = if user.is_root() { 0o711 } else { 0o700 };
    let folder = temp.join(own_builds_name(user.as_raw()));
    match std::fs::DirBuilder::new().mode(0o700).create(&folder) {
        Ok(()) => std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(mode))?,
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
        Err(error) => return Err(error),
    }
    let found = std::fs::symlink_metadata(&folder)?;
    if !found.is_dir() || found.uid() != user.as_raw() || found.mode() & 0o7777 != mode {
        return Err(io::Error::other(format!(
            "{} is not a folder of this user's alone (uid {}, mode {:o}; it should be uid {user}, mode {mode:o}), so another user may have made it or written in it: remove it, or set {TARGET_DIR_ENV}",
            folder.display(),
            found.uid(),
            found.mode() & 0o7777,
        )));
    }
    Ok(folder)
}

/// The first folder above `path` that other users cannot pass through, if there is one.
pub fn closed_to_others(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .skip(1)
        .find(|dir| !std::fs::metadata(dir).is_ok_and(|m| m.mode() & 0o001 != 0))
        .map(Path::to_path_buf)
}

pub fn shared_api(shared: &Path) -> PathBuf {
    shared.join(format!("grader-api-{:016x}", api_digest()))
}

/// A hash of grader-api as embedded in the grader: what every build compiles.
fn api_digest() -> u64 {
    let mut content = String::from(API_MANIFEST);
    for (path, text) in API_FILES {
        content.push_str(path);
        content.push_str(text);
    }
    stable_hash(&content)
}

pub fn stable_hash(value: &(impl std::hash::Hash + ?Sized)) -> u64 {
    use std::hash::{DefaultHasher, Hasher};
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// Who runs a build. Never root: root's owner bits alone would let a build script read
/// what no other user may (`/etc/shadow`), whatever else fences it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builder {
    /// A uid of the build folder's own, when the grader is root.
    Unprivileged(u32),
    /// The grader's own user, which is not root.
    Grader,
}

impl Builder {
    /// Who builds in `layout`, or why no user but root could: a folder the build needs
    /// that other users cannot reach, said with the fix. `toolchain` is where cargo and
    /// rustup are, which the build reaches where they are unless the sandbox mounts them.
    pub fn for_layout(
        sandbox: &Sandbox,
        layout: &Layout,
        toolchain: &[PathBuf],
    ) -> Result<Builder, String> {
        let layers = sandbox.layers();
        if !layers.root {
            return Ok(Builder::Grader);
        }
        for folder in [&layout.folder, &layout.api] {
            if let Some(closed) = closed_to_others(folder) {
                return Err(format!(
                    "builds run as an unprivileged user, who cannot reach {} through {}: run `chmod o+x {}`, or set {TARGET_DIR_ENV} to a folder under one every user can pass through (such as /tmp)",
                    folder.display(),
                    closed.display(),
                    closed.display()
                ));
            }
        }
        if !layers.mount_namespace {
            for home in toolchain {
                let closed = closed_to_others(home).or_else(|| {
                    let open = std::fs::metadata(home).is_ok_and(|m| m.mode() & 0o005 == 0o005);
                    (!open).then(|| home.clone())
                });
                if let Some(closed) = closed {
                    return Err(format!(
                        "builds run as an unprivileged user, who cannot reach the Rust toolchain at {} (closed at {}), and without a mount namespace it cannot be mounted where they can: install it where every user can read it (CARGO_HOME and RUSTUP_HOME under /opt, as the Gradescope package's setup.sh does)",
                        home.display(),
                        closed.display()
                    ));
                }
            }
        }
        // Above the runners' uids: a build and a runner never share one.
        Ok(Builder::Unprivileged(
            1_500_000_000 + (stable_hash(&layout.folder) % 1_000_000_000) as u32,
        ))
    }

    /// The uid the build switches to, when the grader is root.
    pub fn uid(self) -> u32 {
        match self {
            Builder::Unprivileged(uid) => uid,
            Builder::Grader => 0,
        }
    }

    /// Who owns what the build writes, when the grader must hand it over.
    pub fn owner(self) -> Option<u32> {
        match self {
            Builder::Unprivileged(uid) => Some(uid),
            Builder::Grader => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graders_of_two_users_have_two_builds_folders_named_for_the_grader_version() {
        let (one, other) = (own_builds_name(1000), own_builds_name(1001));
        assert_ne!(one, other);
        for (name, uid) in [(one, 1000), (other, 1001)] {
            let version = format!("-{uid}-{}-", env!("CARGO_PKG_VERSION"));
            assert!(
                name.starts_with("cardgrade-builds-") && name.contains(&version),
                "{name}"
            );
        }
    }

    #[test]
    fn an_own_builds_folder_that_is_not_this_users_alone_is_refused() {
        let temp = crate::temp::folder("test-builds").unwrap();
        let folder = own_builds_in(temp.path()).unwrap();
        let root = nix::unistd::Uid::effective().is_root();
        let mode = |path: &Path| std::fs::metadata(path).unwrap().mode() & 0o7777;
        assert_eq!(mode(&folder), if root { 0o711 } else { 0o700 });
        assert_eq!(own_builds_in(temp.path()).unwrap(), folder, "found again");
        let refused = |why: &str| {
            let error = own_builds_in(temp.path()).unwrap_err().to_string();
            assert!(
                error.contains("not a folder of this user's alone"),
                "{why}: {error}"
            );
        };
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o777)).unwrap();
        refused("written by anyone");
        std::fs::remove_dir(&folder).unwrap();
        std::os::unix::fs::symlink(temp.path(), &folder).unwrap();
        refused("a link");
        std::fs::remove_file(&folder).unwrap();
        if root {
            own_builds_in(temp.path()).unwrap();
            std::os::unix::fs::chown(&folder, Some(4321), None).unwrap();
            refused("another user's");
        }
    }
}
