//! The formats course staff and CI read: JUnit XML, GitHub's annotations, summary and
//! Classroom result, and a results file written even when grading stops early.

mod support;

use std::process::Command;

use support::{grader_env, repo, scratch};

/// The example student registers the Plaisante hand alone and fails a few of its tests.
const EXAMPLE: &str = "tests/fixtures/example-student";

fn grade(
    format: &str,
    output: &str,
    extra: &[&str],
    env: &[(&str, &std::path::Path)],
) -> (i32, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
    grader_env(&mut command)
        .args(["check", EXAMPLE, "--color", "never", "--format", format])
        .args(["--assignment", "plaisante_hand", "--skip", "every_hand"])
        // The same group as a student's view (github's) names it.
        .args(["--skip", "plaisante_hand::hidden_"])
        .arg("--output")
        .arg(scratch().join(output))
        .args(extra)
        .current_dir(repo());
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The value of `attribute` in the first element of `xml` that starts with `element`.
fn attribute<'a>(xml: &'a str, element: &str, attribute: &str) -> &'a str {
    let start = xml
        .find(element)
        .unwrap_or_else(|| panic!("no {element} in {xml}"));
    let tag = &xml[start..start + xml[start..].find('>').unwrap()];
    let key = format!(" {attribute}=\"");
    let at = tag
        .find(&key)
        .unwrap_or_else(|| panic!("no {attribute} in {tag}"))
        + key.len();
    &tag[at..at + tag[at..].find('"').unwrap()]
}

#[test]
fn junit_counts_add_up_and_each_failure_says_what_differs() {
    let (code, _) = grade("junit", "example.junit.xml", &[], &[]);
    assert_eq!(code, 1);
    let xml = std::fs::read_to_string(scratch().join("example.junit.xml")).unwrap();
    assert!(xml.starts_with("<?xml"), "{xml}");
    let cases = xml.matches("<testcase ").count();
    let failures = xml.matches("<failure ").count();
    let skipped = xml.matches("<skipped").count();
    assert_eq!(attribute(&xml, "<testsuites", "tests"), cases.to_string());
    assert_eq!(attribute(&xml, "<testsuite ", "tests"), cases.to_string());
    assert_eq!(
        attribute(&xml, "<testsuites", "failures"),
        failures.to_string()
    );
    assert_eq!(
        attribute(&xml, "<testsuites", "skipped"),
        skipped.to_string()
    );
    assert_eq!(skipped, 1, "the filtered-out group is skipped");
    assert!(failures > 0 && failures < cases, "{failures} of {cases}");
    assert_eq!(attribute(&xml, "<testsuite ", "name"), "plaisante_hand");
    let failed = "plaisante_hand::has_pair::three_kings_is_not_a_pair";
    let case = &xml[xml.find(&format!("name=\"{failed}\"")).unwrap()..];
    assert!(
        case.contains("classname=\"plaisante_hand.has_pair\""),
        "{case}"
    );
    assert!(
        case.contains("message=\"has_pair(): expected false, got true\""),
        "{case}"
    );
    assert!(
        case.contains("hint"),
        "the body is the whole report: {case}"
    );
}

