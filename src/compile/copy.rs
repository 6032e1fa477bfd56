//! Copies of folders that keep modification times, so cargo sees a copied file as
//! unchanged, and that hold no symbolic link: none can lead a build out of its folder.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// What a copy may hold at most, so a submission cannot fill the disk through the grader.
pub struct Caps {
    /// Files and folders.
    pub files: usize,
    /// Bytes, with [`FOLDER_BYTES`] for each folder.
    pub bytes: u64,
}

/// What a folder costs against [`Caps::bytes`]: the block of disk it takes once made, so
/// that a tree of empty folders counts for what it fills.
pub const FOLDER_BYTES: u64 = 4096;

/// Why a folder was not copied.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error(
        "{0} is a symbolic link: cardgrade builds a crate of plain files and folders; put the file itself there"
    )]
    Link(PathBuf),
    #[error("it holds more than {files} files and folders or {megabytes} MB")]
    TooLarge { files: usize, megabytes: u64 },
}

pub const UNCAPPED: Caps = Caps {
    files: usize::MAX,
    bytes: u64::MAX,
};

/// How to copy a folder.
pub struct Tree<'a> {
    /// Entries to leave out, by path relative to the folder copied.
    pub skip: &'a dyn Fn(&Path) -> bool,
    pub caps: Caps,
    /// Who owns what is created, when given.
    pub owner: Option<u32>,
    /// Files become hard links to the originals, which keep their owner: only for
    /// originals the new owner cannot write.
    pub link_files: bool,
}

/// Copies `from` into `to`, which must not exist.
pub fn copy_tree(from: &Path, to: &Path, tree: &Tree) -> Result<(), CopyError> {
    let mut copied = (0usize, 0u64);
    copy_dir(from, to, Path::new(""), tree, &mut copied)
}

fn copy_dir(
    root: &Path,
    to_root: &Path,
    relative: &Path,
    tree: &Tree,
    copied: &mut (usize, u64),
) -> Result<(), CopyError> {
    let from = root.join(relative);
    let to = to_root.join(relative);
    std::fs::create_dir(&to)?;
    chown(&to, tree.owner)?;
    for entry in std::fs::read_dir(&from)? {
        let entry = entry?;
        let name = relative.join(entry.file_name());
        if (tree.skip)(&name) {
            continue;
        }
        let kind = entry.file_type()?;
        let source = root.join(&name);
        let target = to_root.join(&name);
        if kind.is_dir() {
            count(copied, FOLDER_BYTES, &tree.caps)?;
            copy_dir(root, to_root, &name, tree, copied)?;
        } else if kind.is_symlink() {
            return Err(CopyError::Link(name));
        } else if kind.is_file() {
            let metadata = entry.metadata()?;
            count(copied, metadata.len(), &tree.caps)?;
            if tree.link_files {
                std::fs::hard_link(&source, &target)?;
                continue;
            }
            let mut original = open_regular(&source)?;
            let mut file = std::fs::File::create_new(&target)?;
            io::copy(&mut original, &mut file)?;
            file.set_permissions(metadata.permissions())?;
            file.set_modified(metadata.modified()?)?;
            chown(&target, tree.owner)?;
        }
    }
    let modified = std::fs::metadata(&from)?.modified()?;
    std::fs::File::open(&to)?.set_modified(modified)?;
    Ok(())
}

/// A digest of the tree at `root`: every folder and plain file by path, and each file's
/// contents and whether it may be executed. Two trees of one digest build alike; a link,
/// which no copy holds, is an error.
pub fn tree_digest(root: &Path) -> io::Result<u64> {
    let mut hasher = DefaultHasher::new();
    digest_dir(root, Path::new(""), &mut hasher)?;
    Ok(hasher.finish())
}

fn digest_dir(root: &Path, relative: &Path, hasher: &mut DefaultHasher) -> io::Result<()> {
    let mut entries = std::fs::read_dir(root.join(relative))?.collect::<io::Result<Vec<_>>>()?;
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let name = relative.join(entry.file_name());
        name.hash(hasher);
        if entry.file_type()?.is_dir() {
            digest_dir(root, &name, hasher)?;
            continue;
        }
        let mut file = open_regular(&root.join(&name))?;
        use std::os::unix::fs::PermissionsExt;
        (file.metadata()?.permissions().mode() & 0o111).hash(hasher);
        let mut contents = Vec::new();
        file.read_to_end(&mut contents)?;
        contents.hash(hasher);
    }
    // The end of a folder, so that a file just after it is not taken for one inside.
    "/".hash(hasher);
    Ok(())
}

/// Counts one more entry of `bytes` in `copied`, an error past `caps`.
fn count(copied: &mut (usize, u64), bytes: u64, caps: &Caps) -> Result<(), CopyError> {
    copied.0 += 1;
    copied.1 = copied.1.saturating_add(bytes);
    match copied.0 > caps.files || copied.1 > caps.bytes {
        true => Err(CopyError::TooLarge {
            files: caps.files,
            megabytes: caps.bytes / 1_000_000,
        }),
        false => Ok(()),
    }
}

/// Opens `path` to read only if it is a regular file: a link is not followed, and a FIFO
/// or a device, which could block or never end, is refused without being read.
pub fn open_regular(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let flags = nix::fcntl::OFlag::O_NOFOLLOW | nix::fcntl::OFlag::O_NONBLOCK;
    let file = std::fs::File::options()
        .read(true)
        .custom_flags(flags.bits())
        .open(path)?;
    use std::os::unix::fs::FileTypeExt;
    let kind = file.metadata()?.file_type();
    let what = if kind.is_file() {
        return Ok(file);
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_dir() {
        "a folder"
    } else {
        "a device"
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("it is {what}, not a plain file"),
    ))
}

fn chown(path: &Path, owner: Option<u32>) -> io::Result<()> {
    match owner {
        Some(uid) => std::os::unix::fs::lchown(path, Some(uid), Some(crate::sandbox::NOBODY)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_folders_count_against_a_copys_caps() {
        let folder = crate::temp::folder("test-copy").unwrap();
        let scratch = folder.path();
        let from = scratch.join("from");
        for n in 0..20 {
            std::fs::create_dir_all(from.join(format!("a/{n}"))).unwrap();
        }
        let tree = |files, bytes| Tree {
            skip: &|_| false,
            caps: Caps { files, bytes },
            owner: None,
            link_files: false,
        };
        let copied = copy_tree(&from, &scratch.join("by-count"), &tree(20, u64::MAX));
        assert!(
            matches!(copied, Err(CopyError::TooLarge { .. })),
            "{copied:?}"
        );
        let copied = copy_tree(
            &from,
            &scratch.join("by-size"),
            &tree(100, 20 * FOLDER_BYTES),
        );
        assert!(
            matches!(copied, Err(CopyError::TooLarge { .. })),
            "{copied:?}"
        );
        copy_tree(&from, &scratch.join("within"), &tree(21, 21 * FOLDER_BYTES)).unwrap();
    }
}
