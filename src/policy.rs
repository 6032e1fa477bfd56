//! A course's policy applied to one submission, from when the platform says it came:
//! Gradescope's `submission_metadata.json` (its submission time, the assignment's due and
//! late due dates, the student's earlier submissions). The late penalty is a line of the
//! score of its own, never folded into a test; past the day's limit, the student is told
//! less, staff nothing less.

use std::path::Path;

use grader_api::spec::{DueDate, Late, PastLimit, Policy};
use serde::Deserialize;

const DAY: i64 = 86_400;

/// What the policy makes of a submission.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Applied {
    /// The share of the score it loses, and why, in words.
    pub penalty: Option<(f64, String)>,
    /// What a student is told of it.
    pub told: Told,
    /// Why no policy was applied, where none could be.
    pub notes: Vec<String>,
}

/// What a student is told of a graded submission.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Told {
    #[default]
    Everything,
    /// Its score alone: it is past the day's limit.
    ScoreOnly(Past),
    /// That it was received: it is past the day's limit.
    Received(Past),
}

/// A submission past the day's limit: which of the day's it is, and the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Past {
    pub nth: u64,
    pub limit: u32,
}

impl Told {
    /// Why a student is told less, in words, if they are.
    pub fn words(self) -> Option<String> {
        let (Told::ScoreOnly(past) | Told::Received(past)) = self else {
            return None;
        };
        Some(format!(
            "submission {} of the day (UTC): past the course's {} a day, its results are for staff",
            past.nth, past.limit
        ))
    }
}

/// What the grader reads of Gradescope's `submission_metadata.json`.
#[derive(Deserialize)]
struct Metadata {
    created_at: String,
    assignment: Assignment,
    #[serde(default)]
    previous_submissions: Vec<Previous>,
}

#[derive(Deserialize)]
struct Assignment {
    due_date: Option<String>,
    late_due_date: Option<String>,
}

#[derive(Deserialize)]
struct Previous {
    submission_time: String,
}

/// `policy` applied to the submission `metadata` (Gradescope's file) describes. A file that
/// is missing or not Gradescope's grades with no policy, and says so.
pub fn apply(policy: &Policy, metadata: &Path) -> Applied {
    let read = std::fs::read_to_string(metadata)
        .map_err(|error| error.to_string())
        .and_then(|text| applied(policy, &text));
    read.unwrap_or_else(|why| Applied {
        notes: vec![format!(
            "the course's policy was not applied: {} could not be read ({why}); graded with no late penalty and no daily limit",
            metadata.display()
        )],
        ..Applied::default()
    })
}

/// `policy` applied to a submission of a batch, made at `submitted` (an RFC 3339 time, as a
/// roster gives it): only its late penalty, from the spec's `late: { after }`, since a batch
/// knows no platform's due date and no earlier submission. A time or a date that is not
/// there grades with no penalty, and says so.
pub fn apply_at(policy: &Policy, submitted: &str) -> Applied {
    let penalty = seconds(submitted).and_then(|submitted| match &policy.late {
        None => Ok(None),
        Some(late) if late.after.is_none() => Err(
            "the spec's `late:` names no `after:` date, and a batch has no platform to give one"
                .to_string(),
        ),
        Some(late) => late_penalty(late, submitted, None, None),
    });
    match penalty {
        Ok(penalty) => Applied {
            penalty,
            ..Applied::default()
        },
        Err(why) => Applied {
            notes: vec![format!(
                "the course's late policy was not applied: {why}; graded with no late penalty"
            )],
            ..Applied::default()
        },
    }
}

