//! ARCHITECTURE.md's walk-through, followed as written: its steps add War (the files of
//! `docs/walk-through/`, each at the place its step names, and the one line of the
//! manifest) to a scratch copy of the checkout, whose grader is then built and grades the
//! reference's War and War's bug, which the template's example test catches too.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use support::{copy_tree, repo, scratch};

/// Building a grader from nothing on a busy 2-core machine takes minutes, not this.
const BUILD_LIMIT: Duration = Duration::from_secs(20 * 60);

/// A step of the walk-through: what it makes, or the line it adds to a shared file.
#[derive(Debug, PartialEq)]
enum Step {
    /// A file of the assignment's own, at this path of the checkout.
    File(String),
    /// A line added at the end of a shared list, in the file at this path.
    Line { path: String, line: String },
}

/// The numbered steps of ARCHITECTURE.md's "Add an assignment" that name a path first.
fn steps(architecture: &str) -> Vec<Step> {
    let section = architecture
        .split("\n### Add an assignment\n")
        .nth(1)
        .expect("ARCHITECTURE.md has its section `### Add an assignment`");
    let section = section.split("\n#").next().unwrap_or(section);
    section
        .lines()
        .filter_map(|line| {
            let (number, rest) = line.split_once(". `")?;
            number.parse::<u32>().ok()?;
            let (path, rest) = rest.split_once('`')?;
            let line = rest
                .split_once("the line `")
                .and_then(|(_, added)| added.split_once('`'))
                .map(|(added, _)| added.to_string());
            Some(match line {
                Some(line) => Step::Line {
                    path: path.into(),
                    line,
                },
                None => Step::File(path.into()),
            })
        })
        .collect()
}

/// Every file below `dir`, by its path from `dir`.
fn files_below(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else {
                let relative = path.strip_prefix(dir).unwrap();
                found.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    found.sort();
    found
}

/// Adds `line` after the last entry of the one macro list in `text`, indented as it is.
fn add_to_list(text: &str, line: &str) -> String {
    let close = text
        .find("\n        }\n    };")
        .expect("the manifest's list ends its macro");
    let (before, after) = text.split_at(close);
    let indent = before
        .rsplit('\n')
        .next()
        .map(|last| &last[..last.len() - last.trim_start().len()])
        .unwrap_or_default();
    format!("{before}\n{indent}{line}{after}")
}

/// The checkout as it is, but for its build outputs and history.
fn scratch_checkout(into: &Path) {
    if into.exists() {
        std::fs::remove_dir_all(into).unwrap();
    }
    for entry in std::fs::read_dir(repo()).unwrap().flatten() {
        let name = entry.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        let to = into.join(&name);
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &to);
        } else {
            std::fs::create_dir_all(into).unwrap();
            std::fs::copy(entry.path(), to).unwrap();
        }
    }
}

/// The workspace's own packages, which the walk-through's checkout changes.
const WORKSPACE_PACKAGES: [&str; 3] = ["grader", "grader-api", "cardgrade-reference"];

/// Copies what the test build compiled of the grader's dependencies (not the tests
/// themselves) into the target folder `targets`, with their times, by which cargo judges
/// them fresh: building the grader with War then compiles only the workspace's crates.
fn copy_the_test_builds_dependencies(targets: &Path) {
    // Where cargo put the grader these tests run: `target/debug`, for the `test` profile.
    let built = Path::new(env!("CARGO_BIN_EXE_grader")).parent().unwrap();
    let copied = targets.join("debug");
    for folder in [".fingerprint", "build"] {
        copy_keeping_times(&built.join(folder), &copied.join(folder));
    }
    std::fs::create_dir_all(copied.join("deps")).unwrap();
    for entry in std::fs::read_dir(built.join("deps")).unwrap().flatten() {
        // Libraries; the rest are the test executables, most of the folder.
        if entry.file_name().to_string_lossy().starts_with("lib") {
            copy_keeping_times(&entry.path(), &copied.join("deps").join(entry.file_name()));
        }
    }
}

/// Copies the file or folder `from` to `to` with each file's time of modification, leaving
/// any file already there: a target folder kept from an earlier run.
fn copy_keeping_times(from: &Path, to: &Path) {
    let metadata = std::fs::metadata(from).unwrap();
    if metadata.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap().flatten() {
            copy_keeping_times(&entry.path(), &to.join(entry.file_name()));
        }
    } else if !to.exists() {
        std::fs::copy(from, to).unwrap_or_else(|error| panic!("{}: {error}", from.display()));
        std::fs::File::options()
            .write(true)
            .open(to)
            .and_then(|file| file.set_modified(metadata.modified()?))
            .unwrap();
    }
}

