//! The rounds in which a group's student tests run: each test's runs on the reference
//! first, and on a bug only where the oracle found the bug answers the test's messages
//! otherwise than the reference did.

use std::collections::HashMap;

use grader_api::oracle::Record;
use grader_api::transcript::Report;

use super::oracle::{Implementation, Oracle};
use super::run::{Outcome, Reported, Run, Target};

/// The runs of a grading, in up to three rounds, each shuffled on its own:
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
/// Round 2 and 3 each hold a run on the reference, shuffled among the bugs': a test that
/// told the rounds apart (by the clock, say) and failed in a later one fails there on the
/// reference too, and is left out as any test failing on it. Within a round, every run on
/// an implementation is handed to the oracle alike (recorded or not), so that none is
/// answered a fork later than the others.
pub struct Rounds {
    rounds: Vec<HashMap<Run, Reported>>,
}

impl Rounds {
    /// The rounds of `tests` (by their paths in the harness, on the implementations) and
    /// `yours` (on the student's code) on the reference and `bugs` bugs, each round run by
    /// `outcomes`.
    pub fn run(
        mut outcomes: impl FnMut(Vec<(Run, Record)>) -> HashMap<Run, Reported>,
        tests: &[String],
        yours: &[String],
        bugs: usize,
    ) -> Rounds {
        let reference = Target::Implementation(Implementation::Reference);
        let bug = |n| Target::Implementation(Implementation::Bug(n));
        let first: Vec<(Run, Record)> = tests
            .iter()
            .map(|test| ((test.clone(), reference), Record::Replays))
            .chain(
                yours
                    .iter()
                    .map(|test| ((test.clone(), Target::Yours), Record::Nothing)),
            )
            .collect();
        let mut rounds = Rounds {
            rounds: vec![outcomes(first)],
        };
        let passed: Vec<String> = tests
            .iter()
            .filter(|test| rounds.outcome(0, &((*test).clone(), reference)) == Outcome::Passed)
            .cloned()
            .collect();
        let first_report = |rounds: &Rounds, test: &String| {
            rounds.rounds[0]
                .get(&(test.clone(), reference))
                .and_then(|(_, report)| report.clone())
        };
        let mut second = Vec::new();
        for test in &passed {
            let report = first_report(&rounds, test);
            second.push(((test.clone(), reference), Record::Fingerprint));
            // Recorded as the run on the reference is, though only its fingerprint is read:
            // the oracle forks for a recording before it answers, and a run whose first
            // answer came a fork later would be the reference's.
            for n in 0..bugs {
                if !Oracle::alike(report.as_ref(), Implementation::Bug(n)) {
                    second.push(((test.clone(), bug(n)), Record::Fingerprint));
                }
            }
        }
        rounds.rounds.push(outcomes(second));
        let mut third = Vec::new();
        for test in &passed {
            let report = first_report(&rounds, test);
            let Some((Outcome::Passed, again)) = rounds.rounds[1].get(&(test.clone(), reference))
            else {
                continue;
            };
            let fingerprint = |report: Option<&Report>| report.map(|report| report.fingerprint);
            let skipped: Vec<usize> = (0..bugs)
                .filter(|&n| Oracle::alike(report.as_ref(), Implementation::Bug(n)))
                .collect();
            if skipped.is_empty() || fingerprint(report.as_ref()) == fingerprint(again.as_ref()) {
                continue;
            }
            third.push(((test.clone(), reference), Record::Nothing));
            third.extend(
                skipped
                    .into_iter()
                    .map(|n| ((test.clone(), bug(n)), Record::Nothing)),
            );
        }
        rounds.rounds.push(outcomes(third));
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

    /// The rounds of one test on two bugs, each run answered by `answer(round, target)`;
    /// and what each round ran.
    fn rounds_of(
        answer: impl Fn(usize, Target) -> Reported,
    ) -> (Rounds, Vec<Vec<(Target, Record)>>) {
        let mut ran = Vec::new();
        let rounds = Rounds::run(
            |round: Vec<(Run, Record)>| {
                let n = ran.len();
                ran.push(
                    round
                        .iter()
                        .map(|((_, target), record)| (*target, *record))
                        .collect(),
                );
                round
                    .into_iter()
                    .map(|(run, _)| {
                        let reported = answer(n, run.1);
                        (run, reported)
                    })
                    .collect()
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
