//! A test's outcome as data: what the grader found, field by field (input, check,
//! expected, actual, diff, hint, output). Reporters render it: the pretty report paints
//! it, the machine formats carry it plain.

use std::fmt::Write as _;
use std::sync::Arc;

use colored::Colorize;

use crate::controls::visible_controls;
use crate::diagnosis::{Diagnosis, Fingerprint, WrongAnswers};

/// The outcome of one test.
#[derive(Debug, Clone)]
pub enum Verdict {
    Passed,
    Failed(Failure),
}

/// Why a test failed, in fields a reader can act on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Failure {
    pub fields: Vec<Field>,
    /// For a test scored by its answers (a bulk group): the share of its points it earns.
    pub credit: Option<Credit>,
    /// Where every wrong answer was a `todo!()`: each so answered, so that a report can
    /// say it once for the whole group.
    pub unwritten: Vec<Unwritten>,
    /// How the runner ended, where that is why answers are missing: what staff count a
    /// submission's troubles by, since it is the grader's word, never a submission's text.
    pub trouble: Option<Trouble>,
    /// Every wrong answer, by check and input, where they are all known: what a diagnosis
    /// compares with the known mistakes. Never shown.
    pub wrong: Option<Arc<WrongAnswers>>,
    /// The known mistakes that explain its wrong answers, check by check.
    pub diagnosis: Vec<Diagnosis>,
    /// For staff: its wrong answers to each check that no known mistake explains, each as
    /// a fingerprint, by which a class report finds submissions that share them.
    pub unexplained: Vec<Fingerprint>,
}

/// A runner's ending that kept a test from being graded on its answers alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trouble {
    TimedOut,
    Flooded,
    Crashed,
}

impl Trouble {
    /// Its name in the results (`trouble`), which the class report reads.
    pub fn key(self) -> &'static str {
        match self {
            Trouble::TimedOut => "timed_out",
            Trouble::Flooded => "flooded",
            Trouble::Crashed => "crashed",
        }
    }

    /// The trouble the results name `key`.
    pub fn from_key(key: &str) -> Option<Trouble> {
        [Trouble::TimedOut, Trouble::Flooded, Trouble::Crashed]
            .into_iter()
            .find(|trouble| trouble.key() == key)
    }

    /// In a staff reader's words.
    pub fn words(self) -> &'static str {
        match self {
            Trouble::TimedOut => "timed out",
            Trouble::Flooded => "flooded its output",
            Trouble::Crashed => "crashed",
        }
    }
}

/// A question answered by a `todo!()`, and the panic that says where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Unwritten {
    pub question: String,
    pub todo: String,
}

/// The share of its points a test earns, `right` of `of`, under its group's scoring, and
/// what a report shows beside the points: `4 of 2,598,960 wrong, all or nothing`, or with
/// several checks `406 of 10,000 wrong; 5 of 10 checks right on every input, all or nothing
/// per check`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credit {
    pub right: u64,
    pub of: u64,
    pub tally: String,
}

/// One field of a failure; a field without a name is a line of its own.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub value: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Text(Tone, String),
    Diff(Diff),
    /// The kinds of wrong answer of a bulk group, most frequent first, and how many more
    /// kinds there were than are listed.
    Breakdown(Vec<WrongKind>, usize),
    /// A failure within a failure: an example of a wrong answer, the field's name its heading.
    Example(Failure),
}

/// How a text reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Expected,
    /// What the submission did, or what went wrong.
    Actual,
    Hint,
    Quiet,
}

/// A line diff of an expected and an actual answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Diff {
    /// For lists of different lengths: the actual length and the expected one.
    pub lengths: Option<(usize, usize)>,
    pub lines: Vec<DiffLine>,
}

/// A line only one side has, in parts, the emphasized ones being where the sides differ.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffLine {
    pub expected: bool,
    pub parts: Vec<(bool, String)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WrongKind {
    pub question: String,
    pub expected: String,
    pub actual: String,
    pub count: String,
}

impl Failure {
    /// A failure of one line.
    pub fn line(text: impl Into<String>) -> Failure {
        let mut failure = Failure::default();
        failure.text("", Tone::Plain, text);
        failure
    }

    pub fn push(&mut self, name: &str, value: Value) {
        self.fields.push(Field {
            name: name.to_string(),
            value,
        });
    }

    pub fn text(&mut self, name: &str, tone: Tone, text: impl Into<String>) {
        self.push(name, Value::Text(tone, text.into()));
    }

    /// This failure, then `more`.
    pub fn then(mut self, more: Failure) -> Failure {
        self.fields.extend(more.fields);
        self.credit = self.credit.or(more.credit);
        self.unwritten.extend(more.unwritten);
        self.trouble = self.trouble.or(more.trouble);
        self
    }

