//! Grading one test: ask the runner, compare with the reference's answers, and explain
//! any difference the way a student can act on.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::mpsc::{Receiver, sync_channel};

use colored::Colorize;
use std::cell::RefCell;
use std::rc::Rc;

use grader_api::crazy8::{
    Call, Harness, PLAYERS, PlayerStrategy, RemoteStrategy, Reply, StrategyTrial, init_players,
};
use grader_api::protocol::{self, Answer, Input, Request, group_digits};
use grader_api::{Deck, Submission};
use similar::{ChangeTag, TextDiff};

use crate::capture::Printed;
use crate::report::visible_controls;
use crate::runner::{Ending, Exchange, Runner};
use crate::spec::{Group, TestCase};

/// Characters of one answer a report shows; a submission may return anything.
const SHOWN_ANSWER: usize = 2_000;
/// Cells beyond which two lists are not diffed line by line.
const DIFFED_CELLS: usize = 64;

/// `text` cut to `limit` characters, saying how much was left out.
fn shorten(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        None => text.to_string(),
        Some((cut, _)) => format!(
            "{}… ({} more characters)",
            &text[..cut],
            text[cut..].chars().count()
        ),
    }
}

/// How many wrong inputs of a bulk group are shown in full.
const SHOWN_MISMATCHES: usize = 3;
/// How many kinds of wrong answer a bulk group's breakdown lists.
const SHOWN_BREAKDOWN: usize = 12;
/// A bulk group stops after this many panicking answers: a `todo!()` would otherwise
/// panic millions of times, and the count says nothing more than the first thousand.
const PANICS_BEFORE_GIVING_UP: u64 = 1_000;
/// Kinds of wrong answer a bulk group's breakdown holds at most; answers of further kinds
/// are counted as wrong but not held, so a runner cannot grow the grader without end.
const HELD_BREAKDOWN: usize = 10_000;
/// Answers beyond those a listed test asks for that a runner may send before it is stopped.
const SURPLUS_ANSWERS: usize = 16;
/// Inputs answered by the reference per message to the comparing thread.
const CHUNK_INPUTS: usize = 2048;

/// The outcome of one test.
#[derive(Debug, Clone)]
pub enum Verdict {
    Passed,
    /// A message that says what differs; may hold color codes.
    Failed(String),
}

/// Inputs with the reference's answers to them.
pub type Expected = Vec<(Input, Vec<Answer>)>;

/// Every input of `request` with the reference's answers, in order.
pub fn reference_answers(reference: &Submission, request: &Request) -> Expected {
    let mut expected = Vec::new();
    protocol::respond_by_input(reference, request, |input, answers| {
        expected.push((input, answers));
        true
    });
    expected
}

/// Runs a test written out in a spec: one input, one or more answers.
pub fn grade_listed(
    runner: &mut Runner,
    reference: &Submission,
    group: &Group,
    test: &TestCase,
    expected: &Expected,
) -> (Verdict, bool) {
    let mut actual = Vec::new();
    let asked = expected.first().map_or(0, |(_, answers)| answers.len());
    let most = asked + SURPLUS_ANSWERS;
    let exchange = runner.ask(&test.request, group.timeout, |answer| {
        actual.push(answer);
        actual.len() <= most
    });
    if actual.len() > most {
        let message = format!(
            "  the runner sent more than {most} answers to a test that asks for {asked}; it was stopped"
        );
        return (Verdict::Failed(message), false);
    }
    let survived = exchange.runner_survived();
    // Where the submission chose freely (the dealer's discards), the reference plays its choices.
    let pinned = test.request.pinned(&actual).map(|request| {
        let expected = reference_answers(reference, &request);
        (request, expected)
    });
    let (request, expected) = match &pinned {
        Some((request, expected)) => (request, expected),
        None => (&test.request, expected),
    };
    let Some((input, want)) = expected.first() else {
        return (Verdict::Passed, survived);
    };
    if exchange.ending == Ending::Answered && actual == *want {
        return (Verdict::Passed, survived);
    }
    // The first answer that differs, or the first one missing.
    let first = (0..want.len())
        .find(|&i| actual.get(i) != want.get(i))
        .unwrap_or(0);
    let mut message = String::new();
    let input_label = input.label();
    field(&mut message, input_label, &input.describe(first));
    field(&mut message, "check", &request.question(first));
    field(&mut message, "expected", &paint_answer(&want[first], true));
    let actual_text = match (&exchange.ending, actual.get(first)) {
        (_, Some(answer)) => paint_answer(answer, false),
        (Ending::Answered, None) => "no answer".red().to_string(),
        (ending, None) => describe_ending(ending).red().to_string(),
    };
    field(&mut message, "actual", &actual_text);
    if let Some(diff) = actual
        .get(first)
        .and_then(|got| answer_diff(&want[first], got))
    {
        field(&mut message, "diff", &diff);
    }
    if let Some(detail) = actual
        .get(first)
        .and_then(|got| protocol::compare_detail(&want[first], got))
    {
        field(&mut message, "turns", &detail);
    }
    if let Some(explanation) =
        protocol::explain(reference, request, input, &want[first], actual.get(first))
    {
        field(&mut message, "reference", &explanation);
    }
    let unchecked = want.len() - first - 1;
    if unchecked > 0 {
        let later = if unchecked == 1 { "answer" } else { "answers" };
        field(
            &mut message,
            "then",
            &format!("{unchecked} later {later} not compared")
                .dimmed()
                .to_string(),
        );
    }
    finish_message(&mut message, group, &exchange);
    (Verdict::Failed(message), survived)
}

