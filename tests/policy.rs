//! A course's `policy:` applied by `grader check --submission-metadata`, from files shaped
//! as Gradescope writes `submission_metadata.json`: a late penalty as a line of its own, and
//! past the day's limit, a student told less while staff see all; and by `grader batch
//! --roster`, each student's late penalty from their time on a roster.

mod support;

use std::path::{Path, PathBuf};

use support::batch::{batch_checking, class, gradebook, results, succeeds};
use support::{grader, repo, scratch, scratch_file};

/// A spec of one group of plaisante_hand's, with `policy`, in a folder `name` of its own.
fn spec_with(name: &str, policy: &str) -> PathBuf {
    let dir = scratch().join(format!("policy-spec-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("plaisante_hand.yaml");
    std::fs::write(
        &spec,
        format!(
            "assignment: plaisante_hand\n{policy}\ngroups:\n  - name: has_pair\n    points: 10\n    check: has_pair\n    cases:\n      - {{ name: pair of kings, hand: [KH, KD, 3C, 7S, 9H] }}\n      - {{ name: three kings is not a pair, hand: [KH, KD, KC, 7S, 9H] }}\n"
        ),
    )
    .unwrap();
    spec
}

/// Gradescope's file: due on the 1st at 23:00 in UTC-7, late due a week later.
fn metadata(name: &str, created_at: &str, previous: &[&str]) -> PathBuf {
    let previous: Vec<serde_json::Value> = previous
        .iter()
        .map(|time| serde_json::json!({ "submission_time": time, "score": 5.0, "results": {} }))
        .collect();
    let path = scratch().join(format!("policy-{name}.json"));
    let file = serde_json::json!({
        "id": 1, "created_at": created_at, "submission_method": "upload",
        "assignment": { "due_date": "2026-12-01T23:00:00.000000-07:00",
                        "late_due_date": "2026-12-08T23:00:00.000000-07:00",
                        "release_date": "2026-11-20T00:00:00.000000-07:00", "title": "Hand",
                        "id": 2, "course_id": 3, "group_size": null, "group_submission": false,
                        "total_points": "10.0" },
        "users": [{ "email": "s@example.com", "id": 4, "name": "S" }],
        "previous_submissions": previous });
    std::fs::write(&path, file.to_string()).unwrap();
    path
}

/// The Gradescope results of the example student (one of the two cases right: 5 / 10).
fn graded(spec: &Path, metadata: &Path) -> serde_json::Value {
    let example = repo().join("tests/fixtures/example-student");
    let run = grader(&[
        "check",
        example.to_str().unwrap(),
        "--spec",
        spec.to_str().unwrap(),
        "--format",
        "gradescope",
        "--submission-metadata",
        metadata.to_str().unwrap(),
    ]);
    serde_json::from_slice(&run.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&run.stderr)))
}

/// The points the tests of `results` earned, before any penalty.
fn earned_by_tests(results: &serde_json::Value) -> f64 {
    results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["score"].as_f64().unwrap())
        .sum()
}

#[test]
fn a_late_submission_loses_its_share_as_a_line_of_its_own_and_on_time_loses_none() {
    let spec = spec_with(
        "late",
        "policy: { late: { penalty_per_day: 10%, floor: 50% } }",
    );
    let on_time = graded(
        &spec,
        &metadata("on-time", "2026-12-01T20:00:00-07:00", &[]),
    );
    assert_eq!(on_time["score"], 5.0, "{on_time:#}");
    let late = graded(&spec, &metadata("late", "2026-12-03T22:00:00-07:00", &[]));
    assert_eq!(late["score"], 4.0, "{late:#}");
    let output = late["output"].as_str().unwrap();
    assert!(
        output.contains("Late penalty: -1 points (late by 2 days, 10% a day)"),
        "{output}"
    );
    // The tests keep what they earned: the penalty is no test's.
    assert_eq!(earned_by_tests(&late), 5.0);
    let past = graded(
        &spec,
        &metadata("past-late-due", "2026-12-10T10:00:00Z", &[]),
    );
    assert_eq!(past["score"], 2.5, "the floor, 50%: {past:#}");
}

