//! A check's results and their scores (in `Points`, its own file), the score table, and
//! what every machine format shares; each format in a file of its own: gradescope, json
//! (ours), junit, github.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use colored::Colorize;
use serde::Serialize;

use crate::policy::Applied;
use crate::spec::{Group, HIDDEN_GROUP, Suite, TestCase};
use crate::student_tests::suite;
use crate::student_text::{StudentText, in_file};
use crate::verdict::{Credit, Failure, Verdict};

mod github;
mod gradescope;
mod json;
mod junit;
mod points;
mod your_tests;

pub use points::Points;

/// The result of one test; `None` verdict when a filter left it out, or the submission's
/// time budget ran out before it ran (`out_of_time`).
#[derive(Debug, Clone, Default)]
pub struct TestResult {
    pub verdict: Option<Verdict>,
    /// How long the test took, runner start included.
    pub duration: Duration,
    /// Not run because the submission had used its time (`--submission-budget`).
    pub out_of_time: bool,
}

/// What a test not run for lack of time says, in every format.
pub const OUT_OF_TIME: &str = "not run: the submission used its time";

/// A bug the student's tests caught: the test that caught it, by the name reports show,
/// the first line of what it said, and the line staff read of it. Here, in the results
/// that hold it, beneath the students'-tests block (`your_tests.rs`) that tells it.
#[derive(Debug, Clone)]
pub struct Caught {
    pub by: StudentText,
    pub said: StudentText,
    pub note: StudentText,
}

/// Everything one `grader check` found, ready to print or serialize.
pub struct Results<'a> {
    pub suite: &'a Suite,
    /// One entry per test of the suite, group by group, in order.
    pub tests: Vec<TestResult>,
    /// The compiler's messages when the submission did not build, quoting its code.
    pub build_failure: Option<StudentText>,
    pub elapsed: Duration,
    /// Time spent building the runner (cargo and rustc), part of `elapsed`.
    pub build_time: Duration,
    /// Lines beyond pass and fail, such as each strategy's win rate, by the name the
    /// submission gave it.
    pub notes: Vec<StudentText>,
    /// The bugs the student's own tests caught, by the index of the bug's test.
    pub caught: BTreeMap<usize, Caught>,
    /// Runner processes started, and the time their starts took together (part of
    /// `elapsed`, on the test threads).
    pub runner_starts: (usize, Duration),
    /// The course's policy as applied: a late penalty, and what a student is told.
    pub policy: Applied,
}

impl<'a> Results<'a> {
    /// Results with every test of `suite` failed for `why`, so a class's maximum stays the
    /// same for a submission that could not be graded; `failure` says it in full.
    pub fn nothing_graded(
        suite: &'a Suite,
        why: &str,
        failure: StudentText,
        elapsed: Duration,
    ) -> Results<'a> {
        Results {
            suite,
            tests: suite
                .tests()
                .map(|_| TestResult {
                    verdict: Some(Verdict::Failed(Failure::line(why))),
                    duration: Duration::ZERO,
                    out_of_time: false,
                })
                .collect(),
            build_failure: Some(failure),
            elapsed,
            build_time: elapsed,
            notes: Vec::new(),
            caught: BTreeMap::new(),
            runner_starts: (0, Duration::ZERO),
            policy: Applied::default(),
        }
    }
}

