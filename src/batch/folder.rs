//! The batch's folder (`--out`): the files the batch writes there beside each submission's
//! results, named where no results can land, and how they are written (so that a reader
//! sees all or nothing) and read back. Every step of a batch (grading, merging, the
//! gradebook, the class report, the exports) reads or writes it, so it is a floor below
//! them all.

use std::path::{Path, PathBuf};

use crate::student_text::StudentText;

/// The batch's own files in `--out`, beside each submission's results, `NAME.json` at the
/// top for any NAME a folder or zip of the class may have: so that no NAME can land on one
/// of them, none is a `.json` at the top (see `batch_files_are_where_no_results_can_be`).
pub const GRADEBOOK: &str = "gradebook.csv";
pub const REPORT: &str = "report.html";
/// The class's known mistakes, beside the gradebook.
pub const DIAGNOSIS: &str = "diagnosis.csv";
pub const LOG: &str = "batch.log";
/// What a batch (or a shard of one) set out to grade, and how: what `merge` and `export`
/// read. At the top, as `batch.json`, it was the results of a student named `batch`.
pub const MANIFEST: &str = "batch/manifest.json";

/// A submission of the class: its name and its folder.
pub struct Submission {
    /// Its folder's or zip's, as the student named it.
    pub name: StudentText,
    pub path: PathBuf,
}

/// The name of the results file of the submission `name`, in a batch's results folder.
pub fn results_file(name: &StudentText) -> String {
    format!("{}.json", name.raw_for_path())
}

pub fn results_path(out: &Path, name: &StudentText) -> PathBuf {
    out.join(results_file(name))
}

/// A submission's results, when a complete file of them is there.
pub fn results_of(out: &Path, submission: &Submission) -> Option<serde_json::Value> {
    results_named(out, &submission.name)
}

pub fn results_named(out: &Path, name: &StudentText) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(results_path(out, name)).ok()?;
    let results: serde_json::Value = serde_json::from_str(&text).ok()?;
    (results["schema"] == "cardgrade.results.v1").then_some(results)
}

pub fn append_log(out: &Path, line: &str) {
    use std::io::Write;
    let appended = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out.join(LOG))
        .and_then(|mut file| file.write_all(line.as_bytes()));
    if let Err(error) = appended {
        eprintln!("warning: cannot append to {LOG}: {error}");
    }
}

/// Each submission by name, with its results if it has them.
pub type Graded = Vec<(StudentText, Option<serde_json::Value>)>;

pub fn graded(out: &Path, names: &[StudentText]) -> Graded {
    names
        .iter()
        .map(|name| (name.clone(), results_named(out, name)))
        .collect()
}

/// Writes `text` to `out/name` (`name` may be in a folder of `out`) through a partial file
/// beside it, so a reader sees all or nothing.
pub fn write_atomically(out: &Path, name: &str, text: &str) -> Result<PathBuf, String> {
    let path = out.join(name);
    let (Some(folder), Some(file_name)) = (path.parent(), path.file_name()) else {
        return Err(format!(
            "cannot write {}: not a file's path",
            path.display()
        ));
    };
    let partial = folder.join(format!(
        ".{}.partial-{}",
        file_name.to_string_lossy(),
        std::process::id()
    ));
    std::fs::create_dir_all(folder)
        .and_then(|()| std::fs::write(&partial, text))
        .and_then(|()| std::fs::rename(&partial, &path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_files_are_where_no_results_can_be() {
        for file in [GRADEBOOK, REPORT, LOG, MANIFEST] {
            let at_top = !file.contains('/');
            assert!(
                !(at_top && file.to_lowercase().ends_with(".json")),
                "{file} could be the results of a submission named {}",
                file.trim_end_matches(".json")
            );
        }
    }
}
