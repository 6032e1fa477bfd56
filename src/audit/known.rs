//! What the audit finds for diagnosis: each library bug's wrong answers to each test it
//! fails, kept in the answers store for gradings to name, and whether each bug, made
//! alone, would be named by its own name alone.

use std::collections::BTreeMap;
use std::sync::Arc;

use reference::bugs::{Bug, Library};

use crate::answers::Store;
use crate::diagnosis::{self, KnownMistake, WrongAnswers, diagnose_group};
use crate::spec::{Group, Suite, TestCase};

/// A bug's wrong answers to each test it failed, by the test's place in the suite.
pub type Wrongs = Vec<(usize, Arc<WrongAnswers>)>;

/// Keeps, for each test of `suite`, the wrong answers of each of `bugs` that fails it
/// (`wrongs`, in the order of `bugs`); returns for each bug where a student making that
/// mistake alone would not be named with it alone, in words: nothing where they would be.
pub fn keep(
    suite: &Suite,
    bugs: &[(&Library, Bug)],
    wrongs: &[Wrongs],
    store: &Store,
) -> Vec<Vec<String>> {
    let tests: Vec<&TestCase> = suite.tests().map(|(_, test)| test).collect();
    let mut by_test: BTreeMap<usize, Vec<KnownMistake>> = BTreeMap::new();
    for ((_, bug), wrong) in bugs.iter().zip(wrongs) {
        for (index, answers) in wrong {
            by_test.entry(*index).or_default().push(KnownMistake {
                name: bug.name.to_string(),
                description: bug.description.to_string(),
                wrong: WrongAnswers::clone(answers),
            });
        }
    }
    // Every test's, none wrong too: a grading names nothing where one of a group's is missing.
    for (index, test) in tests.iter().enumerate() {
        let known = by_test.get(&index).map(Vec::as_slice).unwrap_or_default();
        if let Err(error) = diagnosis::keep(store, &*test.request, known) {
            eprintln!(
                "warning: the known mistakes of {} could not be kept: {error}",
                test.id
            );
        }
    }
    let kept: Vec<Vec<KnownMistake>> = (0..tests.len())
        .map(|index| by_test.get(&index).cloned().unwrap_or_default())
        .collect();
    let mut first = 0;
    let groups: Vec<(&Group, std::ops::Range<usize>)> = suite
        .groups
        .iter()
        .map(|group| {
            first += group.tests.len();
            (group, first - group.tests.len()..first)
        })
        .collect();
    bugs.iter()
        .zip(wrongs)
        .map(|((_, bug), wrong)| {
            let of = |index: usize| wrong.iter().find(|(i, _)| *i == index).map(|(_, w)| &**w);
            groups
                .iter()
                .filter(|(_, tests)| tests.clone().any(|index| of(index).is_some()))
                .flat_map(|(group, tests)| {
                    let graded: Vec<_> = tests.clone().map(|i| (of(i), kept[i].clone())).collect();
                    unnamed(&bug.name, group, &graded)
                })
                .collect()
        })
        .collect()
}

/// Where a submission that makes the bug `name` alone, and so answers `group`'s tests
/// as `graded` says, is not named with `name` alone, check by check, in words.
fn unnamed(
    name: &str,
    group: &Group,
    graded: &[(Option<&WrongAnswers>, Vec<KnownMistake>)],
) -> Vec<String> {
    if graded
        .iter()
        .any(|(wrong, _)| wrong.is_some_and(WrongAnswers::is_unknown))
    {
        return vec![format!(
            "{}: not diagnosed, as it did not answer every input",
            group.id
        )];
    }
    let found = diagnose_group(graded);
    let mut checks: Vec<&str> = graded
        .iter()
        .filter_map(|(wrong, _)| *wrong)
        .flat_map(WrongAnswers::checks)
        .collect();
    checks.sort_unstable();
    checks.dedup();
    checks
        .into_iter()
        .filter_map(|check| {
            let names: Vec<&str> = found
                .iter()
                .find(|d| d.check == check)
                .map(|d| d.mistakes.iter().map(|(n, _)| n.as_str()).collect())
                .unwrap_or_default();
            match names[..] {
                [only] if only == name => None,
                [] => Some(format!("{} {check}: not diagnosed", group.id)),
                // Never expected: another's name where its own answers are in the library.
                _ if !names.contains(&name) => Some(format!(
                    "{} {check}: named as {}, not as itself",
                    group.id,
                    names.join(" and ")
                )),
                _ => Some(format!(
                    "{} {check}: indistinguishable from {}",
                    group.id,
                    names
                        .iter()
                        .filter(|other| **other != name)
                        .copied()
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            }
        })
        .collect()
}
