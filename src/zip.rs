//! Zip archives, through the `zip` crate: the Gradescope package written (deflated, with a
//! valid fixed date so that packaging the same grader twice gives the same bytes), and a
//! student's uploaded zip unpacked without trusting anything in it.

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
    pub entries: usize,
    /// Bytes written in all, counted as they are inflated, not as the archive claims.
    pub bytes: u64,
}

/// A student's upload: as much as `grader check` copies of a crate, with room for what
/// it would skip (a `target/` folder).
pub const UPLOAD_LIMITS: Limits = Limits {
    entries: 10_000,
    bytes: 200_000_000,
};

/// Why an archive was not unpacked.
#[derive(Debug, thiserror::Error)]
pub enum UnpackError {
    #[error("{0} cannot be read: {1}")]
    Unreadable(PathBuf, std::io::Error),
    #[error("{0} is not a zip archive that can be read: {1}")]
    NotAZip(PathBuf, zip::result::ZipError),
    #[error("{path} holds {count} entries, more than the {limit} allowed")]
    TooManyEntries {
        path: PathBuf,
        count: usize,
        limit: usize,
    },
    #[error("{path} unpacks to more than {} MB, the most allowed", .limit / 1_000_000)]
    TooLarge { path: PathBuf, limit: u64 },
    #[error("{path}: entry `{name}` would be written outside the folder it is unpacked in")]
    Outside { path: PathBuf, name: String },
    #[error("{path}: entry `{name}` is a symbolic link or a special file, which is refused")]
    NotAFile { path: PathBuf, name: String },
    #[error("{path}: entry `{name}` is there twice, which is refused")]
    Twice { path: PathBuf, name: String },
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
/// and folders only, every path inside `into`, within `limits`. Returns how many files it
/// wrote. A refused archive is refused whole: `into` is removed.
pub fn unpack(path: &Path, into: &Path, limits: Limits) -> Result<usize, UnpackError> {
    // A folder of ours, made now: nothing in it can be a link planted beforehand, and
    // removing it on refusal removes nothing of anyone else's.
    std::fs::create_dir(into).map_err(|e| UnpackError::Write(into.to_path_buf(), e))?;
    let unpacked = unpack_into(path, into, limits);
    if unpacked.is_err() {
        let _ = std::fs::remove_dir_all(into);
    }
    unpacked
}

fn unpack_into(path: &Path, into: &Path, limits: Limits) -> Result<usize, UnpackError> {
    let file = std::fs::File::open(path).map_err(|e| UnpackError::Unreadable(path.into(), e))?;
    let mut archive =
        ZipArchive::new(file).map_err(|e| UnpackError::NotAZip(path.to_path_buf(), e))?;
    if archive.len() > limits.entries {
        return Err(UnpackError::TooManyEntries {
            path: path.to_path_buf(),
            count: archive.len(),
            limit: limits.entries,
        });
    }
    let mut written: u64 = 0;
    let mut files = 0;
    for index in 0..archive.len() {
        let mut entry = archive
            .by_index(index)
            .map_err(|e| UnpackError::NotAZip(path.to_path_buf(), e))?;
        let name = entry
            .name()
            .map_or_else(|_| "?".to_string(), |name| name.into_owned());
        let failed = |reason: String| UnpackError::Entry {
            path: path.to_path_buf(),
            name: name.clone(),
            reason,
        };
        let Some(relative) = entry.enclosed_name() else {
            return Err(UnpackError::Outside {
                path: path.to_path_buf(),
                name,
            });
        };
        let kind = entry.unix_mode().map(|mode| mode & 0o170_000);
        let target = into.join(&relative);
        if entry.is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| UnpackError::Write(target, e))?;
            continue;
        }
        if entry.is_symlink() || kind.is_some_and(|kind| kind != 0 && kind != 0o100_000) {
            return Err(UnpackError::NotAFile {
                path: path.to_path_buf(),
                name,
            });
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| UnpackError::Write(parent.to_path_buf(), e))?;
        }
        // create_new: an entry named twice is refused rather than written over.
        let mut out = std::fs::File::create_new(&target).map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => UnpackError::Twice {
                path: path.to_path_buf(),
                name: name.clone(),
            },
            _ => UnpackError::Write(target.clone(), e),
        })?;
        let room = limits.bytes - written;
        let copied = std::io::copy(&mut (&mut entry).take(room + 1), &mut out)
            .map_err(|e| failed(e.to_string()))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cardgrade-zip-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
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
        let dir = scratch("good");
        let zip = upload(&dir, &[("crate/src/lib.rs", b"pub fn f() {}")], &[]);
        let into = dir.join("out");
        assert_eq!(unpack(&zip, &into, UPLOAD_LIMITS).unwrap(), 1);
        assert_eq!(
            std::fs::read_to_string(into.join("crate/src/lib.rs")).unwrap(),
            "pub fn f() {}"
        );
    }

    #[test]
    fn an_upload_reaching_outside_holding_a_link_or_too_much_is_refused() {
        let dir = scratch("bad");
        let refused = |files: &[(&str, &[u8])], links: &[(&str, &str)], limits: Limits| {
            let zip = upload(&dir, files, links);
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
        let zip = upload(&dir, &[(absolute.as_str(), b"x")], &[]);
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
        assert!(
            matches!(many, UnpackError::TooManyEntries { count: 3, .. }),
            "{many}"
        );
        let large = refused(&[("a", b"123456"), ("b", b"123456")], &[], small);
        assert!(matches!(large, UnpackError::TooLarge { .. }), "{large}");
        let twice = refused(&[("a", b"1"), ("./a", b"2")], &[], UPLOAD_LIMITS);
        assert!(matches!(twice, UnpackError::Twice { .. }), "{twice}");
        let existing = dir.join("existing");
        std::fs::create_dir_all(&existing).unwrap();
        let zip = upload(&dir, &[("a", b"1")], &[]);
        let error = unpack(&zip, &existing, UPLOAD_LIMITS).unwrap_err();
        assert!(matches!(error, UnpackError::Write(..)), "{error}");
        assert!(existing.is_dir(), "a folder that was there is kept");
        let not_zip = dir.join("not.zip");
        std::fs::write(&not_zip, "hello").unwrap();
        let into = dir.join("out2");
        let error = unpack(&not_zip, &into, UPLOAD_LIMITS).unwrap_err();
        assert!(matches!(error, UnpackError::NotAZip(..)), "{error}");
    }
}
