//! The grader's temporary folders. Each is made by `tempfile` in the temp folder (`$TMPDIR`,
//! else `/tmp`), the grader user's with mode 0700 and a random part in its name that no
//! one can guess and pre-create, and is removed when its guard drops, by a panic's
//! unwinding too. The builds folder is not one of them: it is a cache, kept on purpose
//! (`compile::builds_folder`).
//!
//! A grader that ends without unwinding (killed, or exiting at once when a grading is cut
//! short) cannot remove its folders, so their names begin `cardgrade-PID-`: the first
//! folder a later grader makes sweeps those whose grader is gone.

use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};

use tempfile::TempDir;

/// Random characters in a folder's name: 62^12 names, where `mkstemp`'s 6 give 62^6.
const RANDOM_CHARACTERS: usize = 12;

/// A new folder `cardgrade-PID-PURPOSE-RANDOM`, removed with everything in it when the
/// guard drops. `purpose` tells staff who look in `/tmp` what made it.
pub fn folder(purpose: &str) -> io::Result<TempDir> {
    static SWEPT: std::sync::Once = std::sync::Once::new();
    SWEPT.call_once(sweep_leftovers);
    tempfile::Builder::new()
        .prefix(&format!("cardgrade-{}-{purpose}-", std::process::id()))
        .rand_bytes(RANDOM_CHARACTERS)
        // tempfile's own default is 0777 less the umask: others could read what is made.
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
}

/// Removes the folders that this user's graders, gone without unwinding, left behind.
/// Another user's are left: where `/proc` hides other users' processes, a live grader's
/// would look like a dead one's.
fn sweep_leftovers() {
    let user = nix::unistd::Uid::effective().as_raw();
    crate::leftovers::sweep(
        &std::env::temp_dir(),
        |folder| match std::fs::symlink_metadata(folder) {
            Ok(found) if found.uid() == user => std::fs::remove_dir_all(folder),
            _ => Ok(()),
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_this_users_alone_named_for_its_grader_and_gone_when_dropped() {
        let made = folder("test").unwrap();
        let path = made.path().to_path_buf();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let prefix = format!("cardgrade-{}-test-", std::process::id());
        assert!(name.starts_with(&prefix), "{name}");
        assert_eq!(name.len(), prefix.len() + RANDOM_CHARACTERS, "{name}");
        let found = std::fs::symlink_metadata(&path).unwrap();
        assert!(found.is_dir());
        assert_eq!(found.uid(), nix::unistd::Uid::effective().as_raw());
        assert_eq!(found.permissions().mode() & 0o777, 0o700);
        let other = folder("test").unwrap();
        assert_ne!(other.path(), path, "two folders, two names");
        std::fs::write(path.join("file"), b"x").unwrap();
        drop(made);
        assert!(!path.exists(), "{} is left", path.display());
    }
}
