//! Zip archives, through the `zip` crate: the Gradescope package written (deflated, with a
//! valid fixed date so that packaging the same grader twice gives the same bytes), and a
//! student's uploaded zip unpacked without trusting anything in it.

use std::collections::hash_map::{self, HashMap};
use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipArchive, ZipWriter};

/// A file of the archive: its path inside, its bytes, and whether it is executable.
pub struct Entry {
    pub path: String,
    pub bytes: Vec<u8>,
    pub executable: bool,
}

/// The archive holding `entries`, in order, each deflated and dated 1980-01-01 (the
/// earliest date zip can hold; a clock's date would make every package differ).
pub fn archive(entries: &[Entry]) -> Result<Vec<u8>, zip::result::ZipError> {
    let mut writer = ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for entry in entries {
        let options = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Deflated)
            .last_modified_time(DateTime::default())
            .unix_permissions(if entry.executable { 0o755 } else { 0o644 })
            .large_file(entry.bytes.len() as u64 >= u64::from(u32::MAX));
        writer.start_file(entry.path.as_str(), options)?;
        writer.write_all(&entry.bytes)?;
    }
    Ok(writer.finish()?.into_inner())
}

/// How much of an archive is unpacked before it is refused.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Files and folders made in all, a folder that only holds others included.
    pub entries: usize,
    /// Bytes written in all, counted as they are inflated, not as the archive claims, and
    /// [`FOLDER_BYTES`] for each folder made.
    pub bytes: u64,
}

/// A student's upload: as much as `grader check` copies of a crate, with room for what
/// it would skip (a `target/` folder).
pub const UPLOAD_LIMITS: Limits = Limits {
    entries: 10_000,
    bytes: 200_000_000,
};

/// What a folder costs against [`Limits::bytes`], as against a build's copy: a zip names a
/// folder in a few bytes (each `a/` of a deep path is one), so without this 207 KB of
/// names unpacked to 50,000 empty folders and 196 MB.
pub use crate::compile::FOLDER_BYTES;

/// Why an archive was not unpacked.
#[derive(Debug, thiserror::Error)]
pub enum UnpackError {
    #[error("{0} cannot be read: {1}")]
    Unreadable(PathBuf, std::io::Error),
    #[error("{0} is not a zip archive that can be read: {1}")]
    NotAZip(PathBuf, zip::result::ZipError),
    #[error("{path} makes more than {limit} files and folders, the most allowed")]
    TooManyEntries { path: PathBuf, limit: usize },
    #[error("{path} unpacks to more than {} MB, the most allowed", .limit / 1_000_000)]
    TooLarge { path: PathBuf, limit: u64 },
    #[error("{path}: entry `{name}` would be written outside the folder it is unpacked in")]
    Outside { path: PathBuf, name: String },
    #[error("{path}: entry `{name}` is a symbolic link or a special file, which is refused")]
    NotAFile { path: PathBuf, name: String },
    #[error("{path}: entry `{name}` is there twice, which is refused")]
    Twice { path: PathBuf, name: String },
    /// The zip crate keeps one entry of a name listed twice, the last, and cannot say
    /// which name it was.
    #[error("{path} lists an entry name twice, which is refused")]
    NameListedTwice { path: PathBuf },
    /// A file and a folder at one path: `a` a file and `a/b` under it, in either order.
    #[error(
        "{path}: entry `{name}` makes a file and a folder of one path with another, which is refused"
    )]
    FileAndFolder { path: PathBuf, name: String },
    #[error("{path}: entry `{name}` cannot be unpacked: {reason}")]
    Entry {
        path: PathBuf,
        name: String,
        reason: String,
    },
    #[error("cannot write {0}: {1}")]
    Write(PathBuf, std::io::Error),
}

