//! Spec files as the grader reads them: each assignment's typed groups and cases, the
//! common fields, and where each error points.

mod range_errors;
mod support;

use std::time::Duration;

use grader::spec::{self, load, parse};

fn parse_err(text: &str) -> String {
    match parse("t.yaml", text, None) {
        Ok(_) => panic!("the spec was accepted:\n{text}"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn defaults_set_the_build_timeout_and_the_allowed_dependencies() {
    let suite = parse(
        "t.yaml",
        "assignment: plaisante_hand\ndefaults: { build_timeout_s: 42, allow_dependencies: [libc, itoa] }\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH, KD] }\n",
        None,
    )
    .unwrap();
    assert_eq!(suite.build_timeout, Some(Duration::from_secs(42)));
    assert_eq!(suite.allowed_dependencies, ["libc", "itoa"]);
    let plain = parse(
        "t.yaml",
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH, KD] }\n",
        None,
    )
    .unwrap();
    assert_eq!(plain.build_timeout, None);
    assert!(plain.allowed_dependencies.is_empty());
}

#[test]
fn a_bad_card_names_file_line_and_what_a_card_looks_like() {
    let err = parse_err(
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH, 1X] }\n",
    );
    assert!(err.starts_with("t.yaml:6:"), "{err}");
    assert!(err.contains("`1X` is not a card"), "{err}");
}

#[test]
fn an_unknown_check_is_refused_where_it_is_written_naming_the_near_miss_or_the_known_ones() {
    let spec = |check: &str| {
        format!(
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: {check}\n    cases:\n      - {{ name: c, hand: [KH] }}\n"
        )
    };
    let err = parse_err(&spec("has_pairs"));
    assert!(err.starts_with("t.yaml:4:12: check: "), "{err}");
    assert!(
        err.contains("`has_pairs` is not a check; did you mean `has_pair`?"),
        "{err}"
    );
    let err = parse_err(&spec("shuffle"));
    assert!(
        err.contains(
            "`shuffle` is not a check; expected one of: count_values, has_pair, has_two_pair"
        ),
        "{err}"
    );
}

#[test]
fn a_case_without_a_check_is_refused_at_its_line() {
    let err = parse_err(
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    cases:\n      - { name: lonely, hand: [KH] }\n",
    );
    assert!(err.starts_with("t.yaml:5:"), "{err}");
    assert!(err.contains("case `lonely`: names no check"), "{err}");
}

#[test]
fn an_expectation_of_the_wrong_type_is_refused() {
    let err = parse_err(
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: evaluate\n    cases:\n      - { name: c, hand: [KH], expect: true }\n",
    );
    assert!(err.contains("hand name"), "{err}");
}

#[test]
fn the_built_in_specs_load_in_the_order_of_the_assignments() {
    let suite = load(&[], &[], None).unwrap();
    assert!(
        suite
            .tests()
            .any(|(_, t)| t.grading == grader_api::spec::Grading::Bulk)
    );
    let mut order: Vec<&str> = suite.groups.iter().map(|g| g.assignment.name()).collect();
    order.dedup();
    let all: Vec<&str> = grader_api::ASSIGNMENTS.iter().map(|a| a.name()).collect();
    assert_eq!(order, all);
}

#[test]
fn errors_point_at_the_case_named_not_one_that_starts_the_same() {
    let err = parse_err(
        "assignment: plaisante_hand\ngroups:\n  - name: pair\n    check: has_pair\n    cases:\n      - { name: pair of kings, hand: [KH, KD] }\n      - { name: pair, hand: [KH], check: nope }\n",
    );
    assert!(err.starts_with("t.yaml:7:"), "{err}");
    let err = parse_err(
        "assignment: plaisante_hand\ngroups:\n  - name: pair\n    cases:\n      - { name: pair of kings, hand: [KH, KD], check: has_pair }\n      - { name: pair, hand: [KH] }\n",
    );
    assert!(err.starts_with("t.yaml:6:"), "{err}");
}

#[test]
fn a_field_of_another_shape_of_case_is_refused() {
    let err = parse_err(
        "assignment: blackjack\ngroups:\n  - name: g\n    check: value\n    cases:\n      - { name: c, hand: [KH], deck: [2C] }\n",
    );
    assert!(err.starts_with("t.yaml:6:"), "{err}");
    assert!(err.contains("`deck` has no meaning here"), "{err}");
}

/// Fields that mean nothing for an assignment, at every level, each refused with what
/// that level takes.
#[test]
fn a_stray_field_is_refused_at_every_level_with_the_fields_it_takes() {
    let cases = [
        (
            "assignment: blackjack\nrules: { ties: draw_1572 }\ngroups:\n  - name: g\n    check: value\n    cases:\n      - { name: c, hand: [KH] }\n",
            "t.yaml:2:",
            "dealer_hits_soft_17",
        ),
        (
            "assignment: blackjack\ngroups:\n  - name: g\n    rules: { ace_low_straight: false }\n    check: value\n    cases:\n      - { name: c, hand: [KH] }\n",
            "t.yaml:4:",
            "dealer_hits_soft_17",
        ),
        (
            "assignment: crazy_eights\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n      - { name: c, players: [first legal, first legal, first legal, first legal] }\n",
            "t.yaml:4:",
            "strategies",
        ),
        (
            "assignment: tableau\ngroups:\n  - name: g\n    exhaustive: { hand_size: 5 }\n",
            "t.yaml:4:",
            "generate",
        ),
        (
            "assignment: poker\ngroups:\n  - name: g\n    cases:\n      - { name: c, hand: [KH, KD, KS, 2C, 3D], check: category, discard: [1] }\n",
            "t.yaml:5:",
            "versus",
        ),
        (
            "assignment: plaisante_hand\nextra: 1\ngroups: []\n",
            "t.yaml:2:",
            "groups",
        ),
        (
            "assignment: draw_poker\ngroups:\n  - name: g\n    generate: { count: 3, seed: 1, decks: 2 }\n    checks: [dealer_discards]\n",
            "t.yaml:4:",
            "hand_size",
        ),
    ];
    for (text, at, expected) in cases {
        let err = parse_err(text);
        assert!(err.starts_with(at), "{err}\n{text}");
        assert!(err.contains("is not a field here"), "{err}\n{text}");
        assert!(err.contains(expected), "{err}\n{text}");
    }
}

/// A Plaisante spec whose file `rules:` are `rules` and whose one group of generated
/// hands has `group_rules` lines of its own.
fn plaisante_rules(rules: &str, group_rules: &str) -> String {
    format!(
        "assignment: plaisante_hand\n{rules}\ngroups:\n  - name: g\n{group_rules}    checks: [score]\n    generate: {{ count: 3, seed: 1 }}\n"
    )
}

const COURSE_TABLE: &str = "high_card: 1, pair: 3, two_pair: 5, three_of_a_kind: 7, straight: 9, flush: 11, full_house: 13, four_of_a_kind: 15";

