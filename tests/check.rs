//! `grader check` end to end: the real binary builds real submission crates and grades them.

mod support;

use std::path::{Path, PathBuf};

use support::{built_in_points, check, failure_of, grader, not_graded, repo, result_line};

fn fixture(name: &str) -> PathBuf {
    repo().join("tests/fixtures").join(name)
}

/// The Gradescope test of `id` that failed or was not run: its output starts with the id.
fn gradescope_test<'a>(results: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    results["tests"]
        .as_array()
        .expect("a list of tests")
        .iter()
        .find(|t| {
            t["output"]
                .as_str()
                .is_some_and(|o| o.starts_with(&format!("`{id}`")))
        })
        .unwrap_or_else(|| panic!("no failed test {id} in {results}"))
}

/// A score of the results JSON in hundredths, the unit scores are rounded to.
fn hundredths(score: &serde_json::Value) -> u64 {
    let score = score
        .as_f64()
        .unwrap_or_else(|| panic!("{score} is not a number"));
    (score * 100.0).round() as u64
}

/// The sum of every test's `field` (`score` or `max_score`), in hundredths.
fn sum_of_tests(results: &serde_json::Value, field: &str) -> u64 {
    results["tests"]
        .as_array()
        .expect("a list of tests")
        .iter()
        .map(|test| hundredths(&test[field]))
        .sum()
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// One run gives both reports: the human one on stdout and the JSON results in a file.
#[test]
fn the_reference_scores_full_marks_exactly_on_every_group() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("reference.json");
    let (code, stdout, stderr) = check(
        &repo().join("reference"),
        &["--format", "json", "--output", out.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let hundredths = built_in_points();
    let points = hundredths as f64 / 100.0;
    assert!(
        stdout.contains(&format!("total {points} / {points}")),
        "{stdout}"
    );
    assert!(result_line(&stdout, "plaisante_hand::every_hand").ends_with("ok"));
    let results = read_json(&out);
    // Groups such as 25 points over 13 tests do not divide; the sum must still be the
    // specs' whole points, not a hundredth short.
    assert_eq!(
        results["score"].as_f64(),
        Some(points),
        "{}",
        results["score"]
    );
    assert_eq!(results["max_score"].as_f64(), Some(points));
    assert_eq!(sum_of_tests(&results, "score"), hundredths);
    assert_eq!(sum_of_tests(&results, "max_score"), hundredths);
}

#[test]
fn the_template_fails_every_test_as_not_yet_implemented() {
    // Its example tests are graded on their own (tests/student_tests.rs).
    let (code, stdout, stderr) = check(&repo().join("student_template"), &["--skip", "your_tests"]);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    // No test of what the template provides (total_value is the trait's own).
    let passing: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("test ") && l.ends_with(" ok"))
        .collect();
    assert_eq!(passing, Vec::<&str>::new());
    // One block per group names each `todo!()` it met, once; its other tests point to it.
    let failures = &stdout[..stdout.rfind("\nfailures:").unwrap()];
    let blocks: Vec<&str> = failures.split("\n---- ").skip(1).collect();
    let failed = stdout.lines().filter(|l| l.ends_with(" FAILED")).count();
    assert_eq!(blocks.len(), failed, "a block per failed test");
    let (listing, pointing): (Vec<&str>, Vec<&str>) = blocks
        .iter()
        .partition(|block| block.contains("----\nnot yet implemented, in "));
    assert!(
        listing.len() > 30 && listing.len() * 2 < failed,
        "{} blocks list todo!()s for {failed} failed tests",
        listing.len()
    );
    for block in &listing {
        assert!(
            block.contains("not yet implemented (todo!() at src/"),
            "{block}"
        );
    }
    // A test that failed otherwise (a strategy's game) says where it met its `todo!()`.
    for block in &pointing {
        let (test, _) = block.split_once(" ----").unwrap();
        let group = &test[..test.rfind("::").unwrap()];
        assert!(
            block.contains(&format!(
                "not yet implemented: see the `todo!()`s listed under {group}::"
            )) || block.contains("not yet implemented (todo!() at src/"),
            "{block}"
        );
    }
    let has_pair = listing
        .iter()
        .find(|b| b.starts_with("plaisante_hand::has_pair::"))
        .unwrap();
    assert!(
        has_pair.contains("not yet implemented, in 8 tests of its group:"),
        "{has_pair}"
    );
    assert_eq!(has_pair.matches("todo!()").count(), 1, "{has_pair}");
    assert!(
        !stderr.contains("panicked"),
        "the grader itself panicked:\n{stderr}"
    );
}

#[test]
fn correct_submissions_written_otherwise_pass_every_test() {
    let alternatives = support::plaisante_hand::alternatives()
        .into_iter()
        .map(|m| ("plaisante_hand", m))
        .chain(
            support::draw_poker::alternatives()
                .into_iter()
                .map(|m| ("draw_poker", m)),
        )
        .chain(
            support::crazy_eights::alternatives()
                .into_iter()
                .map(|m| ("crazy_eights", m)),
        );
    for (assignment, alternative) in alternatives {
        let (code, stdout, stderr) = check(
            &support::named(&alternative.name),
            // Without tests of their own, they catch no bug: graded apart (tests/student_tests.rs).
            &[
                "--assignment",
                assignment,
                "--skip",
                "every_hand",
                "--skip",
                "your_tests",
            ],
        );
        assert_eq!(code, 0, "{}: {stdout}\n{stderr}", alternative.name);
    }
}

/// A grader killed when the test ends, passed or not.
struct Watching(std::process::Child);

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn watch_grades_again_when_a_file_of_the_crate_is_saved() {
    let student = support::scratch().join("watched-student");
    let _ = std::fs::remove_dir_all(&student);
    support::copy_tree(&fixture("example-student"), &student);
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_grader"));
    support::grader_env(&mut command)
        .arg("check")
        .arg(&student)
        .args(["has_pair", "--watch", "--color", "never"])
        .args(["--assignment", "plaisante_hand"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    let mut watching = Watching(command.spawn().unwrap());
    let stdout = watching.0.stdout.take().unwrap();
    let (lines, results) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if line.starts_with("test result:") && lines.send(line).is_err() {
                return;
            }
        }
    });
    let wait = std::time::Duration::from_secs(240);
    let first = results.recv_timeout(wait).expect("a first grading");
    assert!(first.contains("FAILED"), "{first}");
    // Nothing changes: no second grading.
    assert!(
        results
            .recv_timeout(std::time::Duration::from_secs(2))
            .is_err()
    );
    let lib = student.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(&lib, format!("{text}\n// saved again\n")).unwrap();
    let second = results
        .recv_timeout(wait)
        .expect("a grading after the save");
    assert!(second.contains("FAILED"), "{second}");
}

/// Each hostile fixture, the group of tests/specs/hostile.yaml that triggers it, and what
/// the trigger's failure must say.
const HOSTILE: &[(&str, &str, &str)] = &[
    (
        "hostile-loop",
        "loop",
        "no answer for 1,000 ms (an endless loop?)",
    ),
    ("hostile-panic", "panic", "panicked at src/lib.rs:"),
    ("hostile-abort", "abort", "aborted (SIGABRT)"),
    (
        "hostile-exit",
        "exit",
        "exited with status 0 (std::process::exit)",
    ),
    (
        "hostile-stack-overflow",
        "stack_overflow",
        "overflowed its stack",
    ),
];

