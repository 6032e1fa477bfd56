//! Each student's submission time for a batch's late penalty, from a roster: a CSV with a
//! column naming each submission (as `grader batch export` matches them) and one of RFC
//! 3339 times. A batch has no platform to say when a submission came, and an archive's
//! own times are not a submission's (see README, "Late penalties in a batch").
//!
//! The roster is staff's file, but its cells are not to be trusted: a time that cannot be
//! read costs its student no penalty and the batch a warning naming the line, never the
//! batch itself.

use std::path::Path;

use super::export::{BY, read_roster, students, submissions_of};
use crate::student_text::StudentText;

/// The roster's column of submission times when `--submitted-column` names none.
pub const SUBMITTED: &str = "Submitted";

/// What the roster says of a submission: its time (as the roster writes it), or why it
/// gives none, as a warning's words.
pub type Time = Result<String, String>;

/// The time of each of `names` (the class's submissions, in order) in the roster at
/// `path`, whose column `by` names submissions and column `column` holds times. Refused
/// where the roster cannot say whose a time is, as `grader batch export` refuses it.
pub fn submission_times(
    path: &Path,
    (by, column): (&str, &str),
    names: &[StudentText],
) -> Result<Vec<Time>, String> {
    let roster = read_roster(path)?;
    let by_column = roster.required(by, BY)?;
    let time_column = roster.required(
        column,
        "name the column of submission times with --submitted-column",
    )?;
    let students = students(&roster, by_column);
    let folders: Vec<&StudentText> = names.iter().collect();
    // Canvas's names carry the user ID, which its gradebook's `ID` column holds.
    let matched = submissions_of(&roster, &students, (by_column, by), &folders, true)?;
    let mut times: Vec<Time> =
        vec![Err(format!("no row of the roster names it (--by {by})")); names.len()];
    for (student, submission) in students.iter().zip(&matched) {
        let Some(index) = *submission else {
            continue;
        };
        let cell = student.text(time_column).trim();
        times[index] = if cell.is_empty() {
            Err(format!(
                "line {} of the roster has no `{column}`",
                student.line
            ))
        } else {
            crate::policy::seconds(cell)
                .map(|_| cell.to_string())
                .map_err(|_| {
                    format!(
                        "line {}, column `{column}` of the roster: `{}` is not a time such as 2026-12-03T14:22:32-07:00",
                        student.line,
                        shown(cell)
                    )
                })
        };
    }
    Ok(times)
}

/// A roster's cell in a warning: one line, its controls visible, cut short where long.
fn shown(cell: &str) -> String {
    const AT_MOST: usize = 60;
    let mut shown: String = cell.chars().take(AT_MOST).collect();
    if cell.chars().nth(AT_MOST).is_some() {
        shown.push('…');
    }
    StudentText::from(shown).on_a_line()
}

/// The warning a batch gives once for the submission `name`, graded with no penalty.
pub fn untimed(name: &StudentText, why: &str) -> String {
    format!(
        "warning: {}: no submission time, so no late penalty: {why}",
        name.on_a_line()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_submission_gets_its_rows_time_or_a_warning_naming_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let roster = dir.path().join("roster.csv");
        std::fs::write(
            &roster,
            "submission,Submitted\nalice, 2026-12-01T10:00:00Z \nbob,\ncarol,=HYPERLINK(\"x\")\n",
        )
        .unwrap();
        let names = ["alice", "bob", "carol", "dave"].map(StudentText::from);
        let times = submission_times(&roster, ("submission", SUBMITTED), &names).unwrap();
        assert_eq!(times[0].as_deref(), Ok("2026-12-01T10:00:00Z"));
        assert_eq!(
            times[1],
            Err("line 3 of the roster has no `Submitted`".into())
        );
        let carol = times[2].as_ref().unwrap_err();
        assert!(carol.starts_with("line 4, column `Submitted`"), "{carol}");
        assert!(
            carol.contains("`=HYPERLINK(\"x\")` is not a time"),
            "{carol}"
        );
        assert_eq!(shown(&"\n".repeat(100)), format!("{}…", "␊".repeat(60)));
        assert_eq!(
            times[3],
            Err("no row of the roster names it (--by submission)".into())
        );
        let refused = submission_times(&roster, ("submission", "When"), &names).unwrap_err();
        assert!(refused.contains("no column `When`"), "{refused}");
    }
}