fn plaisante_inputs(text: &str) -> String {
    let suite = parse("t.yaml", text, None).unwrap();
    let (_, test) = suite.tests().next().unwrap();
    test.request.describe_inputs()
}

#[test]
fn a_multiplier_table_of_the_file_or_the_group_is_what_a_bulk_group_scores_with() {
    let file = format!("rules: {{ multipliers: {{ {COURSE_TABLE} }} }}");
    assert!(
        plaisante_inputs(&plaisante_rules(&file, ""))
            .contains("multipliers: High Card x1, Pair x3, Two Pair x5"),
    );
    let group = format!(
        "    rules: {{ multipliers: {{ {} }} }}\n",
        COURSE_TABLE.replace("pair: 3", "pair: 4")
    );
    assert!(
        plaisante_inputs(&plaisante_rules(&file, &group))
            .contains("multipliers: High Card x1, Pair x4, Two Pair x5"),
    );
    // The seed's own table goes without saying.
    assert!(!plaisante_inputs(&plaisante_rules("", "")).contains("multipliers"));
}

#[test]
fn a_multiplier_table_names_every_hand_with_a_multiplier_from_1_to_1000() {
    let refused = [
        (
            "high_card: 1, pair: 3".to_string(),
            "multipliers gives no `two_pair`; a table gives every hand: high_card, pair, two_pair,",
        ),
        (
            COURSE_TABLE.replace("pair: 3", "pair: 0"),
            "the multiplier of `pair` is 0; a multiplier is a whole number from 1 to 1000",
        ),
        (
            COURSE_TABLE.replace("flush: 11", "flush: -11"),
            "the multiplier of `flush` is -11",
        ),
        (
            COURSE_TABLE.replace("straight: 9", "straight: 1001"),
            "the multiplier of `straight` is 1001",
        ),
        (
            format!("{COURSE_TABLE}, royal_flush: 20"),
            "`royal_flush` is not a hand of multipliers; expected one of: high_card,",
        ),
        (
            COURSE_TABLE.replace("pair: 3", "pair: three"),
            "rules.multipliers.pair: expected a whole number, not `three`",
        ),
    ];
    for (table, says) in refused {
        let err = parse_err(&plaisante_rules(
            &format!("rules: {{ multipliers: {{ {table} }} }}"),
            "",
        ));
        assert!(err.starts_with("t.yaml:2:"), "{err}");
        assert!(err.contains(says), "{err}");
    }
}

#[test]
fn a_check_of_another_assignment_is_refused_naming_this_ones() {
    let err = parse_err(
        "assignment: blackjack\ngroups:\n  - name: g\n    checks: [is_soft, whatever]\n    generate: { count: 3, seed: 1 }\n",
    );
    assert!(err.starts_with("t.yaml:4:"), "{err}");
    assert!(
        err.contains("`whatever` is not a blackjack check; expected one of: value, is_soft"),
        "{err}"
    );
}

#[test]
fn a_field_of_a_group_of_another_shape_is_refused() {
    let err = parse_err(
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    checks: [has_pair]\n    cases:\n      - { name: c, hand: [KH], check: has_pair }\n",
    );
    assert!(err.starts_with("t.yaml:3:"), "{err}");
    assert!(
        err.contains("`checks` has no meaning in a group of cases"),
        "{err}"
    );
}

#[test]
fn an_unknown_assignment_lists_the_known_ones() {
    let err = parse_err("assignment: go_fish\ngroups: []\n");
    assert!(err.starts_with("t.yaml:1:"), "{err}");
    assert!(err.contains("blackjack"), "{err}");
}

#[test]
fn slugs_are_filter_friendly() {
    assert_eq!(
        spec::slug("the seed's walk-through"),
        "the_seeds_walk_through"
    );
    assert_eq!(
        spec::slug("Three kings is NOT a pair!"),
        "three_kings_is_not_a_pair"
    );
    assert_eq!(spec::slug("A-2-3-4-5"), "a_2_3_4_5");
}

#[test]
fn a_students_copy_of_a_spec_leaves_out_what_students_may_not_see() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("split");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("staff")).unwrap();
    let staff = dir.join("staff/hands.yaml");
    std::fs::write(
        &staff,
        "assignment: plaisante_hand\ngroups:\n  - name: seen\n    points: 1\n    check: has_pair\n    cases:\n      - { name: kings, hand: [KH, KD] }\n  # four kings are the secret\n  - name: secret\n    visibility: hidden\n    check: has_pair\n    cases:\n      - { name: four kings, hand: [KH, KD, KC, KS] }\n  - name: later\n    visibility: after_due_date\n    check: has_flush\n    cases:\n      - { name: hearts, hand: [2H, 5H, 7H, 9H, JH] }\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["spec", "split"])
        .arg(dir.join("staff"))
        .arg("--out")
        .arg(dir.join("student"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("1 of 3 groups, leaving out `secret`, `later`"),
        "{said}"
    );
    let copy = std::fs::read_to_string(dir.join("student/hands.yaml")).unwrap();
    for secret in ["secret", "four kings", "KS", "later", "hearts"] {
        assert!(!copy.contains(secret), "{secret} in:\n{copy}");
    }
    let students = load(&[dir.join("student")], &[], None).unwrap();
    let ids: Vec<&str> = students.tests().map(|(_, t)| t.id.as_str()).collect();
    assert_eq!(ids, ["plaisante_hand::seen::kings"]);
    assert_eq!(
        load(&[dir.join("staff")], &[], None)
            .unwrap()
            .tests()
            .count(),
        3
    );
}

/// A number outside its range is refused where it is written: in a group, in a case of
/// several lines, in `defaults`, and in a `generate:` or `exhaustive:` of one line.
#[test]
fn every_count_like_field_is_refused_outside_its_range_at_the_number() {
    for (text, expected) in range_errors::RANGE_ERRORS {
        assert_eq!(parse_err(text), format!("t.yaml:{expected}"), "{text}");
    }
}

/// Each mistake of a case or group is read past on its own, so one run tells them all.
#[test]
fn several_range_errors_of_one_group_and_one_case_are_each_told_at_its_number() {
    let checked = spec::diagnose(
        "t.yaml",
        "assignment: blackjack\ndefaults: { timeout_ms: 0, build_timeout_s: 99999 }\ngroups:\n  - name: g\n    points: -5\n    timeout_ms: 0\n    cases:\n      - name: c\n        seed: 1\n        player: hit below 17\n        rounds: 1000000000\n        weight: 0\n      - { name: d, seed: 1, weight: 0, rounds: 0 }\n",
        None,
    );
    let told: Vec<String> = checked.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        told,
        [
            "t.yaml:2:25: defaults.timeout_ms: 0 is outside its range, 1 to 600,000",
            "t.yaml:2:45: defaults.build_timeout_s: 99999 is outside its range, 1 to 3,600",
            "t.yaml:5:13: points: -5 is outside its range, 0 to 1,000",
            "t.yaml:6:17: timeout_ms: 0 is outside its range, 1 to 600,000",
            "t.yaml:11:17: rounds: 1000000000 is outside its range, 1 to 10,000",
            "t.yaml:12:17: weight: 0 is outside its range, 1 to 1,000",
            "t.yaml:13:37: weight: 0 is outside its range, 1 to 1,000",
            "t.yaml:13:48: rounds: 0 is outside its range, 1 to 10,000",
        ]
    );
    assert!(checked.suite.groups.is_empty());
}

