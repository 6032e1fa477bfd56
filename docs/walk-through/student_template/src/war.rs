//! War: write `battle`, which says which of two cards wins.

use grader_api::Card;
use grader_api::war::{War, Winner};

/// What `submission()` in `lib.rs` registers of this assignment: your types.
pub fn register(submission: grader_api::Submission) -> grader_api::Submission {
    submission.war::<Battles>()
}

pub struct Battles;

impl War for Battles {
    fn battle(_first: Card, _second: Card) -> Winner {
        todo!()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Arrange two cards, act by asking `battle`, check its answer; `cargo test` runs it,
    // and the grader runs it against the reference and its bugs.
    #[test]
    fn equal_values_tie_whatever_the_suits() {
        let (seven, other_seven) = ("7S".parse().unwrap(), "7C".parse().unwrap());
        assert_eq!(Battles::battle(seven, other_seven), Winner::Tie);
    }
}