impl Results<'_> {
    /// Each test with its group, its result and the points it is worth.
    fn per_test(&self) -> impl Iterator<Item = (&Group, &TestCase, &TestResult, Points)> {
        worths(self.suite)
            .zip(&self.tests)
            .map(|((group, test, worth), result)| (group, test, result, worth))
    }

    pub fn max_score(&self) -> Points {
        self.per_test().map(|(_, _, _, worth)| worth).sum()
    }

    /// The points the tests earned, less the policy's late penalty.
    pub fn score(&self) -> Points {
        let earned = self.earned();
        Points(earned.0 - self.penalty_of(earned).0)
    }

    /// The points the tests earned.
    fn earned(&self) -> Points {
        self.per_test()
            .map(|(_, _, result, worth)| earned(result, worth))
            .sum()
    }

    /// The points a late penalty takes off `earned`, and why, if there is one.
    pub fn penalty(&self) -> Option<(Points, &str)> {
        let (_, why) = self.policy.penalty.as_ref()?;
        Some((self.penalty_of(self.earned()), why))
    }

    fn penalty_of(&self, earned: Points) -> Points {
        let share = self
            .policy
            .penalty
            .as_ref()
            .map_or(0.0, |(share, _)| *share);
        Points::from_f64(earned.as_f64() * share).min(earned)
    }

    /// Points earned and available in the groups `keep` accepts.
    fn score_of(&self, keep: impl Fn(&Group) -> bool) -> (Points, Points) {
        self.per_test().filter(|(group, _, _, _)| keep(group)).fold(
            (Points::ZERO, Points::ZERO),
            |(got, max), (_, _, result, worth)| (got + earned(result, worth), max + worth),
        )
    }

    /// Tests a filter left out.
    pub fn filtered_out(&self) -> usize {
        self.tests
            .iter()
            .filter(|r| r.verdict.is_none() && !r.out_of_time)
            .count()
    }

    /// Tests not run because the submission had used its time.
    pub fn out_of_time(&self) -> usize {
        self.tests.iter().filter(|r| r.out_of_time).count()
    }

    /// The assignments of the suite, in the order their groups come.
    fn assignments(&self) -> Vec<&str> {
        let mut assignments: Vec<&str> = Vec::new();
        for group in &self.suite.groups {
            if !assignments.contains(&group.assignment.name()) {
                assignments.push(group.assignment.name());
            }
        }
        assignments
    }

    /// The rows of `assignment`'s groups in a score table: each group it shows, then its
    /// withheld groups as one row, so that no report a student reads names any of them.
    pub(crate) fn rows<'r>(&'r self, assignment: &str) -> Vec<Row<'r>> {
        let of_assignment = |g: &Group| g.assignment.name() == assignment;
        let row = |group: Option<&'r Group>| {
            let keep = |g: &Group| match group {
                Some(group) => std::ptr::eq(g, group),
                None => of_assignment(g) && g.withheld,
            };
            let (earned, max) = self.score_of(keep);
            Row {
                group,
                name: group.map_or(HIDDEN_GROUP, |group| &group.name),
                earned,
                max,
                results: self
                    .per_test()
                    .filter(|(group, _, _, _)| keep(group))
                    .map(|(_, _, result, _)| result)
                    .collect(),
                withheld: group.is_none(),
            }
        };
        let groups = self.suite.groups.iter().filter(|g| of_assignment(g));
        let mut rows: Vec<Row> = groups
            .clone()
            .filter(|g| !g.withheld)
            .map(|group| row(Some(group)))
            .collect();
        if groups.clone().any(|g| g.withheld) {
            rows.push(row(None));
        }
        rows
    }

    /// The score table printed after the test lines.
    pub fn score_table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "\n{}", "score".bold());
        let width = self
            .suite
            .groups
            .iter()
            .map(|g| g.name.chars().count())
            .max()
            .unwrap_or(0);
        for assignment in self.assignments() {
            let (earned, max) = self.score_of(|g| g.assignment.name() == assignment);
            let subtotal = format!("{earned} / {max}");
            let _ = writeln!(out, "  {}  {}", assignment.bold(), subtotal.bold());
            for row in self.rows(assignment) {
                let _ = writeln!(
                    out,
                    "    {:<width$}  {:>6} / {:<6} {}",
                    row.name,
                    row.earned.to_string(),
                    row.max.to_string(),
                    student_tests_mark(&row).unwrap_or_else(|| mark(&row.results, row.withheld)),
                );
            }
        }
        if let Some((points, why)) = self.penalty() {
            let _ = writeln!(out, "  {}  -{points} ({why})", "late penalty".bold());
        }
        let total = format!("{} / {}", self.score(), self.max_score());
        let _ = writeln!(out, "  {} {}", "total".bold(), total.bold());
        let not_run = [
            (self.filtered_out(), "were filtered out".to_string()),
            (self.out_of_time(), format!("{OUT_OF_TIME},")),
        ];
        for (count, why) in not_run.iter().filter(|(count, _)| *count > 0) {
            let line = format!("({count} tests {why} and count as 0)");
            let _ = writeln!(out, "  {}", line.dimmed());
        }
        out
    }
}