#[test]
fn past_the_daily_limit_a_student_sees_the_score_or_nothing_and_staff_see_all() {
    let today = [
        "2026-11-30T01:00:00Z",
        "2026-11-30T09:00:00Z",
        "2026-11-30T13:00:00Z",
    ];
    for (mode, top) in [("score_only", "visible"), ("nothing", "hidden")] {
        let spec = spec_with(
            mode,
            &format!("policy: {{ daily_limit: 3, past_limit: {mode} }}"),
        );
        let fourth = graded(&spec, &metadata(mode, "2026-11-30T20:00:00Z", &today));
        assert_eq!(fourth["visibility"], top, "{fourth:#}");
        let tests = fourth["tests"].as_array().unwrap();
        assert!(
            tests.iter().all(|t| t["visibility"] == "hidden"),
            "{fourth:#}"
        );
        // Gradescope shows hidden tests to staff: every one is there, graded.
        assert_eq!(tests.len(), 2);
        assert_eq!(fourth["score"], 5.0);
        let output = fourth["output"].as_str().unwrap();
        assert!(output.contains("submission 4 of the day"), "{output}");
        let third = graded(&spec, &metadata(mode, "2026-11-30T20:00:00Z", &today[..2]));
        assert_eq!(third["visibility"], "visible");
        assert!(
            third["tests"]
                .as_array()
                .unwrap()
                .iter()
                .all(|t| t["visibility"] == "visible")
        );
    }
}

#[test]
fn a_malformed_metadata_file_grades_with_no_policy_and_says_so() {
    let spec = spec_with(
        "malformed",
        "policy: { late: { penalty_per_day: 50% }, daily_limit: 1 }",
    );
    let path = scratch().join("policy-malformed.json");
    std::fs::write(&path, "{ \"created_at\": ").unwrap();
    let results = graded(&spec, &path);
    assert_eq!(results["score"], 5.0, "{results:#}");
    let output = results["output"].as_str().unwrap();
    assert!(output.contains("policy was not applied"), "{output}");
}

#[test]
fn two_spec_files_with_different_policies_are_refused() {
    let first = spec_with("first", "policy: { daily_limit: 3 }");
    let dir = scratch().join("policy-two");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&first, dir.join("a.yaml")).unwrap();
    std::fs::write(
        dir.join("b.yaml"),
        "assignment: plaisante_hand\npolicy: { daily_limit: 4 }\ngroups:\n  - name: has_two_pair\n    points: 1\n    check: has_two_pair\n    cases:\n      - { name: two pair, hand: [KH, KD, 7C, 7S, 9H] }\n",
    )
    .unwrap();
    let example = repo().join("tests/fixtures/example-student");
    let run = grader(&[
        "check",
        example.to_str().unwrap(),
        "--spec",
        dir.to_str().unwrap(),
        "--list",
    ]);
    let said =
        String::from_utf8_lossy(&run.stderr).into_owned() + &String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(2), "{said}");
    assert!(
        said.contains("a submission is graded by one policy"),
        "{said}"
    );
}

