//! Spec files as the grader reads them: each assignment's typed groups and cases, the
//! common fields, and where each error points.

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

/// The grader's core names no assignment: each lives in its own files of api, reference,
/// specs and the student template, and joins the one list in api/src/lib.rs.
#[test]
fn the_core_names_no_assignment() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut names: Vec<String> = Vec::new();
    for unit in grader_api::ASSIGNMENTS {
        names.push(unit.name().to_string());
        names.extend(
            unit.name()
                .split('_')
                .filter(|w| w.len() > 4)
                .map(String::from),
        );
    }
    names.extend(["crazy_eights", "crazy eights", "plaisante", "draw poker"].map(String::from));
    let mut files = vec![root];
    let mut offenders = Vec::new();
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap().to_lowercase();
        for name in &names {
            if names_word(&text, name) {
                offenders.push(format!("{} names `{name}`", path.display()));
            }
        }
    }
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}

/// Whether a word of `text` starts with `word`: `eights` and `blackjacks` do, `weights`
/// does not.
fn names_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        !text[..at]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric)
    })
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

#[test]
fn every_count_like_field_is_refused_outside_its_range_naming_it() {
    let plaisante =
        |group: &str| format!("assignment: plaisante_hand\ngroups:\n  - name: g\n{group}");
    let cases = [
        (
            plaisante("    points: 1e300\n    cases: [{ name: c, hand: [KH], check: has_pair }]\n"),
            "`points: 1e300` is outside its range, 0 to 1000",
        ),
        (
            plaisante("    timeout_ms: 0\n    cases: [{ name: c, hand: [KH], check: has_pair }]\n"),
            "`timeout_ms: 0` is outside its range, 1 to 600,000",
        ),
        (
            "assignment: plaisante_hand\ndefaults: { timeout_ms: 0 }\ngroups:\n  - name: g\n    cases: [{ name: c, hand: [KH], check: has_pair }]\n".to_string(),
            "defaults: `timeout_ms: 0` is outside its range",
        ),
        (
            plaisante("    generate: { count: 0, seed: 1 }\n    checks: [has_pair]\n"),
            "`count: 0` is outside its range, 1 to 1,000,000",
        ),
        (
            "assignment: blackjack\ngroups:\n  - name: g\n    cases: [{ name: c, seed: 1, player: hit below 17, rounds: 1000000000 }]\n".to_string(),
            "`rounds: 1000000000` is outside its range, 1 to 10,000",
        ),
        (
            "assignment: crazy_eights\ngroups:\n  - name: g\n    strategies: { games: 1000000000, seed: 1, opponents: [first legal, first legal, first legal] }\n".to_string(),
            "`games: 1000000000` is outside its range, 1 to 10,000",
        ),
        (
            "assignment: crazy_eights\ngroups:\n  - name: g\n    cases: [{ name: c, seed: 1, players: [first legal, first legal, first legal, first legal], target: 1000000000 }]\n".to_string(),
            "`target: 1000000000` is outside its range, 1 to 10,000",
        ),
    ];
    for (text, expected) in cases {
        let err = parse_err(&text);
        assert!(err.contains(expected), "{err}\n{text}");
    }
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
        "assignment: plaisante_hand # {}\ngroups:\n  - name: \"{}\"\n    cases: [{{ name: c, hand: [KH], check: has_pair }}]\n",
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
            "t.yaml:4:13: points: expected a number, not `many`",
        ),
    ];
    for (text, expected) in cases {
        let err = parse_err(text);
        assert!(err.starts_with(expected), "{err}\n{text}");
    }
}
