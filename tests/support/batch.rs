//! A class graded by `grader batch`, as the tests of batches make and read it.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{copy_tree, grader_env, repo, scratch};

/// A class of `size` copies of the example student, and one folder that is not a crate.
pub fn class(name: &str, size: usize) -> PathBuf {
    let dir = scratch().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for student in 0..size {
        copy_tree(
            &repo().join("tests/fixtures/example-student"),
            &dir.join(format!("student-{student}")),
        );
    }
    std::fs::create_dir_all(dir.join("not-a-crate")).unwrap();
    std::fs::write(dir.join("not-a-crate/notes.txt"), "no Cargo.toml here").unwrap();
    dir
}

/// `grader batch CLASS --out OUT EXTRA -- CHECK`.
pub fn batch_checking(class: &Path, out: &Path, extra: &[&str], check: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
    grader_env(&mut command)
        .arg("batch")
        .arg(class)
        .arg("--out")
        .arg(out)
        .args(extra)
        .arg("--")
        .args(check);
    command
}

/// Runs `command`, which must succeed; its stderr.
pub fn succeeds(command: &mut Command) -> String {
    let run = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(run.status.success(), "{stderr}");
    stderr
}

/// The results of the submission `name` in the batch's folder `out`.
pub fn results(out: &Path, name: &str) -> serde_json::Value {
    let path = out.join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The rows of the batch's gradebook, its header first, each cell as a spreadsheet reads it.
pub fn gradebook(out: &Path) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_path(out.join("gradebook.csv"))
        .unwrap()
        .records()
        .map(|row| row.unwrap().iter().map(String::from).collect())
        .collect()
}
