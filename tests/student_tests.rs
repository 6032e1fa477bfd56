//! A `student_tests` group graded by the real `grader check`: submissions made of the
//! reference (so their own code is right), each with test modules of its own.

mod support;

use std::path::{Path, PathBuf};

use support::{Mutant, caught_bugs, check, find_failure, result_line, scratch_file};

const GROUP: &str = "plaisante_hand::your_tests";

/// A spec whose one group grades the student's tests against every bug of the library.
fn spec() -> PathBuf {
    scratch_file(
        "student-tests.yaml",
        "assignment: plaisante_hand\ngroups:\n  - name: your tests\n    points: 10\n    timeout_ms: 3000\n    student_tests: { bugs: all }\n",
    )
}

/// A correct submission named `name` whose lib.rs ends with `tests`.
fn with_tests(name: &'static str, tests: &str) -> PathBuf {
    let dir = Mutant::of(
        "plaisante_hand",
        name,
        "correct, with tests of its own",
        &[],
    )
    .write();
    let lib = dir.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(&lib, format!("{text}\n{tests}")).unwrap();
    dir
}

/// `grader check` of `dir` with the spec: its stdout.
fn graded(dir: &Path) -> String {
    let spec = spec();
    let (_, stdout, stderr) = check(dir, &["--spec", spec.to_str().unwrap()]);
    assert!(stdout.contains("test result"), "{stdout}\n{stderr}");
    stdout
}