/// Runs a generated or exhaustive group: the runner answers every input in one stream
/// while the reference answers the same inputs on another thread, compared as they arrive.
pub fn grade_bulk(
    runner: &mut Runner,
    reference: &Submission,
    group: &Group,
    test: &TestCase,
) -> (Verdict, bool) {
    let request = &test.request;
    let total = request.input_count();
    let (sender, receiver) = sync_channel::<Expected>(8);
    let mut comparison = BulkComparison::new(request, receiver);
    let exchange = std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut chunk = Vec::with_capacity(CHUNK_INPUTS);
            protocol::respond_by_input(reference, request, |input, answers| {
                chunk.push((input, answers));
                if chunk.len() < CHUNK_INPUTS {
                    return true;
                }
                let full = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK_INPUTS));
                sender.send(full).is_ok()
            });
            let _ = sender.send(chunk);
        });
        let exchange = runner.ask(request, group.timeout, |answer| comparison.record(answer));
        // Stops the reference thread if the runner ended early.
        comparison.close();
        exchange
    });
    let survived = exchange.runner_survived();
    let complete = exchange.ending == Ending::Answered && comparison.inputs_compared == total;
    if complete && comparison.wrong_inputs == 0 {
        return (Verdict::Passed, survived);
    }
    let mut message = String::new();
    field(&mut message, "inputs", &request.describe_inputs());
    if comparison.inputs_compared > 0 {
        let verdict_line = format!(
            "{} of {} answered wrongly",
            group_digits(comparison.wrong_inputs),
            group_digits(comparison.inputs_compared)
        );
        field(&mut message, "wrong", &verdict_line.red().to_string());
    }
    if !complete {
        let stopped = match &exchange.ending {
            Ending::Answered => {
                "the runner's answers did not add up to the inputs sent".to_string()
            }
            Ending::Abandoned if comparison.surplus => {
                "the runner sent more answers than there were inputs; it was stopped".to_string()
            }
            ending => describe_ending(ending),
        };
        let line = format!(
            "after {} of {}: {stopped}",
            group_digits(comparison.inputs_compared),
            group_digits(total)
        );
        field(&mut message, "stopped", &line.red().to_string());
    }
    if !comparison.breakdown.is_empty() {
        let mut kinds: Vec<_> = comparison.breakdown.iter().collect();
        kinds.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let mut lines = String::new();
        for ((question, expected, actual), count) in kinds.iter().take(SHOWN_BREAKDOWN) {
            let _ = writeln!(
                lines,
                "{question}: expected {} but got {}  ×{}",
                expected.green(),
                actual.red(),
                group_digits(**count)
            );
        }
        if kinds.len() > SHOWN_BREAKDOWN {
            let _ = writeln!(lines, "… and {} other kinds", kinds.len() - SHOWN_BREAKDOWN);
        }
        field(&mut message, "by answer", lines.trim_end());
    }
    for (index, sample) in comparison.samples.iter().enumerate() {
        let mut detail = String::new();
        field(
            &mut detail,
            "input",
            &sample.input.describe(sample.position),
        );
        field(&mut detail, "check", &request.question(sample.position));
        field(
            &mut detail,
            "expected",
            &paint_answer(&sample.expected, true),
        );
        field(&mut detail, "actual", &paint_answer(&sample.actual, false));
        if let Some(diff) = answer_diff(&sample.expected, &sample.actual) {
            field(&mut detail, "diff", &diff);
        }
        if let Some(turns) = protocol::compare_detail(&sample.expected, &sample.actual) {
            field(&mut detail, "turns", &turns);
        }
        let heading = format!("example {} of a wrong answer", index + 1);
        let _ = writeln!(message, "  {}", heading.bold());
        for line in detail.lines() {
            let _ = writeln!(message, "  {line}");
        }
    }
    finish_message(&mut message, group, &exchange);
    (Verdict::Failed(message), survived)
}

