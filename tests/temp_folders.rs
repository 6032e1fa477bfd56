//! The grader's temporary folders (`src/temp.rs`) are in its user's `TMPDIR` while it
//! grades, and gone when a grading ends, by a panic too; those of a grader killed outright
//! go with the next grading.

mod support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// A fresh folder to be a grader's `TMPDIR`.
fn fresh_temp(name: &str) -> PathBuf {
    let temp = support::scratch().join(name);
    let _ = std::fs::remove_dir_all(&temp);
    std::fs::create_dir_all(&temp).unwrap();
    temp
}

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

/// `grader check` of the example student, with `temp` as its `TMPDIR` and its report
/// written to `report`.
fn grading(temp: &Path, report: impl Into<Stdio>) -> Child {
    let fixture = support::repo().join("tests/fixtures/example-student");
    let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
    support::grader_env(&mut command)
        .args(["check", fixture.to_str().unwrap(), "--color", "never"])
        .env("TMPDIR", temp)
        .stdout(report)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// What `grader` says on stderr until it ends; once it has built, and so started its
/// runner, `built` is given its pid.
fn said_by(grader: &mut Child, built: impl FnOnce(Pid)) -> String {
    let pid = Pid::from_raw(i32::try_from(grader.id()).unwrap());
    let mut stderr = BufReader::new(grader.stderr.take().unwrap());
    let (mut said, mut line) = (String::new(), String::new());
    let mut built = Some(built);
    while stderr.read_line(&mut line).unwrap() > 0 {
        if line.contains("Built in")
            && let Some(built) = built.take()
        {
            built(pid);
        }
        said.push_str(&line);
        line.clear();
    }
    said
}

#[test]
fn a_grading_that_panics_in_the_grader_leaves_no_temporary_folder() {
    let temp = fresh_temp("temp-folders-panic");
    // A report written to a full disk: libtest-mimic, which prints it, unwraps each write,
    // and so does `print!` for the score table, in the grader's main thread, with every
    // runner's folder still there.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let mut grader = grading(&temp, full);
    let mut while_grading = None;
    let said = said_by(&mut grader, |pid| {
        // Held still while its folders are looked at.
        kill(pid, Signal::SIGSTOP).unwrap();
        while_grading = Some(the_graders(&temp));
        kill(pid, Signal::SIGCONT).unwrap();
    });
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

#[test]
fn the_folders_of_a_grader_killed_outright_go_with_the_next_grading() {
    let temp = fresh_temp("temp-folders-killed");
    let mut grader = grading(&temp, Stdio::null());
    let killed = grader.id();
    let said = said_by(&mut grader, |pid| kill(pid, Signal::SIGKILL).unwrap());
    assert_eq!(grader.wait().unwrap().code(), None, "killed:\n{said}");
    let left = the_graders(&temp);
    assert!(
        !left.is_empty()
            && left
                .iter()
                .all(|name| name.starts_with(&format!("cardgrade-{killed}-"))),
        "a killed grader leaves its folders, named for it: {left:?}"
    );
    let mut next = grading(&temp, Stdio::null());
    let said = said_by(&mut next, drop);
    // Graded to its end, whatever the student's score.
    let code = next.wait().unwrap().code();
    assert!(matches!(code, Some(0 | 1)), "{code:?}\n{said}");
    assert_eq!(the_graders(&temp), Vec::<String>::new(), "left: {left:?}");
    let _ = std::fs::remove_dir_all(&temp);
}
