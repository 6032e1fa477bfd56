//! Diagnosis end to end: the audit keeps each library bug's wrong answers, and a grading
//! names the known mistakes behind a submission's, never one that does not explain them,
//! and never one for a correct crate.

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use support::{grader_env, repo, scratch};

/// The answers store of these tests alone, so that no other test finds its known mistakes.
fn store() -> &'static Path {
    static AUDITED: OnceLock<std::path::PathBuf> = OnceLock::new();
    AUDITED.get_or_init(|| {
        let store = scratch().join("diagnosis-answers");
        let _ = std::fs::remove_dir_all(&store);
        let spec = repo().join("specs/plaisante_hand.yaml");
        let audit = grader(
            &["spec", "audit", spec.to_str().unwrap(), "--jobs", "2"],
            &store,
        );
        let table = String::from_utf8_lossy(&audit.stdout).into_owned();
        assert_eq!(audit.status.code(), Some(0), "{table}");
        std::fs::write(scratch().join("diagnosis-audit.txt"), &table).unwrap();
        store
    })
}

fn grader(args: &[&str], store: &Path) -> std::process::Output {
    grader_env(&mut Command::new(env!("CARGO_BIN_EXE_grader")))
        .env("CARDGRADE_ANSWERS_DIR", store)
        .args(args)
        .output()
        .expect("the grader binary runs")
}

/// The results of checking `crate_dir` in `view` (`--staff-view` or `--student-view`).
fn results(crate_dir: &Path, view: &str) -> serde_json::Value {
    let args = [
        "check",
        crate_dir.to_str().unwrap(),
        "--assignment",
        "plaisante_hand",
        view,
        "--format",
        "json",
    ];
    let run = grader(&args, store());
    serde_json::from_slice(&run.stdout).unwrap_or_else(|_| {
        panic!("{}", String::from_utf8_lossy(&run.stderr));
    })
}

