//! The rounds in which a group's student tests run: each test's runs on the reference
//! first, and on a bug only where the oracle found the bug answers the test's messages
//! otherwise than the reference did.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use grader_api::oracle::Record;
use grader_api::transcript::Report;

use super::oracle::{Implementation, Oracle};
use super::run::{Due, Next, Outcome, Reported, Run, Target};

/// The runs of a grading, in up to three rounds:
///
/// 1. every test on the reference, the oracle keeping its messages and replaying them on
///    each bug, and every test on the student's own code;
/// 2. each test that passed, on the reference again and on each bug that did not answer
///    its messages as the reference did (one that did would have been asked the same and
///    passed the same);
/// 3. each test whose two runs on the reference said different things (it asks
///    differently from run to run), on the bugs skipped in round 2, and on the reference
///    once more.
///
/// A test's runs of a round are due together once its run of the round before has come
/// out, shuffled among themselves, and wait for no other test's. Round 2 and 3 each hold a
/// run on the reference among the bugs': a test that told the rounds apart (by the clock,
/// say) and failed in a later one fails there on the reference too, and is left out as
/// any test failing on it. Within a round, every run on an implementation is handed to the
/// oracle alike (recorded or not), so that none is answered a fork later than the others.
pub struct Rounds {
    rounds: Vec<HashMap<Run, Reported>>,
}

/// How many rounds a grading has at most.
const ROUNDS: usize = 3;

impl Rounds {
    /// The rounds of `tests` (by their paths in the harness, on the implementations) and
    /// `yours` (on the student's code) on the reference and `bugs` bugs: `execute` runs the
    /// first round's runs and each that the runs before make due, and returns how each
    /// came out.
    pub fn run(
        execute: impl FnOnce(Vec<Due>, &Next) -> Vec<(Due, Reported)>,
        tests: &[String],
        yours: &[String],
        bugs: usize,
    ) -> Rounds {
        let reference = Target::Implementation(Implementation::Reference);
        let bug = |n| Target::Implementation(Implementation::Bug(n));
        let first: Vec<Due> = tests
            .iter()
            .map(|test| (0, (test.clone(), reference), Record::Replays))
            .chain(
                yours
                    .iter()
                    .map(|test| (0, (test.clone(), Target::Yours), Record::Nothing)),
            )
            .collect();
        // Each test's report of its first run on the reference, once it has come out.
        let first_reports: Mutex<HashMap<String, Option<Report>>> = Mutex::new(HashMap::new());
        let next = |(round, (test, target), _): &Due, (outcome, report): &Reported| {
            if *target != reference || *outcome != Outcome::Passed {
                return Vec::new();
            }
            let mut first_reports = first_reports.lock().unwrap_or_else(PoisonError::into_inner);
            match round {
                0 => {
                    first_reports.insert(test.clone(), report.clone());
                    // Recorded as the run on the reference is, though only its fingerprint
                    // is read: the oracle forks for a recording before it answers, and a
                    // run whose first answer came a fork later would be the reference's.
                    std::iter::once(reference)
                        .chain(
                            (0..bugs)
                                .filter(|&n| {
                                    !Oracle::alike(report.as_ref(), Implementation::Bug(n))
                                })
                                .map(bug),
                        )
                        .map(|target| (1, (test.clone(), target), Record::Fingerprint))
                        .collect()
                }
                1 => {
                    let first = first_reports.get(test).cloned().flatten();
                    let fingerprint =
                        |report: Option<&Report>| report.map(|report| report.fingerprint);
                    let skipped: Vec<usize> = (0..bugs)
                        .filter(|&n| Oracle::alike(first.as_ref(), Implementation::Bug(n)))
                        .collect();
                    if skipped.is_empty()
                        || fingerprint(first.as_ref()) == fingerprint(report.as_ref())
                    {
                        return Vec::new();
                    }
                    std::iter::once(reference)
                        .chain(skipped.into_iter().map(bug))
                        .map(|target| (2, (test.clone(), target), Record::Nothing))
                        .collect()
                }
                _ => Vec::new(),
            }
        };
        let mut rounds = Rounds {
            rounds: vec![HashMap::new(); ROUNDS],
        };
        for ((round, run, _), reported) in execute(first, &next) {
            if let Some(outcomes) = rounds.rounds.get_mut(round) {
                outcomes.insert(run, reported);
            }
        }
        rounds
    }

