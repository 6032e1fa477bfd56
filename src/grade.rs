//! Grading one test: ask the runner, compare with the reference's answers, and explain
//! any difference the way a student can act on.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::mpsc::{Receiver, sync_channel};

use colored::Colorize;
use grader_api::plaisante::Check;
use grader_api::protocol::{self, Answer, Request};
use grader_api::{Card, HandSource, Submission, format_cards};
use similar::{ChangeTag, TextDiff};

use crate::capture::Printed;
use crate::runner::{Ending, Exchange, Runner};
use crate::spec::{Group, TestCase};

/// How many wrong hands of a bulk group are shown in full.
const SHOWN_MISMATCHES: usize = 3;
/// How many kinds of wrong answer a bulk group's breakdown lists.
const SHOWN_BREAKDOWN: usize = 12;
/// A bulk group stops after this many panicking answers: a `todo!()` would otherwise
/// panic millions of times, and the count says nothing more than the first thousand.
const PANICS_BEFORE_GIVING_UP: u64 = 1_000;
/// Hands computed by the reference per message to the comparing thread.
const CHUNK_HANDS: usize = 2048;

/// The outcome of one test.
#[derive(Debug, Clone)]
pub enum Verdict {
    Passed,
    /// A message that says what differs; may hold color codes.
    Failed(String),
}

/// Every answer the reference gives to `request`, in order.
pub fn reference_answers(reference: &Submission, request: &Request) -> Vec<Answer> {
    let mut answers = Vec::new();
    protocol::respond(reference, request, |answer| {
        answers.push(answer);
        true
    });
    answers
}

/// Runs a test written out in a spec: one hand, one check.
pub fn grade_listed(
    runner: &mut Runner,
    group: &Group,
    test: &TestCase,
    expected: &[Answer],
) -> (Verdict, bool) {
    let mut actual = Vec::new();
    let exchange = runner.ask(&test.request, group.timeout, |answer| {
        actual.push(answer);
        true
    });
    let survived = exchange.runner_survived();
    let Request::PlaisanteHands { source, checks } = &test.request;
    let cards = match source {
        HandSource::Listed(hands) => hands.first().cloned().unwrap_or_default(),
        _ => Vec::new(),
    };
    let check = checks.first().copied().unwrap_or(Check::Evaluate);
    let matches = exchange.ending == Ending::Answered && actual == expected;
    if matches {
        return (Verdict::Passed, survived);
    }
    let mut message = String::new();
    field(&mut message, "hand", &describe_hand(&cards));
    field(&mut message, "check", &format!("{check}()"));
    let expected_answer = expected.first();
    if let Some(answer) = expected_answer {
        field(
            &mut message,
            "expected",
            &answer.to_string().green().to_string(),
        );
    }
    let actual_text = match (&exchange.ending, actual.first()) {
        (Ending::Answered, Some(answer)) => answer.to_string(),
        (Ending::Answered, None) => "no answer".to_string(),
        (ending, _) => describe_ending(ending),
    };
    field(&mut message, "actual", &actual_text.red().to_string());
    if let (Some(Answer::Cells(want)), Some(Answer::Cells(got))) = (expected_answer, actual.first())
    {
        field(&mut message, "diff", &cells_diff(want, got));
    }
    finish_message(&mut message, group, &exchange);
    (Verdict::Failed(message), survived)
}