/// A row of a score table: a group, or an assignment's withheld groups together.
pub(crate) struct Row<'r> {
    /// None for the withheld groups together.
    pub(crate) group: Option<&'r Group>,
    pub(crate) name: &'r str,
    pub(crate) earned: Points,
    pub(crate) max: Points,
    /// The results of its tests.
    pub(crate) results: Vec<&'r TestResult>,
    /// Withheld groups, whose counts of wrong answers are not shown.
    pub(crate) withheld: bool,
}

/// A score table row's verdict on a group of student tests, as its block counts: the
/// known mistakes caught, and its other tests that failed; none for another row. With the
/// score table, as its other marks are, not in the students'-tests block, which the
/// table's file does not name.
fn student_tests_mark(row: &Row) -> Option<String> {
    let bugs = suite::bug_tests(row.group?);
    if bugs.is_empty() {
        return None;
    }
    let passed = |at: &usize| matches!(row.results[*at].verdict, Some(Verdict::Passed));
    let caught = bugs.clone().filter(passed).count();
    let others_failed = (0..row.results.len())
        .filter(|at| !bugs.contains(at))
        .filter(|at| matches!(row.results[*at].verdict, Some(Verdict::Failed(_))))
        .count();
    let mut mark = format!("{caught} of {} known mistakes caught", bugs.len());
    match others_failed {
        0 => {}
        1 => mark.push_str(", 1 other test failed"),
        n => {
            let _ = write!(mark, ", {n} other tests failed");
        }
    }
    Some(match caught == bugs.len() && others_failed == 0 {
        true => "ok".green().to_string(),
        false => mark.red().to_string(),
    })
}

/// A score table row's verdict on its tests: a bulk test's tally of wrong answers (unless
/// the group is withheld), else how many failed or did not run.
fn mark(verdicts: &[&TestResult], withheld: bool) -> String {
    let passed = verdicts
        .iter()
        .filter(|r| matches!(r.verdict, Some(Verdict::Passed)))
        .count();
    let ran = verdicts.iter().filter(|r| r.verdict.is_some()).count();
    let tally = match verdicts {
        [only] if !withheld => credit(only).map(|credit| &credit.tally),
        _ => None,
    };
    if let Some(tally) = tally {
        tally.red().to_string()
    } else if ran < verdicts.len() {
        format!("{} not run", verdicts.len() - ran)
            .dimmed()
            .to_string()
    } else if passed == verdicts.len() {
        "ok".green().to_string()
    } else {
        format!("{} of {} failed", verdicts.len() - passed, verdicts.len())
            .red()
            .to_string()
    }
}

/// What each test of `group` is worth: its points shared in hundredths by the tests'
/// weights, the first tests taking one hundredth more where they do not divide, so the
/// shares add up to the group's points exactly.
fn shares(group: &Group) -> impl Iterator<Item = Points> {
    let total = Points::from_f64(group.points).0;
    let weights: Vec<u64> = group.tests.iter().map(|t| u64::from(t.weight)).collect();
    let all = weights.iter().sum::<u64>().max(1);
    let floors: Vec<u64> = weights.iter().map(|w| total * w / all).collect();
    let left = total - floors.iter().sum::<u64>();
    floors
        .into_iter()
        .enumerate()
        .map(move |(i, floor)| Points(floor + u64::from((i as u64) < left)))
}

