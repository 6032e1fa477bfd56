//! `grader batch`: a class graded into a results folder and a gradebook, resumable after a
//! kill, every submission graded exactly once.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{copy_tree, grader_env, repo, scratch};

/// A class of `size` copies of the example student, and one folder that is not a crate.
fn class(name: &str, size: usize) -> PathBuf {
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

fn batch(class: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
    grader_env(&mut command)
        .arg("batch")
        .arg(class)
        .arg("--out")
        .arg(out)
        .args(extra)
        .args([
            "--",
            "--assignment",
            "plaisante_hand",
            "--skip",
            "every_hand",
        ]);
    command
}

fn gradebook(out: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(out.join("gradebook.csv"))
        .unwrap()
        .lines()
        .map(|line| line.split(',').map(String::from).collect())
        .collect()
}

#[test]
fn a_class_is_graded_into_results_and_a_gradebook() {
    let class = class("class-of-two", 2);
    let out = scratch().join("class-of-two-results");
    let _ = std::fs::remove_dir_all(&out);
    let run = batch(&class, &out, &["--jobs", "2"]).output().unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let rows = gradebook(&out);
    assert_eq!(
        rows[0][..5],
        ["submission", "score", "max_score", "outcome", "seconds"]
    );
    assert!(
        rows[0].contains(&"plaisante_hand::has_pair".to_string()),
        "{rows:?}"
    );
    let row = |name: &str| rows.iter().find(|r| r[0] == name).unwrap().clone();
    for student in ["student-0", "student-1"] {
        // Checks right on every random hand earn their share of those groups' points.
        assert_eq!(row(student)[1..4], ["81.8", "100.0", "failed"], "{rows:?}");
    }
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        report.contains("aria-label=\"score histogram\""),
        "{report}"
    );
    assert!(
        report.contains(
            "<code>plaisante_hand::has_pair::three_kings_is_not_a_pair</code></td><td>0 of 3"
        ),
        "{report}"
    );
    let ungradable = row("not-a-crate");
    assert_eq!(
        ungradable[1..4],
        ["0.0", "100.0", "build_failed"],
        "the same maximum as the class"
    );
    // The same folder again needs --resume, which then grades nothing.
    let again = batch(&class, &out, &[]).output().unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));
    let resumed = batch(&class, &out, &["--resume"]).output().unwrap();
    assert!(String::from_utf8_lossy(&resumed.stderr).contains("grading 0 submissions of 3"));
}

/// The processes whose environment names `parent` as their batch.
fn left_by(parent: u32) -> Vec<String> {
    let marker = format!("CARDGRADE_BATCH_PARENT={parent}");
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|entry| {
            std::fs::read(entry.path().join("environ"))
                .is_ok_and(|environ| environ.split(|&b| b == 0).any(|v| v == marker.as_bytes()))
        })
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn a_batch_killed_mid_way_resumes_and_grades_each_submission_exactly_once() {
    let class = class("class-of-four", 4);
    let out = scratch().join("class-of-four-results");
    let _ = std::fs::remove_dir_all(&out);
    let mut first = batch(&class, &out, &["--jobs", "1"])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(240);
    let log = out.join("batch.log");
    while std::fs::read_to_string(&log).map_or(0, |l| l.lines().count()) < 1 {
        assert!(Instant::now() < deadline, "no submission was graded");
        assert!(
            first.try_wait().unwrap().is_none(),
            "the batch ended before the kill"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    first.kill().unwrap();
    first.wait().unwrap();
    // What the killed batch was grading dies with it.
    let gone = Instant::now() + Duration::from_secs(10);
    while !left_by(first.id()).is_empty() {
        assert!(
            Instant::now() < gone,
            "left running: {:?}",
            left_by(first.id())
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let graded_before = std::fs::read_to_string(&log).unwrap().lines().count();
    assert!(graded_before < 5, "killed mid-way, not at the end");

    let second = batch(&class, &out, &["--jobs", "2", "--resume"])
        .output()
        .unwrap();
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    let lines: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let mut names: Vec<&str> = lines
        .iter()
        .map(|line| line.split(':').next().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "not-a-crate",
            "student-0",
            "student-1",
            "student-2",
            "student-3"
        ],
        "each graded exactly once: {lines:?}"
    );
    assert_eq!(gradebook(&out).len(), 6);
}

#[test]
fn shards_graded_apart_merge_into_one_gradebook() {
    let class = class("class-in-shards", 2);
    let shards: Vec<PathBuf> = (1..=2)
        .map(|k| {
            let out = scratch().join(format!("class-in-shards-{k}"));
            let _ = std::fs::remove_dir_all(&out);
            let run = batch(&class, &out, &["--shard", &format!("{k}/2")])
                .output()
                .unwrap();
            assert!(
                run.status.success(),
                "{}",
                String::from_utf8_lossy(&run.stderr)
            );
            out
        })
        .collect();
    let sizes: Vec<usize> = shards.iter().map(|s| gradebook(s).len() - 1).collect();
    assert_eq!(
        sizes,
        [2, 1],
        "three submissions, every other one per shard"
    );
    let merged = scratch().join("class-in-shards-merged");
    let _ = std::fs::remove_dir_all(&merged);
    let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
    let run = grader_env(&mut command)
        .args(["batch", "merge"])
        .args(&shards)
        .arg("--out")
        .arg(&merged)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let names: Vec<String> = gradebook(&merged)[1..]
        .iter()
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(names, ["not-a-crate", "student-0", "student-1"]);
    assert!(merged.join("report.html").is_file());
    // A shard merged twice is refused, not counted twice.
    let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
    let twice = grader_env(&mut command)
        .args(["batch", "merge"])
        .args([&shards[0], &shards[0]])
        .arg("--out")
        .arg(scratch().join("class-in-shards-twice"))
        .output()
        .unwrap();
    assert_eq!(twice.status.code(), Some(2));
}