/// The CSV `grader batch export --moodle` writes from the batch in `out`, its students
/// named by the roster at `roster`'s `submission` column: each row's cells.
fn moodle_export(out: &Path, roster: &Path) -> Vec<Vec<String>> {
    let written = out.with_file_name("late-moodle.csv");
    let run = grader(&[
        "batch",
        "export",
        out.to_str().unwrap(),
        "--moodle",
        roster.to_str().unwrap(),
        "--by",
        "submission",
        "--out",
        written.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    csv::Reader::from_path(&written)
        .unwrap()
        .records()
        .map(|row| row.unwrap().iter().map(String::from).collect())
        .collect()
}

#[test]
fn a_batch_takes_the_late_penalty_from_each_students_time_on_the_roster() {
    let spec = spec_with(
        "batch",
        "policy: { late: { after: 2026-12-01, penalty_per_day: 10%, floor: 50% } }",
    );
    // Three example students, each earning 5 of the spec's 10, and a folder that is no
    // crate, which the roster leaves out.
    let class = class("policy-batch-class", 3);
    let roster = scratch_file(
        "policy-batch-roster.csv",
        "submission,Submitted\n\
         student-0,2026-12-01T20:00:00-03:00\n\
         student-1,2026-12-03T10:00:00Z\n\
         student-2,=NOW()\n",
    );
    let out = scratch().join("policy-batch-results");
    let _ = std::fs::remove_dir_all(&out);
    let said = succeeds(&mut batch_checking(
        &class,
        &out,
        &["--roster", roster.to_str().unwrap()],
        &["--spec", spec.to_str().unwrap()],
    ));
    let log = std::fs::read_to_string(out.join("batch.log")).unwrap();
    for warned in [
        "warning: student-2: no submission time, so no late penalty: line 4, column `Submitted` of the roster: `=NOW()` is not a time",
        "warning: not-a-crate: no submission time, so no late penalty: no row of the roster names it (--by submission)",
    ] {
        assert_eq!(log.matches(warned).count(), 1, "{log}");
        assert!(said.contains(warned), "{said}");
    }
    assert_eq!(log.matches("warning:").count(), 2, "{log}");

    // On time, the end of the 1st (UTC) not passed: nothing taken.
    let on_time = results(&out, "student-0");
    assert_eq!(on_time["score"], 5.0, "{on_time:#}");
    assert!(on_time.get("penalty").is_none(), "{on_time:#}");
    // 34 hours past it: two days begun, 20% of the 5 earned.
    let late = results(&out, "student-1");
    assert_eq!(late["score"], 4.0, "{late:#}");
    assert_eq!(late["penalty"]["points"], 1.0, "{late:#}");
    assert_eq!(late["penalty"]["why"], "late by 2 days, 10% a day");
    assert_eq!(earned_by_tests(&late), 5.0, "the penalty is no test's");
    assert_eq!(results(&out, "student-2")["score"], 5.0);

    let rows = gradebook(&out);
    assert_eq!(rows[0][5..7], ["note", "late_penalty"]);
    let row = |name: &str| rows.iter().find(|row| row[0] == name).unwrap().clone();
    assert_eq!(row("student-0")[1], "5.0");
    assert_eq!(row("student-0")[6], "");
    assert_eq!(row("student-1")[1], "4.0");
    assert_eq!(
        row("student-1")[5],
        "late penalty: late by 2 days, 10% a day"
    );
    assert_eq!(row("student-1")[6], "1.0");
    assert_eq!(row("student-2")[6], "");
    // The group's column keeps what the tests earned.
    assert_eq!(row("student-1")[7], "5");

    // An LMS import gets the score after the penalty.
    let exported = moodle_export(&out, &roster);
    let score_of = |name: &str| {
        exported
            .iter()
            .find(|row| row[0] == name)
            .map(|row| row[1].clone())
    };
    assert_eq!(score_of("student-0").as_deref(), Some("5"));
    assert_eq!(score_of("student-1").as_deref(), Some("4"));

    // A time changed on the roster grades that student again, and no other.
    let moved = scratch_file(
        "policy-batch-roster-moved.csv",
        "submission,Submitted\n\
         student-0,2026-12-01T20:00:00-03:00\n\
         student-1,2026-12-02T10:00:00Z\n\
         student-2,=NOW()\n",
    );
    let again = succeeds(&mut batch_checking(
        &class,
        &out,
        &["--roster", moved.to_str().unwrap(), "--resume"],
        &["--spec", spec.to_str().unwrap()],
    ));
    assert!(again.contains("submission times: student-1\n"), "{again}");
    let a_day = results(&out, "student-1");
    assert_eq!(a_day["penalty"]["why"], "late by 1 day, 10% a day");
}

#[test]
fn merge_refuses_shards_whose_late_penalties_came_from_different_rosters() {
    let spec = spec_with(
        "shards",
        "policy: { late: { after: 2026-12-01, penalty_per_day: 10%, floor: 50% } }",
    );
    // Folders that are no crate: graded at once, and the roster is read all the same.
    let class = scratch().join("policy-shards-class");
    let _ = std::fs::remove_dir_all(&class);
    for student in ["ada", "bea", "cy", "dan"] {
        std::fs::create_dir_all(class.join(student)).unwrap();
        std::fs::write(class.join(student).join("notes.txt"), "no crate").unwrap();
    }
    let times = "submission,Submitted\nada,2026-12-01T10:00:00Z\nbea,2026-12-02T10:00:00Z\ncy,2026-12-01T10:00:00Z\ndan,2026-12-01T10:00:00Z\n";
    let roster = scratch_file("policy-shards-roster.csv", times);
    // The same roster, but bea's time as the registrar corrected it later.
    let corrected = scratch_file(
        "policy-shards-roster-corrected.csv",
        times.replace("2026-12-02T10", "2026-12-01T11"),
    );
    let shard = |k: usize, roster: Option<&Path>| {
        let out = scratch().join(format!("policy-shards-{k}-{}", roster.is_some()));
        let _ = std::fs::remove_dir_all(&out);
        let cut = format!("{k}/2");
        let mut extra = vec!["--shard", cut.as_str()];
        if let Some(roster) = roster {
            extra.extend(["--roster", roster.to_str().unwrap()]);
        }
        succeeds(&mut batch_checking(
            &class,
            &out,
            &extra,
            &["--spec", spec.to_str().unwrap()],
        ));
        out
    };
    let merge = |shards: [&Path; 2]| {
        let out = scratch().join("policy-shards-merged");
        let _ = std::fs::remove_dir_all(&out);
        let mut args = vec!["batch", "merge"];
        args.extend(shards.iter().map(|shard| shard.to_str().unwrap()));
        args.extend(["--out", out.to_str().unwrap()]);
        grader(&args)
    };
    let first = shard(1, Some(&roster));
    let merged = merge([&first, &shard(2, Some(&roster))]);
    assert!(merged.status.success(), "{merged:?}");

    let refused = merge([&first, &shard(2, Some(&corrected))]);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(
        said.contains("took submission times from different rosters (bea: 2026-12-02T10:00:00Z and 2026-12-01T11:00:00Z)"),
        "{said}"
    );
    let refused = merge([&first, &shard(2, None)]);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(
        said.contains("one was graded with a roster and the other without"),
        "{said}"
    );
}

#[test]
fn a_batch_refuses_a_roster_its_specs_cannot_use() {
    let class = scratch().join("policy-batch-unused");
    std::fs::create_dir_all(class.join("alice")).unwrap();
    let roster = scratch_file(
        "policy-batch-unused.csv",
        "submission,Submitted\nalice,2026-12-01T00:00:00Z\n",
    );
    let dated = "policy: { late: { after: 2026-12-01, penalty_per_day: 10% } }";
    let time = ["--submitted-at", "2026-12-01T00:00:00Z"].as_slice();
    for (policy, check, why) in [
        (
            "policy: { daily_limit: 3 }",
            [].as_slice(),
            "has no `late:`",
        ),
        (
            "policy: { late: { penalty_per_day: 10% } }",
            &[],
            "names no `after:` date",
        ),
        (
            dated,
            time,
            "leave --submitted-at and --submission-metadata out",
        ),
    ] {
        let spec = spec_with("unused", policy);
        let out = scratch().join("policy-batch-unused-results");
        let _ = std::fs::remove_dir_all(&out);
        let mut options = vec!["--spec", spec.to_str().unwrap()];
        options.extend(check);
        let run = batch_checking(
            &class,
            &out,
            &["--roster", roster.to_str().unwrap()],
            &options,
        )
        .output()
        .unwrap();
        let said = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{said}");
        assert!(said.contains(why), "{said}");
        assert!(!out.exists(), "refused before anything is written");
    }
}
