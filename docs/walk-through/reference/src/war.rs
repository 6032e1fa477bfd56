//! The reference War.

use std::cmp::Ordering;

use grader_api::Card;
use grader_api::war::{War, Winner};

/// What `submission()` registers of this assignment: the reference's types.
pub fn register(submission: grader_api::Submission) -> grader_api::Submission {
    submission.war::<Battles>()
}

pub struct Battles;

impl War for Battles {
    fn battle(first: Card, second: Card) -> Winner {
        match first.value().cmp(&second.value()) {
            Ordering::Greater => Winner::First,
            Ordering::Less => Winner::Second,
            Ordering::Equal => Winner::Tie,
        }
    }
}

pub mod bugs;