/// A bad card in a tableau step is told at the card, saying what a card is, and the next
/// mistake of the same case is told too.
#[test]
fn bad_cards_in_tableau_toggles_are_each_told_at_the_card() {
    let checked = spec::diagnose(
        "t.yaml",
        "assignment: tableau\ngroups:\n  - name: g\n    points: 1\n    cases:\n      - name: c\n        deck: [KH, QH]\n        steps: [deal, { toggle: 1X }, { toggle: [KH, 2Z] }, { play: ~, expect: { held: [QX] } }]\n",
        None,
    );
    let told: Vec<String> = checked.errors.iter().map(ToString::to_string).collect();
    let card = "is not a card: write a value (2-10, T, J, Q, K, A) then a suit (C, D, H, S)";
    let expected = [
        format!("t.yaml:8:33: steps[1].toggle: `1X` {card}"),
        format!("t.yaml:8:54: steps[2].toggle[1]: `2Z` {card}"),
        format!("t.yaml:8:89: steps[3].expect.held[0]: `QX` {card}"),
    ];
    assert_eq!(told.len(), expected.len(), "{told:#?}");
    for (told, expected) in told.iter().zip(&expected) {
        assert!(
            told.starts_with(expected.as_str()),
            "{told}\nexpected {expected}"
        );
    }
}

/// A string where true, false or a number is wanted says it was read as a string, and why;
/// a name that a comma split says to quote the name.
#[test]
fn a_string_for_a_bool_or_a_number_and_a_name_split_by_a_comma_are_told_why() {
    let checked = spec::diagnose(
        "t.yaml",
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 10\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH], expect: yes }\n      - { name: d, hand: [KH], expect: \"true\" }\n      - { name: e, hand: [KH], check: score, expect: \"90\" }\n      - { name: a, b, hand: [KH] }\n  - name: h\n    points: \"10\"\n    checks: [has_pair]\n    exhaustive: { hand_size: 2, shuffled: on }\n",
        None,
    );
    let told: Vec<String> = checked.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        told,
        [
            "t.yaml:7:11: case `c`: `expect`: `yes` was read as a string; write true or false",
            "t.yaml:8:11: case `d`: `expect`: `true` was read as a string, since it is quoted; write true without quotes",
            "t.yaml:9:11: case `e`: `expect`: `90` was read as a string, since it is quoted; write 90 without quotes",
            "t.yaml:10:20: `b` is not a field here; expected one of: name, id, weight, hand, check, expect; a comma ends a name in `{ ... }`: if `a, b` is one name, quote it, `name: \"a, b\"`",
            "t.yaml:12:13: points: `10` was read as a string, since it is quoted; write 10 without quotes",
            "t.yaml:14:43: exhaustive.shuffled: `on` was read as a string; write true or false",
        ]
    );
}

/// The table of tie-break vectors in specs/README.md says what the reference answers: each
/// row's hand has its `standard` vector under `ties: standard` and its `draw_1572` vector
/// under `ties: draw_1572`, as lint checks each `expect`.
#[test]
fn the_readmes_tie_break_vectors_are_the_references() {
    let readme = std::fs::read_to_string(support::repo().join("specs/README.md")).unwrap();
    let rows: Vec<[&str; 3]> = readme
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            match cells[..] {
                ["", _, _, _, hand, standard, draw, ""] if hand.starts_with("`[") => {
                    Some([hand, standard, draw].map(|cell| cell.trim_matches('`')))
                }
                _ => None,
            }
        })
        .collect();
    assert_eq!(rows.len(), 9, "a row for each category");
    let cases = |ties: &str, pick: usize| {
        let cases: String = rows
            .iter()
            .enumerate()
            .map(|(at, row)| {
                format!(
                    "      - {{ name: row {at}, hand: {}, expect: {} }}\n",
                    row[0], row[pick]
                )
            })
            .collect();
        format!(
            "  - name: {ties}\n    points: 1\n    rules: {{ ties: {ties} }}\n    check: tiebreak\n    cases:\n{cases}"
        )
    };
    let spec = support::scratch_file(
        "readme-tie-breaks.yaml",
        format!(
            "assignment: poker\ngroups:\n{}{}",
            cases("standard", 1),
            cases("draw_1572", 2)
        ),
    );
    let (code, out) = lint(&[&spec]);
    assert_eq!(
        (code, out.as_str()),
        (0, "0 errors and 0 warnings in 1 file\n"),
        "{}",
        std::fs::read_to_string(&spec).unwrap()
    );
}

/// specs/README.md's example of lint is what lint prints: a case read past at its bad card
/// leaves its group to load, whose other case is checked against the reference.
#[test]
fn the_readmes_lint_example_is_what_lint_prints() {
    let readme = std::fs::read_to_string(support::repo().join("specs/README.md")).unwrap();
    let block = |fence: &str| -> String {
        let (_, rest) = readme.split_once("For this file:").unwrap();
        let (_, rest) = rest.split_once(fence).unwrap();
        let (block, _) = rest.split_once("   ```").unwrap();
        block
            .lines()
            .map(|line| line.strip_prefix("   ").unwrap_or(line).to_string() + "\n")
            .collect::<String>()
            .trim_start()
            .to_string()
    };
    let dir = support::scratch().join("readme-lint");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("mistakes.yaml"), block("```yaml")).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["spec", "lint", "--quick", "mistakes.yaml"])
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), block("```text"));
}

/// A key given twice is the second one's mistake, in a `{ ... }` and in lines alike.
#[test]
fn a_key_given_twice_is_placed_at_the_second() {
    let checked = spec::diagnose(
        "t.yaml",
        "assignment: blackjack\ngroups:\n  - name: g\n    points: 1\n    points: 2\n    cases:\n      - { name: c, seed: 1, seed: 2, player: [stand] }\n      - { name: d, seed: 1, player: [stand], expect: { outcome: push, outcome: push } }\n      - name: e\n        seed: 1\n        player: [stand]\n        seed: 3\n",
        None,
    );
    let told: Vec<String> = checked.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        told,
        [
            "t.yaml:5:5: `points` is given a second time here; give each field once",
            "t.yaml:7:29: `seed` is given a second time here; give each field once",
            "t.yaml:8:71: expect: `outcome` is given a second time here; give each field once",
            "t.yaml:12:9: `seed` is given a second time here; give each field once",
        ]
    );
}

