//! What a class's wrong answers say beyond scores, for staff: the known mistakes it makes,
//! group by group and check by check, largest first (for the next lecture), and the wrong
//! answers that several submissions share and no known mistake explains (for staff to
//! look at, never a verdict). Read from each submission's results: its tests' `diagnosis`
//! and `unexplained`, which only the staff's view has.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::folder::{DIAGNOSIS, write_atomically};
use crate::student_text::StudentText;

/// One submission's results: its name and our JSON. Here, where the class's mistakes are
/// read from them, rather than in the class report, which lists these mistakes too and so
/// sits above this file.
pub struct Graded<'a> {
    pub name: &'a StudentText,
    pub results: &'a serde_json::Value,
}

/// A known mistake (or two made together, or alternatives alike on the group's inputs)
/// and the submissions whose wrong answers to one check of one group it explains.
#[derive(Debug, PartialEq)]
pub struct Misconception<'a> {
    pub assignment: &'a str,
    pub group: &'a str,
    pub check: &'a str,
    /// Each mistake's name and description.
    pub mistakes: Vec<(&'a str, &'a str)>,
    pub together: bool,
    pub submissions: Vec<&'a StudentText>,
}

impl Misconception<'_> {
    /// The mistakes' names, as one cell says them.
    pub fn names(&self) -> String {
        let names: Vec<&str> = self.mistakes.iter().map(|(name, _)| *name).collect();
        names.join(if self.together { " + " } else { " or " })
    }

    pub fn descriptions(&self) -> String {
        let descriptions: Vec<&str> = self.mistakes.iter().map(|(_, text)| *text).collect();
        descriptions.join(if self.together { " And: " } else { " Or: " })
    }
}

/// The class's known mistakes, the most common first.
pub fn misconceptions<'a>(class: &[Graded<'a>]) -> Vec<Misconception<'a>> {
    let mut found: Vec<Misconception<'a>> = Vec::new();
    for graded in class {
        for test in graded.results["tests"].as_array().into_iter().flatten() {
            for diagnosis in test["diagnosis"].as_array().into_iter().flatten() {
                let mistakes: Vec<(&str, &str)> = diagnosis["mistakes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|m| {
                        (
                            m["name"].as_str().unwrap_or(""),
                            m["description"].as_str().unwrap_or(""),
                        )
                    })
                    .collect();
                let seen = Misconception {
                    assignment: test["assignment"].as_str().unwrap_or(""),
                    group: test["group"].as_str().unwrap_or(""),
                    check: diagnosis["check"].as_str().unwrap_or(""),
                    mistakes,
                    together: diagnosis["together"].as_bool().unwrap_or(false),
                    submissions: vec![graded.name],
                };
                let same = found.iter_mut().find(|known| {
                    (known.assignment, known.group, known.check, &known.mistakes)
                        == (seen.assignment, seen.group, seen.check, &seen.mistakes)
                        && known.together == seen.together
                });
                match same {
                    // A group's diagnosis is on each of its failing tests: a submission once.
                    Some(known) if !known.submissions.contains(&graded.name) => {
                        known.submissions.push(graded.name)
                    }
                    Some(_) => {}
                    None => found.push(seen),
                }
            }
        }
    }
    found.sort_by(|a, b| {
        b.submissions
            .len()
            .cmp(&a.submissions.len())
            .then((a.assignment, a.group, a.check).cmp(&(b.assignment, b.group, b.check)))
    });
    found
}

/// Submissions whose wrong answers to one check are the same on every input of every test
/// of the groups in which no known mistake was found.
#[derive(Debug, PartialEq)]
pub struct SharedAnswers<'a> {
    pub assignment: &'a str,
    pub check: &'a str,
    /// The tests they got the check wrong on.
    pub tests: Vec<&'a str>,
    /// How many inputs they answered wrongly, alike.
    pub wrong: u64,
    pub submissions: Vec<&'a StudentText>,
}

/// An assignment and one of its checks.
type Check<'a> = (&'a str, &'a str);
/// Wrong answers to a check: each test's name, fingerprint and count of inputs wrong.
type Fingerprints<'a> = Vec<(&'a str, &'a str, u64)>;

/// Wrong answers two or more submissions share, the most inputs first.
pub fn shared_answers<'a>(class: &[Graded<'a>]) -> Vec<SharedAnswers<'a>> {
    let mut alike: BTreeMap<(Check, Fingerprints), Vec<&StudentText>> = BTreeMap::new();
    for graded in class {
        let mut answered: BTreeMap<Check, Fingerprints> = BTreeMap::new();
        for test in graded.results["tests"].as_array().into_iter().flatten() {
            for found in test["unexplained"].as_array().into_iter().flatten() {
                let (Some(check), Some(fingerprint), Some(wrong)) = (
                    found["check"].as_str(),
                    found["fingerprint"].as_str(),
                    found["wrong"].as_u64(),
                ) else {
                    continue;
                };
                let assignment = test["assignment"].as_str().unwrap_or("");
                let name = test["name"].as_str().unwrap_or("");
                answered
                    .entry((assignment, check))
                    .or_default()
                    .push((name, fingerprint, wrong));
            }
        }
        for (check, mut tests) in answered {
            tests.sort_unstable();
            alike.entry((check, tests)).or_default().push(graded.name);
        }
    }
    let mut shared: Vec<SharedAnswers> = alike
        .into_iter()
        .filter(|(_, submissions)| submissions.len() > 1)
        .map(
            |(((assignment, check), tests), submissions)| SharedAnswers {
                assignment,
                check,
                wrong: tests.iter().map(|(_, _, wrong)| wrong).sum(),
                tests: tests.into_iter().map(|(name, ..)| name).collect(),
                submissions,
            },
        )
        .collect();
    shared.sort_by(|a, b| b.wrong.cmp(&a.wrong).then(a.check.cmp(b.check)));
    shared
}