/// Runs a generated or exhaustive group: the runner answers every hand in one stream while
/// the reference answers the same hands on another thread, compared as they arrive.
pub fn grade_bulk(
    runner: &mut Runner,
    reference: &Submission,
    group: &Group,
    test: &TestCase,
) -> (Verdict, bool) {
    let Request::PlaisanteHands { source, checks } = &test.request;
    let total_hands = source.len();
    let (sender, receiver) = sync_channel::<ExpectedChunk>(8);
    let mut tally = Tally::new(checks.clone(), receiver);
    let exchange = std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut chunk = Vec::with_capacity(CHUNK_HANDS);
            protocol::respond_by_hand(reference, source, checks, |cards, answers| {
                chunk.push((cards, answers));
                if chunk.len() < CHUNK_HANDS {
                    return true;
                }
                let full = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK_HANDS));
                sender.send(full).is_ok()
            });
            let _ = sender.send(chunk);
        });
        let exchange = runner.ask(&test.request, group.timeout, |answer| tally.record(answer));
        // Stops the reference thread if the runner ended early.
        tally.close();
        exchange
    });
    let survived = exchange.runner_survived();
    let complete = exchange.ending == Ending::Answered && tally.hands_compared == total_hands;
    if complete && tally.wrong_hands == 0 {
        return (Verdict::Passed, survived);
    }
    let mut message = String::new();
    let what = match source {
        HandSource::Exhaustive { hand_size } => format!("every {hand_size}-card hand"),
        HandSource::Generated {
            count,
            seed,
            hand_size,
        } => {
            format!(
                "{} {hand_size}-card hands generated from seed {seed}",
                group_digits(u64::from(*count))
            )
        }
        HandSource::Listed(hands) => format!("{} hands", hands.len()),
    };
    let names: Vec<&str> = checks.iter().map(|c| c.name()).collect();
    field(&mut message, "hands", &what);
    field(&mut message, "checks", &names.join(", "));
    if tally.hands_compared > 0 {
        let verdict_line = format!(
            "{} of {} hands answered wrongly",
            group_digits(tally.wrong_hands),
            group_digits(tally.hands_compared)
        );
        field(&mut message, "wrong", &verdict_line.red().to_string());
    }
    if !complete {
        let stopped = match &exchange.ending {
            Ending::Answered => "the runner's answers did not add up to the hands sent".to_string(),
            ending => describe_ending(ending),
        };
        field(
            &mut message,
            "stopped",
            &format!(
                "after {} of {} hands: {stopped}",
                group_digits(tally.hands_compared),
                group_digits(total_hands)
            )
            .red()
            .to_string(),
        );
    }
    if !tally.breakdown.is_empty() {
        let mut kinds: Vec<_> = tally.breakdown.iter().collect();
        kinds.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let mut lines = String::new();
        for ((check, expected, actual), count) in kinds.iter().take(SHOWN_BREAKDOWN) {
            let _ = writeln!(
                lines,
                "{check}: expected {} but got {}  ×{}",
                expected.green(),
                actual.red(),
                group_digits(**count)
            );
        }
        if kinds.len() > SHOWN_BREAKDOWN {
            let _ = writeln!(lines, "… and {} other kinds", kinds.len() - SHOWN_BREAKDOWN);
        }
        field(&mut message, "breakdown", lines.trim_end());
    }
    for (index, sample) in tally.samples.iter().enumerate() {
        let mut detail = String::new();
        field(&mut detail, "hand", &describe_hand(&sample.cards));
        field(&mut detail, "check", &format!("{}()", sample.check));
        field(
            &mut detail,
            "expected",
            &sample.expected.to_string().green().to_string(),
        );
        field(
            &mut detail,
            "actual",
            &sample.actual.to_string().red().to_string(),
        );
        if let (Answer::Cells(want), Answer::Cells(got)) = (&sample.expected, &sample.actual) {
            field(&mut detail, "diff", &cells_diff(want, got));
        }
        let heading = format!("example {} of a wrong hand", index + 1);
        let _ = writeln!(message, "  {}", heading.bold());
        for line in detail.lines() {
            let _ = writeln!(message, "  {line}");
        }
    }
    finish_message(&mut message, group, &exchange);
    (Verdict::Failed(message), survived)
}

/// Hands with the reference's answers, as the reference thread sends them.
type ExpectedChunk = Vec<(Vec<Card>, Vec<Answer>)>;

struct Sample {
    cards: Vec<Card>,
    check: Check,
    expected: Answer,
    actual: Answer,
}

/// Compares a stream of answers with the reference's, hand by hand.
struct Tally {
    checks: Vec<Check>,
    expected: Option<Receiver<ExpectedChunk>>,
    chunk: <ExpectedChunk as IntoIterator>::IntoIter,
    current: Option<(Vec<Card>, Vec<Answer>)>,
    position: usize,
    current_wrong: bool,
    hands_compared: u64,
    wrong_hands: u64,
    panics: u64,
    breakdown: BTreeMap<(Check, String, String), u64>,
    samples: Vec<Sample>,
}

impl Tally {
    fn new(checks: Vec<Check>, expected: Receiver<ExpectedChunk>) -> Tally {
        Tally {
            checks,
            expected: Some(expected),
            chunk: Vec::new().into_iter(),
            current: None,
            position: 0,
            current_wrong: false,
            hands_compared: 0,
            wrong_hands: 0,
            panics: 0,
            breakdown: BTreeMap::new(),
            samples: Vec::new(),
        }
    }

    fn next_hand(&mut self) -> Option<(Vec<Card>, Vec<Answer>)> {
        loop {
            if let Some(hand) = self.chunk.next() {
                return Some(hand);
            }
            self.chunk = self.expected.as_ref()?.recv().ok()?.into_iter();
        }
    }

    /// Compares one answer; `false` once enough answers panicked to stop asking.
    fn record(&mut self, actual: Answer) -> bool {
        self.panics += u64::from(matches!(actual, Answer::Panicked(_)));
        if self.current.is_none() {
            self.current = self.next_hand();
            self.position = 0;
            self.current_wrong = false;
        }
        let Some((cards, expected)) = &self.current else {
            return false;
        };
        let check = self.checks[self.position];
        if let Some(want) = expected.get(self.position).filter(|&want| *want != actual) {
            self.current_wrong = true;
            *self
                .breakdown
                .entry(breakdown_key(check, want, &actual))
                .or_default() += 1;
            if self.samples.len() < SHOWN_MISMATCHES
                && self.samples.iter().all(|s| s.cards != *cards)
            {
                self.samples.push(Sample {
                    cards: cards.clone(),
                    check,
                    expected: want.clone(),
                    actual,
                });
            }
        }
        self.position += 1;
        if self.position == self.checks.len() {
            self.hands_compared += 1;
            self.wrong_hands += u64::from(self.current_wrong);
            self.current = None;
        }
        self.panics <= PANICS_BEFORE_GIVING_UP
    }