/// Unpacks the zip at `path` into `into`, a folder that must not exist yet: regular files
/// and folders only, every path inside `into`, no path twice, within `limits`. Returns how
/// many files it wrote. What the archive would make is worked out from its names first,
/// so an archive over its limits is refused before anything is written; a refused archive
/// is refused whole: `into` is removed.
pub fn unpack(path: &Path, into: &Path, limits: Limits) -> Result<usize, UnpackError> {
    let file = std::fs::File::open(path).map_err(|e| UnpackError::Unreadable(path.into(), e))?;
    let mut archive =
        ZipArchive::new(file).map_err(|e| UnpackError::NotAZip(path.to_path_buf(), e))?;
    let plan = plan(&archive, path, limits)?;
    // A folder of ours, made now: nothing in it can be a link planted beforehand, and
    // removing it on refusal removes nothing of anyone else's.
    std::fs::create_dir(into).map_err(|e| UnpackError::Write(into.to_path_buf(), e))?;
    let unpacked = write_plan(&mut archive, &plan, (path, into), limits);
    if unpacked.is_err() {
        let _ = std::fs::remove_dir_all(into);
    }
    unpacked
}

/// What an archive makes: each entry to write, in the archive's order, and the folders
/// made in all.
struct Plan {
    entries: Vec<Planned>,
    folders: usize,
}

/// An entry of the archive and where it goes, relative to the folder it is unpacked in.
enum Planned {
    Folder(PathBuf),
    File { index: usize, relative: PathBuf },
}

/// Reads every entry's name and kind, and counts what unpacking would make, each folder
/// once though many paths pass through it: refuses a path outside, a link or a special
/// file, a path twice, and an archive past `limits` by its files and folders, or by the
/// sizes its entries claim (the bytes actually written are counted again as they are).
fn plan(
    archive: &ZipArchive<std::fs::File>,
    path: &Path,
    limits: Limits,
) -> Result<Plan, UnpackError> {
    let too_many = || UnpackError::TooManyEntries {
        path: path.to_path_buf(),
        limit: limits.entries,
    };
    let too_large = || UnpackError::TooLarge {
        path: path.to_path_buf(),
        limit: limits.bytes,
    };
    if archive.len() > limits.entries {
        return Err(too_many());
    }
    if archive.has_duplicate_names() {
        return Err(UnpackError::NameListedTwice {
            path: path.to_path_buf(),
        });
    }
    let mut tree = Tree::default();
    let mut entries = Vec::with_capacity(archive.len());
    let mut claimed: u64 = 0;
    for index in 0..archive.len() {
        let entry = archive
            .by_index_data(index)
            .map_err(|e| UnpackError::NotAZip(path.to_path_buf(), e))?;
        let name = entry
            .name()
            .map_or_else(|_| "?".to_string(), |name| name.into_owned());
        let Some(relative) = entry.enclosed_name() else {
            return Err(UnpackError::Outside {
                path: path.to_path_buf(),
                name,
            });
        };
        let kind = entry.unix_mode().map(|mode| mode & 0o170_000);
        let placed = if entry.is_dir() {
            tree.folder(&relative).map(|()| Planned::Folder(relative))
        } else if entry.is_symlink() || kind.is_some_and(|kind| kind != 0 && kind != 0o100_000) {
            return Err(UnpackError::NotAFile {
                path: path.to_path_buf(),
                name,
            });
        } else {
            claimed = claimed.saturating_add(entry.size());
            tree.file(&relative)
                .map(|()| Planned::File { index, relative })
        };
        entries.push(placed.map_err(|clash| clash.error(path, name))?);
        if tree.folders + tree.files > limits.entries {
            return Err(too_many());
        }
        if claimed.saturating_add(tree.folders as u64 * FOLDER_BYTES) > limits.bytes {
            return Err(too_large());
        }
    }
    Ok(Plan {
        entries,
        folders: tree.folders,
    })
}

/// Writes what `plan` says, counting the bytes as they are inflated.
fn write_plan(
    archive: &mut ZipArchive<std::fs::File>,
    plan: &Plan,
    (path, into): (&Path, &Path),
    limits: Limits,
) -> Result<usize, UnpackError> {
    let folder_bytes = plan.folders as u64 * FOLDER_BYTES;
    let mut written: u64 = 0;
    let mut files = 0;
    for planned in &plan.entries {
        let (index, relative) = match planned {
            Planned::Folder(relative) => {
                let target = into.join(relative);
                std::fs::create_dir_all(&target).map_err(|e| UnpackError::Write(target, e))?;
                continue;
            }
            Planned::File { index, relative } => (*index, relative),
        };
        let mut entry = archive
            .by_index(index)
            .map_err(|e| UnpackError::NotAZip(path.to_path_buf(), e))?;
        let target = into.join(relative);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| UnpackError::Write(parent.to_path_buf(), e))?;
        }
        // create_new: the plan holds each path once, and nothing is written over.
        let mut out = std::fs::File::create_new(&target)
            .map_err(|e| UnpackError::Write(target.clone(), e))?;
        let room = limits.bytes.saturating_sub(folder_bytes + written);
        let copied = std::io::copy(&mut (&mut entry).take(room + 1), &mut out).map_err(|e| {
            UnpackError::Entry {
                path: path.to_path_buf(),
                name: relative.display().to_string(),
                reason: e.to_string(),
            }
        })?;
        if copied > room {
            return Err(UnpackError::TooLarge {
                path: path.to_path_buf(),
                limit: limits.bytes,
            });
        }
        written += copied;
        files += 1;
    }
    Ok(files)
}