    /// How `test` came out on the student's own code.
    pub fn on_yours(&self, test: &str) -> Outcome {
        self.outcome(0, &(test.to_string(), Target::Yours))
    }

    /// How `run` came out in round `round`: not run when it was not in it.
    fn outcome(&self, round: usize, run: &Run) -> Outcome {
        self.rounds
            .get(round)
            .and_then(|outcomes| outcomes.get(run))
            .map_or(Outcome::NotRun, |(outcome, _)| outcome.clone())
    }

    /// How `test` came out on the reference: passed only when every run of it there did.
    pub fn on_the_reference(&self, test: &str) -> Outcome {
        let run = (
            test.to_string(),
            Target::Implementation(Implementation::Reference),
        );
        let first = self.outcome(0, &run);
        if first != Outcome::Passed {
            return first;
        }
        for round in &self.rounds[1..] {
            match round.get(&run) {
                Some((Outcome::Passed, _)) | None => {}
                Some((outcome, _)) => return outcome.clone(),
            }
        }
        match self
            .rounds
            .get(1)
            .is_some_and(|round| round.contains_key(&run))
        {
            true => Outcome::Passed,
            false => Outcome::NotRun,
        }
    }

    /// How `test` came out on bug `n`: passed when it was not run because the bug answered
    /// its messages as the reference did.
    pub fn on_bug(&self, test: &str, n: usize) -> Outcome {
        let run = (
            test.to_string(),
            Target::Implementation(Implementation::Bug(n)),
        );
        self.rounds[1..]
            .iter()
            .rev()
            .find_map(|round| round.get(&run))
            .map_or(Outcome::Passed, |(outcome, _)| outcome.clone())
    }