    fn close(&mut self) {
        self.expected = None;
    }
}

/// Wrong booleans and hand names are listed as they are; wrong numbers and counts would
/// make one kind per value, so they are grouped.
fn breakdown_key(check: Check, expected: &Answer, actual: &Answer) -> (Check, String, String) {
    match (expected, actual) {
        (Answer::Number(_), Answer::Number(_)) => {
            (check, "its number".into(), "another number".into())
        }
        (Answer::Cells(_), Answer::Cells(_)) => (check, "its counts".into(), "other counts".into()),
        _ => (check, expected.to_string(), actual.to_string()),
    }
}

fn finish_message(message: &mut String, group: &Group, exchange: &Exchange) {
    if let Some(hint) = &group.hint {
        field(message, "hint", &hint.yellow().to_string());
    }
    printed_field(message, "stdout", &exchange.stdout);
    printed_field(message, "stderr", &exchange.stderr);
}

fn printed_field(message: &mut String, name: &str, printed: &Printed) {
    if !printed.is_empty() {
        field(
            message,
            &format!("{name} of your code"),
            printed.text().trim_end(),
        );
    }
}

/// Appends `name   value`, with continuation lines indented under the value.
fn field(message: &mut String, name: &str, value: &str) {
    let mut lines = value.lines();
    let first = lines.next().unwrap_or("");
    let _ = writeln!(message, "  {:<10} {first}", name.bold());
    for line in lines {
        let _ = writeln!(message, "  {:<10} {line}", "");
    }
}

fn describe_hand(cards: &[Card]) -> String {
    if cards.is_empty() {
        "(no cards)".into()
    } else {
        format!("{}   ({} cards)", format_cards(cards), cards.len())
    }
}

fn describe_ending(ending: &Ending) -> String {
    match ending {
        Ending::Answered => "answered".into(),
        Ending::TimedOut(limit) => format!(
            "no answer within {} ms (an endless loop?); the runner was killed and restarted for the other tests",
            limit.as_millis()
        ),
        Ending::Died(how) => format!("no answer: the runner process {how} while running your code"),
        Ending::Garbled(what) => {
            format!("no answer: the runner's reply was not understood ({what}); it was killed")
        }
        Ending::Abandoned => format!(
            "more than {} answers panicked, so the rest were not run",
            group_digits(PANICS_BEFORE_GIVING_UP)
        ),
    }
}

/// A line diff of two counts arrays, one cell a line, emphasising what differs.
pub fn cells_diff(expected: &[i64], actual: &[i64]) -> String {
    let render = |cells: &[i64]| -> String {
        cells
            .iter()
            .enumerate()
            .map(|(index, count)| format!("cell {index:>2} = {count}\n"))
            .collect()
    };
    let (old, new) = (render(expected), render(actual));
    let diff = TextDiff::from_lines(&old, &new);
    let mut out = String::new();
    if expected.len() != actual.len() {
        let _ = writeln!(
            out,
            "length {} where {} was expected",
            actual.len().to_string().red(),
            expected.len().to_string().green()
        );
    }
    for op in diff.ops() {
        for change in diff.iter_inline_changes(op) {
            let (sign, paint): (&str, fn(&str) -> colored::ColoredString) = match change.tag() {
                ChangeTag::Equal => continue,
                ChangeTag::Delete => ("- expected ", |s| s.green()),
                ChangeTag::Insert => ("+ actual   ", |s| s.red()),
            };
            out.push_str(&paint(sign).to_string());
            for (emphasized, text) in change.iter_strings_lossy() {
                let text = text.trim_end_matches('\n');
                if emphasized {
                    out.push_str(&paint(text).bold().underline().to_string());
                } else {
                    out.push_str(&paint(text).to_string());
                }
            }
            out.push('\n');
        }
    }
    out.trim_end().to_string()
}

/// 2598960 as 2,598,960.
pub fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cells_diff_names_the_cells_that_differ() {
        colored::control::set_override(false);
        let mut want = vec![0i64; 15];
        want[13] = 2;
        want[3] = 1;
        let mut got = want.clone();
        got[13] = 3;
        let diff = cells_diff(&want, &got);
        assert!(diff.contains("- expected cell 13 = 2"), "{diff}");
        assert!(diff.contains("+ actual   cell 13 = 3"), "{diff}");
        assert!(!diff.contains("cell  3"), "{diff}");
    }

    #[test]
    fn a_short_counts_array_says_its_length() {
        colored::control::set_override(false);
        let diff = cells_diff(&[0; 15], &[0; 14]);
        assert!(diff.contains("length 14 where 15 was expected"), "{diff}");
        assert!(diff.contains("- expected cell 14 = 0"), "{diff}");
    }

    #[test]
    fn digits_are_grouped() {
        assert_eq!(group_digits(2_598_960), "2,598,960");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(1000), "1,000");
    }
}
