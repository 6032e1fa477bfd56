//! The submissions of a batch as staff get them: a folder of crates, a folder of
//! per-student zips, or one archive of the class as an LMS exports it (Canvas's "Download
//! Submissions", a zip of per-student zips; Gradescope's "Export Submissions", a folder per
//! submission). Archives are unpacked under the results folder, safely: no path outside,
//! no link, and limits on entries and bytes, counted as they are written.

use std::path::{Path, PathBuf};

use super::Submission;
use crate::zip::{Limits, UnpackError};

/// Where archives are unpacked, inside the batch's results folder.
const UNPACKED: &str = ".unpacked";

/// One student's zip: far more than a crate needs.
const STUDENT: Limits = Limits {
    entries: 10_000,
    bytes: 256 << 20,
};
/// A whole class's archive.
const CLASS: Limits = Limits {
    entries: 500_000,
    bytes: 16 << 30,
};

/// The submissions `path` holds, in name order: unpacked under `out` where they are zips.
pub fn submissions(path: &Path, out: &Path) -> Result<Vec<Submission>, String> {
    let unpacked = out.join(UNPACKED);
    let dir = if path.is_file() {
        let class = unpacked.join(".class");
        remove(&class)?;
        unpack(path, &class, CLASS).map_err(|e| e.to_string())?;
        inside_wrappers(class)
    } else {
        path.to_path_buf()
    };
    let entries =
        std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut found: Vec<Submission> = Vec::new();
    let mut left_out: Vec<String> = Vec::new();
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let submission = if kind.is_dir() {
            Submission {
                path: crate_in(&entry.path()),
                name,
            }
        } else if let Some(stem) = zip_stem(&name).filter(|_| kind.is_file()) {
            let into = unpacked.join(stem);
            remove(&into)?;
            if let Err(error) = unpack(&entry.path(), &into, STUDENT) {
                // The student stays in the gradebook, with nothing to build.
                eprintln!("warning: {error}; graded as a submission that is not a crate");
                remove(&into)?;
                std::fs::create_dir_all(&into)
                    .map_err(|e| format!("cannot make {}: {e}", into.display()))?;
            }
            Submission {
                path: crate_in(&into),
                name: stem.to_string(),
            }
        } else {
            left_out.push(name);
            continue;
        };
        if found.iter().any(|s| s.name == submission.name) {
            return Err(format!(
                "{} holds {} both as a folder and as a zip: keep one",
                dir.display(),
                submission.name
            ));
        }
        found.push(submission);
    }
    if !left_out.is_empty() {
        left_out.sort();
        eprintln!(
            "left out, being neither a folder nor a zip: {}",
            left_out.join(", ")
        );
    }
    if found.is_empty() {
        return Err(format!(
            "{} holds no submission: put each student's crate in a folder or a zip of its own",
            dir.display()
        ));
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(found)
}

/// `name` without its `.zip`, if it is a zip's name.
fn zip_stem(name: &str) -> Option<&str> {
    let stem = name.get(..name.len().checked_sub(4)?)?;
    name[stem.len()..]
        .eq_ignore_ascii_case(".zip")
        .then_some(stem)
        .filter(|stem| !stem.is_empty())
}

fn remove(dir: &Path) -> Result<(), String> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(format!("cannot remove {}: {e}", dir.display()))
        }
        _ => Ok(()),
    }
}

/// An export's folder of submissions, below the folders that only wrap it (Gradescope's
/// `assignment_N_export/`): a lone subfolder beside no zip and no crate.
fn inside_wrappers(mut dir: PathBuf) -> PathBuf {
    loop {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return dir;
        };
        let entries: Vec<_> = entries
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .collect();
        let folders: Vec<PathBuf> = entries
            .iter()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect();
        let has_zip = entries
            .iter()
            .any(|e| zip_stem(&e.file_name().to_string_lossy()).is_some());
        match folders.as_slice() {
            [only]
                if !has_zip
                    && !dir.join("Cargo.toml").exists()
                    && !only.join("Cargo.toml").exists() =>
            {
                dir = only.clone();
            }
            _ => return dir,
        }
    }
}

/// The crate in a student's folder: the shallowest folder holding a `Cargo.toml` (a zip
/// often wraps the crate in a folder of its name), or the folder itself if none does.
/// Links are not followed.
fn crate_in(folder: &Path) -> PathBuf {
    let mut level = vec![folder.to_path_buf()];
    // A crate deeper than this is not how anyone hands one in.
    for _ in 0..4 {
        if let Some(found) = level.iter().find(|dir| {
            std::fs::symlink_metadata(dir.join("Cargo.toml")).is_ok_and(|m| m.is_file())
        }) {
            return found.clone();
        }
        let mut next: Vec<PathBuf> = level
            .iter()
            .filter_map(|dir| std::fs::read_dir(dir).ok())
            .flat_map(|entries| entries.flatten())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()) && e.file_name() != "target")
            .map(|e| e.path())
            .collect();
        next.sort();
        level = next;
    }
    folder.to_path_buf()
}

/// Unpacks the zip `archive` into `into`, which must not exist yet, as a student's upload
/// to Gradescope is unpacked: no link, no path outside, no entry twice, within `limits`.
fn unpack(archive: &Path, into: &Path, limits: Limits) -> Result<(), UnpackError> {
    if let Some(parent) = into.parent() {
        std::fs::create_dir_all(parent).map_err(|e| UnpackError::Write(parent.to_path_buf(), e))?;
    }
    crate::zip::unpack(archive, into, limits).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Writes a zip of `files` (name, bytes) in a fresh folder named `test`; returns the
    /// zip's path and the folder it is to be unpacked into.
    fn zip_of(test: &str, files: &[(&str, &[u8])]) -> (PathBuf, PathBuf) {
        let dir =
            std::env::temp_dir().join(format!("cardgrade-intake-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("submission.zip");
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
        for (name, bytes) in files {
            zip.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(bytes).unwrap();
        }
        zip.finish().unwrap();
        (path, dir.join("unpacked"))
    }

    const ROOMY: Limits = Limits {
        entries: 10,
        bytes: 10_000,
    };

    #[test]
    fn a_zip_unpacks_into_its_folder() {
        let (zip, into) = zip_of(
            "plain",
            &[
                ("crate/Cargo.toml", b"[package]"),
                ("crate/src/lib.rs", b"pub fn f() {}"),
            ],
        );
        unpack(&zip, &into, ROOMY).unwrap();
        assert_eq!(
            std::fs::read_to_string(into.join("crate/src/lib.rs")).unwrap(),
            "pub fn f() {}"
        );
        assert_eq!(crate_in(&into), into.join("crate"));
    }

    #[test]
    fn zip_names_lose_their_extension_whatever_its_case() {
        assert_eq!(zip_stem("alice.zip"), Some("alice"));
        assert_eq!(
            zip_stem("smithjohn_123_456_crate.ZIP"),
            Some("smithjohn_123_456_crate")
        );
        assert_eq!(zip_stem(".zip"), None);
        assert_eq!(zip_stem("notes.txt"), None);
        assert_eq!(zip_stem("é.zip"), Some("é"));
    }
}