/// The files and folders an archive's paths make, each once: a node per name within its
/// folder, so a deep path costs its names once, however many paths pass through it.
#[derive(Default)]
struct Tree {
    /// Each node by its folder (0 for the top, else the folder's number) and its name.
    nodes: HashMap<(usize, OsString), Node>,
    folders: usize,
    files: usize,
}

#[derive(Clone, Copy)]
enum Node {
    /// A folder and its number.
    Folder(usize),
    File,
}

/// Why a path cannot be made beside the others.
enum Clash {
    Twice,
    FileAndFolder,
    /// A file entry whose path is the folder unpacked in itself (`.`).
    Nameless,
}

impl Clash {
    fn error(self, path: &Path, name: String) -> UnpackError {
        let path = path.to_path_buf();
        match self {
            Clash::Twice => UnpackError::Twice { path, name },
            Clash::FileAndFolder => UnpackError::FileAndFolder { path, name },
            Clash::Nameless => UnpackError::Entry {
                path,
                name,
                reason: "it names no file".into(),
            },
        }
    }
}

impl Tree {
    /// The folder at `relative`, and every folder above it, made where not yet made: its
    /// number.
    fn folders_to(&mut self, relative: &Path) -> Result<usize, Clash> {
        let mut parent = 0;
        for name in relative.iter() {
            let next = self.folders + 1;
            parent = match self.nodes.entry((parent, name.to_os_string())) {
                hash_map::Entry::Occupied(node) => match node.get() {
                    Node::Folder(number) => *number,
                    Node::File => return Err(Clash::FileAndFolder),
                },
                hash_map::Entry::Vacant(slot) => {
                    slot.insert(Node::Folder(next));
                    self.folders = next;
                    next
                }
            };
        }
        Ok(parent)
    }

    /// A folder entry: the folder and those above it. A folder named again is no clash.
    fn folder(&mut self, relative: &Path) -> Result<(), Clash> {
        self.folders_to(relative).map(drop)
    }