#[test]
fn deep_nesting_is_refused_where_it_goes_too_deep() {
    let text = format!(
        "assignment: plaisante_hand\ngroups: {}{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let err = parse_err(&text);
    assert!(
        err.starts_with("t.yaml:2:41: brackets nested 33 deep"),
        "{err}"
    );
    // A `[` inside a quoted string or a comment is no nesting.
    let quoted = format!(
        "assignment: plaisante_hand # {}\ngroups:\n  - name: \"a {}\"\n    cases: [{{ name: c, hand: [KH], check: has_pair }}]\n",
        "[".repeat(40),
        "[".repeat(40)
    );
    assert!(parse("t.yaml", &quoted, None).is_ok());
}

#[test]
fn yaml_mistakes_are_told_in_an_instructors_words_where_they_were_made() {
    let cases = [
        (
            "assignment: plaisante_hand\ngroups:\n\t- name: g\n",
            "t.yaml:3:1: a tab is not allowed for indentation in YAML; indent with spaces",
        ),
        (
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    cases: [{ name: c, hand: [KH, check: has_pair }]\n  - name: h\n",
            "t.yaml:4:30: this `[` is never closed: a `]` is missing",
        ),
        (
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    cases: [{ name: \"c, hand: [KH], check: has_pair }]\n",
            "t.yaml:4:21: this quoted string is never closed: it runs to the end of the file",
        ),
        (
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    cases: [{ name: c, hand: [KH], check: has_pair }]\n---\nassignment: poker\n",
            "t.yaml:5:1: a spec is one YAML document, but a second one starts here",
        ),
        (
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: many\n    cases: [{ name: c, hand: [KH], check: has_pair }]\n",
            "t.yaml:4:13: points: expected a number from 0 to 1,000, not `many`",
        ),
    ];
    for (text, expected) in cases {
        let err = parse_err(text);
        assert!(err.starts_with(expected), "{err}\n{text}");
    }
}

/// Five mistakes in three groups, one of them a group that also has a case that is fine.
const FIVE_MISTAKES: &str = "\
assignment: plaisante_hand
groups:
  - name: pairs
    points: 10
    check: has_pair
    cases:
      - { name: fine, hand: [KH, KD, 3C, 7S, 9H], expect: true }
      - { name: bad card, hand: [1X, KD, 3C, 7S, 9H] }
      - { name: typo, hand: [KH, KD, 3C, 7S, 9H], expct: true }
      - name: not a list
        hand: KH
  - name: flush
    pionts: 5
    check: has_flush
    cases:
      - { name: f, hand: [2H, 3H, 4H, 5H, 7H] }
  - name: straight
    points: 5
    check: has_straihgt
    cases:
      - { name: s, hand: [2H, 3C, 4H, 5H, 6H] }
";

#[test]
fn a_file_with_five_mistakes_gets_five_messages_in_file_order() {
    let checked = spec::diagnose("t.yaml", FIVE_MISTAKES, None);
    let told: Vec<String> = checked.errors.iter().map(ToString::to_string).collect();
    let expected = [
        "t.yaml:8:34: hand[0]: `1X` is not a card",
        "t.yaml:9:51: `expct` is not a field here; did you mean `expect`?",
        "t.yaml:11:15: hand: expected a list, such as [a, b], not `KH`",
        "t.yaml:13:5: `pionts` is not a field here; did you mean `points`?",
        "t.yaml:19:12: check: `has_straihgt` is not a check; did you mean `has_straight`?",
    ];
    assert_eq!(told.len(), expected.len(), "{told:#?}");
    for (told, expected) in told.iter().zip(expected) {
        assert!(told.starts_with(expected), "{told}\nexpected {expected}");
    }
    // `check` and `parse` tell the same, and so does a grader loading the file.
    let parsed = parse_err(FIVE_MISTAKES);
    assert!(parsed.starts_with("5 problems in the specs:"), "{parsed}");
    assert!(
        told.iter().all(|one| parsed.contains(one.as_str())),
        "{parsed}"
    );
    // The group left whole after the mistaken cases are read past still loads.
    let pairs = &checked.suite.groups[0];
    assert_eq!(pairs.name, "pairs");
    assert_eq!(pairs.tests.len(), 1);
}

#[test]
fn a_group_that_lost_every_case_to_a_mistake_is_not_also_said_to_list_none() {
    let checked = spec::diagnose(
        "t.yaml",
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH], wieght: 2 }\n",
        None,
    );
    let told: Vec<String> = checked.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        told,
        ["t.yaml:7:32: `wieght` is not a field here; did you mean `weight`?"]
    );
}

/// `grader spec lint ARGS`: exit code and stdout.
fn lint(args: &[&std::path::Path]) -> (i32, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["spec", "lint"])
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn lint_tells_every_error_and_warning_of_every_file_then_counts_them() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("lint");
    std::fs::create_dir_all(&dir).unwrap();
    let mistaken = dir.join("a_mistaken.yaml");
    std::fs::write(&mistaken, FIVE_MISTAKES).unwrap();
    let likely_wrong = dir.join("b_likely_wrong.yaml");
    std::fs::write(
        &likely_wrong,
        "assignment: plaisante_hand\ngroups:\n  - name: unscored\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH, KD] }\n  - name: secret\n    points: 5\n    visibility: hidden\n    check: evaluate\n    hint: five hearts from the ace up are a flush, whatever their order\n    cases:\n      - { name: steel wheel, hand: [AH, 2H, 3H, 4H, 5H] }\n      - { name: wrong, hand: [KH, KD], expect: high card }\n",
    )
    .unwrap();
    let (code, out) = lint(&[&dir]);
    assert_eq!(code, 2, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    let mistaken = mistaken.display().to_string();
    let likely_wrong = likely_wrong.display().to_string();
    assert_eq!(lines.len(), 9, "{out}");
    for line in &lines[..5] {
        assert!(line.starts_with(&format!("{mistaken}:")), "{out}");
        assert!(line.contains(": error: "), "{out}");
    }
    assert!(
        lines[5].starts_with(&format!(
            "{likely_wrong}:3:5: warning: group `unscored`: gives no `points`"
        )),
        "{out}"
    );
    assert!(
        lines[6].starts_with(&format!("{likely_wrong}:7:5: warning: group `secret` is hidden, but its hint, which students see, says `Flush`, the answer to case `steel wheel`")),
        "{out}"
    );
    assert!(
        lines[7].starts_with(&format!("{likely_wrong}:14:11: error: case `wrong` expects High Card, but the reference answers Pair")),
        "{out}"
    );
    assert_eq!(lines[8], "6 errors and 2 warnings in 2 files");

    let clean = dir.join("clean");
    std::fs::create_dir_all(&clean).unwrap();
    std::fs::copy(repo_spec("tableau"), clean.join("tableau.yaml")).unwrap();
    let (code, out) = lint(&[&clean]);
    assert_eq!(
        (code, out.as_str()),
        (0, "0 errors and 0 warnings in 1 file\n")
    );
}

/// A spec with a group worth nothing and a group shown from a due date it does not give.
const UNDATED: &str = "assignment: plaisante_hand\ngroups:\n  - name: free\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH] }\n  - name: later\n    points: 1\n    visibility: after_due_date\n    check: has_pair\n    cases:\n      - { name: d, hand: [KH] }\n";

const UNDATED_WARNING: &str = "7:5: warning: group `later` is shown in full from the due date on, but no spec gives a due date: a student's view withholds it until `grader check --due` is given";

#[test]
fn lint_warns_of_an_after_due_date_group_when_no_file_gives_a_due_date() {
    let dir = support::scratch().join("lint-undated");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let undated = dir.join("a_undated.yaml");
    std::fs::write(&undated, UNDATED).unwrap();
    let (code, out) = lint(&[&undated]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(&format!("{}:{UNDATED_WARNING}", undated.display())),
        "{out}"
    );
    assert!(
        out.ends_with("0 errors and 2 warnings in 1 file\n"),
        "{out}"
    );
    // The latest due date of any file is every file's.
    std::fs::write(
        dir.join("b_dated.yaml"),
        "assignment: poker\ndefaults: { due: 2026-12-15 }\ngroups:\n  - name: g\n    points: 1\n    check: category\n    cases:\n      - { name: c, hand: [KH, QH, JH, 10H, 9H] }\n",
    )
    .unwrap();
    let (code, out) = lint(&[&dir]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("due date"), "{out}");
    assert!(
        out.ends_with("0 errors and 1 warning in 2 files\n"),
        "{out}"
    );
}

/// `grader check --spec` tells what lint warns of, on stderr, and grades on.
#[test]
fn check_against_given_specs_tells_lints_warnings() {
    let file = support::scratch_file("check-undated.yaml", UNDATED);
    let path = file.to_str().unwrap();
    // Staff's view: lint warnings are for staff, and it names the after_due_date group's
    // cases.
    let output = support::grader(&["check", ".", "--list", "--staff-view", "--spec", path]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{path}:3:5: warning: group `free`: gives no `points`, so it is worth nothing"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{path}:{UNDATED_WARNING}")),
        "{stderr}"
    );
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("plaisante_hand::later::d"),
        "{output:?}"
    );
    // A due date given on the command line is one.
    let output = support::grader(&[
        "check",
        ".",
        "--list",
        "--staff-view",
        "--due",
        "2026-12-15",
        "--spec",
        path,
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("gives no `points`"), "{stderr}");
    assert!(!stderr.contains("due date"), "{stderr}");
}