fn run(command: &mut Command, what: &str) -> Output {
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("{what}: {error}"));
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > BUILD_LIMIT {
            let _ = child.kill();
            panic!("{what} took over {BUILD_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    child.wait_with_output().unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn the_steps_name_every_file_of_the_walk_through_and_one_line() {
    let steps = steps(&std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap());
    let named: Vec<&str> = steps
        .iter()
        .filter_map(|step| match step {
            Step::File(path) => Some(path.as_str()),
            Step::Line { .. } => None,
        })
        .collect();
    let mut sorted = named.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        files_below(&repo().join("docs/walk-through")),
        "the files the steps name, and those of docs/walk-through"
    );
    let lines: Vec<&Step> = steps
        .iter()
        .filter(|step| matches!(step, Step::Line { .. }))
        .collect();
    assert_eq!(
        lines,
        [&Step::Line {
            path: "api/src/assignments.rs".into(),
            line: "war,".into()
        }],
        "one line of the manifest, and no other shared file"
    );
}

#[test]
fn a_line_is_added_at_the_end_of_the_manifests_list() {
    let manifest = "macro_rules! list {\n    () => {\n        then! {\n            a,\n            b,\n        }\n    };\n}\n";
    assert_eq!(
        add_to_list(manifest, "war,"),
        manifest.replace("b,\n", "b,\n            war,\n")
    );
}

#[test]
fn the_walk_through_adds_war_which_grades_the_reference_fully_and_catches_its_bug() {
    let checkout: PathBuf = scratch().join("walk-through");
    scratch_checkout(&checkout);
    let walk_through = repo().join("docs/walk-through");
    for step in steps(&std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap()) {
        match step {
            Step::File(path) => {
                let to = checkout.join(&path);
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::copy(walk_through.join(&path), to)
                    .unwrap_or_else(|error| panic!("{path}: {error}"));
            }
            Step::Line { path, line } => {
                let at = checkout.join(&path);
                let before = std::fs::read_to_string(&at).unwrap();
                std::fs::write(&at, add_to_list(&before, &line)).unwrap();
            }
        }
    }

    // A target folder of its own, so that this grader does not replace the one the other
    // tests run, holding the test build's dependencies, which this build shares.
    let targets = scratch().join("walk-through-target");
    copy_the_test_builds_dependencies(&targets);
    let built = run(
        Command::new(env!("CARGO"))
            .args(["build", "--offline", "--quiet", "--profile", "test"])
            // The example needs the dev-dependencies, which the test build's features
            // include: with it, every dependency is one the test build compiled.
            .args(["-p", "grader", "--bin", "grader", "--example", "bench"])
            // The crates War changes compile again; their debug info would serve no one.
            .args(WORKSPACE_PACKAGES.iter().flat_map(|package| {
                [
                    "--config".into(),
                    format!("profile.test.package.{package}.debug=false"),
                ]
            }))
            .current_dir(&checkout)
            .env("CARGO_TARGET_DIR", &targets)
            .env("CARGO_INCREMENTAL", "0"),
        "building the grader with War",
    );
    assert!(built.status.success(), "{}", text(&built));

    let grader = || {
        let mut command = Command::new(targets.join("debug/grader"));
        command
            .current_dir(&checkout)
            .env("CARDGRADE_TARGET_DIR", targets.join("runners"))
            .env("CI", "true")
            .env("NO_COLOR", "1");
        command
    };
    let checked = run(
        grader().args(["check", "reference", "--assignment", "war"]),
        "grading the reference's War",
    );
    let report = text(&checked);
    assert!(checked.status.success(), "{report}");
    assert!(
        report
            .lines()
            .any(|line| line.split_whitespace().collect::<Vec<_>>() == ["war", "100", "/", "100"]),
        "{report}"
    );

    let audited = run(
        grader().args(["spec", "audit", "specs/war.yaml"]),
        "grading War's bug",
    );
    let audit = text(&audited);
    assert!(audited.status.success(), "{audit}");
    assert!(audit.contains("1 of 1 bug caught"), "{audit}");
    assert!(
        audit.contains("caught by equal_values::seven_against_seven_ties, random_battles"),
        "{audit}"
    );
    assert!(
        audit.contains(
            "the template's example test src/war.rs::tests::equal_values_tie_whatever_the_suits catches it"
        ),
        "{audit}"
    );
}