/// Each test of `suite` with its group and what it is worth, in order.
fn worths(suite: &Suite) -> impl Iterator<Item = (&Group, &TestCase, Points)> {
    suite.groups.iter().flat_map(|group| {
        group
            .tests
            .iter()
            .zip(shares(group))
            .map(move |(test, worth)| (group, test, worth))
    })
}

/// What each test of `suite` earns with the results `tests`, in order.
pub fn earned_per_test(suite: &Suite, tests: &[TestResult]) -> Vec<Points> {
    worths(suite)
        .zip(tests)
        .map(|((_, _, worth), result)| earned(result, worth))
        .collect()
}

fn earned(result: &TestResult, worth: Points) -> Points {
    match (&result.verdict, credit(result)) {
        (Some(Verdict::Passed), _) => worth,
        (_, Some(Credit { right, of, .. })) => {
            Points((u128::from(worth.0) * u128::from(*right) / u128::from((*of).max(1))) as u64)
        }
        _ => Points::ZERO,
    }
}

fn status(result: &TestResult) -> &'static str {
    match result.verdict {
        Some(Verdict::Passed) => "passed",
        Some(Verdict::Failed(_)) => "failed",
        None => "not_run",
    }
}

/// For a test scored by its answers: how many were wrong beside the points it earned, as
/// every format shows it first: `4 of 2,598,960 wrong, scored in proportion: 7.49 / 7.5 points`.
fn scored(result: &TestResult, worth: Points) -> Option<String> {
    credit(result).map(|credit| {
        format!(
            "{}: {} / {worth} points",
            credit.tally,
            earned(result, worth)
        )
    })
}

/// The share a failed test scored by its answers earns.
fn credit(result: &TestResult) -> Option<&Credit> {
    match &result.verdict {
        Some(Verdict::Failed(failure)) => failure.credit.as_ref(),
        _ => None,
    }
}

/// What a failed test found, in plain text, after the line [`scored`] gives it: student
/// text, as its fields quote the submission.
fn failure_text(failure: &Failure, result: &TestResult, worth: Points) -> StudentText {
    let found = failure.render(false);
    StudentText::from(match scored(result, worth) {
        Some(line) => format!("{line}\n{}", found.trim_end()),
        None => found.trim_end().to_string(),
    })
}

fn output(result: &TestResult, worth: Points) -> StudentText {
    match &result.verdict {
        Some(Verdict::Failed(failure)) => failure_text(failure, result, worth),
        Some(Verdict::Passed) => StudentText::default(),
        None if result.out_of_time => OUT_OF_TIME.into(),
        None => "not run: filtered out".into(),
    }
}

/// A results file as JSON, every text in it made safe for a file: color codes removed and
/// any other control character shown, so nothing a submission prints or a compiler colors
/// reaches Gradescope or a staff script as an escape sequence.
fn machine_json(report: impl Serialize) -> serde_json::Value {
    let mut json = serde_json::to_value(report).unwrap_or_default();
    clean_strings(&mut json);
    json
}