#[test]
fn hostile_code_fails_its_own_test_and_nothing_else() {
    let spec = repo().join("tests/specs/hostile.yaml");
    for (name, group, says) in HOSTILE {
        let (code, stdout, stderr) = check(
            &support::named(name),
            &["--spec", spec.to_str().unwrap(), "--test-threads", "1"],
        );
        assert_eq!(code, 1, "{name}:\n{stdout}\n{stderr}");
        let trigger = format!("plaisante_hand::{group}::trigger");
        assert!(
            failure_of(&stdout, &trigger).contains(says),
            "{name}:\n{stdout}"
        );
        assert!(
            result_line(&stdout, &format!("plaisante_hand::{group}::after")).ends_with("ok"),
            "{name}"
        );
        let failed = stdout
            .lines()
            .filter(|l| l.starts_with("test ") && l.ends_with("FAILED"))
            .count();
        let bulk_also_fails = matches!(*name, "hostile-loop" | "hostile-exit");
        assert_eq!(
            failed,
            1 + usize::from(bulk_also_fails),
            "{name}:\n{stdout}"
        );
        assert!(
            !stderr.contains("panicked"),
            "the grader panicked:\n{stderr}"
        );
    }
}

/// The input a failure block says the runner stopped on, as the report shows it.
fn stopped_on_hand(block: &str) -> &str {
    let mut lines = block
        .lines()
        .skip_while(|line| !line.contains("stopped on input "));
    lines.nth(1).map_or("", str::trim)
}

#[test]
fn a_crash_in_bulk_says_how_far_it_got() {
    let spec = repo().join("tests/specs/hostile.yaml");
    let (_, stdout, _) = check(
        &support::named("hostile-exit"),
        &["--spec", spec.to_str().unwrap(), "in_bulk"],
    );
    let block = failure_of(&stdout, "plaisante_hand::in_bulk");
    assert!(block.contains("stopped    after "), "{block}");
    assert!(
        block.contains("of 3,000: no answer: the runner process exited with status 0"),
        "{block}"
    );
    // Which input it died on, and what that input was: the first hand from A♣, though
    // the answers before it were still in the runner's buffer.
    assert!(block.contains("stopped on input "), "{block}");
    assert!(block.contains("but not yet sent those answers"), "{block}");
    assert!(
        block.contains("after 0 of 3,000") && !block.contains("by check"),
        "no check is right or wrong before an answer is compared: {block}"
    );
    let hand = stopped_on_hand(block);
    assert!(
        hand.starts_with("A♣ ") && hand.ends_with("(5 cards)"),
        "{block}"
    );
}

/// A loop is stopped at the group's stall limit, long before its timeout, in a listed test
/// and in a bulk group, and the bulk group names the hand it was stuck on.
#[test]
fn a_stuck_runner_is_stopped_at_the_stall_limit_not_the_timeout() {
    let spec = support::scratch_file(
        "stall-limit.yaml",
        "assignment: plaisante_hand\ngroups:\n  - name: listed\n    points: 1\n    timeout_ms: 600000\n    stall_ms: 300\n    cases:\n      - { name: trigger, hand: [2H, 3H, 4H, 5H, 6H], check: has_flush }\n      - { name: after, hand: [KH, KD, 3C, 7S, 9H], check: has_pair }\n  - name: in bulk\n    points: 1\n    timeout_ms: 600000\n    stall_ms: 300\n    generate: { count: 3000, seed: 7 }\n    checks: [has_flush]\n",
    );
    let (code, stdout, stderr) = check(
        &support::named("hostile-loop"),
        &["--spec", spec.to_str().unwrap(), "--test-threads", "1"],
    );
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    let stopped = "no answer for 300 ms (an endless loop?)";
    assert!(
        failure_of(&stdout, "plaisante_hand::listed::trigger").contains(stopped),
        "{stdout}"
    );
    assert!(result_line(&stdout, "plaisante_hand::listed::after").ends_with(" ok"));
    let bulk = failure_of(&stdout, "plaisante_hand::in_bulk");
    assert!(bulk.contains(stopped), "{bulk}");
    // The loop is in has_flush when the first card is a heart.
    let first_card = stopped_on_hand(bulk)
        .split(' ')
        .next()
        .unwrap_or_default()
        .to_string();
    assert!(first_card.ends_with('♥'), "{bulk}");
}

