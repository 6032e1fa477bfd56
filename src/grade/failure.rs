//! What a failure shows, whatever graded it: the answers' diff, the runner's ending, what
//! the submission printed.

use grader_api::assignment::Lines;
use grader_api::protocol::{group_digits, panic_of};
use grader_api::text::shorten;
use grader_api::unit::{Asked, Difference};
use similar::{ChangeTag, TextDiff};

use crate::capture::Printed;
use crate::runner::{Ending, Exchange};
use crate::spec::Group;
use crate::student_text::StudentText;
use crate::verdict::{Diff, DiffLine, Failure, Tone, Trouble, Unwritten, Value};

/// A bulk group stops after this many wrong answers that panicked: a `todo!()` would
/// otherwise panic millions of times, and the count says nothing more than the first
/// thousand. Here, where the failure says so, and not in the bulk comparison that counts
/// them: the comparison sits above this file and uses it.
pub(super) const PANICS_BEFORE_GIVING_UP: u64 = 1_000;

/// Characters of one answer a report shows; a submission may return anything.
pub(super) const SHOWN_ANSWER: usize = 2_000;

/// Cells beyond which two lists are not diffed line by line.
pub(super) const DIFFED_CELLS: usize = 64;

/// The group's hint and what the submission printed, after what differs.
pub(super) fn finish(failure: &mut Failure, group: &Group, exchange: &Exchange) {
    if let Some(note) = &exchange.limits {
        failure.text("limits", Tone::Actual, note.clone());
    }
    if let Some(hint) = &group.hint {
        failure.text("hint", Tone::Hint, hint.clone());
    }
    printed(failure, "stdout", &exchange.stdout);
    printed(failure, "stderr", &exchange.stderr);
}

pub(super) fn printed(failure: &mut Failure, name: &str, printed: &Printed) {
    if !printed.is_empty() {
        failure.text(
            &format!("{name} of your code"),
            Tone::Plain,
            printed.text().trim_end(),
        );
    }
}

/// A reply as a report shows it, cut so that a huge one cannot flood the report: student
/// text, as a reply may be a panic's message.
pub(super) fn shown(text: &str) -> StudentText {
    StudentText::from(shorten(text, SHOWN_ANSWER))
}

/// The trouble an ending is, where it kept answers from coming.
pub(super) fn trouble_of(ending: &Ending) -> Option<Trouble> {
    match ending {
        Ending::TimedOut(_) | Ending::Stalled { .. } => Some(Trouble::TimedOut),
        Ending::Flooded(_) => Some(Trouble::Flooded),
        Ending::Died(_) => Some(Trouble::Crashed),
        Ending::Answered | Ending::Garbled(_) | Ending::Abandoned => None,
    }
}

pub(super) fn describe_ending(ending: &Ending) -> String {
    match ending {
        Ending::Answered => "answered".into(),
        Ending::TimedOut(limit) => format!(
            "not finished within {} ms, its time limit; the runner was killed and restarted for the other tests",
            group_digits(limit.as_millis() as u64)
        ),
        Ending::Stalled { quiet, .. } => format!(
            "no answer for {} ms (an endless loop?); the runner was killed and restarted for the other tests",
            group_digits(quiet.as_millis() as u64)
        ),
        Ending::Flooded(printed) => format!(
            "it printed {} MB, more than the {} MB a test may print, so it was stopped: remove the printing from your code; the runner was restarted for the other tests",
            group_digits(printed / 1_000_000),
            group_digits(crate::runner::FLOOD_BYTES / 1_000_000)
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

/// Puts into `failure` every field of a wrong or missing reply, in the order a student
/// reads them: the input, the check, expected, actual (or `missing`, where no reply came),
/// a line diff of answers that span several lines, where the assignment says they part,
/// and what the reference makes of the input.
pub(super) fn show_difference(failure: &mut Failure, difference: Difference, missing: String) {
    let (label, input) = difference.input;
    failure.text(label, Tone::Plain, input);
    failure.text("check", Tone::Plain, difference.question);
    failure.text("expected", Tone::Expected, shown(&difference.expected));
    let actual = difference
        .actual
        .map_or_else(|| missing.into(), |actual| shown(&actual));
    failure.text("actual", Tone::Actual, actual);
    if let Some(diff) = difference
        .lines
        .and_then(|(expected, actual)| lines_diff(expected, actual))
    {
        failure.push("diff", diff);
    }
    if let Some((label, detail)) = difference.detail {
        failure.text(label, Tone::Plain, detail);
    }
    if let Some(explanation) = difference.explanation {
        failure.text("reference", Tone::Plain, explanation);
    }
}

/// A line diff of two answers that span several lines (lists, states, rounds),
/// emphasising what differs; `None` where expected and actual say it all.
pub(super) fn lines_diff(expected: Lines, actual: Lines) -> Option<Value> {
    let mut diff = Diff::default();
    let (old, new) = match (expected, actual) {
        (Lines::Cells(want), Lines::Cells(got)) => {
            if want.len().max(got.len()) > DIFFED_CELLS {
                return Some(Value::Text(
                    Tone::Plain,
                    format!("length {} where {} was expected", got.len(), want.len()).into(),
                ));
            }
            if want.len() != got.len() {
                diff.lengths = Some((got.len(), want.len()));
            }
            (want.join("\n") + "\n", got.join("\n") + "\n")
        }
        (Lines::Text(want), Lines::Text(got)) => (want + "\n", got + "\n"),
        _ => return None,
    };
    let text = TextDiff::from_lines(&old, &new);
    for op in text.ops() {
        for change in text.iter_inline_changes(op) {
            let expected = match change.tag() {
                ChangeTag::Equal => continue,
                ChangeTag::Delete => true,
                ChangeTag::Insert => false,
            };
            let parts = change
                .iter_strings_lossy()
                .map(|(emphasized, text)| (emphasized, text.trim_end_matches('\n').into()))
                .collect();
            diff.lines.push(DiffLine { expected, parts });
        }
    }
    Some(Value::Diff(diff))
}

/// The question of reply `position` and where its `todo!()` is, when `reply` is one.
pub(super) fn unwritten(request: &dyn Asked, position: usize, reply: &[u8]) -> Option<Unwritten> {
    let panic = panic_of(reply).filter(|panic| panic.is_not_yet_implemented())?;
    Some(Unwritten {
        question: request.question(position),
        todo: panic.to_string().into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(values: &[i64]) -> Lines {
        Lines::Cells(
            values
                .iter()
                .enumerate()
                .map(|(index, count)| format!("cell {index:>2} = {count}"))
                .collect(),
        )
    }

    #[test]
    fn a_list_diff_names_the_cells_that_differ() {
        let mut want = vec![0i64; 15];
        want[13] = 2;
        want[3] = 1;
        let mut got = want.clone();
        got[13] = 3;
        let diff = lines_diff(cells(&want), cells(&got)).unwrap().plain();
        let diff = diff.raw_for_comparison();
        assert!(diff.contains("- expected cell 13 = 2"), "{diff}");
        assert!(diff.contains("+ actual   cell 13 = 3"), "{diff}");
        assert!(!diff.contains("cell  3"), "{diff}");
    }

    #[test]
    fn a_short_list_says_its_length() {
        let diff = lines_diff(cells(&[0; 15]), cells(&[0; 14]))
            .unwrap()
            .plain();
        let diff = diff.raw_for_comparison();
        assert!(diff.contains("length 14 where 15 was expected"), "{diff}");
        assert!(diff.contains("- expected cell 14 = 0"), "{diff}");
    }
}
