//! The grader's temporary folders (`src/temp.rs`) are in its user's `TMPDIR` while it
//! grades, and gone when a grading ends, by a panic too.

mod support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// The entries of `folder` named as the grader names what it makes.
fn the_graders(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("cardgrade-"))
        .collect();
    names.sort();
    names
}

#[test]
fn a_grading_that_panics_in_the_grader_leaves_no_temporary_folder() {
    let temp = support::scratch().join("temp-folders-panic");
    let _ = std::fs::remove_dir_all(&temp);
    std::fs::create_dir_all(&temp).unwrap();
    // A report written to a full disk: libtest-mimic, which prints it, unwraps each write,
    // and so does `print!` for the score table, in the grader's main thread, with every
    // runner's folder still there.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let fixture = support::repo().join("tests/fixtures/example-student");
    let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
    let mut grader = support::grader_env(&mut command)
        .args(["check", fixture.to_str().unwrap(), "--color", "never"])
        .env("TMPDIR", &temp)
        .stdout(full)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = Pid::from_raw(i32::try_from(grader.id()).unwrap());
    let mut stderr = BufReader::new(grader.stderr.take().unwrap());
    let (mut said, mut line) = (String::new(), String::new());
    let mut while_grading = None;
    while stderr.read_line(&mut line).unwrap() > 0 {
        // Built, so its runner is started: held still while its folders are looked at.
        if line.contains("Built in") && while_grading.is_none() {
            kill(pid, Signal::SIGSTOP).unwrap();
            while_grading = Some(the_graders(&temp));
            kill(pid, Signal::SIGCONT).unwrap();
        }
        said.push_str(&line);
        line.clear();
    }
    let status = grader.wait().unwrap();
    // Should the grader come to bear a full disk, this test needs another panic.
    assert_eq!(status.code(), Some(101), "the grader panicked:\n{said}");
    assert!(said.contains("panicked"), "{said}");
    let while_grading = while_grading.unwrap_or_else(|| panic!("never built:\n{said}"));
    assert!(
        !while_grading.is_empty(),
        "a grading makes its folders in TMPDIR: {}",
        temp.display()
    );
    assert_eq!(
        the_graders(&temp),
        Vec::<String>::new(),
        "left behind by a panic; while grading there were {while_grading:?}"
    );
    let _ = std::fs::remove_dir_all(&temp);
}