/// Every string of a results file may hold student text: JSON holds it as it is, and so
/// each is rendered for a file once the whole is JSON.
fn clean_strings(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(text) => *text = in_file(text),
        serde_json::Value::Array(items) => items.iter_mut().for_each(clean_strings),
        serde_json::Value::Object(fields) => fields.values_mut().for_each(clean_strings),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec;

    use crate::verdict::Failure;

    /// One group of three tests worth 10 points, which do not divide into hundredths: the
    /// first three tests of the first built-in group of several.
    fn three_for_ten() -> Suite {
        let suite = spec::load(&[], &[], None).unwrap();
        let mut group = suite
            .groups
            .into_iter()
            .find(|group| group.tests.len() >= 3)
            .expect("a built-in group has three tests");
        group.tests.truncate(3);
        group.points = 10.0;
        Suite {
            groups: vec![group],
            ..Suite::default()
        }
    }

    fn results(suite: &Suite, verdict: Option<Verdict>) -> Results<'_> {
        Results {
            suite,
            tests: suite
                .tests()
                .map(|_| TestResult {
                    verdict: verdict.clone(),
                    duration: Duration::ZERO,
                    out_of_time: false,
                })
                .collect(),
            build_failure: None,
            elapsed: Duration::ZERO,
            build_time: Duration::ZERO,
            notes: Vec::new(),
            caught: BTreeMap::new(),
            runner_starts: (0, Duration::ZERO),
            policy: Applied::default(),
        }
    }

    /// The JSON numbers of every test's `field` in hundredths, as a reader adds them up.
    fn hundredths(json: &serde_json::Value, field: &str) -> Vec<u64> {
        json["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| (t[field].as_f64().unwrap() * 100.0).round() as u64)
            .collect()
    }

    #[test]
    fn three_tests_of_a_ten_point_group_add_up_to_ten() {
        let suite = three_for_ten();
        let passed = results(&suite, Some(Verdict::Passed));
        let json = passed.cardgrade_json(&"s".into());
        assert_eq!(hundredths(&json, "max_score"), [334, 333, 333]);
        assert_eq!(hundredths(&json, "score"), [334, 333, 333]);
        assert_eq!(json["score"], 10.0);
        assert_eq!(json["max_score"], 10.0);
        assert!(passed.score_table().contains("total 10 / 10"));
    }

    #[test]
    fn a_perfect_run_of_the_built_in_specs_is_exactly_their_points() {
        let suite = spec::load(&[], &[], None).unwrap();
        let whole: f64 = suite.groups.iter().map(|group| group.points).sum();
        assert_eq!(whole.fract(), 0.0, "the built-in specs give whole points");
        let passed = results(&suite, Some(Verdict::Passed));
        let ours = passed.cardgrade_json(&"s".into());
        let gradescope = passed.gradescope_json();
        assert_eq!(ours["score"].as_f64(), Some(whole));
        assert_eq!(ours["max_score"].as_f64(), Some(whole));
        assert_eq!(gradescope["score"].as_f64(), Some(whole));
        for json in [&ours, &gradescope] {
            assert_eq!(
                hundredths(json, "score").iter().sum::<u64>(),
                (whole * 100.0) as u64
            );
        }
        assert!(
            passed
                .score_table()
                .contains(&format!("total {whole} / {whole}"))
        );
    }

    #[test]
    fn nothing_passed_is_zero_not_minus_zero() {
        let suite = three_for_ten();
        let failed = results(&suite, Some(Verdict::Failed(Failure::line("no"))));
        let json = failed.gradescope_json();
        let text = serde_json::to_string(&json).unwrap();
        assert!(!text.contains("-0"), "{text}");
        assert_eq!(
            json["score"].as_f64().map(f64::to_bits),
            Some(0f64.to_bits())
        );
        assert!(failed.score_table().contains("total 0 / 10"));
    }

    #[test]
    fn machine_json_has_no_escape_sequence_from_a_failure_message() {
        let suite = three_for_ten();
        let failed = results(
            &suite,
            Some(Verdict::Failed(Failure::line(
                "\u{1b}[31mred\u{1b}[0m \u{1b}]0;pwned\u{7}",
            ))),
        );
        let json = failed.gradescope_json();
        let output = json["tests"][0]["output"].as_str().unwrap();
        // A student's colour codes are shown as what they are, as every control is.
        assert!(output.contains("\n  ␛[31mred␛[0m ␛]0;pwned␇\n"), "{output}");
        assert!(!output.contains(['\u{1b}', '\u{7}']), "{output}");
    }
}