/// Plays the submission's strategies in the reference engine: each strategy lives in the
/// runner and answers the engine's calls over the pipe, seat by seat, game after game.
/// Returns the verdict, whether the runner survived, and each strategy's record.
pub fn grade_strategies(
    runner: Runner,
    reference: &Submission,
    group: &Group,
    trial: &StrategyTrial,
    strategies: &[String],
) -> (Verdict, Option<Runner>, Vec<String>) {
    let mut notes = Vec::new();
    if strategies.len() < trial.require as usize {
        let message = format!(
            "  your submission registers {} strategies ({}); at least {} are required: add\n  `.crazy_eights_player::<YourStrategy>(\"a name\")` to submission() for each",
            strategies.len(),
            strategies.join(", "),
            trial.require
        );
        return (Verdict::Failed(message), Some(runner), notes);
    }
    let Some(engine) = reference.crazy8_engine_builder().map(|build| build()) else {
        return (
            Verdict::Failed("  the reference has no Crazy Eights engine".into()),
            Some(runner),
            notes,
        );
    };
    let runner = Rc::new(RefCell::new(runner));
    let timeout = group.timeout;
    for name in strategies {
        let mut wins = 0;
        for game in 0..trial.games {
            let seat = game as usize % PLAYERS;
            let failure = Rc::new(RefCell::new(None));
            let link = Rc::clone(&runner);
            let transport = move |call: Call| -> Result<Reply, String> {
                let mut reply = None;
                let request = Request::StrategyCall { slot: 0, call };
                let exchange = link.borrow_mut().ask(&request, timeout, |answer| {
                    reply = Some(answer);
                    true
                });
                match (exchange.ending, reply) {
                    (Ending::Answered, Some(Answer::Move(reply))) => Ok(reply),
                    (Ending::Answered, Some(other)) => Err(other.to_string()),
                    (ending, _) => Err(describe_ending(&ending)),
                }
            };
            let mut remote = RemoteStrategy::new(transport, Rc::clone(&failure));
            let created = remote_create(&mut remote, name);
            let mut opponents = trial.opponents.iter().map(|h| h.player());
            let mut players: Vec<Box<dyn PlayerStrategy>> = Vec::with_capacity(PLAYERS);
            let mut remote = Some(remote);
            for position in 0..PLAYERS {
                match (position == seat, remote.take()) {
                    (true, Some(remote)) => players.push(Box::new(remote)),
                    (_, unused) => {
                        remote = unused;
                        players.push(
                            opponents
                                .next()
                                .unwrap_or_else(|| Harness::FirstLegal.player()),
                        );
                    }
                }
            }
            let result = created.map(|()| {
                init_players(&mut players);
                let mut deck = Deck::shuffled(trial.seed.wrapping_add(u64::from(game)));
                engine.play_game(&mut players, &mut deck)
            });
            drop(players);
            let failed = failure.borrow().clone().or(result.as_ref().err().cloned());
            let where_ = format!(
                "strategy `{name}`, game {} of {} (seat {seat})",
                game + 1,
                trial.games
            );
            if let Some(why) = failed {
                let log = result.map(|r| r.log).unwrap_or_default();
                let message =
                    strategy_failure(&where_, &format!("its code failed: {why}"), &log, group);
                return (Verdict::Failed(message), None, notes);
            }
            let Ok(result) = result else { continue };
            if let Some(cheat) = result.cheater.filter(|c| c.player_id as usize == seat) {
                let message = strategy_failure(
                    &where_,
                    &format!("an illegal move: {cheat}"),
                    &result.log,
                    group,
                );
                let survivor = Rc::try_unwrap(runner).ok().map(RefCell::into_inner);
                return (Verdict::Failed(message), survivor, notes);
            }
            wins += u32::from(result.winner == Some(seat as u32));
        }
        let opponents: Vec<String> = trial.opponents.iter().map(|h| h.name()).collect();
        notes.push(format!(
            "strategy `{name}` won {wins} of {} games ({:.0}%) against {}",
            trial.games,
            100.0 * f64::from(wins) / f64::from(trial.games.max(1)),
            opponents.join(", ")
        ));
    }
    let survivor = Rc::try_unwrap(runner).ok().map(RefCell::into_inner);
    (Verdict::Passed, survivor, notes)
}

