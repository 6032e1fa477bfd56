//! The runner as the build left it. Every process of the build writes where the runner
//! lies, so the grader takes it only as a regular file that the build's own user made at
//! the one path the runner crate links to, opened without following any link, and copies
//! from the very descriptor it checked: a link or a file of anyone else's put there by a
//! build script is refused, never followed or run.

use std::fs::File;
use std::os::fd::AsFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

use nix::errno::Errno;
use nix::fcntl::{OFlag, openat};
use nix::sys::stat::Mode;

use super::error::BuildError;
use super::layout::{Builder, Layout};

/// Where cargo puts the runner inside its target folder.
const PROFILE_FOLDER: &str = "release";

/// Opens the runner the build made in `layout`, checked as a regular file of `builder`'s.
pub fn take(layout: &Layout, builder: Builder) -> Result<File, BuildError> {
    let shown = Path::new("target")
        .join(PROFILE_FOLDER)
        .join(&layout.bin_name);
    let refused = |why: &str| BuildError::RunnerRefused(format!("{}: {why}", shown.display()));
    let no_follow = OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    // The target folder's own entry lies in a folder of the grader's, where no build writes.
    let target = File::options()
        .read(true)
        .custom_flags((no_follow | OFlag::O_DIRECTORY).bits())
        .open(&layout.target)
        .map_err(|error| refused(&format!("its target folder cannot be opened ({error})")))?;
    let open = |dir: &dyn AsFd, name: &str, flags: OFlag| {
        openat(
            dir,
            name,
            flags | no_follow | OFlag::O_RDONLY,
            Mode::empty(),
        )
        .map_err(|errno| {
            refused(&match errno {
                Errno::ELOOP | Errno::ENOTDIR => {
                    format!("`{name}` is a symbolic link, which the grader never follows")
                }
                Errno::ENOENT => format!("`{name}` is missing"),
                other => format!("`{name}` cannot be opened ({})", other.desc()),
            })
        })
    };
    let profile = open(&target, PROFILE_FOLDER, OFlag::O_DIRECTORY)?;
    // Non-blocking: a FIFO put in its place must not hang the grader before it is refused.
    let runner = File::from(open(&profile, &layout.bin_name, OFlag::O_NONBLOCK)?);
    let metadata = runner
        .metadata()
        .map_err(|error| refused(&format!("it cannot be examined ({error})")))?;
    if !metadata.is_file() {
        return Err(refused("it is not a regular file"));
    }
    let expected = builder
        .owner()
        .unwrap_or_else(|| nix::unistd::Uid::effective().as_raw());
    if metadata.uid() != expected {
        return Err(refused(&format!(
            "it belongs to uid {}, not to the build's uid {expected}: a link to a file the build did not make",
            metadata.uid()
        )));
    }
    Ok(runner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn scratch(name: &str) -> tempfile::TempDir {
        let dir = crate::temp::folder(&format!("test-artifact-{name}")).unwrap();
        std::fs::create_dir_all(dir.path().join("target").join(PROFILE_FOLDER)).unwrap();
        dir
    }

    fn layout(dir: &Path) -> Layout {
        Layout::new(dir.to_path_buf(), None, "cardgrade-runner-x".into())
    }

    fn runner_path(dir: &Path) -> PathBuf {
        dir.join("target")
            .join(PROFILE_FOLDER)
            .join("cardgrade-runner-x")
    }

    fn refusal(dir: &Path) -> String {
        match take(&layout(dir), Builder::Grader) {
            Ok(_) => panic!("{} was taken", runner_path(dir).display()),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn a_regular_file_of_the_builds_user_is_taken() {
        let folder = scratch("regular");
        let dir = folder.path();
        std::fs::write(runner_path(dir), b"the runner").unwrap();
        let mut taken = take(&layout(dir), Builder::Grader).unwrap();
        let mut bytes = String::new();
        std::io::Read::read_to_string(&mut taken, &mut bytes).unwrap();
        assert_eq!(bytes, "the runner");
    }

    #[test]
    fn a_link_in_place_of_the_runner_or_its_folder_is_refused() {
        let folder = scratch("link");
        let dir = folder.path();
        let decoy = dir.join("decoy");
        std::fs::write(&decoy, b"someone else's runner").unwrap();
        std::os::unix::fs::symlink(&decoy, runner_path(dir)).unwrap();
        let said = refusal(dir);
        assert!(said.contains("is a symbolic link"), "{said}");
        assert!(said.contains("cardgrade-runner-x"), "{said}");

        let release = dir.join("target").join(PROFILE_FOLDER);
        std::fs::remove_dir_all(&release).unwrap();
        std::fs::create_dir(dir.join("elsewhere")).unwrap();
        std::fs::write(dir.join("elsewhere/cardgrade-runner-x"), b"x").unwrap();
        std::os::unix::fs::symlink(dir.join("elsewhere"), &release).unwrap();
        let said = refusal(dir);
        assert!(said.contains("`release` is a symbolic link"), "{said}");
    }

    #[test]
    fn a_fifo_or_a_folder_in_place_of_the_runner_is_refused_at_once() {
        let folder = scratch("fifo");
        let dir = folder.path();
        nix::unistd::mkfifo(&runner_path(dir), Mode::S_IRWXU).unwrap();
        assert!(refusal(dir).contains("not a regular file"));
        std::fs::remove_file(runner_path(dir)).unwrap();
        std::fs::create_dir(runner_path(dir)).unwrap();
        assert!(refusal(dir).contains("not a regular file"));
    }

    #[test]
    fn a_hard_link_to_a_file_of_another_user_is_refused() {
        if !nix::unistd::Uid::effective().is_root() {
            // Only root can give a file away, and a build is another user only under root.
            return;
        }
        let folder = scratch("hard-link");
        let dir = folder.path();
        let decoy = dir.join("decoy");
        std::fs::write(&decoy, b"another build's runner").unwrap();
        std::os::unix::fs::chown(&decoy, Some(1_500_000_001), None).unwrap();
        std::fs::hard_link(&decoy, runner_path(dir)).unwrap();
        let said = refusal(dir);
        assert!(said.contains("belongs to uid 1500000001"), "{said}");
    }
}