fn applied(policy: &Policy, text: &str) -> Result<Applied, String> {
    let metadata: Metadata = serde_json::from_str(text).map_err(|error| error.to_string())?;
    let submitted = seconds(&metadata.created_at)?;
    let mut applied = Applied::default();
    if let Some(late) = &policy.late {
        let assignment = &metadata.assignment;
        let due = assignment.due_date.as_deref().map(seconds).transpose()?;
        let late_due = assignment
            .late_due_date
            .as_deref()
            .map(seconds)
            .transpose()?;
        applied.penalty = late_penalty(late, submitted, due, late_due)?;
    }
    if let Some(limit) = policy.daily_limit {
        let day = submitted.div_euclid(DAY);
        let mut earlier = 0;
        for previous in &metadata.previous_submissions {
            if seconds(&previous.submission_time)?.div_euclid(DAY) == day {
                earlier += 1;
            }
        }
        if earlier >= u64::from(limit.0) {
            let past = Past {
                nth: earlier + 1,
                limit: limit.0,
            };
            applied.told = match policy.past_limit {
                PastLimit::ScoreOnly => Told::ScoreOnly(past),
                PastLimit::Nothing => Told::Received(past),
            };
        }
    }
    Ok(applied)
}

/// The share of the score `late` takes off a submission made at `submitted`, and why: the
/// spec's date wins over the platform's `due`; past the platform's `late_due`, only the
/// floor is kept. Times are seconds since 1970, UTC.
fn late_penalty(
    late: &Late,
    submitted: i64,
    due: Option<i64>,
    late_due: Option<i64>,
) -> Result<Option<(f64, String)>, String> {
    let due = match (late.after, due) {
        // Late from the end of the day the spec names.
        (Some(DueDate(days)), _) => days as i64 * DAY + DAY,
        (None, Some(due)) => due,
        (None, None) => {
            return Err(
                "the spec's late policy names no date, and the assignment has no due date".into(),
            );
        }
    };
    let most = 1.0 - late.floor.0;
    if late_due.is_some_and(|late_due| submitted > late_due) {
        return Ok(Some((
            most,
            "submitted after the late due date: the least the policy keeps".to_string(),
        )));
    }
    if submitted <= due {
        return Ok(None);
    }
    let days = (submitted - due + DAY - 1) / DAY;
    let lost = (days as f64 * late.penalty_per_day.0).min(most);
    let plural = if days == 1 { "" } else { "s" };
    Ok(Some((
        lost,
        format!(
            "late by {days} day{plural}, {}% a day",
            late.penalty_per_day.0 * 100.0
        ),
    )))
}

/// An RFC 3339 time (`2026-12-03T14:22:32.365935-07:00`) as seconds since 1970, UTC: the
/// one reader of times, Gradescope's and a roster's.
pub fn seconds(text: &str) -> Result<i64, String> {
    let bad = || format!("`{text}` is not a time such as 2026-12-03T14:22:32-07:00");
    let (date, rest) = text.split_once(['T', 't', ' ']).ok_or_else(bad)?;
    let DueDate(days) = date.parse().map_err(|_| bad())?;
    let (clock, offset) = match rest.strip_suffix(['Z', 'z']) {
        Some(clock) => (clock, 0),
        None => {
            let at = rest.rfind(['+', '-']).ok_or_else(bad)?;
            let sign = if rest[at..].starts_with('-') { -1 } else { 1 };
            let (hours, minutes) = rest[at + 1..].split_once(':').ok_or_else(bad)?;
            let (hours, minutes) = (two_digits(hours, 23), two_digits(minutes, 59));
            let (Some(hours), Some(minutes)) = (hours, minutes) else {
                return Err(bad());
            };
            (&rest[..at], sign * (hours * 3600 + minutes * 60))
        }
    };
    // A fraction of a second counts for nothing, but must be one: a roster's cell is
    // handed on as it is written once it reads as a time.
    let clock = match clock.split_once('.') {
        Some((clock, fraction))
            if !fraction.is_empty() && fraction.bytes().all(|b| b.is_ascii_digit()) =>
        {
            clock
        }
        Some(_) => return Err(bad()),
        None => clock,
    };
    let parts: Vec<&str> = clock.split(':').collect();
    let [hours, minutes, secs] = parts[..] else {
        return Err(bad());
    };
    let (Some(hours), Some(minutes), Some(secs)) = (
        two_digits(hours, 23),
        two_digits(minutes, 59),
        two_digits(secs, 60),
    ) else {
        return Err(bad());
    };
    Ok(days as i64 * DAY + hours * 3600 + minutes * 60 + secs - offset)
}