fn repo_spec(assignment: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("specs")
        .join(format!("{assignment}.yaml"))
}

#[test]
fn a_cheater_from_turn_0_is_refused_since_turns_count_from_1() {
    let err = parse_err(
        "assignment: crazy_eights\ngroups:\n  - name: g\n    points: 1\n    cases:\n      - { name: early, seed: 1, players: [first legal, \"cheats: not held from turn 0\", first legal, first legal] }\n",
    );
    assert!(
        err.starts_with("t.yaml:6:11: case `early`: `cheats: not held from turn 0`: a player's turns count from 1"),
        "{err}"
    );
}

/// A day past the end of its month is no date, in a spec's `defaults` as for `--due`.
#[test]
fn an_impossible_due_date_is_refused_where_it_is_written_and_for_the_flag() {
    let err = parse_err(
        "assignment: plaisante_hand\ndefaults:\n  timeout_ms: 2000\n  due: 2026-02-30\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH] }\n",
    );
    assert_eq!(
        err,
        "t.yaml:4:8: defaults.due: `2026-02-30` is not a date: February 2026 has 28 days"
    );
    let output = support::grader(&["check", ".", "--list", "--due", "2026-04-31"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "invalid value '2026-04-31' for '--due <DATE>': `2026-04-31` is not a date: April 2026 has 30 days"
        ),
        "{stderr}"
    );
}

/// Some editors start a UTF-8 file with a byte order mark: every command reads the spec
/// after it, and fill keeps it where it was.
#[test]
fn a_spec_that_starts_with_a_byte_order_mark_is_read_by_every_command_and_kept_by_fill() {
    let file = support::scratch_file(
        "byte-order-mark.yaml",
        "\u{feff}assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: kings, hand: [KH, KD] }\n",
    );
    let path = file.to_str().unwrap();
    let commands: [(&[&str], &str); 3] = [
        (
            &["spec", "lint", "--quick", path],
            "0 errors and 0 warnings",
        ),
        (&["spec", "show", path], "plaisante_hand::g::kings\n"),
        (
            &["check", "--list", "--spec", path, "."],
            "plaisante_hand::g::kings",
        ),
    ];
    for (args, says) in commands {
        let output = support::grader(args);
        let told =
            String::from_utf8_lossy(&output.stdout) + String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{args:?}:\n{told}");
        assert!(told.contains(says), "{args:?}:\n{told}");
    }
    let output = support::grader(&["spec", "fill", path]);
    assert!(output.status.success(), "{output:?}");
    let filled = std::fs::read_to_string(&file).unwrap();
    assert!(
        filled.starts_with("\u{feff}assignment: plaisante_hand\n"),
        "{filled:?}"
    );
    assert!(
        filled.contains("hand: [KH, KD], expect: true }"),
        "{filled}"
    );
    assert!(parse("t.yaml", &filled, None).is_ok(), "{filled}");
}

#[test]
fn lint_places_a_byte_that_is_not_utf8() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("lint-bytes");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("latin1.yaml");
    std::fs::write(
        &file,
        b"assignment: plaisante_hand\ngroups:\n  - name: caf\xe9\n",
    )
    .unwrap();
    let (code, out) = lint(&[&file]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.starts_with(&format!(
            "{}:3:14: error: byte 48 (0xe9) is not UTF-8 text",
            file.display()
        )),
        "{out}"
    );
}

#[test]
fn lint_stops_at_a_reference_that_runs_past_its_groups_timeout_naming_the_group() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("lint-slow");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("slow.yaml");
    std::fs::write(
        &file,
        "assignment: plaisante_hand\ngroups:\n  - name: every hand\n    points: 1\n    timeout_ms: 1\n    checks: [evaluate]\n    exhaustive: { hand_size: 5 }\n",
    )
    .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["spec", "lint"])
        .arg(&file)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "plaisante_hand::every_hand: the reference took more than its group's timeout of 1 ms"
        ),
        "{stderr}"
    );
}