/// Makes a fresh instance of strategy `name` in the runner's slot.
fn remote_create<T: FnMut(Call) -> Result<Reply, String>>(
    remote: &mut RemoteStrategy<T>,
    name: &str,
) -> Result<(), String> {
    match remote.transport_call(Call::Create(name.to_string())) {
        Ok(Reply::Done) => Ok(()),
        Ok(other) => Err(other.to_string()),
        Err(why) => Err(why),
    }
}

fn strategy_failure(
    where_: &str,
    what: &str,
    log: &[grader_api::crazy8::PlayerTurn],
    group: &Group,
) -> String {
    let mut message = String::new();
    field(&mut message, "game", where_);
    field(&mut message, "problem", &what.red().to_string());
    let shown: Vec<String> = log
        .iter()
        .enumerate()
        .map(|(i, turn)| format!("{:>3}. {turn}", i + 1))
        .collect();
    if !shown.is_empty() {
        field(&mut message, "turns", &shown.join("\n"));
    }
    if let Some(hint) = &group.hint {
        field(&mut message, "hint", &hint.yellow().to_string());
    }
    message
}

struct Sample {
    input: Input,
    position: usize,
    expected: Answer,
    actual: Answer,
    /// Its kind of wrong answer: examples show different kinds where there are several.
    kind: (String, String, String),
}

/// Compares a stream of answers with the reference's, input by input.
struct BulkComparison<'a> {
    request: &'a Request,
    expected: Option<Receiver<Expected>>,
    chunk: <Expected as IntoIterator>::IntoIter,
    current: Option<(Input, Vec<Answer>)>,
    position: usize,
    current_wrong: bool,
    inputs_compared: u64,
    wrong_inputs: u64,
    panics: u64,
    breakdown: BTreeMap<(String, String, String), u64>,
    samples: Vec<Sample>,
    /// The runner answered past the last input.
    surplus: bool,
}

