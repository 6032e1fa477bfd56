//! `grader gradescope package`: the autograder zip, unpacked as Gradescope does and run
//! against a fake /autograder root.

mod support;

use std::path::Path;
use std::process::Command;

use support::{copy_tree, grader_env, repo, scratch};

/// Unpacks `zip` into `into` with Python's zipfile (a zip reader other than ours), keeping
/// each file's executable bit, and lists what it holds.
fn unpack(zip: &Path, into: &Path) -> Vec<String> {
    let script = "import os, sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nz.extractall(sys.argv[2])\nfor i in z.infolist():\n    if (i.external_attr >> 16) & 0o111:\n        os.chmod(os.path.join(sys.argv[2], i.filename), 0o755)\nprint('\\n'.join(z.namelist()))\n";
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(zip)
        .arg(into)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect()
}

/// Runs the package's run_autograder on a fake root; its exit code and results.json.
fn run_autograder(root: &Path) -> (Option<i32>, serde_json::Value) {
    let mut command = Command::new("bash");
    let status = grader_env(&mut command)
        .arg(root.join("source/run_autograder"))
        .env("AUTOGRADER_ROOT", root)
        .output()
        .unwrap()
        .status;
    let results = std::fs::read_to_string(root.join("results/results.json"))
        .expect("run_autograder always writes results.json");
    (status.code(), serde_json::from_str(&results).unwrap())
}

#[test]
fn the_autograder_grades_a_submission_wherever_its_crate_sits_and_always_exits_0() {
    let dir = scratch().join("gradescope");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let zip = dir.join("autograder.zip");
    let made = Command::new(env!("CARGO_BIN_EXE_grader"))
        .args([
            "gradescope",
            "package",
            "--assignment",
            "plaisante_hand",
            "--out",
        ])
        .arg(&zip)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let root = dir.join("root");
    let files = unpack(&zip, &root.join("source"));
    for file in [
        "setup.sh",
        "run_autograder",
        "grader",
        "api/Cargo.toml",
        "api/src/lib.rs",
        "specs/plaisante_hand.yaml",
    ] {
        assert!(
            files.iter().any(|f| f == file),
            "{file} missing from {files:?}"
        );
    }
    // The reference's answers to the three bulk groups, so no submission waits for them.
    let kept: Vec<&String> = files
        .iter()
        .filter(|f| f.starts_with("answers/plaisante_hand-"))
        .collect();
    assert_eq!(kept.len(), 3, "{files:?}");
    // The student's crate sits one folder down, its api path pointing nowhere.
    let crate_dir = root.join("submission/my-work");
    copy_tree(&repo().join("tests/fixtures/example-student"), &crate_dir);
    let manifest = crate_dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let moved = text.replace("path = \"../../../api\"", "path = \"/no/such/api\"");
    assert_ne!(text, moved, "the fixture's api path moved");
    std::fs::write(&manifest, moved).unwrap();
    let (code, results) = run_autograder(&root);
    assert_eq!(code, Some(0));
    let tests = results["tests"].as_array().unwrap();
    assert!(
        tests.iter().all(|t| t["tags"][0] == "plaisante_hand"),
        "--assignment is kept"
    );
    assert_eq!(tests.len(), 71);
    let score = results["score"].as_f64().unwrap();
    assert!(score > 50.0 && score < 100.0, "{results}");

    // A submission with no crate at all still gets results, and a 0.
    std::fs::remove_dir_all(root.join("submission")).unwrap();
    std::fs::create_dir_all(root.join("submission")).unwrap();
    std::fs::write(root.join("submission/answer.txt"), "I did not write Rust").unwrap();
    let (code, results) = run_autograder(&root);
    assert_eq!(code, Some(0));
    assert_eq!(results["score"], 0.0);
    assert!(
        results["output"].as_str().unwrap().contains("Cargo.toml"),
        "{results}"
    );
}