/// Every kind of malformed spec an instructor writes, each with the start of the first line
/// lint tells of it: where, and what is wrong.
fn malformed_specs() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    vec![
        (
            "groups_of_one_id",
            b"assignment: plaisante_hand\ngroups:\n  - name: same\n    points: 1\n    check: has_pair\n    cases:\n      - { name: a, hand: [KH] }\n  - name: Same!\n    points: 1\n    check: has_pair\n    cases:\n      - { name: b, hand: [KH] }\n".to_vec(),
            ":8:5: error: group `Same!`: this group's id is `plaisante_hand::same`, as is the group `same` at ",
        ),
        (
            "nameless_group",
            b"assignment: plaisante_hand\ngroups:\n  - name: \"!!\"\n    points: 1\n    check: has_pair\n    cases:\n      - { name: a, hand: [KH] }\n".to_vec(),
            ":3:5: error: group `!!`: the name has no letter or digit to make a test id of",
        ),
        (
            "empty_toggle",
            b"assignment: tableau\ngroups:\n  - name: t\n    points: 1\n    cases:\n      - name: c\n        deck: [KH]\n        steps: [{ toggle: [], expect: { held: [] } }]\n".to_vec(),
            ":6:9: error: case `c`: `toggle: []` toggles nothing: name a card or more",
        ),
        ("alias_bomb", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: c0, hand: [KH], expect: &a0 [x, x, x, x, x, x, x, x, x, x] }\n      - { name: c1, hand: [KH], expect: &a1 [*a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0] }\n      - { name: c2, hand: [KH], expect: &a2 [*a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1] }\n      - { name: c3, hand: [KH], expect: &a3 [*a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2] }\n      - { name: c4, hand: [KH], expect: &a4 [*a3, *a3, *a3, *a3, *a3, *a3, *a3, *a3, *a3, *a3] }\n      - { name: c5, hand: [KH], expect: &a5 [*a4, *a4, *a4, *a4, *a4, *a4, *a4, *a4, *a4, *a4] }\n      - { name: c6, hand: [KH], expect: &a6 [*a5, *a5, *a5, *a5, *a5, *a5, *a5, *a5, *a5, *a5] }\n      - { name: c7, hand: [KH], expect: &a7 [*a6, *a6, *a6, *a6, *a6, *a6, *a6, *a6, *a6, *a6] }\n      - { name: c8, hand: [KH], expect: &a8 [*a7, *a7, *a7, *a7, *a7, *a7, *a7, *a7, *a7, *a7] }\n      - { name: c9, hand: [KH], expect: &a9 [*a8, *a8, *a8, *a8, *a8, *a8, *a8, *a8, *a8, *a8] }\n".as_bytes().to_vec(), ":7:41: error: aliases (`*name`) expand to far more than any spec holds: write the values out, or alias less"),
        ("bad_card", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH, 1X] }\n".as_bytes().to_vec(), ":7:31: error: hand[1]: `1X` is not a card: write a value (2-10, T, J, Q, K, A) then a suit (C, D, H, S), like `KH"),
        ("bad_tableau_step", "assignment: tableau\ngroups:\n  - name: g\n    points: 1\n    cases:\n      - name: c\n        deck: [KH, QH]\n        steps: [deal, [1, 2]]\n".as_bytes().to_vec(), ":8:23: error: steps[1]: expected a step: deal, play, or { toggle: KH }, not a list"),
        ("case_without_check", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    cases:\n      - { name: c, hand: [KH] }\n".as_bytes().to_vec(), ":6:11: error: case `c`: names no check: give it `check:` or give its group one"),
        ("check_of_another_assignment", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    check: category\n    cases:\n      - { name: c, hand: [KH] }\n".as_bytes().to_vec(), ":5:12: error: check: `category` is not a check; expected one of: count_values, has_pair, has_two_pair, has_thr"),
        ("colliding_ids", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: Pair!, hand: [KH, KD] }\n      - { name: pair, hand: [KH, KS] }\n".as_bytes().to_vec(), ":8:11: error: this test's id is `plaisante_hand::g::pair`, as is the test `Pair!` at "),
        ("deep_brackets", "assignment: plaisante_hand\ngroups: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n".as_bytes().to_vec(), ":2:41: error: brackets nested 33 deep; a spec nests at most 32"),
        ("deep_indent", "assignment: plaisante_hand\ngroups:\n                                                                                                                                                                                                                                                                                                            - name: g\n".as_bytes().to_vec(), ":3:1: error: indented 300 spaces; a spec nests at most 256"),
        ("duplicate_card", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH, KH] }\n".as_bytes().to_vec(), ":7:11: error: case `c`: K♥ is in a Plaisante hand twice; one deck deals each card once"),
        ("impossible_due", "assignment: plaisante_hand\ndefaults: { due: 2026-04-31 }\ngroups: []\n".as_bytes().to_vec(), ":2:18: error: defaults.due: `2026-04-31` is not a date: April 2026 has 30 days"),
        ("empty_file", "".as_bytes().to_vec(), ": error: the file is empty; a spec gives `assignment:` and `groups:`"),
        ("endless_games", "assignment: crazy_eights\ngroups:\n  - name: g\n    points: 1\n    strategies: { games: 1000000000, seed: 1, opponents: [first legal, first legal, first legal] }\n".as_bytes().to_vec(), ":5:26: error: strategies.games: 1000000000 is outside its range, 1 to 10,000"),
        ("endless_rounds", "assignment: blackjack\ngroups:\n  - name: g\n    points: 1\n    cases:\n      - { name: c, seed: 1, rounds: 1000000000 }\n".as_bytes().to_vec(), ":6:37: error: rounds: 1000000000 is outside its range, 1 to 10,000"),
        ("huge_points", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1e300\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH] }\n".as_bytes().to_vec(), ":4:13: error: points: 1e300 is outside its range, 0 to 1,000"),
        ("missing_assignment", "groups: []\n".as_bytes().to_vec(), ":1:1: error: missing `assignment`: this needs `assignment: ...`"),
        ("missing_group_name", "assignment: plaisante_hand\ngroups:\n  - points: 1\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH] }\n".as_bytes().to_vec(), ":3:5: error: missing `name`: this needs `name: ...`"),
        ("negative_points", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: -1\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH] }\n".as_bytes().to_vec(), ":4:13: error: points: -1 is outside its range, 0 to 1,000"),
        ("no_groups_key", "assignment: plaisante_hand\n".as_bytes().to_vec(), ":1:1: error: missing `groups`: this needs `groups: ...`"),
        ("non_utf8", b"assignment: plaisante_hand\ngroups:\n  - name: caf\xe9\n".to_vec(), ":3:14: error: byte 48 (0xe9) is not UTF-8 text; save the spec as UTF-8"),
        ("plaisante_hand_size", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: c, hand: [2H, 3H, 4H, 5H, 6H, 7H] }\n".as_bytes().to_vec(), ":7:11: error: case `c`: a Plaisante hand holds 0 to 5 cards, not 6 (2♥ 3♥ 4♥ 5♥ 6♥ 7♥)"),
        ("poker_hand_size", "assignment: poker\ngroups:\n  - name: g\n    points: 1\n    check: category\n    cases:\n      - { name: c, hand: [2H, 3H, 4H, 5H] }\n".as_bytes().to_vec(), ":7:11: error: case `c`: a poker hand holds 5 cards, not 4 (2♥ 3♥ 4♥ 5♥)"),
        ("quote", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: \"c, hand: [KH] }\n".as_bytes().to_vec(), ":7:17: error: this quoted string is never closed: it runs to the end of the file"),
        ("syntax_bracket", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH, KD }\n".as_bytes().to_vec(), ":7:26: error: this `[` is never closed: a `]` is missing"),
        ("tab", "assignment: plaisante_hand\ngroups:\n\t- name: g\n".as_bytes().to_vec(), ":3:1: error: a tab is not allowed for indentation in YAML; indent with spaces"),
        ("two_documents", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH] }\n---\nassignment: poker\n".as_bytes().to_vec(), ":8:1: error: a spec is one YAML document, but a second one starts here; remove the `---` or split the file"),
        ("unknown_alias", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: c, hand: *cards }\n".as_bytes().to_vec(), ":7:26: error: this alias (`*name`) names no anchor (`&name`) written before it"),
        ("unknown_assignment", "assignment: solitaire\ngroups: []\n".as_bytes().to_vec(), ":1:1: error: `solitaire` is not an assignment; expected one of: plaisante_hand, tableau, blackjack, poker, dra"),
        ("unknown_case_field", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH], expct: true }\n".as_bytes().to_vec(), ":7:32: error: `expct` is not a field here; did you mean `expect`?"),
        ("unknown_check", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    check: has_pairs\n    cases:\n      - { name: c, hand: [KH] }\n".as_bytes().to_vec(), ":5:12: error: check: `has_pairs` is not a check; did you mean `has_pair`?"),
        ("unknown_defaults_field", "assignment: plaisante_hand\ndefaults: { timout_ms: 3 }\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH] }\n".as_bytes().to_vec(), ":2:13: error: defaults: `timout_ms` is not a field here; did you mean `timeout_ms`?"),
        ("unknown_generate_field", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    checks: [has_pair]\n    generate: { count: 3, seed: 1, hand_sise: 5 }\n".as_bytes().to_vec(), ":6:36: error: generate: `hand_sise` is not a field here; did you mean `hand_size`?"),
        ("unknown_group_field", "assignment: plaisante_hand\ngroups:\n  - name: g\n    pionts: 1\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH] }\n".as_bytes().to_vec(), ":4:5: error: `pionts` is not a field here; did you mean `points`?"),
        ("unknown_rules_field", "assignment: blackjack\nrules: { ties: draw }\ngroups:\n  - name: g\n    points: 1\n    check: value\n    cases:\n      - { name: c, hand: [KH] }\n".as_bytes().to_vec(), ":2:10: error: rules: `ties` is not a field here; expected one of: dealer_hits_soft_17"),
        ("unknown_top_field", "assignment: plaisante_hand\ngrups:\n  - name: g\n".as_bytes().to_vec(), ":2:1: error: `grups` is not a field here; did you mean `groups`?"),
        ("unknown_visibility", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    visibility: hiden\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH] }\n".as_bytes().to_vec(), ":5:17: error: visibility: `hiden` is not a choice here; did you mean `hidden`?"),
        ("wrong_expectation", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: three kings, hand: [KH, KD, KC], expect: true }\n".as_bytes().to_vec(), ":7:11: error: case `three kings` expects true, but the reference answers false; fix the `expect`, or remove it"),
        ("wrong_type_expect", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH, KD], expect: maybe }\n".as_bytes().to_vec(), ":7:11: error: case `c`: `expect` does not fit has_pair: it returns true or false"),
        ("wrong_type_list", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: c, hand: KH }\n".as_bytes().to_vec(), ":7:26: error: hand: expected a list, such as [a, b], not `KH`"),
        ("wrong_type_number", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: many\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH] }\n".as_bytes().to_vec(), ":4:13: error: points: expected a number from 0 to 1,000, not `many`"),
        ("wrong_type_whole_number", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    timeout_ms: fast\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH] }\n".as_bytes().to_vec(), ":5:17: error: timeout_ms: expected a whole number from 1 to 600,000, not `fast`"),
        ("zero_count", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    checks: [has_pair]\n    generate: { count: 0, seed: 1 }\n".as_bytes().to_vec(), ":6:24: error: generate.count: 0 is outside its range, 1 to 1,000,000"),
        ("zero_timeout", "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    timeout_ms: 0\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH] }\n".as_bytes().to_vec(), ":5:17: error: timeout_ms: 0 is outside its range, 1 to 600,000"),
    ]
}

/// Lints one file under a deadline: a spec that hangs the grader fails this, never the suite.
fn lint_within_seconds(file: &std::path::Path) -> (Option<i32>, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["spec", "lint", "--quick"])
        .arg(file)
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("lint of {} ran past 30 s", file.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    let told = String::from_utf8_lossy(&output.stdout) + String::from_utf8_lossy(&output.stderr);
    (output.status.code(), told.into_owned())
}

#[test]
fn every_kind_of_malformed_spec_is_told_precisely_at_its_place_and_none_hangs_or_panics() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("malformed");
    std::fs::create_dir_all(&dir).unwrap();
    let mut kinds = malformed_specs();
    let case = "      - { name: c, hand: [KH], check: has_pair }\n";
    let huge = format!(
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    cases:\n{}",
        case.repeat(9 * 1024 * 1024 / case.len() + 1)
    );
    let too_big = format!(
        ": error: the spec is {} bytes; a spec may be at most 8388608 (8 MiB)",
        huge.len()
    );
    kinds.push(("huge", huge.into_bytes(), too_big.leak()));
    assert!(kinds.len() >= 30, "{} kinds", kinds.len());
    for (kind, text, told_first) in kinds {
        let file = dir.join(format!("{kind}.yaml"));
        std::fs::write(&file, text).unwrap();
        let (code, told) = lint_within_seconds(&file);
        assert_eq!(code, Some(2), "{kind}:\n{told}");
        assert!(!told.contains("panicked"), "{kind}:\n{told}");
        let expected = format!("{}{told_first}", file.display());
        assert!(
            told.starts_with(&expected),
            "{kind}: expected\n{expected}\nbut lint told\n{told}"
        );
    }
}

/// `grader spec audit ARGS`: exit code, stdout and stderr, in the target dir every test
/// builds in, where tests/check.rs has built the library's bugs already.
fn audit(args: &[&str]) -> (i32, String, String) {
    let output = support::grader(&[&["spec", "audit"], args].concat());
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The audit table's row of bug `name`: its line and the lines indented under it.
fn audit_row<'a>(table: &'a str, name: &str) -> &'a str {
    // Its own line, the label then the name; lines under a row may name it too.
    let at = table
        .match_indices(&format!(" {name}\n"))
        .map(|(at, _)| table[..at].rfind('\n').map_or(0, |n| n + 1))
        .find(|&start| !table[start..].starts_with("          "))
        .unwrap_or_else(|| panic!("no row of {name} in:\n{table}"));
    let row = &table[at..];
    let end = row
        .match_indices('\n')
        .map(|(at, _)| at + 1)
        .find(|&at| !row[at..].starts_with("          "))
        .unwrap_or(row.len());
    &row[..end]
}

/// Tableau's shipped spec, the cheapest to audit: every bug of its library caught, each
/// by the tests it names.
#[test]
fn the_audit_of_a_shipped_spec_finds_every_bug_caught_by_the_tests_it_names() {
    let spec = support::repo().join("specs/tableau.yaml");
    let (code, table, stderr) = audit(&[spec.to_str().unwrap()]);
    assert_eq!(code, 0, "{table}\n{stderr}");
    let bugs = (support::library("tableau").bugs)();
    assert!(
        table.contains(&format!("\n{0} of {0} bugs caught\n", bugs.len())),
        "{table}"
    );
    for bug in &bugs {
        let row = audit_row(&table, &bug.name);
        assert!(
            row.starts_with(&format!("  caught  {}\n", bug.name)),
            "{row}"
        );
        assert!(row.contains(&*bug.description), "{row}");
        // The cases of a group are listed together, `group::{a, b}`.
        for caught in &bug.caught {
            let case = caught.test.rsplit("::").next().unwrap();
            assert!(row.contains(case), "{}: {row}", caught.test);
        }
    }
    assert!(!table.contains("should catch it"), "{table}");
}

/// Tableau's spec cut to one case, toggling a card twice: it catches few of the library's
/// bugs, and holds few of the catchers they name.
const ONE_TABLEAU_CASE: &str = "assignment: tableau\ngroups:\n  - name: toggle_selection\n    points: 10\n    cases:\n      - name: toggling twice deselects\n        deck: [2C, 3C, 4C, 5C, 6C, 7C, 8C, 9C]\n        steps: [deal, { toggle: 5C }, { toggle: 5C, expect: { selected: [] } }]\n";

/// A spec of one group of one case: the bugs it lets through are missed, and the catchers
/// the library names are not in it.
#[test]
fn an_audit_of_a_weak_spec_tells_each_bug_it_misses_and_fails() {
    let spec = support::scratch_file("one-tableau-case.yaml", ONE_TABLEAU_CASE);
    let (code, table, stderr) = audit(&[spec.to_str().unwrap()]);
    assert_eq!(code, 1, "{table}\n{stderr}");
    let bugs = (support::library("tableau").bugs)();
    assert!(
        table.contains(&format!("\n2 of {} bugs caught\n", bugs.len())),
        "{table}"
    );
    let caught = audit_row(&table, "tableau-deselect-keeps-card");
    assert!(
        caught.starts_with("  caught  ")
            && caught.contains("caught by toggle_selection::toggling_twice_deselects\n")
            && caught.contains("random_step_sequences should catch it, but is not in the specs"),
        "{caught}"
    );
    let missed = audit_row(&table, "tableau-play-area-reversed");
    assert!(
        missed.starts_with("  MISSED  ")
            && missed.contains("no test fails")
            && missed.contains(
                "move_selected_to_play_area::play_five_adjacent_cards should catch it, but is not in the specs"
            ),
        "{missed}"
    );
}

/// The mutant table of a spec of one case: a row for each bug, its catchers as the library
/// names them, each that does not fail marked with why, and the tests that fail on it.
#[test]
fn the_audit_as_markdown_gives_each_bug_its_catchers_and_the_tests_that_fail() {
    let spec = support::scratch_file("one-tableau-case-markdown.yaml", ONE_TABLEAU_CASE);
    let (code, table, stderr) = audit(&[spec.to_str().unwrap(), "--markdown"]);
    assert_eq!(code, 1, "{table}\n{stderr}");
    let bugs = (support::library("tableau").bugs)();
    assert!(
        table.contains(&format!(
            "**tableau**: {} bugs\n\n| bug | catchers | failing tests |\n|---|---|---|\n",
            bugs.len()
        )),
        "{table}"
    );
    let rows: Vec<&str> = table
        .lines()
        .filter(|line| line.starts_with("| tableau-"))
        .collect();
    assert_eq!(rows.len(), bugs.len(), "{table}");
    for (bug, row) in bugs.iter().zip(&rows) {
        assert!(row.starts_with(&format!("| {} | ", bug.name)), "{row}");
        for caught in &bug.caught {
            assert!(row.contains(caught.test), "{}: {row}", caught.test);
        }
    }
    assert!(
        table.contains(
            "| tableau-deselect-keeps-card | toggle_selection::toggling_twice_deselects, random_step_sequences (is not in the specs) | toggle_selection::toggling_twice_deselects |\n"
        ),
        "{table}"
    );
    assert!(
        table.contains("| tableau-play-area-reversed | move_selected_to_play_area::play_five_adjacent_cards (is not in the specs), random_step_sequences (is not in the specs) | MISSED: no test fails |\n"),
        "{table}"
    );
    assert!(
        table.contains(&format!("\n2 of {} bugs caught\n", bugs.len())),
        "{table}"
    );
}

#[test]
fn an_audit_of_a_spec_that_does_not_load_is_a_spec_error() {
    let (code, table, stderr) = audit(&["no-such-spec.yaml"]);
    assert_eq!(code, 2, "{table}\n{stderr}");
    assert!(stderr.contains("no-such-spec.yaml"), "{stderr}");
    assert!(table.is_empty(), "{table}");
}

#[test]
fn a_bulk_groups_scoring_is_read_and_a_wrong_one_is_refused_where_it_is_written() {
    let spec = |scoring: &str| {
        format!(
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 3\n    scoring: {scoring}\n    generate: {{ count: 10, seed: 1 }}\n    checks: [has_pair]\n"
        )
    };
    let scoring_of = |text: &str| parse("t.yaml", &spec(text), None).unwrap().groups[0].scoring;
    assert_eq!(scoring_of("all_or_nothing"), spec::Scoring::AllOrNothing);
    assert_eq!(scoring_of("proportional"), spec::Scoring::Proportional);
    assert_eq!(
        scoring_of("{ threshold: 0.999 }"),
        spec::Scoring::Threshold(0.999)
    );
    assert_eq!(
        scoring_of("{ threshold: 1 }"),
        spec::Scoring::Threshold(1.0)
    );
    let unsaid = spec("all_or_nothing").replace("    scoring: all_or_nothing\n", "");
    assert_eq!(
        parse("t.yaml", &unsaid, None).unwrap().groups[0].scoring,
        spec::Scoring::AllOrNothing
    );
    let err = parse_err(&spec("proportionl"));
    assert!(err.starts_with("t.yaml:5:"), "{err}");
    assert!(err.contains("did you mean `proportional`?"), "{err}");
    for outside in ["0", "1.5", "-0.2"] {
        let err = parse_err(&spec(&format!("{{ threshold: {outside} }}")));
        assert!(err.starts_with("t.yaml:5:"), "{err}");
        assert!(
            err.contains(&format!(
                "above 0 and at most 1 (0.999 is 99.9%); {outside} is not"
            )),
            "{err}"
        );
    }
    let err = parse_err(&spec("{ limit: 0.9 }"));
    assert!(
        err.contains("`limit`") && err.contains("threshold"),
        "{err}"
    );
    let err = parse_err(&spec("{ threshold: 0.9, also: 1 }"));
    assert!(err.contains("`also`"), "{err}");
}

#[test]
fn scoring_is_refused_on_a_group_of_cases_which_earns_by_case() {
    let err = parse_err(
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    scoring: proportional\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH, KD] }\n",
    );
    assert!(err.starts_with("t.yaml:3:"), "{err}");
    assert!(
        err.contains("`scoring` is for a group graded as one test over many inputs"),
        "{err}"
    );
}