/// A test that prints a lot is answered right; a bulk group that prints more than a test
/// may is stopped, saying how much it printed, not taken for an endless loop, and the
/// results say it flooded in the grader's own field, which the class report reads.
#[test]
fn a_flood_of_output_neither_corrupts_answers_nor_floods_the_report() {
    let spec = repo().join("tests/specs/hostile.yaml");
    let (code, stdout, stderr) = check(
        &support::named("hostile-flood"),
        &[
            "--spec",
            spec.to_str().unwrap(),
            "--test-threads",
            "1",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(
        stdout.len() < 64 * 1024,
        "results of {} bytes",
        stdout.len()
    );
    let results: serde_json::Value = serde_json::from_str(&stdout).expect("stdout is only JSON");
    let test = |name: &str| {
        results["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {results:#}"))
            .clone()
    };
    let trigger = test("plaisante_hand::flood::trigger");
    assert_eq!(trigger["status"], "passed", "{trigger:#}");
    assert!(trigger.get("trouble").is_none(), "{trigger:#}");
    let flooded = test("plaisante_hand::in_bulk");
    assert_eq!(flooded["trouble"], "flooded", "{flooded:#}");
    let said = flooded["output"].as_str().unwrap();
    assert!(
        said.contains("it printed ") && said.contains("MB, more than the 100 MB a test may print"),
        "{said}"
    );
    assert!(!said.contains("endless loop"), "{said}");
}

#[test]
fn printed_output_is_shown_with_its_failure_and_cut_at_the_cap() {
    let (code, stdout, _) = check(
        &support::named("hostile-chatty"),
        &["has_pair::three_kings"],
    );
    assert_eq!(code, 1, "{stdout}");
    let block = failure_of(
        &stdout,
        "plaisante_hand::has_pair::three_kings_is_not_a_pair",
    );
    assert!(block.contains("stdout of your code"), "{block}");
    assert!(
        block.contains("debug: checking for a pair, round 0"),
        "{block}"
    );
    assert!(block.contains("more bytes not shown"), "{block}");
    assert!(
        block.contains("stderr of your code done checking"),
        "{block}"
    );
    assert!(block.len() < 8 * 1024, "{} bytes", block.len());
}

/// Every text in a JSON value.
fn strings(value: &serde_json::Value) -> Vec<&str> {
    match value {
        serde_json::Value::String(text) => vec![text],
        serde_json::Value::Array(items) => items.iter().flat_map(strings).collect(),
        serde_json::Value::Object(fields) => fields.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

/// JSON would carry an ESC as `\u001b`, so the parsed texts are what must be free of it.
#[test]
fn escape_sequences_a_submission_prints_are_shown_not_passed_on() {
    let mutant = support::named("hostile-terminal-escape");
    let test = "plaisante_hand::has_pair::three_kings_is_not_a_pair";
    let (code, stdout, stderr) = check(&mutant, &["--format", "gradescope", "has_pair"]);
    assert_eq!(code, 1, "{stderr}");
    let results: serde_json::Value = serde_json::from_str(&stdout).expect("stdout is only JSON");
    for text in strings(&results) {
        assert!(!text.contains(['\u{1b}', '\u{7}']), "{text:?}");
    }
    let failed = gradescope_test(&results, test);
    assert!(
        failed["output"].as_str().unwrap().contains("␛]0;pwned␇"),
        "the printed text is still shown: {failed}"
    );
    // The terminal report, colorless here, shows it the same way.
    let (_, stdout, _) = check(&mutant, &["has_pair"]);
    assert!(!stdout.contains(['\u{1b}', '\u{7}']), "{stdout:?}");
    assert!(failure_of(&stdout, test).contains("␛]0;pwned␇"), "{stdout}");
}

#[test]
fn a_crate_that_does_not_compile_gets_the_compilers_words_and_zero() {
    let (code, _, stderr) = check(&support::broken_compile().write(), &[]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("expected `u32`, found `&str`"), "{stderr}");
    assert!(stderr.contains("score: 0"), "{stderr}");
}

#[test]
fn a_crate_without_submission_is_told_what_to_add() {
    let (code, _, stderr) = check(&support::without_submission().write(), &[]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("no usable `pub fn submission() -> grader_api::Submission`"),
        "{stderr}"
    );
}

#[test]
fn a_crate_pointing_at_another_grader_api_is_built_against_the_graders_own() {
    // Its grader-api path leads to a stand-in of another version, which would say no hello.
    let (code, _, stderr) = check(&fixture("broken-old-api"), &[]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("your submission() registers no assignment"),
        "{stderr}"
    );
}

#[test]
fn a_crate_copied_from_another_machine_builds_whatever_its_api_path_says() {
    let copy = Path::new(env!("CARGO_TARGET_TMPDIR")).join("moved-example-student");
    let _ = std::fs::remove_dir_all(&copy);
    std::fs::create_dir_all(copy.join("src")).unwrap();
    let original = fixture("example-student");
    let manifest = std::fs::read_to_string(original.join("Cargo.toml"))
        .unwrap()
        .replace("../../../api", "/home/someone-else/cardgrade/api");
    std::fs::write(copy.join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(original.join("src/lib.rs"), copy.join("src/lib.rs")).unwrap();
    let (code, stdout, stderr) = check(&copy, &["--skip", "every_hand"]);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    // libtest's line counts the tests it lists: the 17 known mistakes the student's tests
    // should catch are counted in their group's block (4 caught), not as tests.
    assert!(stdout.contains("62 passed; 9 failed"), "{stdout}");
    assert!(
        stdout.contains("your tests (plaisante_hand): your tests catch 4 of 17 known mistakes"),
        "{stdout}"
    );
}

#[test]
fn a_folder_that_is_not_a_crate_is_a_usage_error() {
    let (code, _, stderr) = check(&repo().join("specs"), &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("is not a Rust crate"), "{stderr}");
}

#[test]
fn a_missing_path_is_a_usage_error_not_a_filter() {
    for path in ["/no/such/crate", "./no-such-crate"] {
        let output = grader(&["check", path]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{path}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "{path} does not exist: pass the folder of your crate"
            )),
            "{stderr}"
        );
    }
}

#[test]
fn filters_that_select_no_test_exit_4_naming_them() {
    let reference = repo().join("reference");
    // Listing, grading, and grading for staff (which runs tests without libtest) alike.
    for extra in [
        &["--list", "no_such_test"][..],
        &["no_such_test"],
        &["no_such_test", "--format", "json"],
    ] {
        let (code, stdout, stderr) = check(&reference, extra);
        assert_eq!(code, 4, "{extra:?}: {stdout}\n{stderr}");
        assert!(
            stderr.contains("no test matches `no_such_test`: `grader check --list` lists them"),
            "{stderr}"
        );
        assert!(stdout.is_empty(), "{stdout}");
    }
    let (code, _, stderr) = check(&reference, &["--exact", "has_pair"]);
    assert_eq!(code, 4, "--exact wants a whole name: {stderr}");
    assert!(stderr.contains("no test is named `has_pair`"), "{stderr}");
}

#[test]
fn a_malformed_spec_names_file_line_and_column() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bad-spec");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("bad.yaml");
    std::fs::write(
        &spec,
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH, 1X] }\n",
    )
    .unwrap();
    let (code, _, stderr) = check(
        &repo().join("reference"),
        &["--spec", spec.to_str().unwrap()],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("bad.yaml:6:"), "{stderr}");
    assert!(stderr.contains("`1X` is not a card"), "{stderr}");
}

#[test]
fn an_assignment_no_spec_grades_is_a_usage_error_not_the_students_fault() {
    let plaisante = repo().join("specs/plaisante_hand.yaml");
    let (code, stdout, stderr) = check(
        &repo().join("reference"),
        &[
            "--spec",
            plaisante.to_str().unwrap(),
            "--assignment",
            "poker",
        ],
    );
    assert_eq!(code, 2, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("--assignment poker: no spec grades it; the specs hold plaisante_hand"),
        "{stderr}"
    );
}

#[test]
fn a_case_the_reference_cannot_answer_within_its_timeout_is_a_spec_error() {
    let slow = support::scratch_file(
        "slow-reference.yaml",
        "assignment: blackjack\ngroups:\n  - name: g\n    timeout_ms: 1\n    cases:\n      - { name: ten thousand rounds, seed: 1, player: hit below 17, rounds: 10000 }\n",
    );
    let (code, _, stderr) = check(
        &repo().join("reference"),
        &["--list", "--spec", slow.to_str().unwrap()],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("test blackjack::g::ten_thousand_rounds: the reference took more than its group's timeout of 1 ms"),
        "{stderr}"
    );
}

#[test]
fn specs_with_no_group_are_a_spec_error_not_the_students_fault() {
    let empty = support::scratch_file("no-groups.yaml", "assignment: plaisante_hand\ngroups: []\n");
    let (code, _, stderr) = check(
        &repo().join("reference"),
        &["--spec", empty.to_str().unwrap()],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("the specs given hold no group"), "{stderr}");
}

#[test]
fn names_whose_ids_collide_are_refused_naming_both_places() {
    let spec = support::scratch_file(
        "colliding-names.yaml",
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n      - { name: Pair!, hand: [KH, KD] }\n      - { name: pair, hand: [KH, KC] }\n",
    );
    let (code, _, stderr) = check(
        &repo().join("reference"),
        &["--list", "--spec", spec.to_str().unwrap()],
    );
    assert_eq!(code, 2, "{stderr}");
    let file = spec.display().to_string();
    assert!(
        stderr.contains(&format!(
            "{file}:7:11: this test's id is `plaisante_hand::g::pair`, as is the test `Pair!` at {file}:6:11"
        )),
        "{stderr}"
    );
}