/// `text` as a number of two digits, up to `most`.
fn two_digits(text: &str, most: i64) -> Option<i64> {
    let [tens @ b'0'..=b'9', ones @ b'0'..=b'9'] = text.as_bytes() else {
        return None;
    };
    Some(i64::from(tens - b'0') * 10 + i64::from(ones - b'0')).filter(|n| *n <= most)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(yaml: &str) -> Policy {
        serde_yaml::from_str(yaml).unwrap()
    }

    /// Gradescope's file, as its documentation shows it: due on the 1st at 23:00 in UTC-7
    /// (the 2nd, 06:00 UTC), late due a week later.
    fn metadata(created_at: &str, previous: &[&str]) -> String {
        let previous: Vec<serde_json::Value> = previous
            .iter()
            .map(
                |time| serde_json::json!({ "submission_time": time, "score": 12.0, "results": {} }),
            )
            .collect();
        serde_json::json!({
            "id": 123456,
            "created_at": created_at,
            "assignment": {
                "due_date": "2026-12-01T23:00:00.000000-07:00",
                "late_due_date": "2026-12-08T23:00:00.000000-07:00",
                "group_size": null, "group_submission": false, "id": 25828, "course_id": 1234,
                "release_date": "2026-11-20T00:00:00.000000-07:00",
                "title": "Assignment 1", "total_points": "105.0"
            },
            "submission_method": "upload",
            "users": [{ "email": "student@example.com", "id": 1234, "name": "Student User" }],
            "previous_submissions": previous
        })
        .to_string()
    }

    const LATE: &str = "late: { penalty_per_day: 10%, floor: 30% }";

    #[test]
    fn times_are_read_with_their_offsets() {
        assert_eq!(seconds("1970-01-01T00:00:00Z"), Ok(0));
        assert_eq!(seconds("1970-01-01T01:00:00.5+01:00"), Ok(0));
        assert_eq!(
            seconds("2026-12-01T23:00:00.000000-07:00"),
            seconds("2026-12-02T06:00:00Z")
        );
        for bad in [
            "2026-12-01",
            "2026-12-01T25:00:00Z",
            "yesterday",
            "2026-12-01T10:00:00",
            "2026-12-01T10:00:00.=1+1\nZ",
            "2026-12-01T10:00:00.Z",
            "2026-12-01T+1:00:00Z",
            "2026-12-01T1:00:00Z",
            "2026-12-01T10:00:00+24:00",
            "2026-12-01T10:00:00+1:00",
        ] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_submission_on_time_loses_nothing() {
        let applied = applied(&policy(LATE), &metadata("2026-12-01T22:59:00-07:00", &[])).unwrap();
        assert_eq!(applied, Applied::default());
    }

    #[test]
    fn late_by_two_days_or_part_of_them_loses_two_days() {
        // A day and a minute after the due date: two days, begun.
        let two_days = applied(&policy(LATE), &metadata("2026-12-03T06:01:00Z", &[])).unwrap();
        let (lost, words) = two_days.penalty.unwrap();
        assert!((lost - 0.2).abs() < 1e-9, "{lost}");
        assert_eq!(words, "late by 2 days, 10% a day");
        // Six days at 15% keep the floor, 30%, not 10%.
        let steep = policy("late: { penalty_per_day: 15%, floor: 30% }");
        let six_days = applied(&steep, &metadata("2026-12-07T07:00:00Z", &[])).unwrap();
        assert!((six_days.penalty.unwrap().0 - 0.7).abs() < 1e-9);
    }

    #[test]
    fn a_date_the_spec_gives_wins_over_the_platforms() {
        let policy = policy("late: { after: 2026-12-05, penalty_per_day: 10% }");
        let applied = applied(&policy, &metadata("2026-12-05T23:59:59Z", &[])).unwrap();
        assert_eq!(applied.penalty, None);
    }

    #[test]
    fn after_the_late_due_date_only_the_floor_is_kept() {
        let applied = applied(&policy(LATE), &metadata("2026-12-09T07:00:00Z", &[])).unwrap();
        let (lost, words) = applied.penalty.unwrap();
        assert!((lost - 0.7).abs() < 1e-9);
        assert!(words.contains("after the late due date"), "{words}");
    }

    #[test]
    fn the_fourth_submission_of_a_day_under_a_limit_of_three_is_told_less() {
        let today = [
            "2026-11-30T01:00:00Z",
            "2026-11-30T09:00:00Z",
            "2026-11-30T13:00:00Z",
        ];
        let past = Past { nth: 4, limit: 3 };
        let modes = [
            ("score_only", Told::ScoreOnly(past)),
            ("nothing", Told::Received(past)),
        ];
        for (past_limit, told) in modes {
            let policy = policy(&format!("daily_limit: 3\npast_limit: {past_limit}"));
            let fourth = applied(&policy, &metadata("2026-11-30T20:00:00Z", &today)).unwrap();
            assert_eq!(fourth.told, told);
            let words = fourth.told.words().unwrap();
            assert!(words.starts_with("submission 4 of the day"), "{words}");
            // The third of the day, and the first of the next, are told everything.
            let third = applied(&policy, &metadata("2026-11-30T20:00:00Z", &today[..2])).unwrap();
            assert_eq!(third.told, Told::Everything);
            let next = applied(&policy, &metadata("2026-12-01T00:00:01Z", &today)).unwrap();
            assert_eq!(next.told, Told::Everything);
        }
    }

    #[test]
    fn a_batch_applies_the_late_penalty_from_the_specs_date_alone() {
        let dated =
            policy("late: { after: 2026-12-01, penalty_per_day: 10%, floor: 30% }\ndaily_limit: 1");
        // The end of the 1st, UTC, is the due date.
        assert_eq!(apply_at(&dated, "2026-12-01T23:59:59Z"), Applied::default());
        let two_days = apply_at(&dated, "2026-12-03T08:00:00+02:00");
        let (lost, words) = two_days.penalty.unwrap();
        assert!((lost - 0.2).abs() < 1e-9, "{lost}");
        assert_eq!(words, "late by 2 days, 10% a day");
        assert_eq!(
            two_days.told,
            Told::Everything,
            "a batch knows no earlier submission"
        );
        for (policy, time, why) in [
            (&dated, "soon", "is not a time"),
            (
                &self::policy(LATE),
                "2026-12-09T00:00:00Z",
                "names no `after:` date",
            ),
        ] {
            let applied = apply_at(policy, time);
            assert_eq!(applied.penalty, None);
            assert!(applied.notes[0].contains(why), "{:?}", applied.notes);
        }
        assert_eq!(
            apply_at(&self::policy("daily_limit: 2"), "2026-12-09T00:00:00Z"),
            Applied::default()
        );
    }

    #[test]
    fn a_malformed_or_missing_file_grades_with_no_policy_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("submission_metadata.json");
        let strict = policy(&format!("{LATE}\ndaily_limit: 1"));
        for written in [
            None,
            Some("{ not json"),
            Some("{\"created_at\": \"soon\", \"assignment\": {}}"),
        ] {
            if let Some(text) = written {
                std::fs::write(&path, text).unwrap();
            }
            let applied = apply(&strict, &path);
            assert_eq!((applied.penalty, applied.told), (None, Told::Everything));
            assert!(
                applied.notes[0].contains("policy was not applied"),
                "{:?}",
                applied.notes
            );
        }
    }
}