/// Writes `diagnosis.csv`: a row per known mistake the class makes, group and check, with
/// how many submissions make it and which, the most common first. Returns its path.
pub fn write_csv(out: &Path, class: &[Graded]) -> Result<PathBuf, String> {
    let cannot = |e: csv::Error| format!("cannot write {DIAGNOSIS}: {e}");
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record([
        "assignment",
        "group",
        "check",
        "known mistake",
        "description",
        "submissions",
        "who",
    ])
    .map_err(cannot)?;
    for found in misconceptions(class) {
        let who = StudentText::joined(found.submissions.iter().copied(), "; ");
        csv.write_record([
            StudentText::from(found.assignment).in_csv_cell().as_ref(),
            StudentText::from(found.group).in_csv_cell().as_ref(),
            StudentText::from(found.check).in_csv_cell().as_ref(),
            StudentText::from(found.names()).in_csv_cell().as_ref(),
            StudentText::from(found.descriptions())
                .in_csv_cell()
                .as_ref(),
            &found.submissions.len().to_string(),
            who.in_csv_cell().as_ref(),
        ])
        .map_err(cannot)?;
    }
    let bytes = csv
        .into_inner()
        .map_err(|e| format!("cannot write {DIAGNOSIS}: {e}"))?;
    // Every cell was a `str`, so the CSV is UTF-8.
    write_atomically(out, DIAGNOSIS, &String::from_utf8_lossy(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn diagnosed(mistake: &str) -> serde_json::Value {
        json!({ "name": "a::g::t1", "assignment": "a", "group": "g", "diagnosis": [
            { "check": "has_pair()", "together": false, "explained": 3,
              "mistakes": [{ "name": mistake, "description": "Counts badly." }] } ] })
    }

    fn class_of<'a>(
        names: &'a [StudentText; 3],
        results: [&'a serde_json::Value; 3],
    ) -> [Graded<'a>; 3] {
        let mut names = names.iter();
        results.map(|results| Graded {
            name: names.next().expect("a name for each"),
            results,
        })
    }

    fn unexplained(test: &str, fingerprint: &str) -> serde_json::Value {
        json!({ "name": test, "assignment": "a", "group": "g", "unexplained": [
            { "check": "score()", "wrong": 12, "fingerprint": fingerprint } ] })
    }

    #[test]
    fn the_class_mistakes_are_counted_once_a_submission_and_the_most_common_come_first() {
        let (ann, bob, cy) = (
            json!({ "tests": [diagnosed("bug-rare")] }),
            // A group's diagnosis is on each of its failing tests: counted once.
            json!({ "tests": [diagnosed("bug-common"), diagnosed("bug-common")] }),
            json!({ "tests": [diagnosed("bug-common")] }),
        );
        let names = ["ann", "bob", "cy"].map(StudentText::from);
        let class = class_of(&names, [&ann, &bob, &cy]);
        let found = misconceptions(&class);
        let rows: Vec<(String, Vec<&StudentText>)> = found
            .iter()
            .map(|m| (m.names(), m.submissions.clone()))
            .collect();
        assert_eq!(
            rows,
            [
                ("bug-common".to_string(), vec![&names[1], &names[2]]),
                ("bug-rare".to_string(), vec![&names[0]])
            ]
        );
    }

    #[test]
    fn submissions_with_the_same_unexplained_wrong_answers_on_every_test_are_listed_together() {
        let (ann, bob, cy) = (
            json!({ "tests": [unexplained("a::g::t1", "00aa"), unexplained("a::g::t2", "00cc")] }),
            json!({ "tests": [unexplained("a::g::t2", "00cc"), unexplained("a::g::t1", "00aa")] }),
            // The same answers to one test, and others to another: alike on one only.
            json!({ "tests": [unexplained("a::g::t1", "00aa"), unexplained("a::g::t2", "00bb")] }),
        );
        let names = ["ann", "bob", "cy"].map(StudentText::from);
        let class = class_of(&names, [&ann, &bob, &cy]);
        assert_eq!(
            shared_answers(&class),
            [SharedAnswers {
                assignment: "a",
                check: "score()",
                tests: vec!["a::g::t1", "a::g::t2"],
                wrong: 24,
                submissions: vec![&names[0], &names[1]],
            }]
        );
    }
}
