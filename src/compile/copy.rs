//! Copies of folders that keep modification times, so cargo sees a copied file as
//! unchanged, and that hold no symbolic link: none can lead a build out of its folder.

use std::io;
use std::path::{Path, PathBuf};

/// What a copy may hold at most, so a submission cannot fill the disk through the grader.
pub struct Caps {
    pub files: usize,
    pub bytes: u64,
}

/// Why a folder was not copied.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error(
        "{0} is a symbolic link: cardgrade builds a crate of plain files and folders; put the file itself there"
    )]
    Link(PathBuf),
    #[error("it holds more than {files} files or {megabytes} MB")]
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
            copy_dir(root, to_root, &name, tree, copied)?;
        } else if kind.is_symlink() {
            return Err(CopyError::Link(name));
        } else if kind.is_file() {
            let metadata = entry.metadata()?;
            copied.0 += 1;
            copied.1 += metadata.len();
            if copied.0 > tree.caps.files || copied.1 > tree.caps.bytes {
                return Err(CopyError::TooLarge {
                    files: tree.caps.files,
                    megabytes: tree.caps.bytes / 1_000_000,
                });
            }
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