    /// A file entry, and the folders above it.
    fn file(&mut self, relative: &Path) -> Result<(), Clash> {
        let (Some(parent), Some(name)) = (relative.parent(), relative.file_name()) else {
            return Err(Clash::Nameless);
        };
        let folder = self.folders_to(parent)?;
        match self.nodes.entry((folder, name.to_os_string())) {
            hash_map::Entry::Occupied(node) => Err(match node.get() {
                Node::File => Clash::Twice,
                Node::Folder(_) => Clash::FileAndFolder,
            }),
            hash_map::Entry::Vacant(slot) => {
                slot.insert(Node::File);
                self.files += 1;
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> tempfile::TempDir {
        crate::temp::folder(&format!("test-zip-{name}")).unwrap()
    }

    /// An upload holding `files` by name, and `links` (name, target) as symbolic links,
    /// written with the zip crate's raw options, as a hostile upload would be.
    fn upload(dir: &Path, files: &[(&str, &[u8])], links: &[(&str, &str)]) -> PathBuf {
        let path = dir.join("upload.zip");
        let mut writer = ZipWriter::new(std::fs::File::create(&path).unwrap());
        for (name, bytes) in files {
            writer
                .start_file(*name, SimpleFileOptions::default())
                .unwrap();
            writer.write_all(bytes).unwrap();
        }
        for (name, target) in links {
            writer
                .add_symlink(*name, *target, SimpleFileOptions::default())
                .unwrap();
        }
        writer.finish().unwrap();
        path
    }

    #[test]
    fn an_archive_reads_back_with_its_files_modes_and_a_valid_date() {
        let zip = archive(&[
            Entry {
                path: "run".into(),
                bytes: b"#!/bin/sh\n".repeat(100),
                executable: true,
            },
            Entry {
                path: "a/b.txt".into(),
                bytes: b"hi".to_vec(),
                executable: false,
            },
        ])
        .unwrap();
        let mut read = ZipArchive::new(std::io::Cursor::new(zip)).unwrap();
        let run = read.by_name("run").unwrap();
        assert_eq!(run.compression(), CompressionMethod::Deflated);
        assert!(run.compressed_size() < run.size(), "deflated");
        assert_eq!(run.unix_mode().map(|m| m & 0o777), Some(0o755));
        let date = run.last_modified().unwrap();
        assert!((1..=12).contains(&date.month()) && (1..=31).contains(&date.day()));
        drop(run);
        let mut text = String::new();
        read.by_name("a/b.txt")
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "hi");
    }

    #[test]
    fn an_upload_unpacks_its_files_inside_the_folder() {
        let folder = scratch("good");
        let dir = folder.path();
        let zip = upload(dir, &[("crate/src/lib.rs", b"pub fn f() {}")], &[]);
        let into = dir.join("out");
        assert_eq!(unpack(&zip, &into, UPLOAD_LIMITS).unwrap(), 1);
        assert_eq!(
            std::fs::read_to_string(into.join("crate/src/lib.rs")).unwrap(),
            "pub fn f() {}"
        );
    }

    #[test]
    fn an_upload_reaching_outside_holding_a_link_or_too_much_is_refused() {
        let folder = scratch("bad");
        let dir = folder.path();
        let refused = |files: &[(&str, &[u8])], links: &[(&str, &str)], limits: Limits| {
            let zip = upload(dir, files, links);
            let into = dir.join("out");
            let _ = std::fs::remove_dir_all(&into);
            unpack(&zip, &into, limits).unwrap_err()
        };
        let outside = refused(
            &[("first.txt", b"x"), ("../escaped.txt", b"x")],
            &[],
            UPLOAD_LIMITS,
        );
        assert!(matches!(outside, UnpackError::Outside { .. }), "{outside}");
        assert!(!dir.join("escaped.txt").exists());
        assert!(
            !dir.join("out").exists(),
            "what was unpacked before is removed"
        );
        // An absolute name is taken as relative to the folder, as unzip does.
        let absolute = format!("{}/absolute.txt", dir.display());
        let zip = upload(dir, &[(absolute.as_str(), b"x")], &[]);
        let into = dir.join("out");
        let _ = std::fs::remove_dir_all(&into);
        unpack(&zip, &into, UPLOAD_LIMITS).unwrap();
        assert!(!dir.join("absolute.txt").exists());
        assert!(into.join(absolute.trim_start_matches('/')).is_file());
        let link = refused(&[], &[("secret", "/etc/shadow")], UPLOAD_LIMITS);
        assert!(matches!(link, UnpackError::NotAFile { .. }), "{link}");
        assert!(link.to_string().contains("`secret`"), "{link}");
        let small = Limits {
            entries: 2,
            bytes: 10,
        };
        let many = refused(&[("a", b""), ("b", b""), ("c", b"")], &[], small);
        assert!(matches!(many, UnpackError::TooManyEntries { .. }), "{many}");
        let large = refused(&[("a", b"123456"), ("b", b"123456")], &[], small);
        assert!(matches!(large, UnpackError::TooLarge { .. }), "{large}");
        let twice = refused(&[("a", b"1"), ("./a", b"2")], &[], UPLOAD_LIMITS);
        assert!(matches!(twice, UnpackError::Twice { .. }), "{twice}");
        let existing = dir.join("existing");
        std::fs::create_dir_all(&existing).unwrap();
        let zip = upload(dir, &[("a", b"1")], &[]);
        let error = unpack(&zip, &existing, UPLOAD_LIMITS).unwrap_err();
        assert!(matches!(error, UnpackError::Write(..)), "{error}");
        assert!(existing.is_dir(), "a folder that was there is kept");
        let not_zip = dir.join("not.zip");
        std::fs::write(&not_zip, "hello").unwrap();
        let into = dir.join("out2");
        let error = unpack(&not_zip, &into, UPLOAD_LIMITS).unwrap_err();
        assert!(matches!(error, UnpackError::NotAZip(..)), "{error}");
    }

    /// An upload of `folders` (each a path of folders) and `files` by name, each empty.
    fn upload_of_folders(dir: &Path, folders: &[String], files: &[&str]) -> PathBuf {
        let path = dir.join("folders.zip");
        let mut writer = ZipWriter::new(std::fs::File::create(&path).unwrap());
        for folder in folders {
            writer
                .add_directory(folder.as_str(), SimpleFileOptions::default())
                .unwrap();
        }
        for file in files {
            writer
                .start_file(*file, SimpleFileOptions::default())
                .unwrap();
        }
        writer.finish().unwrap();
        path
    }

    #[test]
    fn a_bomb_of_nested_folders_is_refused_before_a_folder_is_made() {
        let folder = scratch("folder-bomb");
        let dir = folder.path();
        // 50 entries of 1,000 nested folders each (paths short enough to be made): 50,000
        // folders from 200 KB of names.
        let deep = "a/".repeat(1_000);
        let folders: Vec<String> = (0..50).map(|n| format!("{n}/{deep}")).collect();
        let zip = upload_of_folders(dir, &folders, &[]);
        assert!(std::fs::metadata(&zip).unwrap().len() < 300_000);
        let into = dir.join("out");
        let started = std::time::Instant::now();
        let error = unpack(&zip, &into, UPLOAD_LIMITS).unwrap_err();
        assert!(
            matches!(error, UnpackError::TooManyEntries { .. }),
            "{error}"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        assert!(!into.exists(), "nothing was made");
    }

    #[test]
    fn folders_count_against_the_entries_and_bytes_of_an_upload() {
        let folder = scratch("folders-count");
        let dir = folder.path();
        let folders = ["x/".to_string(), "y/z/".to_string()];
        let into = dir.join("out");
        // x, y and y/z are three folders, and a.rs one file: four entries.
        let zip = upload_of_folders(dir, &folders, &["y/z/a.rs"]);
        let four = Limits {
            entries: 4,
            bytes: 4 * FOLDER_BYTES,
        };
        assert_eq!(unpack(&zip, &into, four).unwrap(), 1);
        assert!(into.join("y/z/a.rs").is_file() && into.join("x").is_dir());
        std::fs::remove_dir_all(&into).unwrap();
        let three = Limits { entries: 3, ..four };
        let error = unpack(&zip, &into, three).unwrap_err();
        assert!(
            matches!(error, UnpackError::TooManyEntries { .. }),
            "{error}"
        );
        let small = Limits {
            entries: 10,
            bytes: 3 * FOLDER_BYTES - 1,
        };
        let error = unpack(&zip, &into, small).unwrap_err();
        assert!(matches!(error, UnpackError::TooLarge { .. }), "{error}");
        assert!(!into.exists());
    }

    #[test]
    fn a_name_listed_twice_or_a_file_where_a_folder_goes_is_refused() {
        let folder = scratch("twice");
        let dir = folder.path();
        // Two entries of names alike in length, then made one name, as a hostile zip is.
        let zip = upload(
            dir,
            &[("src/lib.rs", b"first"), ("src/lib.RS", b"later")],
            &[],
        );
        let mut bytes = std::fs::read(&zip).unwrap();
        let mut renamed = 0;
        for at in 0..bytes.len() - 10 {
            if &bytes[at..at + 10] == b"src/lib.RS" {
                bytes[at + 8..at + 10].copy_from_slice(b"rs");
                renamed += 1;
            }
        }
        assert_eq!(
            renamed, 2,
            "in its local header and in the central directory"
        );
        std::fs::write(&zip, bytes).unwrap();
        let into = dir.join("out");
        let error = unpack(&zip, &into, UPLOAD_LIMITS).unwrap_err();
        assert!(
            matches!(error, UnpackError::NameListedTwice { .. }),
            "{error}"
        );
        assert!(!into.exists());
        let clash = upload(dir, &[("a", b"file"), ("a/b", b"under a file")], &[]);
        let error = unpack(&clash, &into, UPLOAD_LIMITS).unwrap_err();
        assert!(
            matches!(error, UnpackError::FileAndFolder { .. }),
            "{error}"
        );
        assert!(error.to_string().contains("`a/b`"), "{error}");
    }
}