/// A test that catches `has_pair` as "two or more", and passes on the reference.
const THREE_SEVENS: &str = "
    #[test]
    fn three_sevens_are_not_a_pair() {
        assert!(!hand(&[\"7H\", \"7D\", \"7C\", \"2S\", \"9H\"]).has_pair());
    }
";

/// A test module of `tests`, with the hand-making helper they use.
fn tests_of(tests: &[&str]) -> String {
    let body = tests.concat();
    format!(
        "#[cfg(test)]\nmod tests {{\n    use super::*;\n\n    fn hand(cards: &[&str]) -> Hand {{\n        Hand::new(cards.iter().map(|c| c.parse().unwrap()).collect())\n    }}\n{body}}}\n"
    )
}

#[test]
fn without_tests_every_bug_is_missed_and_the_reference_has_nothing_to_refuse() {
    let stdout = graded(&with_tests("student-tests-none", ""));
    assert!(result_line(&stdout, &format!("{GROUP}::valid_on_the_reference")).ends_with("ok"));
    assert!(stdout.contains("no tests found"), "{stdout}");
    assert!(caught_bugs(&stdout).is_empty(), "{stdout}");
    // A bug missed is something to write a test for, not a test of theirs that failed.
    let bugs = (support::library("plaisante_hand").bugs)().len();
    assert!(
        stdout.contains(&format!(
            "\nyour tests (plaisante_hand): your tests catch 0 of {bugs} known mistakes\n"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("write a test it fails:\n    - has_pair as count >= 2.\n"),
        "{stdout}"
    );
    assert!(!stdout.contains("bug_pair_at_least_two"), "{stdout}");
    assert!(stdout.contains("2 passed; 0 failed"), "{stdout}");
    assert!(result_line(&stdout, &format!("{GROUP}::pass_on_your_code")).ends_with("ok"));
}

#[test]
fn exactly_the_bugs_the_tests_catch_pass_and_each_names_its_catcher() {
    let tests = tests_of(&[
        THREE_SEVENS,
        "
    #[test]
    fn four_sevens_are_not_three_of_a_kind() {
        assert!(!hand(&[\"7H\", \"7D\", \"7C\", \"7S\", \"9H\"]).has_three_of_a_kind());
    }
",
    ]);
    let stdout = graded(&with_tests("student-tests-subset", &tests));
    assert_eq!(
        caught_bugs(&stdout),
        ["bug_pair_at_least_two", "bug_three_at_least_three"]
    );
    assert!(
        stdout.contains(
            "\n  caught bug-pair-at-least-two (has_pair as count >= 2)\n    by src/lib.rs::tests::three_sevens_are_not_a_pair: assertion failed: !hand(&[\"7H\", \"7D\", \"7C\", \"2S\", \"9H\"]).has_pair()\n"
        ),
        "{stdout}"
    );
    let row = stdout
        .lines()
        .find(|line| line.starts_with("    your tests "))
        .unwrap_or_else(|| panic!("no score row of the group in:\n{stdout}"));
    assert!(
        row.ends_with(" 2 of 17 known mistakes caught"),
        "the score table counts as the block does: {row}"
    );
    // Staff's results keep a test per bug, passed where caught, and the line naming its
    // catcher.
    let spec = spec();
    let (_, json, _) = check(
        &with_tests("student-tests-subset", &tests),
        &["--spec", spec.to_str().unwrap(), "--format", "json"],
    );
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let status = |id: &str| {
        let test = json["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == id);
        test.unwrap_or_else(|| panic!("no {id} in {json}"))["status"].clone()
    };
    assert_eq!(status(&format!("{GROUP}::bug_pair_at_least_two")), "passed");
    assert_eq!(status(&format!("{GROUP}::bug_flush_four_cards")), "failed");
    assert!(
        json["notes"].as_array().unwrap().iter().any(|note| note
            == "your tests: src/lib.rs::tests::three_sevens_are_not_a_pair caught bug-pair-at-least-two (assertion failed: !hand(&[\"7H\", \"7D\", \"7C\", \"2S\", \"9H\"]).has_pair())"),
        "{json}"
    );
}

/// A test asking about four hands, each three times, in the order `order` (an expression
/// of the indexes 0 to 11) gives them.
fn hands_in_order(order: &str) -> String {
    tests_of(&[&format!(
        "
    #[test]
    fn four_hands_thrice() {{
        let hands: [(&[&str], bool, bool); 4] = [
            (&[\"7H\", \"7D\", \"7C\", \"2S\", \"9H\"], false, true),
            (&[\"7H\", \"7D\", \"7C\", \"7S\", \"9H\"], false, false),
            (&[\"KH\", \"KD\", \"2C\", \"7S\", \"9H\"], true, false),
            (&[\"5H\", \"5D\", \"6C\", \"7S\", \"9H\"], true, false),
        ];
        let order: Vec<usize> = {order};
        for n in order {{
            let (cards, pair, three) = hands[n % 4];
            assert_eq!(hand(cards).has_pair(), pair, \"{{cards:?}}\");
            assert_eq!(hand(cards).has_three_of_a_kind(), three, \"{{cards:?}}\");
        }}
    }}
"
    )])
}

#[test]
fn a_test_that_asks_in_another_order_each_run_catches_what_it_catches_in_one_order() {
    // A HashSet's order changes from process to process: the test's two runs on the
    // reference ask differently, so the bugs that answered its first run as the reference
    // did are run too, as they would be had the oracle kept nothing.
    let fixed = graded(&with_tests(
        "student-tests-fixed-order",
        &hands_in_order("(0..12).collect()"),
    ));
    let shuffled = graded(&with_tests(
        "student-tests-hashed-order",
        &hands_in_order(
            "(0..12).collect::<std::collections::HashSet<usize>>().into_iter().collect()",
        ),
    ));
    assert!(
        caught_bugs(&fixed).contains(&"bug_pair_at_least_two".to_string()),
        "{fixed}"
    );
    assert_eq!(caught_bugs(&shuffled), caught_bugs(&fixed), "{shuffled}");
}

#[test]
fn a_wrong_a_looping_and_a_forking_test_are_named_and_the_rest_still_count() {
    let tests = tests_of(&[
        THREE_SEVENS,
        "
    #[test]
    fn two_kings_counted_three_times() {
        assert_eq!(hand(&[\"KH\", \"KD\", \"3C\", \"7S\", \"9H\"]).count_values()[13], 3, \"two kings\");
    }

    #[test]
    fn loops_forever() {
        while hand(&[\"KH\"]).cards().len() == 1 {}
    }

    #[test]
    fn spawns_a_process_it_leaves_behind() {
        // The test binary itself, running its looping test: the one program it can start.
        std::process::Command::new(\"/proc/self/exe\").arg(\"loops_forever\").spawn().unwrap();
        // Until the child runs, so that it is there when the test binary ends.
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
",
    ]);
    let stdout = graded(&with_tests("student-tests-hostile", &tests));
    let refused = find_failure(&stdout, &format!("{GROUP}::valid_on_the_reference")).unwrap();
    assert!(
        refused.contains(
            "this test fails on a correct solution: it asserts something the rules do not say"
        ),
        "{refused}"
    );
    assert!(
        refused.contains("tests::two_kings_counted_three_times: assertion"),
        "{refused}"
    );
    assert!(
        refused.contains("tests::loops_forever: it was still running after"),
        "{refused}"
    );
    assert!(
        refused.lines().any(
            |line| line.contains("tests::spawns_a_process_it_leaves_behind: ")
                && line.ends_with("running, which the sandbox killed")
        ),
        "{refused}"
    );
    assert!(!refused.contains("three_sevens"), "{refused}");
    assert_eq!(caught_bugs(&stdout), ["bug_pair_at_least_two"]);
}

/// A test of a private helper, which the contract does not have, beside [`THREE_SEVENS`].
fn a_private_helpers_test() -> String {
    format!(
        "fn count_helper() -> usize {{ 2 }}\n\n{}",
        tests_of(&[
            "
    #[test]
    fn the_helper_counts() {
        assert_eq!(count_helper(), 2);
    }
",
            THREE_SEVENS,
        ])
    )
}

#[test]
fn a_harness_whose_tests_did_not_all_build_is_not_compiled_again_for_the_same_tests() {
    let dir = with_tests("student-tests-refused-kept", &a_private_helpers_test());
    // The errors kept beside the harness's build, for its text: the next grading reads
    // them and compiles only the text without the test they leave out. Edited here, what
    // the next grading says comes from them, not from a compiler.
    let tag = grader::compile::stable_hash(&dir.display().to_string());
    let kept = support::runners()
        .join(format!("cardgrade-tests-plaisante_hand-{tag:016x}"))
        .join("harness.refused");
    // What an earlier run of this test edited there is not this run's to read.
    let _ = std::fs::remove_file(&kept);
    let first = graded(&dir);
    assert!(
        first.contains("which the contract does not have"),
        "{first}"
    );
    let text = std::fs::read_to_string(&kept).unwrap_or_else(|e| panic!("{kept:?}: {e}"));
    assert!(text.contains("count_helper"), "{text}");
    std::fs::write(
        &kept,
        text.replace("count_helper", "helper_kept_from_before"),
    )
    .unwrap();
    let second = graded(&dir);
    assert!(
        second
            .contains("this test uses `helper_kept_from_before`, which the contract does not have"),
        "{second}"
    );
    assert_eq!(caught_bugs(&second), caught_bugs(&first));
}

#[test]
fn a_test_of_a_private_helper_is_not_graded_but_runs_on_the_students_code() {
    let stdout = graded(&with_tests(
        "student-tests-helper",
        &a_private_helpers_test(),
    ));
    assert!(result_line(&stdout, &format!("{GROUP}::valid_on_the_reference")).ends_with("ok"));
    assert!(
        stdout.contains("tests::the_helper_counts not graded: this test uses `count_helper`, which the contract does not have"),
        "{stdout}"
    );
    assert_eq!(caught_bugs(&stdout), ["bug_pair_at_least_two"]);
    assert!(result_line(&stdout, &format!("{GROUP}::pass_on_your_code")).ends_with("ok"));
}

/// A crate laid out as the template is, `src/plaisante_hand.rs` beside its `src/lib.rs`
/// (which holds a module of its own, `scoring`), named `name`: the reference's code with a
/// public helper the contract lacks, its own tests `src_tests` at the file's end, and more
/// files `files` (`tests/*.rs`).
fn laid_out(name: &'static str, src_tests: &str, files: &[(&'static str, &str)]) -> PathBuf {
    let library = support::library("plaisante_hand");
    let code = grader::mutant::module_source::<&str, &str>(library, &[]).unwrap();
    let mut crate_ = Mutant::of("plaisante_hand", name, "correct, laid out as the template", &[])
        .with_file(
            "src/lib.rs",
            "pub mod plaisante_hand;\n\npub mod scoring {\n    pub fn points() -> u32 {\n        3\n    }\n}\n\npub fn submission() -> grader_api::Submission {\n    grader_api::Submission::new().with(plaisante_hand::register)\n}\n",
        )
        .with_file(
            "src/plaisante_hand.rs",
            &format!("{code}\n/// Not in the contract.\npub fn count_helper() -> usize {{\n    2\n}}\n\n{src_tests}"),
        );
    for (path, text) in files {
        crate_ = crate_.with_file(path, text);
    }
    crate_.write()
}

/// An integration test of the crate `student_tests_layout`: a test that catches
/// `has_pair` as "two or more", one in a nested module that catches `has_three_of_a_kind`
/// as "three or more", one that calls the student's helper, and one that calls another
/// module of the crate.
const HANDS: &str = "//! The hands, from outside the crate.
use grader_api::plaisante_hand::PlaisanteHand;
use student_tests_layout::plaisante_hand::Hand;

fn hand(cards: &[&str]) -> Hand {
    Hand::new(cards.iter().map(|c| c.parse().unwrap()).collect())
}

#[test]
fn three_sevens_are_not_a_pair() {
    assert!(!hand(&[\"7H\", \"7D\", \"7C\", \"2S\", \"9H\"]).has_pair());
}

#[test]
fn the_helper_counts() {
    assert_eq!(student_tests_layout::plaisante_hand::count_helper(), 2);
}

#[test]
fn scoring_scores() {
    assert_eq!(student_tests_layout::scoring::points(), 3);
}

mod more {
    use super::*;

    #[test]
    fn four_sevens_are_not_three_of_a_kind() {
        assert!(!hand(&[\"7H\", \"7D\", \"7C\", \"7S\", \"9H\"]).has_three_of_a_kind());
    }
}
";

#[test]
fn tests_in_tests_files_and_in_nested_modules_are_graded_by_where_they_come_from() {
    // A test module nested in the file's: it catches a flush of four cards.
    let nested = "#[cfg(test)]\nmod tests {\n    use super::*;\n\n    mod more {\n        use super::*;\n\n        #[test]\n        fn four_hearts_are_not_a_flush() {\n            let cards = [\"2H\", \"5H\", \"9H\", \"KH\"];\n            assert!(!Hand::new(cards.iter().map(|c| c.parse().unwrap()).collect()).has_flush());\n        }\n    }\n}\n";
    // A file of tests of another assignment: not this group's.
    let other = "use student_tests_layout::blackjack::Hand;\n\n#[test]\nfn empty() {\n    assert_eq!(Hand::new().value(), 0);\n}\n";
    let dir = laid_out(
        "student-tests-layout",
        nested,
        &[("tests/hands.rs", HANDS), ("tests/other.rs", other)],
    );
    let stdout = graded(&dir);
    assert_eq!(
        caught_bugs(&stdout),
        [
            "bug_pair_at_least_two",
            "bug_three_at_least_three",
            "bug_flush_four_cards"
        ]
    );
    for (bug, catcher) in [
        (
            "bug-pair-at-least-two",
            "tests/hands.rs::three_sevens_are_not_a_pair",
        ),
        (
            "bug-three-at-least-three",
            "tests/hands.rs::more::four_sevens_are_not_three_of_a_kind",
        ),
        (
            "bug-flush-four-cards",
            "src/plaisante_hand.rs::tests::more::four_hearts_are_not_a_flush",
        ),
    ] {
        let caught = stdout
            .split(&format!("\n  caught {bug} ("))
            .nth(1)
            .unwrap_or_else(|| panic!("{bug} not caught in:\n{stdout}"));
        let by = caught.lines().nth(1).unwrap_or_default();
        assert!(by.starts_with(&format!("    by {catcher}: ")), "{by}");
    }
    assert!(result_line(&stdout, &format!("{GROUP}::valid_on_the_reference")).ends_with("ok"));
    assert!(
        stdout.contains("tests/hands.rs::the_helper_counts not graded: this test uses `count_helper`, which the contract does not have; it still runs on your own code"),
        "{stdout}"
    );
    // The harness holds the assignment's file, not the rest of the crate.
    let scoring = "tests/hands.rs::scoring_scores not graded: this test uses `scoring`, which the contract does not have";
    assert!(stdout.contains(scoring), "{stdout}");
    assert!(
        !stdout.contains(&format!("{scoring}; it still runs")),
        "{stdout}"
    );
    assert!(
        stdout.contains("tests/hands.rs::scoring_scores not run on your code: it does not build against src/plaisante_hand.rs alone"),
        "{stdout}"
    );
    assert!(!stdout.contains("tests/other.rs"), "{stdout}");
    assert!(result_line(&stdout, &format!("{GROUP}::pass_on_your_code")).ends_with("ok"));
}

#[test]
fn tests_that_read_files_while_compiling_find_nothing_of_the_reference() {
    let tests = tests_of(&[
        THREE_SEVENS,
        "
    #[test]
    fn reads_the_reference() {
        assert!(include_str!(\"../../reference/src/plaisante_hand.rs\").len() > 0);
    }
",
    ]);
    let dir = with_tests("student-tests-include", &tests);
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    // The harness's own source, where the reference and the bugs sat beside the tests.
    let library = support::library("plaisante_hand");
    let bug_text = (library.bugs)()
        .iter()
        .find(|bug| bug.name == "bug-pair-at-least-two")
        .map(|bug| bug.edits[0].1.clone())
        .unwrap();
    std::fs::write(
        dir.join("tests/peek.rs"),
        format!(
            "use student_tests_include::plaisante_hand::Hand;\n#[test]\nfn peeks() {{\n    assert!(include_str!(\"main.rs\").contains({bug_text:?}));\n}}\n"
        ),
    )
    .unwrap();
    let stdout = graded(&dir);
    // The reference's file is not there to read, and the harness holds no bug.
    assert!(
        stdout.contains(
            "tests::reads_the_reference not graded: this test does not compile against the contract"
        ),
        "{stdout}"
    );
    let refused = find_failure(&stdout, &format!("{GROUP}::valid_on_the_reference")).unwrap();
    assert!(refused.contains("tests/peek.rs::peeks: "), "{refused}");
    assert_eq!(caught_bugs(&stdout), ["bug_pair_at_least_two"]);
}

#[test]
fn lint_refuses_a_bug_name_the_library_lacks_with_the_nearest() {
    let spec = scratch_file(
        "student-tests-misspelt.yaml",
        "assignment: plaisante_hand\ngroups:\n  - name: your tests\n    points: 10\n    student_tests: { bugs: [bug-pair-at-least-two, bug-three-at-leats-three] }\n",
    );
    let output = support::grader(&["spec", "lint", spec.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{said}");
    assert!(
        said.contains("`student_tests` names the bug `bug-three-at-leats-three`, which plaisante_hand's library does not have; did you mean `bug-three-at-least-three`?"),
        "{said}"
    );
}

#[test]
fn audit_says_which_bugs_the_templates_example_tests_catch() {
    let output = support::grader(&[
        "spec",
        "audit",
        support::repo().join("specs/tableau.yaml").to_str().unwrap(),
        "--jobs",
        "2",
    ]);
    let table = String::from_utf8_lossy(&output.stdout);
    let of = |bug: &str| {
        let start = table
            .find(&format!("  {bug}"))
            .unwrap_or_else(|| panic!("{table}"));
        let rest = &table[start..];
        let end = rest[1..].find("\n  caught").map_or(rest.len(), |n| n + 1);
        rest[..end].to_string()
    };
    let sixth = of("caught  tableau-sixth-card-selectable");
    assert!(
        sixth
            .contains("the template's example test src/tableau.rs::tests::a_sixth_card_is_not_selected catches it"),
        "{sixth}"
    );
    let deselect = of("caught  tableau-deselect-keeps-card");
    assert!(
        deselect.contains("the template's example tests miss it"),
        "{deselect}"
    );
}

#[test]
fn a_hidden_group_names_no_bug_in_a_students_view() {
    let spec = scratch_file(
        "student-tests-hidden.yaml",
        "assignment: plaisante_hand\ngroups:\n  - name: your tests\n    points: 10\n    visibility: hidden\n    student_tests: { bugs: all }\n",
    );
    let dir = with_tests("student-tests-hidden", "");
    let output = support::grader(&[
        "check",
        dir.to_str().unwrap(),
        "--color",
        "never",
        "--spec",
        spec.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("test plaisante_hand::hidden_1 "),
        "{stdout}"
    );
    // A bug is counted, never named, nor given a line of its own.
    let bugs = (support::library("plaisante_hand").bugs)().len();
    assert!(
        stdout.contains(&format!("\nhidden tests (plaisante_hand): the tests you wrote catch 0 of {bugs} known mistakes; which ones stays hidden\n")),
        "{stdout}"
    );
    assert!(
        !stdout.contains("test plaisante_hand::hidden_2 "),
        "{stdout}"
    );
    assert!(
        !stdout.contains("  caught ") && !stdout.contains("    - "),
        "{stdout}"
    );
    for shown in [
        "your_tests",
        "your tests",
        "bug_pair",
        "bug-pair",
        "has_pair as count",
        "no tests found",
    ] {
        assert!(!stdout.contains(shown), "{shown} in:\n{stdout}");
    }
}

#[test]
fn a_groups_runs_stop_at_its_budget_and_the_rest_are_named_not_run() {
    let spec = scratch_file(
        "student-tests-budget.yaml",
        "assignment: plaisante_hand\ngroups:\n  - name: your tests\n    points: 10\n    timeout_ms: 1500\n    student_tests: { bugs: all, budget_s: 3 }\n",
    );
    // Each hangs on the one bug that takes three sevens for a pair, and passes elsewhere:
    // four runs a core of 1.5 s each, twice over, whatever the cores.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let hanging: Vec<String> = (0..8 * cores)
        .map(|n| {
            format!(
                "
    #[test]
    fn hangs_where_three_sevens_make_a_pair_{n}() {{
        while hand(&[\"7H\", \"7D\", \"7C\", \"2S\", \"9H\"]).has_pair() {{}}
    }}
"
            )
        })
        .collect();
    let mut tests: Vec<&str> = vec![THREE_SEVENS];
    tests.extend(hanging.iter().map(String::as_str));
    let tests = tests_of(&tests);
    let dir = with_tests("student-tests-budget", &tests);
    // The build, once, outside the time measured: the grading is what the budget bounds.
    check(&dir, &["--spec", spec.to_str().unwrap()]);
    let started = std::time::Instant::now();
    let (_, stdout, stderr) = check(&dir, &["--spec", spec.to_str().unwrap()]);
    let took = started.elapsed();
    assert!(stdout.contains("test result"), "{stdout}\n{stderr}");
    // The hanging runs would take 6 s: the budget stops them after 3 s.
    assert!(
        took < std::time::Duration::from_secs(15),
        "{took:?}\n{stdout}"
    );
    assert!(
        stdout.contains("were not run: the group's time ran out before they started"),
        "{stdout}"
    );
}

#[test]
fn a_submission_that_does_not_build_leaves_no_part_of_its_tests_grading_behind() {
    // Its tests' grading starts beside the submission's build, ahead of their first
    // verdict: a build that fails ends the check, and whatever of that grading runs then.
    let hangs = "
    #[test]
    fn hangs_everywhere() {
        loop {
            std::hint::spin_loop();
        }
    }
";
    let dir = with_tests(
        "student-tests-unbuilt",
        &format!(
            "pub fn broken() -> u8 {{ \"not a number\" }}\n\n{}",
            tests_of(&[THREE_SEVENS, hangs])
        ),
    );
    let spec = spec();
    let mut grader = std::process::Command::new(env!("CARGO_BIN_EXE_grader"));
    support::grader_env(&mut grader)
        .args(["check", dir.to_str().unwrap(), "--spec"])
        .arg(&spec)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut grader = grader.spawn().unwrap();
    let pid = grader.id();
    assert_eq!(
        grader.wait().unwrap().code(),
        Some(3),
        "the build's exit code"
    );
    // What names the harness's build folder, or the grader's own temp folders, is of it.
    let tag = grader::compile::stable_hash(&dir.display().to_string());
    let marks = [
        format!("cardgrade-tests-plaisante_hand-{tag:016x}"),
        format!("cardgrade-{pid}-"),
    ];
    let of_the_grading = || -> Vec<String> {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .filter(|name| name.bytes().all(|b| b.is_ascii_digit()))
            .filter_map(|pid| {
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
                let exe = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap_or_default();
                let seen = format!("{} {}", String::from_utf8_lossy(&cmdline), exe.display());
                marks
                    .iter()
                    .any(|mark| seen.contains(mark.as_str()))
                    .then(|| format!("{pid}: {seen}"))
            })
            .collect()
    };
    let patience = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !of_the_grading().is_empty() && std::time::Instant::now() < patience {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(of_the_grading(), Vec::<String>::new(), "outlived the check");
}