#[test]
fn a_new_crate_from_the_embedded_template_grades_as_the_template_does() {
    let crate_dir = support::scratch().join("grader-new-crate");
    let _ = std::fs::remove_dir_all(&crate_dir);
    let made = grader(&["new", crate_dir.to_str().unwrap(), "--all"]);
    assert!(made.status.success(), "{made:?}");
    let library = std::fs::read_to_string(crate_dir.join("src/lib.rs")).unwrap();
    for unit in grader_api::ASSIGNMENTS {
        assert!(
            library.contains(&format!(".with({}::register)", unit.name())),
            "{library}"
        );
    }
    let manifest = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("grader-api = { path = \"grader-api\" }"),
        "{manifest}"
    );
    assert!(crate_dir.join("grader-api/src/lib.rs").is_file());
    let (code, stdout, stderr) = check(&crate_dir, &["has_pair", "--assignment", "plaisante_hand"]);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(
        stdout.contains(
            "---- plaisante_hand::has_pair::pair_of_kings ----\nnot yet implemented, in 8 tests of its group:"
        ),
        "{stdout}"
    );
    // Never over what is there.
    let again = grader(&["new", crate_dir.to_str().unwrap(), "--all"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already holds something"));
}

#[test]
fn a_student_starts_with_one_assignment_and_is_graded_out_of_its_points() {
    let crate_dir = support::scratch().join("grader-new-plaisante-hand");
    let _ = std::fs::remove_dir_all(&crate_dir);
    let made = grader(&[
        "new",
        crate_dir.to_str().unwrap(),
        "--assignment",
        "plaisante_hand",
    ]);
    assert!(made.status.success(), "{made:?}");
    // As the student runs it (a student's view), but for the 2.6 million hands, which that
    // view names as a hidden test.
    let graded = grader(&[
        "check",
        crate_dir.to_str().unwrap(),
        "--color",
        "never",
        "--skip",
        "plaisante_hand::hidden_",
    ]);
    let stdout = String::from_utf8_lossy(&graded.stdout);
    assert_eq!(graded.status.code(), Some(1), "{stdout}");
    let tests: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("test "))
        .filter(|line| !line.starts_with("result: "))
        .collect();
    assert!(!tests.is_empty(), "{stdout}");
    assert!(
        tests
            .iter()
            .all(|test| test.starts_with("plaisante_hand::")),
        "{stdout}"
    );
    let score = &stdout[stdout.find("\nscore\n").expect("a score table")..];
    let others: Vec<&str> = grader_api::ASSIGNMENTS
        .iter()
        .map(|unit| unit.name())
        .filter(|name| *name != "plaisante_hand")
        .filter(|name| {
            score
                .lines()
                .any(|line| line.trim_start().starts_with(name))
        })
        .collect();
    assert!(others.is_empty(), "{others:?} in {score}");
    let named: Vec<&str> = grader_api::ASSIGNMENTS
        .iter()
        .map(|unit| unit.name())
        .filter(|name| *name != "plaisante_hand" && stdout.contains(name))
        .collect();
    assert!(named.is_empty(), "{named:?} named in {stdout}");
    let points = support::points_of("plaisante_hand") as f64 / 100.0;
    let total = score
        .lines()
        .find_map(|line| line.strip_prefix("  total "))
        .expect("a total line");
    assert!(total.ends_with(&format!(" / {points}")), "{score}");
}

#[test]
fn a_new_crate_off_a_terminal_without_an_assignment_is_refused_naming_them() {
    let crate_dir = support::scratch().join("grader-new-unnamed");
    let _ = std::fs::remove_dir_all(&crate_dir);
    // The test's stdin is no terminal, as in a script or a CI job: nobody to ask.
    let refused = grader(&["new", crate_dir.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    let names: Vec<&str> = grader_api::ASSIGNMENTS
        .iter()
        .map(|unit| unit.name())
        .collect();
    assert!(
        stderr.contains(&format!(
            "name the assignment the crate is for with --assignment NAME, one of: {} (or --all for every one)",
            names.join(", ")
        )),
        "{stderr}"
    );
    assert!(!crate_dir.exists(), "nothing is written");
}

#[test]
fn a_new_crate_for_one_assignment_holds_its_module_and_those_it_uses_and_grades_only_it() {
    let crate_dir = support::scratch().join("grader-new-draw-poker");
    let _ = std::fs::remove_dir_all(&crate_dir);
    let made = grader(&[
        "new",
        crate_dir.to_str().unwrap(),
        "--assignment",
        "draw_poker",
    ]);
    assert!(made.status.success(), "{made:?}");
    let mut modules: Vec<String> = std::fs::read_dir(crate_dir.join("src"))
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    modules.sort();
    // Five-card draw ranks with the poker hand.
    assert_eq!(modules, ["draw_poker.rs", "lib.rs", "poker.rs"]);
    let library = std::fs::read_to_string(crate_dir.join("src/lib.rs")).unwrap();
    assert!(
        library.contains("pub mod poker;") && library.contains(".with(draw_poker::register)"),
        "{library}"
    );
    assert!(
        !library.contains(".with(poker::register)") && !library.contains("crazy_eights"),
        "{library}"
    );
    let (code, stdout, stderr) = check(&crate_dir, &[]);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(stdout.contains("draw_poker::"), "{stdout}");
    assert!(
        !stdout.contains("plaisante_hand::") && !stdout.contains("\npoker::"),
        "{stdout}"
    );
    let unknown = grader(&[
        "new",
        crate_dir.with_extension("x").to_str().unwrap(),
        "--assignment",
        "solitaire",
    ]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&unknown.stderr)
            .contains("--assignment solitaire: not an assignment")
    );
}

#[test]
fn an_added_spec_replaces_the_built_in_group_it_names_and_adds_the_rest() {
    let added = support::scratch_file(
        "added-groups.yaml",
        "assignment: plaisante_hand\ngroups:\n  - name: has_pair\n    points: 10\n    check: has_pair\n    cases:\n      - { name: a pair of queens, hand: [QH, QD, 3C] }\n  - name: our own\n    points: 5\n    check: has_flush\n    cases:\n      - { name: five hearts, hand: [2H, 5H, 9H, JH, KH] }\n",
    );
    let (code, listed, stderr) = check(
        &repo().join("reference"),
        &[
            "--list",
            "--assignment",
            "plaisante_hand",
            "--add-spec",
            added.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let has_pair: Vec<&str> = listed
        .lines()
        .filter(|l| l.starts_with("plaisante_hand::has_pair::"))
        .collect();
    assert_eq!(
        has_pair,
        ["plaisante_hand::has_pair::a_pair_of_queens: test"]
    );
    assert!(
        listed.contains("plaisante_hand::has_flush::"),
        "built-in groups stay: {listed}"
    );
    assert!(
        listed.ends_with("plaisante_hand::our_own::five_hearts: test\n"),
        "{listed}"
    );
}

#[test]
fn a_case_may_weigh_more_than_another_and_keep_an_id_of_its_own() {
    let spec = support::scratch_file(
        "weights-and-ids.yaml",
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 10\n    check: has_pair\n    cases:\n      - { name: a pair of kings, hand: [KH, KD], weight: 3 }\n      - { name: Renamed later, id: no pair, hand: [KH, QD] }\n",
    );
    let (code, stdout, stderr) = check(
        &repo().join("reference"),
        &["--spec", spec.to_str().unwrap(), "--format", "json"],
    );
    assert_eq!(code, 0, "{stderr}");
    let results: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let worth: Vec<(String, f64)> = results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["max_score"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        worth,
        [
            ("plaisante_hand::g::a_pair_of_kings".to_string(), 7.5),
            ("plaisante_hand::g::no_pair".to_string(), 2.5),
        ]
    );
    std::fs::write(
        &spec,
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pair\n    cases: [{ name: c, hand: [KH], weight: 0 }]\n",
    )
    .unwrap();
    let (code, _, stderr) = check(
        &repo().join("reference"),
        &["--list", "--spec", spec.to_str().unwrap()],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(":5:44: weight: 0 is outside its range, 1 to 1,000"),
        "{stderr}"
    );
}

#[test]
fn spec_show_prints_what_the_reference_answers_for_each_listed_case() {
    let poker = repo().join("specs/poker.yaml");
    let shown = grader(&["spec", "show", poker.to_str().unwrap(), "--case", "wheel"]);
    assert!(shown.status.success(), "{shown:?}");
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.contains("poker::category::the_wheel_is_a_straight\n  category(): expect: straight\n"),
        "{text}"
    );
    assert!(
        text.contains("poker::tiebreak::the_wheels_high_card_is_5\n  tiebreak(): expect: [5, 5]\n"),
        "{text}"
    );
    let none = grader(&[
        "spec",
        "show",
        poker.to_str().unwrap(),
        "--case",
        "no_such_case",
    ]);
    assert_eq!(none.status.code(), Some(2));
}

#[test]
fn a_cargo_outside_what_builds_see_is_named_with_the_fix() {
    // A link to the toolchain's own cargo, from a folder no build sees.
    let cargo = std::fs::canonicalize(env!("CARGO")).unwrap();
    let outside = support::scratch().join("toolchain-outside-the-view");
    let _ = std::fs::remove_dir_all(&outside);
    std::fs::create_dir_all(&outside).unwrap();
    let link = outside.join("cargo");
    std::os::unix::fs::symlink(&cargo, &link).unwrap();
    let doctor = String::from_utf8_lossy(&grader(&["doctor"]).stdout).into_owned();
    let fenced = doctor.contains("yes mount namespace") || doctor.contains("yes landlock");
    let graded = support::grader_env(&mut std::process::Command::new(env!(
        "CARGO_BIN_EXE_grader"
    )))
    .args(["check", "--color", "never", "--skip", "every_hand"])
    .arg(fixture("example-student"))
    .env("CARGO", &link)
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&graded.stderr);
    let said = format!(
        "error: the Rust toolchain's cargo, {} (a link to {}), is outside what builds can see: a build sees the system's folders",
        link.display(),
        cargo.display()
    );
    if fenced {
        assert_eq!(graded.status.code(), Some(3), "{stderr}");
        assert!(stderr.contains(&said), "{stderr}");
        assert!(
            stderr.contains(
                "or put a cargo of the homes above first on PATH (or name it with CARGO=PATH)"
            ),
            "{stderr}"
        );
    } else {
        // Where nothing fences a build's reads, it sees the cargo wherever it is.
        assert!(!stderr.contains("outside what builds can see"), "{stderr}");
    }
}

#[test]
fn spec_fill_writes_into_a_flow_mapping_however_yaml_lets_it_be_laid_out() {
    let laid_out = [
        // A trailing comma stays trailing.
        (
            "{ name: trailing comma, hand: [AH, AD, 10C], }",
            "{ name: trailing comma, hand: [AH, AD, 10C], expect: true, }",
        ),
        (
            "{ hand: [KH, KD], name: name second }",
            "{ hand: [KH, KD], name: name second, expect: true }",
        ),
        (
            "{\n          name: over lines,\n          hand: [2H, 2D],\n        }",
            "{\n          name: over lines,\n          hand: [2H, 2D], expect: true,\n        }",
        ),
        (
            "{ name: with a comment, hand: [3H, 4D] }   # a note }",
            "{ name: with a comment, hand: [3H, 4D], expect: false }   # a note }",
        ),
        (
            "{name: 'quoted # not a comment, }',\n           hand: [2H, 3H]  # a comment } ]\n          }",
            "{name: 'quoted # not a comment, }',\n           hand: [2H, 3H], expect: false  # a comment } ]\n          }",
        ),
    ];
    let spec = |cases: Vec<&str>| {
        let listed: String = cases
            .iter()
            .map(|case| format!("      - {case}\n"))
            .collect();
        format!(
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    hint: \"the seed's rule: {{ not a brace\"\n    cases: [{{name: in a flow list, hand: [KH, KD]}}]\n  - name: h\n    points: 1\n    check: has_pair\n    cases:\n{listed}"
        )
    };
    let path = support::scratch_file(
        "fill-flow-mappings.yaml",
        spec(laid_out.iter().map(|(before, _)| *before).collect()),
    );
    let filled = grader(&["spec", "fill", path.to_str().unwrap()]);
    assert!(filled.status.success(), "{filled:?}");
    let wanted = spec(laid_out.iter().map(|(_, after)| *after).collect())
        .replace("hand: [KH, KD]}]", "hand: [KH, KD], expect: true}]");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), wanted);
    let again = grader(&["spec", "fill", "--check", path.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(0), "{again:?}");
}

