//! The JSON Schema of spec files (`grader schema`): committed where the shipped specs point
//! an editor at it, never stale, taking every shipped spec, and refusing what the loader
//! refuses where a schema can tell.

mod range_errors;

use std::path::{Path, PathBuf};
use std::process::Command;

use grader_api::Card;
use serde_json::Value;

const SCHEMA_FILE: &str = "docs/spec.schema.json";
/// The first line of every shipped spec: yaml-language-server reads the schema's path,
/// relative to the spec, from it.
const HEADER: &str = "# yaml-language-server: $schema=../docs/spec.schema.json";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn shipped_specs() -> Vec<PathBuf> {
    let mut specs: Vec<PathBuf> = std::fs::read_dir(repo().join("specs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    specs.sort();
    assert!(!specs.is_empty(), "no spec in specs/");
    specs
}

/// The schema `grader schema` prints, compiled, at the JSON pointer `location` in it.
struct Validator {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
}

impl Validator {
    fn at(location: &str) -> Validator {
        let url = "urn:cardgrade:spec-schema";
        let mut compiler = boon::Compiler::new();
        compiler
            .add_resource(url, grader::schema::spec_schema())
            .unwrap();
        let mut schemas = boon::Schemas::new();
        let index = compiler
            .compile(&format!("{url}#{location}"), &mut schemas)
            .unwrap_or_else(|error| panic!("the schema does not compile: {error:#}"));
        Validator { schemas, index }
    }

    fn whole() -> Validator {
        Validator::at("")
    }

    fn takes(&self, value: &Value) -> bool {
        self.schemas.validate(value, self.index).is_ok()
    }

    /// What the schema finds wrong with `value`, each `(where, what)`; none when it takes it.
    fn problems(&self, value: &Value) -> Vec<(String, String)> {
        fn leaves(error: &boon::ValidationError, into: &mut Vec<(String, String)>) {
            if error.causes.is_empty() {
                into.push((error.instance_location.to_string(), error.kind.to_string()));
            }
            for cause in &error.causes {
                leaves(cause, into);
            }
        }
        let mut found = Vec::new();
        if let Err(error) = self.schemas.validate(value, self.index) {
            leaves(&error, &mut found);
        }
        found
    }
}

fn yaml(text: &str) -> Value {
    serde_yaml::from_str(text).unwrap_or_else(|error| panic!("not YAML ({error}):\n{text}"))
}

#[test]
fn the_committed_schema_is_what_grader_schema_prints() {
    let printed = Command::new(env!("CARGO_BIN_EXE_grader"))
        .arg("schema")
        .output()
        .unwrap();
    assert!(printed.status.success(), "{printed:?}");
    let printed = String::from_utf8(printed.stdout).unwrap();
    let committed = std::fs::read_to_string(repo().join(SCHEMA_FILE)).unwrap_or_default();
    let first_difference = printed
        .lines()
        .zip(committed.lines())
        .position(|(now, then)| now != then)
        .map_or_else(String::new, |line| format!(" (line {})", line + 1));
    assert!(
        printed == committed,
        "{SCHEMA_FILE} is not what `grader schema` prints now{first_difference}: regenerate it \
         with `cargo run -q -- schema > {SCHEMA_FILE}` and commit it"
    );
}

#[test]
fn every_shipped_spec_points_an_editor_at_the_committed_schema() {
    let (_, path) = HEADER.split_once("$schema=").unwrap();
    let schema = repo().join("specs").join(path).canonicalize().unwrap();
    assert_eq!(schema, repo().join(SCHEMA_FILE).canonicalize().unwrap());
    for spec in shipped_specs() {
        let text = std::fs::read_to_string(&spec).unwrap();
        assert_eq!(
            text.lines().next(),
            Some(HEADER),
            "{} must start with the line `{HEADER}`",
            spec.display()
        );
    }
}

#[test]
fn every_shipped_spec_is_valid_against_the_schema() {
    let schema = Validator::whole();
    for spec in shipped_specs() {
        let problems = schema.problems(&yaml(&std::fs::read_to_string(&spec).unwrap()));
        assert!(problems.is_empty(), "{}: {problems:#?}", spec.display());
    }
}

/// A spec the loader and the schema both take, with a case and a bulk group.
const PAIRS: &str = "\
assignment: plaisante_hand
groups:
  - name: pairs
    points: 10
    check: has_pair
    cases:
      - { name: a pair, hand: [KH, KD] }
  - name: many pairs
    checks: [has_pair]
    generate: { count: 100, seed: 7 }
";

/// [`PAIRS`] with `from` replaced by `to`, which the loader refuses: the schema must
/// refuse it too, and at `at` (a JSON pointer into the file).
fn refused_by_both(from: &str, to: &str, at: &str) {
    let schema = Validator::whole();
    assert!(grader::spec::parse("t.yaml", PAIRS, None).is_ok());
    assert_eq!(schema.problems(&yaml(PAIRS)), []);
    assert!(PAIRS.contains(from), "{from}");
    let changed = PAIRS.replacen(from, to, 1);
    refused_by_the_schema_too(&schema, &changed, at, |place| place == at);
}

/// `text`, which the loader refuses, the schema refuses at a place `is_at` takes (`at`).
fn refused_by_the_schema_too(
    schema: &Validator,
    text: &str,
    at: &str,
    is_at: impl Fn(&str) -> bool,
) {
    assert!(
        grader::spec::parse("t.yaml", text, None).is_err(),
        "the loader takes:\n{text}"
    );
    let problems = schema.problems(&yaml(text));
    assert!(
        problems.iter().any(|(place, _)| is_at(place)),
        "the schema finds nothing wrong at {at} in:\n{text}\nit finds: {problems:#?}"
    );
}

#[test]
fn the_schema_refuses_a_field_a_group_does_not_take() {
    refused_by_both(
        "    points: 10\n",
        "    points: 10\n    hints: more\n",
        "/groups/0",
    );
}

#[test]
fn the_schema_refuses_an_unknown_check() {
    refused_by_both("check: has_pair", "check: has_pairs", "/groups/0/check");
}

#[test]
fn the_schema_refuses_a_check_of_another_assignment() {
    refused_by_both("check: has_pair", "check: category", "/groups/0/check");
}

#[test]
fn the_schema_refuses_a_bad_card() {
    refused_by_both("[KH, KD]", "[KH, 1X]", "/groups/0/cases/0/hand/1");
}

#[test]
fn the_schema_refuses_a_visibility_gradescope_does_not_name() {
    refused_by_both(
        "    points: 10\n",
        "    points: 10\n    visibility: secret\n",
        "/groups/0/visibility",
    );
}

#[test]
fn the_schema_refuses_a_partial_multiplier_table() {
    refused_by_both(
        "groups:\n",
        "rules: { multipliers: { pair: 2 } }\ngroups:\n",
        "/rules/multipliers",
    );
}

#[test]
fn the_schema_refuses_a_count_outside_its_range() {
    refused_by_both("count: 100", "count: 0", "/groups/1/generate/count");
}

#[test]
fn the_schema_refuses_an_unknown_assignment() {
    refused_by_both(
        "assignment: plaisante_hand",
        "assignment: plaisante",
        "/assignment",
    );
}

/// Every text of up to three characters, from letters, digits, suits and spaces, is a card
/// to the schema exactly when it is one to the loader.
#[test]
fn the_schema_of_a_card_takes_what_the_loader_reads_as_a_card() {
    let card = Validator::at("/definitions/plaisante_hand/Card");
    let alphabet: Vec<char> = "0123456789TJQKAXtjqkaxCDHSZcdhsz♣♧♦♢♥♡♠♤ \t"
        .chars()
        .collect();
    let mut texts = vec![String::new()];
    let mut disagreements = Vec::new();
    for _ in 0..3 {
        texts = texts
            .iter()
            .flat_map(|text| alphabet.iter().map(move |c| format!("{text}{c}")))
            .collect();
        for text in &texts {
            let loader = text.parse::<Card>().is_ok();
            if card.takes(&Value::from(text.as_str())) != loader {
                disagreements.push(format!("{text:?} (the loader takes it: {loader})"));
            }
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}

/// Every number the loader refuses as outside its range, the schema refuses at that field.
#[test]
fn the_schema_refuses_every_number_outside_the_range_the_loader_takes() {
    let schema = Validator::whole();
    for (text, told) in range_errors::RANGE_ERRORS {
        // `6:24: generate.count: 0 is outside ...`: the field is at `.../generate/count`.
        let field = format!("/{}", told.split(": ").nth(1).unwrap().replace('.', "/"));
        refused_by_the_schema_too(&schema, text, &field, |place| place.ends_with(&field));
    }
}

/// Lists the loader takes only of a size, or without a card twice, the schema refuses too.
#[test]
fn the_schema_refuses_a_list_of_the_wrong_size_or_with_a_card_twice() {
    let schema = Validator::whole();
    let refused = [
        (
            "assignment: poker\ngroups:\n  - name: g\n    check: category\n    cases:\n      - { name: c, hand: [KH, QH, JH, 10H] }\n",
            "/groups/0/cases/0/hand",
        ),
        (
            "assignment: poker\ngroups:\n  - name: g\n    cases:\n      - { name: c, hand: [KH, QH, JH, 10H, 9H], versus: [2C, 3C, 4C, 5C, 5C] }\n",
            "/groups/0/cases/0/versus",
        ),
        (
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH, KH] }\n",
            "/groups/0/cases/0/hand",
        ),
        (
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH, QH, JH, 10H, 9H, 8H] }\n",
            "/groups/0/cases/0/hand",
        ),
        (
            "assignment: tableau\ngroups:\n  - name: g\n    cases:\n      - { name: c, deck: [KH, KH], steps: [deal] }\n",
            "/groups/0/cases/0/deck",
        ),
        (
            "assignment: crazy_eights\ngroups:\n  - name: g\n    cases:\n      - { name: c, seed: 1, players: [first legal, first legal, first legal] }\n",
            "/groups/0/cases/0/players",
        ),
        (
            "assignment: crazy_eights\ngroups:\n  - name: g\n    strategies: { games: 4, seed: 1, opponents: [first legal, first legal, first legal, first legal] }\n",
            "/groups/0/strategies/opponents",
        ),
    ];
    for (text, at) in refused {
        refused_by_the_schema_too(&schema, text, at, |place| place == at);
    }
}

#[test]
fn the_schema_takes_the_scorings_the_loader_takes_and_refuses_the_others() {
    let schema = Validator::whole();
    let spec = |scoring: &str| {
        format!(
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    scoring: {scoring}\n    generate: {{ count: 10, seed: 1 }}\n    checks: [has_pair]\n"
        )
    };
    for taken in [
        "all_or_nothing",
        "proportional",
        "{ threshold: 0.999 }",
        "{ threshold: 1 }",
    ] {
        let text = spec(taken);
        assert!(grader::spec::parse("t.yaml", &text, None).is_ok(), "{text}");
        assert_eq!(schema.problems(&yaml(&text)), [], "{text}");
    }
    for refused in [
        "proportionl",
        "{ threshold: 0 }",
        "{ threshold: 1.5 }",
        "{ limit: 0.9 }",
    ] {
        refused_by_the_schema_too(&schema, &spec(refused), "/groups/0/scoring", |place| {
            place.starts_with("/groups/0")
        });
    }
}