    /// How many runs were due but not started before the group's time ran out.
    pub fn not_run(&self) -> usize {
        self.rounds
            .iter()
            .flat_map(HashMap::values)
            .filter(|(outcome, _)| *outcome == Outcome::NotRun)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEST: &str = "under_test::tests::a";

    fn reference() -> Target {
        Target::Implementation(Implementation::Reference)
    }

    fn bug(n: usize) -> Target {
        Target::Implementation(Implementation::Bug(n))
    }

    /// The rounds of one test on two bugs, each run answered by `answer(round, target)`
    /// in the order they became due; and what each round ran.
    fn rounds_of(
        answer: impl Fn(usize, Target) -> Reported,
    ) -> (Rounds, Vec<Vec<(Target, Record)>>) {
        let mut ran = vec![Vec::new(); ROUNDS];
        let rounds = Rounds::run(
            |first: Vec<Due>, next: &Next| {
                let mut due = std::collections::VecDeque::from(first);
                let mut outcomes = Vec::new();
                while let Some(run) = due.pop_front() {
                    let (round, (_, target), record) = &run;
                    ran[*round].push((*target, *record));
                    let reported = answer(*round, *target);
                    due.extend(next(&run, &reported));
                    outcomes.push((run, reported));
                }
                outcomes
            },
            &[TEST.to_string()],
            &[],
            2,
        );
        (rounds, ran)
    }

    fn report(fingerprint: u64, alike: &[bool]) -> Option<Report> {
        Some(Report {
            fingerprint,
            alike: alike.to_vec(),
        })
    }

    fn failed() -> Outcome {
        Outcome::Failed("it failed".into())
    }

    #[test]
    fn a_bug_that_answered_as_the_reference_did_is_not_run_and_not_caught() {
        let (rounds, ran) = rounds_of(|_, target| match target {
            t if t == reference() => (Outcome::Passed, report(7, &[true, true, false])),
            _ => (failed(), None),
        });
        assert_eq!(ran[0], vec![(reference(), Record::Replays)]);
        assert_eq!(
            ran[1],
            vec![
                (reference(), Record::Fingerprint),
                (bug(1), Record::Fingerprint)
            ]
        );
        assert!(ran[2].is_empty());
        assert_eq!(rounds.on_the_reference(TEST), Outcome::Passed);
        assert_eq!(rounds.on_bug(TEST, 0), Outcome::Passed);
        assert_eq!(rounds.on_bug(TEST, 1), failed());
    }

    #[test]
    fn a_test_that_fails_in_a_later_round_fails_on_the_reference_there_too() {
        let (rounds, _) = rounds_of(|round, _| match round {
            0 => (Outcome::Passed, report(7, &[true, false, false])),
            _ => (failed(), report(7, &[])),
        });
        assert_eq!(rounds.on_the_reference(TEST), failed());
    }

    #[test]
    fn a_test_that_asked_otherwise_on_its_second_run_runs_on_the_bugs_skipped() {
        let (rounds, ran) = rounds_of(|round, target| match (round, target) {
            (0, _) => (Outcome::Passed, report(7, &[true, true, false])),
            (1, t) if t == reference() => (Outcome::Passed, report(8, &[])),
            (_, t) if t == bug(0) => (failed(), None),
            _ => (Outcome::Passed, None),
        });
        assert_eq!(
            ran[2],
            vec![(reference(), Record::Nothing), (bug(0), Record::Nothing)]
        );
        assert_eq!(rounds.on_the_reference(TEST), Outcome::Passed);
        assert_eq!(rounds.on_bug(TEST, 0), failed());
    }

    #[test]
    fn every_run_on_an_implementation_in_a_round_is_handed_to_the_oracle_alike() {
        let (_, ran) = rounds_of(|round, target| match (round, target) {
            (0, _) => (Outcome::Passed, report(7, &[true, true, false])),
            (1, t) if t == reference() => (Outcome::Passed, report(8, &[])),
            _ => (Outcome::Passed, None),
        });
        assert_eq!(ran.len(), 3);
        for round in &ran {
            let records: Vec<Record> = round.iter().map(|(_, record)| *record).collect();
            assert!(
                records.windows(2).all(|pair| pair[0] == pair[1]),
                "{round:?}"
            );
        }
        assert!(ran[1].len() > 1 && ran[2].len() > 1, "{ran:?}");
    }

    #[test]
    fn without_a_report_every_bug_runs() {
        let (_, ran) = rounds_of(|_, _| (Outcome::Passed, None));
        assert_eq!(
            ran[1],
            vec![
                (reference(), Record::Fingerprint),
                (bug(0), Record::Fingerprint),
                (bug(1), Record::Fingerprint)
            ]
        );
        assert!(ran[2].is_empty());
    }

    #[test]
    fn a_test_that_fails_on_the_reference_runs_on_no_bug() {
        let (rounds, ran) = rounds_of(|_, _| (failed(), report(7, &[true, false, false])));
        assert!(ran[1].is_empty() && ran[2].is_empty());
        assert_eq!(rounds.on_the_reference(TEST), failed());
        assert_eq!(rounds.not_run(), 0);
    }

    #[test]
    fn a_control_run_the_budget_stopped_leaves_the_test_not_run() {
        let (rounds, _) = rounds_of(|round, _| match round {
            0 => (Outcome::Passed, report(7, &[true, false, false])),
            _ => (Outcome::NotRun, None),
        });
        assert_eq!(rounds.on_the_reference(TEST), Outcome::NotRun);
        assert_eq!(rounds.not_run(), 3);
    }
}
