//! `grader github-workflow`: the GitHub Classroom workflow it prints.

use std::process::Command;

#[test]
fn the_workflow_grader_prints_is_a_classroom_workflow() {
    let out = Command::new(env!("CARGO_BIN_EXE_grader"))
        .arg("github-workflow")
        .output()
        .unwrap();
    assert!(out.status.success());
    let workflow = String::from_utf8_lossy(&out.stdout);
    for needed in [
        "grader check . --format github",
        "classroom-resources/autograding-grading-reporter@v1",
        "CARDGRADE_RESULTS: \"${{ steps.cardgrade.outputs.result }}\"",
        "runners: cardgrade",
    ] {
        assert!(workflow.contains(needed), "{needed} in:\n{workflow}");
    }
}
