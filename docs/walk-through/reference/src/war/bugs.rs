//! War's bugs: each the reference with a few edits, the bug it is, and the tests that
//! must catch it.

use crate::bugs::{Bug, Library};

pub const LIBRARY: Library = Library {
    assignment: "war",
    uses: &[],
    bugs,
};

fn bugs() -> Vec<Bug> {
    vec![
        Bug::new(
            "war-suits-break-ties",
            "equal values decided by suit, as cards sort.",
            &[("first.value().cmp(&second.value())", "first.cmp(&second)")],
        )
        .caught_by("equal_values::seven_against_seven_ties", &[
            "expected   tie",
            "actual     first",
        ])
        .caught_by("random_battles", &["expected tie but got first"]),
    ]
}