/// Each diagnosis of the results: the test, the check, the mistakes named and whether
/// they are alternatives.
fn diagnoses(results: &serde_json::Value) -> Vec<(String, String, Vec<String>, bool)> {
    let mut found = Vec::new();
    for test in results["tests"].as_array().unwrap() {
        for diagnosis in test["diagnosis"].as_array().into_iter().flatten() {
            let names = diagnosis["mistakes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["name"].as_str().unwrap().to_string())
                .collect::<Vec<_>>();
            let alternatives = names.len() > 1 && diagnosis["together"] == false;
            found.push((
                test["name"].as_str().unwrap().to_string(),
                diagnosis["check"].as_str().unwrap().to_string(),
                names,
                alternatives,
            ));
        }
    }
    found
}

#[test]
fn the_audit_says_which_bugs_a_diagnosis_names_and_which_it_cannot_tell_apart() {
    store();
    let table = std::fs::read_to_string(scratch().join("diagnosis-audit.txt")).unwrap();
    let row = |name: &str| {
        let at = table.find(&format!("  caught  {name}\n")).unwrap();
        let rest = &table[at + 2..];
        rest[..rest.find("\n  caught  ").unwrap_or(rest.len())].to_string()
    };
    let straight = row("bug-straight-repeats");
    assert!(
        straight.contains("diagnosed by its name on every check it gets wrong"),
        "{straight}"
    );
    let pair = row("bug-pair-at-least-two");
    assert!(
        pair.contains("has_full_house(): indistinguishable from bug-full-house-loose-pair"),
        "{pair}"
    );
    assert!(
        !pair.contains("has_pair(): "),
        "told apart on has_pair: {pair}"
    );
}

#[test]
fn the_example_student_is_diagnosed_with_its_three_mistakes_and_nothing_else() {
    let example = repo().join("tests/fixtures/example-student");
    let found = diagnoses(&results(&example, "--staff-view"));
    let mistakes = [
        "bug-pair-at-least-two",
        "bug-flush-four-cards",
        "bug-straight-repeats",
    ];
    let alone: BTreeSet<&str> = found
        .iter()
        .filter(|(_, _, names, alternatives)| names.len() == 1 && !alternatives)
        .map(|(_, _, names, _)| names[0].as_str())
        .collect();
    assert_eq!(alone, BTreeSet::from(mistakes), "{found:#?}");
    // Where two mistakes answer alike on every input, one of them is the student's.
    for (test, check, names, alternatives) in &found {
        assert!(
            names.len() == 1 || *alternatives,
            "two made together: {test} {check} {names:?}"
        );
        assert!(
            names.iter().any(|name| mistakes.contains(&name.as_str())),
            "{test} {check} {names:?}"
        );
    }
    let has_pair = found
        .iter()
        .find(|(test, check, _, _)| {
            test == "plaisante_hand::10_000_hands_from_a_seed" && check == "has_pair()"
        })
        .expect("the random hands' has_pair is diagnosed");
    assert_eq!(has_pair.2, ["bug-pair-at-least-two"]);
}

/// The reference, and a crate written unlike it (tests/fixtures/plaisante-by-runs): every
/// test of its code passes, and nothing is named.
#[test]
fn a_correct_crate_is_never_diagnosed() {
    for correct in ["reference", "tests/fixtures/plaisante-by-runs"] {
        let results = results(&repo().join(correct), "--staff-view");
        let failed: Vec<&serde_json::Value> = results["tests"]
            .as_array()
            .unwrap()
            .iter()
            // A crate with no tests of its own fails those about them, not about its code.
            .filter(|test| test["status"] != "passed" && test["group"] != "your tests")
            .collect();
        assert!(failed.is_empty(), "{correct}: {failed:#?}");
        assert!(diagnoses(&results).is_empty(), "{correct}");
    }
}

/// In the student's view a hidden group's diagnosis is withheld unless its spec says
/// `diagnose: everyone`, and then it names the mistake without an input or an answer.
#[test]
fn a_hidden_groups_diagnosis_is_for_staff_unless_the_spec_lets_students_see_it() {
    let example = repo().join("tests/fixtures/example-student");
    let hidden = "plaisante_hand::every_hand";
    let student = results(&example, "--student-view");
    // A student's view names the group's test by its place among the hidden tests.
    let withheld = "plaisante_hand::hidden_1";
    assert!(
        student["tests"]
            .as_array()
            .unwrap()
            .iter()
            .any(|test| test["name"] == withheld),
        "{student:#}"
    );
    assert!(
        !diagnoses(&student)
            .iter()
            .any(|(test, ..)| test == withheld),
        "{student:#}"
    );
    let staff = results(&example, "--staff-view");
    assert!(
        diagnoses(&staff).iter().any(|(test, ..)| test == hidden),
        "{staff:#}"
    );
}

/// `has_pair` as a student might write it, unlike the library's edit of the reference:
/// sorted values, any two neighbours alike. `extra` is what else makes it true.
fn has_pair_by_neighbours(name: &'static str, extra: &str) -> std::path::PathBuf {
    support::Mutant::new(
        name,
        "has_pair by sorted neighbours.",
        &[(
            reference::plaisante_hand::bugs::HAS_PAIR,
            &format!(
                "fn has_pair(&self) -> bool {{\n        let mut values: Vec<u8> = self.cards.iter().map(|card| card.value()).collect();\n        values.sort_unstable();\n        let neighbours = values.windows(2).filter(|two| two[0] == two[1]).count();\n        neighbours >= 1{extra}"
            ),
        )],
    )
    .write()
}

/// The has_pair() diagnosis of the random hands, if any: the mistakes it names.
fn has_pair_diagnosis(results: &serde_json::Value) -> Option<Vec<String>> {
    diagnoses(results)
        .into_iter()
        .find(|(test, check, ..)| {
            test == "plaisante_hand::10_000_hands_from_a_seed" && check == "has_pair()"
        })
        .map(|(_, _, names, _)| names)
}

#[test]
fn a_mistake_written_independently_is_named_where_it_behaves_like_a_known_one_and_not_elsewhere() {
    // Any two alike: a pair, three or four of a kind, as `count >= 2` is.
    let alike = results(
        &has_pair_by_neighbours("independent-pair-at-least-two", ""),
        "--staff-view",
    );
    assert_eq!(
        has_pair_diagnosis(&alike).as_deref(),
        Some(&["bug-pair-at-least-two".to_string()][..]),
        "{alike:#}"
    );
    // Two alike but not three, or four (which hold three neighbours alike): like no bug.
    let unlike = results(
        &has_pair_by_neighbours("independent-pair-or-four", " && neighbours != 2"),
        "--staff-view",
    );
    assert_eq!(unlike["outcome"], "failed", "{unlike:#}");
    assert_eq!(has_pair_diagnosis(&unlike), None, "{unlike:#}");
}

/// A class's report names the known mistakes it makes, most common first, in the page and
/// in `diagnosis.csv`; and lists together two submissions with the same wrong answers that
/// no known mistake explains, but not one whose wrong answers are its own.
#[test]
fn a_batch_lists_the_class_mistakes_and_pairs_the_same_unexplained_answers_alone() {
    let class = scratch().join("diagnosis-class");
    let _ = std::fs::remove_dir_all(&class);
    let example = repo().join("tests/fixtures/example-student");
    let unexplained = has_pair_by_neighbours("independent-pair-or-four", " && neighbours != 2");
    let own = has_pair_by_neighbours("independent-pair-exactly-one", " && neighbours == 1");
    for (name, from) in [
        ("ann", &example),
        ("bob", &example),
        ("cy", &unexplained),
        ("dee", &unexplained),
        ("eve", &own),
    ] {
        support::copy_tree(from, &class.join(name));
    }
    let out = scratch().join("diagnosis-class-results");
    let _ = std::fs::remove_dir_all(&out);
    let run = grader(
        &[
            "batch",
            class.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--jobs",
            "2",
            "--",
            "--assignment",
            "plaisante_hand",
        ],
        store(),
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );

    let csv = std::fs::read_to_string(out.join("diagnosis.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert!(
        rows[0].starts_with("assignment,group,check,known mistake"),
        "{csv}"
    );
    for mistake in [
        "bug-pair-at-least-two",
        "bug-flush-four-cards",
        "bug-straight-repeats",
    ] {
        assert!(
            rows.iter()
                .any(|row| row.contains(&format!(",{mistake},")) && row.ends_with(",2,ann; bob")),
            "{mistake} is not made by ann and bob alone:\n{csv}"
        );
    }
    // Their has_pair() is like no bug's; what it spoils beyond (evaluate(), say) may be.
    for unexplained in ["cy", "dee"] {
        assert!(!csv.contains(unexplained), "{csv}");
    }

    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    let shared = &page[page
        .find("id=\"shared-answers\"")
        .expect("a shared section")..];
    let shared = &shared[..shared.find("</table>").unwrap()];
    assert!(
        shared.contains("<code>cy</code>, <code>dee</code>"),
        "{shared}"
    );
    for alone in ["ann", "bob", "eve"] {
        assert!(
            !shared.contains(&format!("<code>{alone}</code>")),
            "{shared}"
        );
    }
}

/// The Gradescope package carries the known mistakes the audit kept, and they alone,
/// offline, diagnose a submission as the store they came from does.
#[test]
fn a_package_carries_the_known_mistakes_and_diagnoses_with_them_alone() {
    let dir = scratch().join("diagnosis-package");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let zip = dir.join("autograder.zip");
    let made = grader(
        &[
            "gradescope",
            "package",
            "--assignment",
            "plaisante_hand",
            "--out",
            zip.to_str().unwrap(),
        ],
        store(),
    );
    let said = String::from_utf8_lossy(&made.stdout);
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    assert!(said.contains("known mistakes for every test"), "{said}");
    let unzipped = Command::new("unzip")
        .args(["-q", zip.to_str().unwrap(), "answers/*", "-d"])
        .arg(dir.join("source"))
        .status()
        .unwrap();
    assert!(unzipped.success());
    let example = repo().join("tests/fixtures/example-student");
    let args = [
        "check",
        example.to_str().unwrap(),
        "--assignment",
        "plaisante_hand",
        "--staff-view",
        "--format",
        "json",
    ];
    let run = grader(&args, &dir.join("source/answers"));
    let packaged: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let found = diagnoses(&packaged);
    assert!(!found.is_empty(), "{packaged:#}");
    assert_eq!(found, diagnoses(&results(&example, "--staff-view")));
}

/// Every format tells the known mistake: the reports, the machine formats, the platforms'.
#[test]
fn every_format_names_the_known_mistake() {
    let example = repo().join("tests/fixtures/example-student");
    for format in ["pretty", "terse", "json", "github", "junit", "gradescope"] {
        let args = [
            "check",
            example.to_str().unwrap(),
            "--assignment",
            "plaisante_hand",
            "--staff-view",
            "--color",
            "never",
            "--format",
            format,
            "plaisante_hand::has_pair",
        ];
        let run = grader(&args, store());
        let out = String::from_utf8_lossy(&run.stdout);
        assert!(
            out.contains("bug-pair-at-least-two") && out.contains("has_pair as count"),
            "--format {format}:\n{out}"
        );
    }
}

/// A hidden group whose spec says `diagnose: everyone` names the mistake in the student's
/// view, and nothing of its inputs or answers.
#[test]
fn a_hidden_group_may_name_its_known_mistake_to_a_student_and_no_input() {
    let dir = scratch().join("diagnosis-everyone");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = std::fs::read_to_string(repo().join("specs/plaisante_hand.yaml")).unwrap();
    let everyone = spec.replace(
        "    visibility: after_due_date\n",
        "    visibility: after_due_date\n    diagnose: everyone\n",
    );
    assert_ne!(everyone, spec, "the spec has an after_due_date group");
    std::fs::write(dir.join("plaisante_hand.yaml"), everyone).unwrap();
    let example = repo().join("tests/fixtures/example-student");
    let args = [
        "check",
        example.to_str().unwrap(),
        "--spec",
        dir.to_str().unwrap(),
        "--student-view",
        "--format",
        "json",
    ];
    let run = grader(&args, store());
    let student: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let withheld = student["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|test| test["name"] == "plaisante_hand::hidden_1")
        .unwrap_or_else(|| panic!("{student:#}"));
    let named: Vec<&str> = withheld["diagnosis"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|d| d["mistakes"].as_array().unwrap())
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert!(named.contains(&"bug-pair-at-least-two"), "{withheld:#}");
    let fields: Vec<&str> = withheld["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    for shown in ["hand", "expected", "actual", "diff"] {
        assert!(!fields.contains(&shown), "{shown} shown: {withheld:#}");
    }
}
