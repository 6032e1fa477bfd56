//! The Plaisante hand (PA 2, part 2): work out which poker hand up to five cards form.
//!
//! Write the methods marked `todo!()`, one at a time, and run `grader check` after each:
//! the cases for the methods you have written start passing while the rest stay
//! "not yet implemented". `evaluate`, `total_value`, `base_mult` and `score` are provided
//! by the `PlaisanteHand` trait, exactly as in the assignment's starter file.
//!
//! `base_mult` and `score` take the multiplier table the grader passes (`Multipliers`):
//! unless your course's spec sets its own, it is high card x1, pair x2, two pair x3, three
//! of a kind x4, straight x5, flush x6, full house x7, four of a kind x8. If you override
//! them, look the hand up in that table (`multipliers.of(self.evaluate())`) rather than
//! writing the numbers in: a course may grade with other numbers.

use grader_api::plaisante_hand::PlaisanteHand;
use grader_api::Card;

/// What `submission()` in `lib.rs` registers of this assignment: your types.
pub fn register(submission: grader_api::Submission) -> grader_api::Submission {
    submission.plaisante_hand::<Hand>()
}

pub struct Hand {
    cards: Vec<Card>,
}

impl PlaisanteHand for Hand {
    fn new(cards: Vec<Card>) -> Hand {
        Hand { cards }
    }

    fn cards(&self) -> &[Card] {
        &self.cards
    }

    /// Counts the cards of each value in one pass over the hand.
    ///
    /// Return a sequence of `grader_api::plaisante_hand::COUNTS_LEN` (15) cells: the cell at index `v` holds how many
    /// cards have value `v` (2..=10, jack 11, queen 12, king 13, ace 14; `card.value()`).
    /// For K-K-3-7-9, cell 13 holds 2, cells 3, 7 and 9 hold 1, every other cell 0.
    /// The array needs index 14 for aces, so 15 cells, even though 0 and 1 stay unused.
    fn count_values(&self) -> Vec<u32> {
        todo!()
    }

    /// True when some value appears *exactly* twice. Walk `count_values()` looking for a
    /// cell holding 2. Three kings are not a pair: that is what `has_three_of_a_kind` is for.
    fn has_pair(&self) -> bool {
        todo!()
    }

    /// True when two different values each appear exactly twice (K-K-7-7-9).
    /// Count the cells holding 2 instead of stopping at the first.
    fn has_two_pair(&self) -> bool {
        todo!()
    }

    /// True when some value appears exactly three times.
    fn has_three_of_a_kind(&self) -> bool {
        todo!()
    }

    /// True when some value appears exactly four times.
    fn has_four_of_a_kind(&self) -> bool {
        todo!()
    }

    /// Three of one value and two of another (K-K-K-7-7). Build it from the checks above.
    fn has_full_house(&self) -> bool {
        todo!()
    }

    /// Five cards that all share one suit (`card.suit()`). Assume a flush, then let any
    /// card whose suit differs from the first card's rule it out. Four hearts are not a flush.
    fn has_flush(&self) -> bool {
        todo!()
    }

    /// Five different values in a row, in any order (5-6-7-8-9). Three checks:
    /// exactly five cards; `highest_value() - lowest_value() == 4`; no value appears more
    /// than once (5-5-6-7-9 spans 4 but is not a straight). Aces are high only here, so
    /// A-2-3-4-5 is not a straight.
    fn has_straight(&self) -> bool {
        todo!()
    }
}

// Your own tests go here, beside your code, or in files of `tests/` that `use` this module
// through your crate: `cargo test` runs them, and a course's `your tests` group runs them
// on a correct solution and on the bugs students write. Use only what every solution has
// (`Hand::new`, the trait's methods, `grader_api`), not your own helpers, so they can be
// graded against the others. Each test: set up a small input, call the method, check the
// answer.
#[cfg(test)]
mod tests {
    use super::*;

    fn hand(cards: &[&str]) -> Hand {
        Hand::new(cards.iter().map(|card| card.parse().unwrap()).collect())
    }

    /// The assignment's own first check: K-K-3-7-9 counted.
    #[test]
    fn counts_the_values_of_k_k_3_7_9() {
        let counts = hand(&["KH", "KD", "3C", "7S", "9H"]).count_values();
        assert_eq!(counts.len(), 15);
        assert_eq!(counts[13], 2);
        assert_eq!(counts[3], 1);
        assert_eq!(counts[2], 0);
    }
}