#[test]
fn spec_fill_writes_every_missing_expect_and_changes_nothing_else() {
    let dir = support::scratch().join("fill");
    let _ = std::fs::remove_dir_all(&dir);
    support::copy_tree(&repo().join("specs"), &dir);
    let dir_arg = dir.to_str().unwrap();
    let before = grader(&["spec", "fill", "--check", dir_arg]);
    let told = String::from_utf8_lossy(&before.stdout);
    assert_eq!(before.status.code(), Some(1), "{told}");
    let lacking = told
        .lines()
        .filter(|line| line.contains("has no `expect`"))
        .count();
    assert!(lacking > 10, "{told}");
    let filled = grader(&["spec", "fill", dir_arg]);
    assert!(filled.status.success(), "{filled:?}");
    let after = grader(&["spec", "fill", "--check", dir_arg]);
    assert_eq!(after.status.code(), Some(0), "{after:?}");
    // Every `expect` written agrees with the reference: lint checks each one.
    let lint = grader(&["spec", "lint", "--quick", dir_arg]);
    let lint_out = String::from_utf8_lossy(&lint.stdout);
    assert!(lint.status.success(), "{lint_out}");
    // The shipped specs give no due date: their course does, or Gradescope's.
    let warnings: Vec<&str> = lint_out
        .lines()
        .filter(|line| line.contains(": warning: "))
        .collect();
    assert!(
        warnings
            .iter()
            .all(|warning| warning.contains("no spec gives a due date")),
        "{lint_out}"
    );
    let spec_files = std::fs::read_dir(repo().join("specs"))
        .unwrap()
        .flatten()
        .filter(|entry| entry.path().extension().is_some_and(|end| end == "yaml"))
        .count();
    assert!(
        lint_out.ends_with(&format!(
            "0 errors and {} warnings in {spec_files} files\n",
            warnings.len()
        )),
        "{lint_out}"
    );
    // Nothing but the `expect`s changed: each changed line is an old one with `, expect:
    // ...` before its `}`, or an `expect:` line of its own.
    let mut added = 0;
    for entry in std::fs::read_dir(repo().join("specs")).unwrap().flatten() {
        let old = std::fs::read_to_string(entry.path()).unwrap();
        let new = std::fs::read_to_string(dir.join(entry.file_name())).unwrap();
        let diff = similar::TextDiff::from_lines(&old, &new);
        let mut removed: Vec<&str> = Vec::new();
        for change in diff.iter_all_changes() {
            let line = change.value().trim_end_matches('\n');
            match change.tag() {
                similar::ChangeTag::Equal => {}
                similar::ChangeTag::Delete => removed.push(line),
                similar::ChangeTag::Insert => {
                    added += 1;
                    if line.trim_start().starts_with("expect: ") {
                        continue;
                    }
                    let (kept, _) = line
                        .rsplit_once(", expect: ")
                        .unwrap_or_else(|| panic!("{line}"));
                    let was = removed.remove(0);
                    assert!(
                        was.starts_with(kept) && was[kept.len()..].trim() == "}",
                        "{was}\nbecame\n{line}"
                    );
                }
            }
        }
        assert!(removed.is_empty(), "{removed:?}");
    }
    assert_eq!(added, lacking);
}