impl<'a> BulkComparison<'a> {
    fn new(request: &'a Request, expected: Receiver<Expected>) -> BulkComparison<'a> {
        BulkComparison {
            request,
            expected: Some(expected),
            chunk: Vec::new().into_iter(),
            current: None,
            position: 0,
            current_wrong: false,
            inputs_compared: 0,
            wrong_inputs: 0,
            panics: 0,
            breakdown: BTreeMap::new(),
            samples: Vec::new(),
            surplus: false,
        }
    }

    /// The next input with answers to compare; skips any the reference answered with none.
    fn next_input(&mut self) -> Option<(Input, Vec<Answer>)> {
        loop {
            match self.chunk.next() {
                Some((_, answers)) if answers.is_empty() => self.inputs_compared += 1,
                Some(input) => return Some(input),
                None => self.chunk = self.expected.as_ref()?.recv().ok()?.into_iter(),
            }
        }
    }

    /// Compares one answer; `false` once enough answers panicked to stop asking.
    fn record(&mut self, actual: Answer) -> bool {
        self.panics += u64::from(matches!(actual, Answer::Panicked(_)));
        if self.current.is_none() {
            self.current = self.next_input();
            self.position = 0;
            self.current_wrong = false;
        }
        let Some((input, expected)) = &self.current else {
            self.surplus = true;
            return false;
        };
        if let Some(want) = expected.get(self.position).filter(|&want| *want != actual) {
            self.current_wrong = true;
            let kind = breakdown_key(self.request.question_kind(self.position), want, &actual);
            if self.breakdown.len() < HELD_BREAKDOWN || self.breakdown.contains_key(&kind) {
                *self.breakdown.entry(kind.clone()).or_default() += 1;
            }
            let new_kind = self
                .samples
                .iter()
                .all(|s| s.kind != kind && s.input != *input);
            if self.samples.len() < SHOWN_MISMATCHES && new_kind {
                self.samples.push(Sample {
                    input: input.clone(),
                    position: self.position,
                    expected: want.clone(),
                    actual,
                    kind,
                });
            }
        }
        self.position += 1;
        if self.position == expected.len() {
            self.inputs_compared += 1;
            self.wrong_inputs += u64::from(self.current_wrong);
            self.current = None;
        }
        self.panics <= PANICS_BEFORE_GIVING_UP
    }

    fn close(&mut self) {
        self.expected = None;
    }
}

/// Wrong booleans and names are listed as they are; other wrong answers would make one
/// kind per value, so they are grouped.
fn breakdown_key(question: String, expected: &Answer, actual: &Answer) -> (String, String, String) {
    match (expected, actual) {
        (Answer::Round(want), Answer::Round(got)) if want.outcome != got.outcome => {
            (question, want.outcome.to_string(), got.outcome.to_string())
        }
        _ => (
            question,
            kind_of(expected, actual, "its"),
            kind_of(actual, expected, "another"),
        ),
    }
}

/// An answer as a breakdown lists it: booleans, names and failures as they are; answers
/// that would make one kind per value (numbers, counts, states, games) by their kind.
fn kind_of(answer: &Answer, other: &Answer, article: &str) -> String {
    let kind = match answer {
        Answer::Number(_) => "number",
        Answer::Cells(_) => "counts",
        Answer::Tableau(_) => "state",
        Answer::Round(_) => "cards and totals",
        Answer::Tally(_) => "tally",
        Answer::Cards(_) => "cards",
        Answer::Draw(_) => "hand result",
        Answer::Game(_) => "game record",
        Answer::Tournament(_) => "tournament record",
        _ => return shorten(&answer.to_string(), 200),
    };
    // Of the same kind as the other side, "its" and "another" say enough.
    if std::mem::discriminant(answer) == std::mem::discriminant(other) {
        format!("{article} {kind}")
    } else {
        format!("a {kind}")
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
            &visible_controls(printed.text().trim_end()),
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

/// An answer as a report shows it, cut so that a huge one cannot flood the report, and
/// with any control character a panic message holds made visible.
fn paint_answer(answer: &Answer, expected: bool) -> String {
    let text = visible_controls(&shorten(&answer.to_string(), SHOWN_ANSWER));
    if expected {
        text.green().to_string()
    } else {
        text.red().to_string()
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

/// A line diff of two answers of the same kind that span several lines (counts, tableau
/// lists, rounds), emphasising what differs; `None` where expected and actual say it all.
pub fn answer_diff(expected: &Answer, actual: &Answer) -> Option<String> {
    let lines = |answer: &Answer| -> Option<String> {
        match answer {
            Answer::Cells(cells) => Some(
                cells
                    .iter()
                    .enumerate()
                    .map(|(index, count)| format!("cell {index:>2} = {count}\n"))
                    .collect(),
            ),
            Answer::Tableau(_) | Answer::Round(_) => Some(format!("{answer}\n")),
            _ => None,
        }
    };
    if let (Answer::Cells(want), Answer::Cells(got)) = (expected, actual)
        && want.len().max(got.len()) > DIFFED_CELLS
    {
        return Some(format!(
            "length {} where {} was expected",
            got.len(),
            want.len()
        ));
    }
    let (old, new) = (lines(expected)?, lines(actual)?);
    let diff = TextDiff::from_lines(&old, &new);
    let mut out = String::new();
    if let (Answer::Cells(want), Answer::Cells(got)) = (expected, actual)
        && want.len() != got.len()
    {
        let _ = writeln!(
            out,
            "length {} where {} was expected",
            got.len().to_string().red(),
            want.len().to_string().green()
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
    Some(out.trim_end().to_string())
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
        let diff = answer_diff(&Answer::Cells(want), &Answer::Cells(got)).unwrap();
        assert!(diff.contains("- expected cell 13 = 2"), "{diff}");
        assert!(diff.contains("+ actual   cell 13 = 3"), "{diff}");
        assert!(!diff.contains("cell  3"), "{diff}");
    }

    #[test]
    fn a_short_counts_array_says_its_length() {
        colored::control::set_override(false);
        let diff = answer_diff(&Answer::Cells(vec![0; 15]), &Answer::Cells(vec![0; 14])).unwrap();
        assert!(diff.contains("length 14 where 15 was expected"), "{diff}");
        assert!(diff.contains("- expected cell 14 = 0"), "{diff}");
    }
}
