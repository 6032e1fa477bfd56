//! `grader spec audit --mutants`: cargo-mutants' mutants of the reference graded against a
//! spec, a survivor kept beside the spec as a bug, and what lint says of it. Each run is
//! held to a few mutants by `--re`.

use std::path::{Path, PathBuf};

mod support;

use support::{grader, grader_env, scratch};

/// A spec that asks has_pair and nothing of has_flush: a has_flush always true survives it.
const PAIRS: &str = "assignment: plaisante_hand
groups:
  - name: has_pair
    points: 1
    check: has_pair
    cases:
      - { name: a pair of kings, hand: [KH, KD, 3C, 7S, 9H] }
      - { name: three kings are no pair, hand: [KH, KD, KC, 7S, 9H] }
  - name: your tests
    points: 1
    student_tests: { bugs: [BUGS] }
";

/// The mutants graded: has_pair and has_flush made always true.
const ALWAYS_TRUE: &str = "(has_pair|has_flush) -> bool with true";

/// `PAIRS` naming `bugs`, written alone in a folder of its own: its kept mutants go beside it.
fn pairs_spec(folder: &str, bugs: &str) -> PathBuf {
    let dir = scratch().join(folder);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("pairs.yaml");
    std::fs::write(&spec, PAIRS.replace("BUGS", bugs)).unwrap();
    spec
}

/// The exit code, stdout and stderr of `grader` with `args`.
fn run(args: &[&str]) -> (i32, String, String) {
    let output = grader(args);
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The report's line of the mutant whose change ends with `change`, and the line under it.
fn mutant_lines<'a>(report: &'a str, change: &str) -> (&'a str, &'a str) {
    let lines: Vec<&str> = report.lines().collect();
    let at = lines
        .iter()
        .position(|line| line.ends_with(change))
        .unwrap_or_else(|| panic!("no mutant `{change}`: {report}"));
    (lines[at], lines.get(at + 1).copied().unwrap_or_default())
}

/// The bug name a report's mutant line gives (`mutant-…`).
fn name_in(line: &str) -> &str {
    line.split_whitespace()
        .find(|word| word.starts_with("mutant-"))
        .unwrap_or_else(|| panic!("no name in {line}"))
}

fn lint(spec: &Path) -> (i32, String) {
    let (code, stdout, stderr) = run(&["spec", "lint", spec.to_str().unwrap()]);
    (code, stdout + &stderr)
}

#[test]
fn without_cargo_mutants_the_audit_says_how_to_install_it() {
    let spec = pairs_spec("mutants-absent", "bug-pair-at-least-two");
    let empty = scratch().join("mutants-absent").join("bin");
    std::fs::create_dir_all(&empty).unwrap();
    let output = grader_env(
        std::process::Command::new(env!("CARGO_BIN_EXE_grader"))
            .args(["spec", "audit", spec.to_str().unwrap(), "--mutants"])
            .env("PATH", &empty),
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cargo-mutants, which is not on PATH")
            && stderr.contains("`cargo install --locked cargo-mutants`"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_survivor_is_reported_kept_beside_the_spec_and_named_by_its_group() {
    let spec = pairs_spec("mutants-kept", "bug-pair-at-least-two");
    let path = spec.to_str().unwrap();
    let audit = |keep: &[&str]| {
        let mut args = vec!["spec", "audit", path, "--mutants", "--re", ALWAYS_TRUE];
        args.extend_from_slice(keep);
        run(&args)
    };
    let (code, report, stderr) = audit(&[]);
    assert_eq!(code, 1, "a survivor fails the audit: {report}{stderr}");
    let (pair, caught_by) = mutant_lines(&report, "has_pair -> bool with true");
    assert!(pair.trim_start().starts_with("caught "), "{report}");
    assert!(
        caught_by.contains("caught by has_pair::three_kings_are_no_pair"),
        "{report}"
    );
    let (flush, under) = mutant_lines(&report, "has_flush -> bool with true");
    assert!(flush.trim_start().starts_with("SURVIVED "), "{report}");
    assert!(
        flush.contains("reference/src/plaisante_hand.rs:"),
        "{report}"
    );
    assert!(under.contains("no test fails"), "{report}");
    assert!(
        report.contains("2 mutants: 1 caught, 1 survived, 0 unviable"),
        "{report}"
    );
    let survivor = name_in(flush);

    // Named before it is kept, it is no bug the group may grade.
    let named = pairs_spec(
        "mutants-kept",
        &format!("bug-pair-at-least-two, {survivor}"),
    );
    let (code, said) = lint(&named);
    assert_eq!(code, 2, "{said}");
    assert!(
        said.contains(&format!("names the bug `{survivor}`")),
        "{said}"
    );

    std::fs::write(&spec, PAIRS.replace("BUGS", "bug-pair-at-least-two")).unwrap();
    let (code, report, stderr) = audit(&["--keep", survivor]);
    assert_eq!(code, 1, "{report}{stderr}");
    let kept = spec.with_file_name("pairs.mutants.yaml");
    assert!(
        report.contains(&format!("kept {survivor} in {}", kept.display())),
        "{report}"
    );
    let file = std::fs::read_to_string(&kept).unwrap();
    assert!(
        file.contains(&format!("name: {survivor}")) && file.contains("has_flush -> bool with true"),
        "{file}"
    );

    std::fs::write(
        &spec,
        PAIRS.replace("BUGS", &format!("bug-pair-at-least-two, {survivor}")),
    )
    .unwrap();
    let (code, said) = lint(&spec);
    assert_eq!(code, 0, "{said}");
    let reference = support::repo().join("reference");
    let (code, listed, stderr) = run(&[
        "check",
        reference.to_str().unwrap(),
        "--spec",
        path,
        "--list",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        listed.contains(&format!(
            "plaisante_hand::your_tests::{}",
            survivor.replace('-', "_")
        )),
        "{listed}"
    );

    // The student's copy takes the kept mutants its group names along.
    let students = scratch().join("mutants-kept-students");
    let _ = std::fs::remove_dir_all(&students);
    let (code, said, stderr) = run(&["spec", "split", path, "--out", students.to_str().unwrap()]);
    assert_eq!(code, 0, "{said}{stderr}");
    assert_eq!(
        std::fs::read_to_string(students.join("pairs.mutants.yaml")).unwrap(),
        file
    );
    assert_eq!(lint(&students.join("pairs.yaml")).0, 0);

    // A kept mutant whose text the reference no longer holds is a mistake lint names.
    std::fs::write(
        &kept,
        file.replace("self.cards.len() == 5", "self.cards.len() == 6"),
    )
    .unwrap();
    let (code, said) = lint(&spec);
    assert_eq!(code, 2, "{said}");
    assert!(
        said.contains(&format!("the kept mutant `{survivor}` no longer applies")),
        "{said}"
    );
}

#[test]
fn a_filter_that_selects_no_mutant_and_a_keep_with_no_spec_to_keep_beside_are_refused() {
    let spec = pairs_spec("mutants-refused", "bug-pair-at-least-two");
    let (code, _, stderr) = run(&[
        "spec",
        "audit",
        spec.to_str().unwrap(),
        "--mutants",
        "--re",
        "no function is called this",
    ]);
    assert_eq!(code, 4, "{stderr}");
    assert!(stderr.contains("--re selects none of the"), "{stderr}");

    let (code, _, stderr) = run(&[
        "spec",
        "audit",
        "--mutants",
        "--assignment",
        "plaisante_hand",
        "--keep",
        "1",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("the built-in specs are not files to write beside"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("Graded"),
        "refused before grading: {stderr}"
    );
}