    /// The failure as a report shows it, painted when `color`.
    pub fn render(&self, color: bool) -> String {
        let mut out = String::new();
        for field in &self.fields {
            render_field(&mut out, field, color);
        }
        out
    }
}

impl Value {
    /// The value alone, unpainted, as a machine format carries a field.
    pub fn plain(&self) -> String {
        let mut out = String::new();
        render_value(&mut out, self, false);
        out.trim_end().to_string()
    }
}

/// `text` for a terminal, in `tone`'s colour where there is colour: whatever control
/// characters it holds (a student's, most likely) made visible, so only the grader colours.
fn paint(text: &str, tone: Tone, color: bool) -> String {
    let text = &visible_controls(text);
    if !color {
        return text.to_string();
    }
    match tone {
        Tone::Plain => text.to_string(),
        Tone::Expected => text.green().to_string(),
        Tone::Actual => text.red().to_string(),
        Tone::Hint => text.yellow().to_string(),
        Tone::Quiet => text.dimmed().to_string(),
    }
}

fn bold(text: &str, color: bool) -> String {
    let text = visible_controls(text);
    if color { text.bold().to_string() } else { text }
}

fn render_field(out: &mut String, field: &Field, color: bool) {
    if let Value::Example(example) = &field.value {
        let _ = writeln!(out, "  {}", bold(&field.name, color));
        for line in example.render(color).lines() {
            let _ = writeln!(out, "  {line}");
        }
        return;
    }
    let mut value = String::new();
    render_value(&mut value, &field.value, color);
    let value = value.trim_end();
    if field.name.is_empty() {
        for line in value.lines() {
            let _ = writeln!(out, "  {line}");
        }
        return;
    }
    let mut lines = value.lines();
    let name = bold(&format!("{:<10}", field.name), color);
    let _ = writeln!(out, "  {name} {}", lines.next().unwrap_or(""));
    for line in lines {
        let _ = writeln!(out, "  {:<10} {line}", "");
    }
}

fn render_value(out: &mut String, value: &Value, color: bool) {
    match value {
        Value::Text(tone, text) => {
            // Each line painted alone, so a continuation line is painted too.
            for line in text.lines() {
                let _ = writeln!(out, "{}", paint(line, *tone, color));
            }
        }
        Value::Diff(diff) => {
            if let Some((got, want)) = diff.lengths {
                let _ = writeln!(
                    out,
                    "length {} where {} was expected",
                    paint(&got.to_string(), Tone::Actual, color),
                    paint(&want.to_string(), Tone::Expected, color)
                );
            }
            for line in &diff.lines {
                let (sign, tone) = if line.expected {
                    ("- expected ", Tone::Expected)
                } else {
                    ("+ actual   ", Tone::Actual)
                };
                out.push_str(&paint(sign, tone, color));
                for (emphasized, text) in &line.parts {
                    let painted = paint(text, tone, color);
                    if *emphasized && color {
                        out.push_str(&painted.bold().underline().to_string());
                    } else {
                        out.push_str(&painted);
                    }
                }
                out.push('\n');
            }
        }
        Value::Breakdown(kinds, more) => {
            for kind in kinds {
                let _ = writeln!(
                    out,
                    "{}: expected {} but got {}  ×{}",
                    visible_controls(&kind.question),
                    paint(&kind.expected, Tone::Expected, color),
                    paint(&kind.actual, Tone::Actual, color),
                    kind.count
                );
            }
            if *more > 0 {
                let _ = writeln!(out, "… and {more} other kinds");
            }
        }
        Value::Example(example) => out.push_str(&example.render(color)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_line_up_and_continue_under_their_value() {
        let mut failure = Failure::default();
        failure.text("hand", Tone::Plain, "KH KD\n(2 cards)");
        failure.text("expected", Tone::Expected, "true");
        let mut example = Failure::default();
        example.text("actual", Tone::Actual, "false");
        failure.push("example 1", Value::Example(example));
        assert_eq!(
            failure.render(false),
            "  hand       KH KD\n             (2 cards)\n  expected   true\n  example 1\n    actual     false\n"
        );
    }

    #[test]
    fn a_diff_says_the_lengths_then_the_lines_each_side_has() {
        let diff = Value::Diff(Diff {
            lengths: Some((14, 15)),
            lines: vec![DiffLine {
                expected: true,
                parts: vec![(false, "cell 14 = ".into()), (true, "0".into())],
            }],
        });
        assert_eq!(
            diff.plain(),
            "length 14 where 15 was expected\n- expected cell 14 = 0"
        );
    }
}