#[test]
fn github_annotates_failures_summarizes_and_gives_classroom_its_result() {
    let summary = scratch().join("github-summary.md");
    let outputs = scratch().join("github-output");
    for file in [&summary, &outputs] {
        std::fs::write(file, "").unwrap();
    }
    let (code, stdout) = grade(
        "github",
        "example.classroom.json",
        &[],
        &[
            ("GITHUB_STEP_SUMMARY", &summary),
            ("GITHUB_OUTPUT", &outputs),
        ],
    );
    assert_eq!(code, 1);
    let annotations: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("::error "))
        .collect();
    let failed = stdout
        .lines()
        .filter(|l| l.starts_with("test ") && l.ends_with(" FAILED"))
        .count();
    assert_eq!(annotations.len(), failed, "{stdout}");
    assert!(
        annotations.iter().any(|a| a.starts_with(
            "::error title=plaisante_hand%3A%3Ahas_pair%3A%3Athree_kings_is_not_a_pair::"
        ) && a.contains("expected   false%0A")),
        "{annotations:?}"
    );
    let markdown = std::fs::read_to_string(&summary).unwrap();
    assert!(markdown.starts_with("## cardgrade: "), "{markdown}");
    assert!(
        markdown.contains("| plaisante_hand | has_pair | 6 / 8 | 2 |"),
        "{markdown}"
    );
    assert!(
        markdown.contains(
            "<details><summary><code>plaisante_hand::has_pair::three_kings_is_not_a_pair</code>"
        ),
        "{markdown}"
    );

    let written = std::fs::read_to_string(&outputs).unwrap();
    let encoded = written
        .strip_prefix("result=")
        .expect("a `result` output")
        .trim_end();
    let decoded = Command::new("base64")
        .arg("--decode")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(encoded.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(decoded.status.success());
    let result: serde_json::Value = serde_json::from_slice(&decoded.stdout).unwrap();
    let file: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(scratch().join("example.classroom.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(result, file, "the output and --output hold the same result");
    assert_eq!(result["version"], 1);
    assert_eq!(result["status"], "fail");
    let tests = result["tests"].as_array().unwrap();
    let points = |field: &str| -> f64 { tests.iter().map(|t| t[field].as_f64().unwrap()).sum() };
    assert!((points("max_score") - result["max_score"].as_f64().unwrap()).abs() < 1e-6);
    assert!(points("score") < points("max_score"));
    // The log tells the known mistakes the student's tests miss in their group's block, not
    // an error each; Classroom's result keeps a test per mistake, as every results file does.
    assert!(
        stdout.contains("\nyour tests (plaisante_hand): your tests catch 4 of 17 known mistakes\n"),
        "{stdout}"
    );
    let missed = 17 - 4;
    assert_eq!(
        tests.iter().filter(|t| t["status"] == "fail").count(),
        failed + missed + 1,
        "the failures, the mistakes missed and the filtered-out group"
    );
}

#[test]
fn a_results_file_is_written_when_grading_stops_before_it_starts() {
    for (format, file) in [
        ("gradescope", "stopped.gradescope.json"),
        ("json", "stopped.json"),
        ("junit", "stopped.junit.xml"),
        ("github", "stopped.classroom.json"),
    ] {
        let path = scratch().join(file);
        let _ = std::fs::remove_file(&path);
        let (code, _) = grade(format, file, &["--spec", "no/such/spec.yaml"], &[]);
        assert_eq!(code, 2, "{format}");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("{format} wrote no file"));
        assert!(text.contains("no/such/spec.yaml"), "{format}: {text}");
        if format == "junit" {
            assert_eq!(attribute(&text, "<testsuites", "errors"), "1", "{text}");
        } else {
            let json: serde_json::Value = serde_json::from_str(&text).unwrap();
            let score = json
                .get("score")
                .or(json.get("max_score"))
                .and_then(|s| s.as_f64());
            assert_eq!(score, Some(0.0), "{format}: {text}");
        }
    }
}

/// A spec with one visible group and two hidden ones, each with a case the example student
/// fails, the last a bulk group whose tally counts its wrong answers.
fn hidden_spec() -> std::path::PathBuf {
    let path = scratch().join("hidden.yaml");
    std::fs::write(
        &path,
        "assignment: plaisante_hand\ngroups:\n  - name: seen\n    points: 1\n    check: has_pair\n    cases:\n      - { name: three kings, hand: [KH, KD, KC, 7S, 9H] }\n  - name: secret\n    points: 1\n    visibility: hidden\n    check: has_pair\n    cases:\n      - { name: four kings, hand: [KH, KD, KC, KS, 9H] }\n  - name: secret hands\n    points: 1\n    visibility: hidden\n    generate: { count: 500, seed: 7, hand_size: 5 }\n    checks: [has_pair, has_two_pair, has_straight, has_flush, evaluate]\n",
    )
    .unwrap();
    path
}

fn check_hidden(extra: &[&str], ci: bool) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
    grader_env(&mut command)
        .args(["check", EXAMPLE, "--color", "never", "--spec"])
        .arg(hidden_spec())
        .args(extra)
        .current_dir(repo());
    if ci {
        command.env("CI", "true");
    } else {
        command.env_remove("CI");
    }
    let out = command.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The score table's group rows, each with its runs of spaces made one.
fn score_rows(report: &str) -> Vec<String> {
    let table = &report[report.find("\nscore\n").expect("a score table")..];
    table
        .lines()
        .filter(|line| line.starts_with("    "))
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn a_students_view_withholds_what_a_hidden_test_asks_but_counts_it() {
    let secret = "plaisante_hand::secret::four_kings";
    let seen = "plaisante_hand::seen::three_kings";
    // CI changes nothing: a CI job's log is the student's to read.
    for student in [check_hidden(&[], false), check_hidden(&[], true)] {
        let block = support::failure_of(&student, "plaisante_hand::hidden_1");
        assert!(block.contains("this hidden test failed"), "{block}");
        assert!(
            !student.contains("K♠") && !student.contains("four") && !student.contains("secret"),
            "neither the hidden case's hand nor its name nor its group's: {student}"
        );
        assert_eq!(
            score_rows(&student),
            [
                "seen 0 / 1 1 of 1 failed",
                "hidden tests 0.4 / 2 2 of 2 failed"
            ],
            "{student}"
        );
        assert!(!student.contains("of 500 wrong"), "{student}");
        assert!(
            support::failure_of(&student, seen).contains("K♥ K♦ K♣ 7♠ 9♥"),
            "{student}"
        );
        assert!(
            student.contains("total 0.4 / 3"),
            "the hidden test still counts: {student}"
        );
    }
    for staff in [
        check_hidden(&["--staff-view"], true),
        check_hidden(&["--staff-view"], false),
    ] {
        assert!(
            support::failure_of(&staff, secret).contains("K♥ K♦ K♣ K♠ 9♥"),
            "{staff}"
        );
        assert_eq!(
            score_rows(&staff),
            [
                "seen 0 / 1 1 of 1 failed",
                "secret 0 / 1 1 of 1 failed",
                "secret hands 0.4 / 1 24 of 500 wrong; 2 of 5 checks right on every input, all or nothing per check"
            ],
            "{staff}"
        );
    }
}

/// GitHub's job summary of the spec with hidden groups: `CI=true`, as a Classroom job runs.
fn hidden_summary(extra: &[&str]) -> String {
    let summary = scratch().join(format!("hidden-summary{}.md", extra.concat()));
    std::fs::write(&summary, "").unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
    let out = grader_env(&mut command)
        .args(["check", EXAMPLE, "--color", "never", "--format", "github"])
        .arg("--spec")
        .arg(hidden_spec())
        .args(extra)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .current_dir(repo())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    std::fs::read_to_string(&summary).unwrap()
}

#[test]
fn githubs_summary_in_a_students_view_gives_hidden_groups_one_row_as_the_score_table_does() {
    let student = hidden_summary(&[]);
    assert!(
        student.contains(
            "| plaisante_hand | seen | 0 / 1 | 1 |\n| plaisante_hand | hidden tests | 0.4 / 2 | 2 |\n"
        ),
        "{student}"
    );
    assert!(
        !student.contains("secret") && !student.contains("of 500 wrong"),
        "neither a hidden group's name nor its tally: {student}"
    );
    let staff = hidden_summary(&["--staff-view"]);
    assert!(
        staff.contains("| plaisante_hand | secret | 0 / 1 | 1 |\n| plaisante_hand | secret hands | 0.4 / 1 | 24 of 500 wrong;"),
        "{staff}"
    );
}

#[test]
fn a_due_date_is_read_as_a_calendar_day() {
    let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
    let out = grader_env(&mut command)
        .args(["check", EXAMPLE, "--due", "2026-13-01"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a date: write it as YYYY-MM-DD"));
}

#[test]
fn a_specs_due_date_opens_after_due_date_groups_once_it_has_passed() {
    let later = "plaisante_hand::later::four_kings";
    for (due, shown) in [("2000-01-01", true), ("2999-01-01", false)] {
        let path = scratch().join(format!("due-{due}.yaml"));
        std::fs::write(
            &path,
            format!("assignment: plaisante_hand\ndefaults: {{ due: {due} }}\ngroups:\n  - name: later\n    points: 1\n    visibility: after_due_date\n    check: has_pair\n    cases:\n      - {{ name: four kings, hand: [KH, KD, KC, KS, 9H] }}\n"),
        )
        .unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
        let out = grader_env(&mut command)
            .args([
                "check",
                EXAMPLE,
                "--color",
                "never",
                "--student-view",
                "--spec",
            ])
            .arg(&path)
            .current_dir(repo())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        // Withheld, the case goes by its place in its group.
        let named = if shown {
            later
        } else {
            "plaisante_hand::hidden_1"
        };
        let block = support::failure_of(&stdout, named);
        assert_eq!(
            block.contains("K♥ K♦ K♣ K♠ 9♥"),
            shown,
            "due {due}: {block}"
        );
    }
    let bad = scratch().join("due-bad.yaml");
    std::fs::write(
        &bad,
        "assignment: plaisante_hand\ndefaults: { due: next week }\ngroups: []\n",
    )
    .unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
    let out = grader_env(&mut command)
        .args(["check", EXAMPLE, "--spec"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("due-bad.yaml:2:18: defaults.due: `next week` is not a date"),
        "{said}"
    );
}

/// A spec of one bulk group of three checks, scored as `scoring` says, on which the
/// example student gets two checks wrong on some hands.
fn scored_spec(scoring: &str) -> std::path::PathBuf {
    support::scratch_file(
        &format!(
            "scored-{}.yaml",
            scoring.replace(|c: char| !c.is_alphanumeric(), "")
        ),
        format!(
            "assignment: plaisante_hand\ngroups:\n  - name: random hands\n    points: 10\n    scoring: {scoring}\n    generate: {{ count: 3000, seed: 7, hand_size: 5 }}\n    checks: [has_pair, has_flush, has_straight]\n"
        ),
    )
}

/// The one test of `scored_spec(scoring)` as our JSON gives it.
fn scored_test(scoring: &str) -> serde_json::Value {
    let output = format!("scored-{}.json", scoring.len());
    let spec = scored_spec(scoring);
    let (code, _) = grade("json", &output, &["--spec", spec.to_str().unwrap()], &[]);
    assert_eq!(code, 1);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(scratch().join(&output)).unwrap()).unwrap();
    json["tests"][0].clone()
}

/// The wrong answers of each check, as the failure's `by check` field counts them.
fn wrong_by_check(test: &serde_json::Value) -> Vec<u64> {
    let fields = test["fields"].as_array().unwrap();
    let by_check = fields.iter().find(|f| f["name"] == "by check").unwrap()["text"]
        .as_str()
        .unwrap();
    by_check
        .lines()
        .map(|line| match line.split_once("wrong on ") {
            Some((_, count)) => count.replace(',', "").trim().parse().unwrap(),
            None => 0,
        })
        .collect()
}

#[test]
fn a_bulk_group_earns_its_points_as_its_scoring_says() {
    const INPUTS: u64 = 3000;
    let cents = |test: &serde_json::Value| (test["score"].as_f64().unwrap() * 100.0).round() as u64;
    let all_or_nothing = scored_test("all_or_nothing");
    let wrong = wrong_by_check(&all_or_nothing);
    assert_eq!(wrong.len(), 3, "{all_or_nothing}");
    assert!(wrong.contains(&0), "a check right on every hand: {wrong:?}");
    let worst = *wrong.iter().max().unwrap();
    assert!(worst > 0 && worst < INPUTS / 10, "{wrong:?}");
    // Each check a third of 10 points, in hundredths.
    let right_checks = wrong.iter().filter(|&&w| w == 0).count() as u64;
    assert_eq!(cents(&all_or_nothing), 1000 * right_checks / 3);
    // The points are earned check by check, and the count beside them says so.
    assert!(
        all_or_nothing["tally"].as_str().unwrap().contains(&format!(
            "; {right_checks} of 3 checks right on every input, all or nothing per check: "
        )),
        "{all_or_nothing}"
    );

    let proportional = scored_test("proportional");
    let right_answers: u64 = wrong.iter().map(|w| INPUTS - w).sum();
    assert_eq!(cents(&proportional), 1000 * right_answers / (3 * INPUTS));
    assert!(cents(&proportional) > cents(&all_or_nothing));

    // A threshold every check meets earns everything; one the wrong checks miss, their shares.
    let rate = |wrong: u64| 1.0 - wrong as f64 / INPUTS as f64;
    let lenient = scored_test(&format!("{{ threshold: {:.4} }}", rate(worst) - 0.0001));
    assert_eq!(cents(&lenient), 1000);
    let least = *wrong.iter().filter(|&&w| w > 0).min().unwrap();
    let strict = scored_test(&format!("{{ threshold: {:.4} }}", rate(least) + 0.0001));
    assert_eq!(cents(&strict), cents(&all_or_nothing));
    assert_eq!(strict["status"], "failed");
    let tally = strict["tally"].as_str().unwrap();
    assert!(
        tally.contains(&format!("; {right_checks} of 3 checks right on "))
            && tally.contains("% of the inputs or more, full points per check from there: "),
        "{strict}"
    );
}

#[test]
fn a_breakdown_names_what_a_student_can_compare_and_a_panic_by_its_message_and_line() {
    // Counts of 14 cells: an ace is out of bounds, and every other hand one cell short.
    let fourteen = support::Mutant::new(
        "counts-fourteen-unguarded",
        "a counts array of 14 cells, indexed by value.",
        &[(
            "let mut counts = vec![0; COUNTS_LEN];",
            "let mut counts = vec![0; COUNTS_LEN - 1];",
        )],
    )
    .write();
    let spec = support::scratch_file(
        "breakdown-wording.yaml",
        "assignment: plaisante_hand\ngroups:\n  - name: random hands\n    points: 6\n    generate: { count: 300, seed: 7, hand_size: 5 }\n    checks: [count_values, has_flush]\n",
    );
    let (code, stdout, stderr) = support::check(&fourteen, &["--spec", spec.to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    let failure = support::failure_of(&stdout, "plaisante_hand::random_hands");
    assert!(
        failure.contains("count_values(): expected 15 cells but got 14 cells  ×"),
        "{failure}"
    );
    let panicked = "count_values(): expected 15 cells but got panicked (index out of bounds: the len is 14 but the index is 14) at src/lib.rs:";
    let line = failure
        .lines()
        .find_map(|line| line.trim_start().strip_prefix(panicked))
        .unwrap_or_else(|| panic!("{failure}"));
    let (at, count) = line.split_once("  ×").unwrap_or_else(|| panic!("{line}"));
    assert!(
        at.parse::<u32>().is_ok(),
        "the line alone, no column: {line}"
    );
    assert!(count.parse::<u32>().is_ok(), "{line}");
    // has_flush is right on every hand, count_values on none: half the points.
    let row = stdout
        .lines()
        .find(|line| line.trim_start().starts_with("random hands "))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        row.contains(" 3 / 6 ")
            && row.ends_with(
                " of 300 wrong; 1 of 2 checks right on every input, all or nothing per check"
            ),
        "{row}"
    );
}

#[test]
fn every_format_shows_how_many_answers_were_wrong_beside_the_points() {
    let spec = scored_spec("proportional");
    let spec = spec.to_str().unwrap();
    let test = scored_test("proportional");
    let score = test["score"].as_f64().unwrap();
    let tally = test["tally"].as_str().expect("a tally beside the score");
    let wrong_inputs = test["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "wrong")
        .unwrap()["text"]
        .as_str()
        .unwrap()
        .split(" of ")
        .next()
        .unwrap()
        .to_string();
    let counted = format!("{wrong_inputs} of 3,000 wrong, scored in proportion");
    assert_eq!(tally, format!("{counted}: {score} / 10 points"));
    assert!(
        test["output"].as_str().unwrap().starts_with(tally),
        "{test}"
    );

    let (_, stdout) = grade(
        "gradescope",
        "scored.gradescope.json",
        &["--spec", spec],
        &[],
    );
    let gradescope: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(scratch().join("scored.gradescope.json")).unwrap(),
    )
    .unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(gradescope["tests"][0]["score"].as_f64(), Some(score));
    assert!(
        gradescope["tests"][0]["output"]
            .as_str()
            .unwrap()
            .contains(&format!("```\n{tally}\n")),
        "{gradescope}"
    );

    grade("junit", "scored.junit.xml", &["--spec", spec], &[]);
    let xml = std::fs::read_to_string(scratch().join("scored.junit.xml")).unwrap();
    assert_eq!(attribute(&xml, "<failure", "message"), tally);

    let summary = scratch().join("scored-summary.md");
    let outputs = scratch().join("scored-output");
    for file in [&summary, &outputs] {
        std::fs::write(file, "").unwrap();
    }
    let (_, stdout) = grade(
        "github",
        "scored.classroom.json",
        &["--spec", spec],
        &[
            ("GITHUB_STEP_SUMMARY", &summary),
            ("GITHUB_OUTPUT", &outputs),
        ],
    );
    assert!(
        stdout.contains(&format!(
            "::error title=plaisante_hand%3A%3Arandom_hands::{tally}%0A"
        )),
        "{stdout}"
    );
    // The pretty report's score table, which `github` prints first.
    let row = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("random hands"))
        .unwrap();
    assert!(
        row.contains(&format!("{score} / 10")) && row.ends_with(&counted),
        "{row}"
    );
    let markdown = std::fs::read_to_string(&summary).unwrap();
    assert!(
        markdown.contains(&format!(
            "| plaisante_hand | random hands | {score} / 10 | {counted} |"
        )),
        "{markdown}"
    );
    let classroom: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(scratch().join("scored.classroom.json")).unwrap(),
    )
    .unwrap();
    assert!(
        classroom["tests"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with(tally),
        "{classroom}"
    );
}