#[test]
fn kept_answers_grade_as_computed_ones_and_a_damaged_entry_is_computed_again() {
    let store = support::scratch().join("kept-answers");
    let _ = std::fs::remove_dir_all(&store);
    let buggy = support::named("bug-pair-at-least-two");
    let grade = || {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_grader"));
        support::grader_env(&mut command)
            .env("CARDGRADE_ANSWERS_DIR", &store)
            .arg("check")
            .arg(&buggy)
            .args([
                "plaisante_hand::10_000_hands_from_a_seed",
                "--exact",
                "--color",
                "never",
            ]);
        let output = command.output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{output:?}");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        // Everything but the times, which differ from run to run.
        stdout
            .lines()
            .filter(|line| !line.contains("finished in"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let computed = grade();
    assert!(computed.contains("answered wrongly"), "{computed}");
    let entries: Vec<std::path::PathBuf> = std::fs::read_dir(&store)
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let whole = std::fs::read(&entries[0]).unwrap();
    let kept_at = std::fs::metadata(&entries[0]).unwrap().modified().unwrap();
    assert_eq!(grade(), computed, "graded from the kept answers");
    // Read, not written again: a missing or damaged entry is replaced.
    let read_at = std::fs::metadata(&entries[0]).unwrap().modified().unwrap();
    assert_eq!(read_at, kept_at);
    let flipped = {
        let mut changed = whole.clone();
        let middle = changed.len() / 2;
        changed[middle] ^= 0xff;
        changed
    };
    // Cut short, opening finds it: computed and kept anew at once. A byte changed inside
    // the block of answers, the block's check finds it: the reference answers in its
    // place, the entry is removed, and the next grading keeps it anew.
    for (damage, kept_at_once) in [(whole[..whole.len() / 2].to_vec(), true), (flipped, false)] {
        std::fs::write(&entries[0], damage).unwrap();
        assert_eq!(grade(), computed);
        assert_eq!(entries[0].exists(), kept_at_once);
        if !kept_at_once {
            assert_eq!(grade(), computed);
        }
        assert_eq!(std::fs::read(&entries[0]).unwrap(), whole);
    }
}

#[test]
fn cache_build_keeps_every_bulk_groups_answers_once() {
    let store = support::scratch().join("cache-build");
    let _ = std::fs::remove_dir_all(&store);
    let build = || {
        let built = grader(&[
            "cache",
            "build",
            "--assignment",
            "plaisante_hand",
            "--out",
            store.to_str().unwrap(),
        ]);
        assert!(built.status.success(), "{built:?}");
        let mut entries: Vec<(std::path::PathBuf, std::time::SystemTime)> =
            std::fs::read_dir(&store)
                .unwrap()
                .flatten()
                .map(|entry| (entry.path(), entry.metadata().unwrap().modified().unwrap()))
                .collect();
        entries.sort();
        (String::from_utf8_lossy(&built.stdout).into_owned(), entries)
    };
    let (told, first) = build();
    assert!(
        told.starts_with("the answers of 3 bulk groups are kept in "),
        "{told}"
    );
    assert_eq!(first.len(), 3, "{first:?}");
    // Kept answers are not computed again.
    let (_, second) = build();
    assert_eq!(first, second);
}

#[test]
fn a_spec_too_big_to_be_one_is_refused_unread() {
    let big = support::scratch().join("big-spec.yaml");
    let case = "      - { name: c, hand: [KH], check: has_pair }\n";
    let text = format!(
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    cases:\n{}",
        case.repeat(9 * 1024 * 1024 / case.len() + 1)
    );
    std::fs::write(&big, text).unwrap();
    let (code, _, stderr) = check(
        &repo().join("reference"),
        &["--list", "--spec", big.to_str().unwrap()],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("a spec may be at most 8388608 (8 MiB)"),
        "{stderr}"
    );
}

#[test]
fn a_written_expectation_the_reference_disagrees_with_is_a_spec_error() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wrong-spec");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("wrong.yaml");
    std::fs::write(
        &spec,
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n      - { name: three kings, hand: [KH, KD, KC, 7S, 9H], expect: true }\n",
    )
    .unwrap();
    let (code, _, stderr) = check(
        &repo().join("reference"),
        &["--spec", spec.to_str().unwrap()],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("expects true, but the reference answers false"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{}:6:11: case `three kings`", spec.display())),
        "{stderr}"
    );
}

#[test]
fn gradescope_results_follow_the_specification() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("results.json");
    let (code, stdout, _) = check(
        &support::named("bug-score-adds"),
        &[
            "--skip",
            "every_hand",
            "--format",
            "gradescope",
            "--output",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 1);
    assert!(
        stdout.contains("score\n"),
        "the human report still goes to the terminal:\n{stdout}"
    );
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let tests = results["tests"].as_array().unwrap();
    assert!(tests.len() > 60);
    let scored = gradescope_test(
        &results,
        "plaisante_hand::total_value_and_score::k_k_3_7_9_scores_90",
    );
    assert_eq!(scored["tags"][0], "plaisante_hand");
    assert_eq!(scored["output_format"], "md");
    assert!(scored["number"].as_str().unwrap().contains('.'));
    assert!(!scored["name"].as_str().unwrap().contains("::"), "{scored}");
    assert_eq!(scored["status"], "failed");
    assert_eq!(scored["score"], 0.0);
    assert!(scored["output"].as_str().unwrap().contains("actual     47"));
    assert_eq!(scored["visibility"], "visible");
    assert_eq!(
        sum_of_tests(&results, "score"),
        hundredths(&results["score"])
    );
    assert!(results["execution_time"].is_u64());
    let hidden = gradescope_test(&results, "plaisante_hand::every_hand");
    assert_eq!(results["stdout_visibility"], "hidden");
    assert!(
        results["output"]
            .as_str()
            .unwrap()
            .ends_with("points on the tests you can see"),
        "the top-level output counts no hidden test: {}",
        results["output"]
    );
    assert_eq!(hidden["visibility"], "after_due_date");
    assert_eq!(
        hidden["status"], "failed",
        "a test filtered out earns nothing"
    );
}

/// Gradescope's maximum is the sum of the tests' maxima; staff need it the same for every
/// submission of a class, whatever each registers.
#[test]
fn gradescope_max_is_the_specs_not_what_a_submission_registers() {
    // The example student registers plaisante_hand alone; skipping its slow group changes no maximum.
    let (code, stdout, stderr) = check(
        &fixture("example-student"),
        &["--format", "gradescope", "--skip", "every_hand"],
    );
    assert_eq!(code, 1, "{stderr}");
    let results: serde_json::Value = serde_json::from_str(&stdout).expect("stdout is only JSON");
    assert_eq!(
        sum_of_tests(&results, "max_score"),
        built_in_points(),
        "the reference's full marks"
    );
    let tests = results["tests"].as_array().unwrap();
    let poker = tests
        .iter()
        .find(|t| t["tags"][0] == "poker")
        .expect("poker tests are kept");
    assert_eq!(poker["status"], "failed");
    assert_eq!(poker["score"], 0.0);
    assert!(
        poker["output"].as_str().unwrap().contains(
            "\n```\n  not registered: add `.poker::<YourHand>()` to your submission()\n```"
        ),
        "{poker}"
    );
}

#[test]
fn a_students_report_grades_what_is_registered_and_names_the_rest_when_asked_for_them() {
    let (code, stdout, stderr) = check(&fixture("example-student"), &["--skip", "every_hand"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(!stdout.contains("test poker::"), "{stdout}");
    assert!(stdout.contains(" / 105\n"), "{stdout}");
    // A crate for one assignment is told of no other.
    let not_graded = format!("not graded: {}", not_graded(&["plaisante_hand"]));
    assert!(!stdout.contains("not graded"), "{stdout}");
    // A filter that only matches what is left out runs nothing: that is said, not passed,
    // with the assignments left out.
    let (code, _, stderr) = check(&fixture("example-student"), &["poker"]);
    assert_eq!(code, 4, "{stderr}");
    assert!(
        stderr.contains("no test matches `poker` in the assignments your submission() registers"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "{not_graded} (your submission() does not register them; --assignment NAME grades one anyway)"
        )),
        "{stderr}"
    );
}

#[test]
fn machine_results_on_several_threads_are_those_of_one() {
    let results = |threads: &str| -> serde_json::Value {
        let (code, stdout, stderr) = check(
            &fixture("example-student"),
            &[
                "--format",
                "json",
                "--test-threads",
                threads,
                "--skip",
                "every_hand",
            ],
        );
        assert_eq!(code, 1, "{stderr}");
        serde_json::from_str(&stdout).expect("stdout is only JSON")
    };
    let (one, two) = (results("1"), results("2"));
    assert_eq!(one["score"], two["score"]);
    let statuses = |results: &serde_json::Value| -> Vec<String> {
        results["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|test| format!("{} {}", test["name"], test["status"]))
            .collect()
    };
    assert_eq!(statuses(&one), statuses(&two));
    assert!(
        !statuses(&two)
            .iter()
            .any(|s| s.ends_with("\"not_run\"") && !s.contains("every_hand"))
    );
}

#[test]
fn json_results_go_to_stdout_alone_without_output() {
    let spec = repo().join("tests/specs/hostile.yaml");
    let (code, stdout, _) = check(
        &repo().join("reference"),
        &["--spec", spec.to_str().unwrap(), "--format", "json"],
    );
    assert_eq!(code, 0);
    let results: serde_json::Value = serde_json::from_str(&stdout).expect("stdout is only JSON");
    assert_eq!(results["schema"], "cardgrade.results.v1");
    assert_eq!(results["outcome"], "passed");
    assert_eq!(results["score"], results["max_score"]);
}

#[test]
fn a_build_failure_still_writes_results_with_zero() {
    let (code, stdout, _) = check(
        &support::broken_compile().write(),
        &["--format", "gradescope"],
    );
    assert_eq!(code, 3);
    let results: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(results["score"], 0.0);
    assert_eq!(
        sum_of_tests(&results, "max_score"),
        built_in_points(),
        "every test of the specs counts, as for a submission that builds"
    );
    assert!(
        results["output"]
            .as_str()
            .unwrap()
            .contains("expected `u32`")
    );
}

#[test]
fn filters_list_and_exact_work_like_cargo_test() {
    let (_, listed, _) = check(&repo().join("reference"), &["--list", "has_pair"]);
    assert!(
        listed
            .lines()
            .all(|l| l.is_empty() || l.contains("has_pair")),
        "{listed}"
    );
    assert!(listed.contains("plaisante_hand::has_pair::three_kings_is_not_a_pair: test"));
    let (code, stdout, _) = check(
        &support::named("bug-pair-at-least-two"),
        &["--exact", "plaisante_hand::has_pair::pair_of_kings"],
    );
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("1 passed"), "{stdout}");
}

#[test]
fn list_names_only_the_tests_that_will_run() {
    // The example registers only the Plaisante hand: its report grades nothing else.
    let (code, listed, stderr) = check(&fixture("example-student"), &["--list"]);
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = listed.lines().filter(|l| !l.is_empty()).collect();
    assert!(lines.len() > 50, "{listed}");
    assert!(
        lines.iter().all(|l| l.starts_with("plaisante_hand::")),
        "{listed}"
    );
    // Named assignments are listed as asked, without building.
    let (_, listed, _) = check(
        &fixture("example-student"),
        &["--list", "--assignment", "poker"],
    );
    assert!(listed.lines().all(|l| l.starts_with("poker::")), "{listed}");
    assert!(
        listed.contains("poker::category::royal_flush: test"),
        "{listed}"
    );
}

#[test]
fn help_documents_the_exit_codes() {
    let output = grader(&["check", "--help"]);
    let help = String::from_utf8_lossy(&output.stdout);
    for line in [
        "0  every test passed",
        "1  some test failed",
        "2  usage or spec error",
        "3  the submission did not build",
        "4  no test to run",
    ] {
        assert!(help.contains(line), "{help}");
    }
    assert_eq!(grader(&["check", "--bogus"]).status.code(), Some(2));
}

/// A strategy that cheats costs its own test, not the other strategy's points.
#[test]
fn each_required_strategy_is_a_test_of_its_own() {
    let (code, stdout, stderr) = check(
        &support::named("crazy_eights-strategy-plays-a-card-not-held"),
        &["--assignment", "crazy_eights", "your_strategies"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        result_line(&stdout, "crazy_eights::your_strategies::strategy_1").ends_with(" ok"),
        "{stdout}"
    );
    assert!(
        result_line(&stdout, "crazy_eights::your_strategies::strategy_2").ends_with("FAILED"),
        "{stdout}"
    );
    assert!(
        stdout.contains("strategy `eager` won "),
        "the legal one's record: {stdout}"
    );
}

/// A submission that says, once per runner, that it started, gets `has_pair` wrong, and
/// never returns from a four-card hand that starts with the ace of spades.
fn told_split() -> support::Mutant {
    let pair = (support::library("plaisante_hand").bugs)()
        .into_iter()
        .find(|bug| bug.name == "bug-pair-at-least-two")
        .unwrap()
        .edits
        .remove(0);
    let mut told = support::Mutant::of(
        "plaisante_hand",
        "split-told",
        "tells each runner's start, counts pairs wrongly, hangs on four cards from A♠",
        &[(
            "fn new(cards: Vec<Card>) -> Hand {\n        Hand { cards }",
            "fn new(cards: Vec<Card>) -> Hand {\n        static TOLD: std::sync::Once = std::sync::Once::new();\n        TOLD.call_once(|| {\n            use std::hash::BuildHasher;\n            eprintln!(\"started runner-{:x}\", std::hash::RandomState::new().hash_one(0u8));\n        });\n        let ace_of_spades = cards.first().is_some_and(|c| c.value() == 14 && c.suit() == grader_api::Suit::Spades);\n        while cards.len() == 4 && ace_of_spades {\n            std::hint::spin_loop();\n        }\n        Hand { cards }",
        )],
    );
    told.edits.insert(0, pair);
    told
}

#[test]
fn a_bulk_group_split_across_runners_is_reported_as_one_runner_would_report_it() {
    let spec = support::scratch_file(
        "split.yaml",
        "assignment: plaisante_hand\ngroups:\n  - name: wrong pairs\n    points: 1\n    timeout_ms: 60000\n    generate: { count: 150000, seed: 11, hand_size: 5 }\n    checks: [has_pair, has_two_pair, score]\n  - name: a hang in every window\n    points: 1\n    timeout_ms: 20000\n    generate: { count: 100000, seed: 12, hand_size: 4 }\n    checks: [has_pair]\n",
    );
    let submission = told_split().write();
    let answers = support::scratch().join("split-answers");
    let _ = std::fs::remove_dir_all(&answers);
    let graded = |threads: &str| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_grader"));
        support::grader_env(&mut command)
            .env("CARDGRADE_ANSWERS_DIR", &answers)
            .arg("check")
            .arg(&submission)
            .args(["--color", "never", "--spec", spec.to_str().unwrap()])
            .args(["--test-threads", threads]);
        let output = command.output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
        let started: std::collections::BTreeSet<&str> =
            failure_of(&stdout, "plaisante_hand::wrong_pairs")
                .split_whitespace()
                .filter(|word| word.starts_with("runner-"))
                .collect();
        // Each test's result and failure, and the score: everything but the times, what
        // each runner printed, and the order in which two tests on several threads end.
        // A stall's wait is a hundred times the reference's own time where that is longer
        // than the group's stall limit, which a loaded machine can make it.
        let without_tokens = |text: &str| -> String {
            text.lines()
                .filter(|line| !line.contains("runner-"))
                .map(|line| match line.split_once("no answer for ") {
                    Some((before, after)) => {
                        let unit = after.find(" ms").unwrap_or(0);
                        format!("{before}no answer for N{}", &after[unit..])
                    }
                    None => line.to_string(),
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        let mut report: Vec<String> = ["wrong_pairs", "a_hang_in_every_window"]
            .map(|test| {
                let test = format!("plaisante_hand::{test}");
                let result = result_line(&stdout, &test);
                let failure = without_tokens(failure_of(&stdout, &test).trim_end());
                format!("{result}\n---- {test} ----{failure}")
            })
            .into();
        report.push(stdout[stdout.find("\nscore\n").expect(&stdout)..].to_string());
        (started.len(), report.join("\n"))
    };
    // Split while the reference computes the answers, a thread a window; then from the
    // answers it kept, on one runner and split.
    let (computing, computed) = graded("3");
    let (alone, one_runner) = graded("1");
    let (split, three_runners) = graded("3");
    assert_eq!((computing, alone, split), (3, 1, 3), "{three_runners}");
    assert_eq!(computed, one_runner);
    assert_eq!(three_runners, one_runner);
    // Every window of the hanging group hangs; the first one's is told, at the hand it
    // hangs on.
    let hang = failure_of(&one_runner, "plaisante_hand::a_hang_in_every_window");
    assert!(
        hang.contains("no answer for N ms (an endless loop?)"),
        "{hang}"
    );
    let hand = stopped_on_hand(hang);
    assert!(
        hand.starts_with("A♠ ") && hand.ends_with("(4 cards)"),
        "{hang}"
    );
    assert!(
        failure_of(&one_runner, "plaisante_hand::wrong_pairs").contains("answered wrongly"),
        "{one_runner}"
    );
}

#[test]
fn a_submission_with_a_global_allocator_of_its_own_keeps_it_in_its_runner_and_tests() {
    let student = support::scratch().join("own-allocator");
    let _ = std::fs::remove_dir_all(&student);
    support::copy_tree(&fixture("example-student"), &student);
    let library = student.join("src/lib.rs");
    let mut text = std::fs::read_to_string(&library).unwrap();
    text.push_str("\n#[global_allocator]\nstatic OWN: std::alloc::System = std::alloc::System;\n");
    std::fs::write(&library, text).unwrap();
    let (code, stdout, stderr) = check(&student, &["--skip", "every_hand"]);
    assert_eq!(code, 1, "{stderr}");
    for test in [
        "plaisante_hand::has_pair::pair_of_kings",
        "plaisante_hand::your_tests::valid_on_the_reference",
    ] {
        assert!(
            result_line(&stdout, test).ends_with("ok"),
            "{test}:\n{stdout}"
        );
    }
}

/// What a hostile submission prints and panics with, to a staff member's terminal: a new
/// window title, a clipboard write (OSC 52), a carriage return over a forged total, a C1
/// control sequence introducer and a right-to-left override.
const TERMINAL_PAYLOAD: &str = "\u{1b}]0;pwned\u{7}\u{1b}]52;c;ZWNobyBwd25lZA==\u{7}\rtotal 105 / 105 every test passed\u{9b}2J\u{202e}dessap";

#[test]
fn what_a_submission_prints_reaches_a_terminal_with_every_control_shown_and_colours_the_graders_only()
 {
    let escaped = TERMINAL_PAYLOAD.escape_default().to_string();
    let dir = support::Mutant::of(
        "plaisante_hand",
        "terminal-payload",
        "prints escapes",
        &[(
            "    fn has_pair(&self) -> bool {\n",
            &format!(
                "    fn has_pair(&self) -> bool {{\n        println!(\"{{}}\", \"{escaped}\");\n        if self.cards.len() == 5 {{ panic!(\"{{}}\", \"{escaped}\"); }}\n"
            ),
        )],
    )
    .write();
    for color in ["always", "never"] {
        let output =
            support::grader(&["check", dir.to_str().unwrap(), "has_pair", "--color", color]);
        let printed = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        assert!(printed.contains("test result"), "{printed}");
        assert!(
            printed.contains("␛]0;pwned␇"),
            "the payload is shown: {printed}"
        );
        for raw in ['\u{7}', '\r', '\u{9b}', '\u{202e}'] {
            assert!(
                !printed.contains(raw),
                "{raw:?} reached the terminal:\n{printed}"
            );
        }
        // Every escape left is one of the grader's colours: ESC [ digits m.
        for (at, _) in printed.match_indices('\u{1b}') {
            let sequence: String = printed[at + 1..]
                .chars()
                .take_while(|c| *c != 'm')
                .collect();
            assert!(
                color == "always"
                    && sequence.starts_with('[')
                    && sequence[1..]
                        .chars()
                        .all(|c| c.is_ascii_digit() || c == ';'),
                "an escape that is no colour of the grader's: {:?}",
                &printed[at..(at + 20).min(printed.len())]
            );
        }
    }
}

#[test]
fn a_submission_graded_again_unchanged_is_not_built_again_and_an_edited_one_is() {
    use reference::plaisante_hand::bugs::HAS_PAIR;
    let made = |edits: &[(&'static str, &str)]| {
        support::Mutant::new("built-once-unchanged", "", edits).write()
    };
    let dir = made(&[]);
    let graded = || check(&dir, &["has_pair", "--assignment", "plaisante_hand"]);
    let (code, stdout, stderr) = graded();
    assert_eq!(code, 0, "{stdout}{stderr}");
    // The student's library, as cargo left it: a build would make it again, and a grading
    // that found the submission unchanged since its last build runs no cargo.
    let built = std::fs::read_dir(support::runners())
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .find(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.starts_with("built-once-unchanged-") && !name.ends_with(".lock")
        })
        .expect("the submission's build folder");
    let library = || {
        std::fs::read_dir(built.join("target/release/deps"))
            .unwrap()
            .flatten()
            .map(|entry| entry.path())
            .find(|path| {
                let name = path.file_name().unwrap().to_string_lossy();
                name.starts_with("libbuilt_once_unchanged-") && name.ends_with(".rlib")
            })
    };
    std::fs::remove_file(library().expect("the student's compiled library")).unwrap();
    let (code, stdout, stderr) = graded();
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(library(), None, "unchanged, it was built again");
    made(&[(HAS_PAIR, &HAS_PAIR.replace("count(2)", "count(3)"))]);
    let (code, stdout, _) = graded();
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("FAILED"), "{stdout}");
    assert!(library().is_some(), "edited, it was not built again");
}
