//! The poker hand evaluator (seed 002): classify five cards and compare two hands.

use grader_api::Card;
use grader_api::poker::{Category, PokerHand, PokerRules};

/// What `submission()` in `lib.rs` registers of this assignment: your types.
pub fn register(submission: grader_api::Submission) -> grader_api::Submission {
    submission.poker::<Hand>()
}

pub struct Hand {
    cards: Vec<Card>,
    rules: PokerRules,
}

impl PokerHand for Hand {
    /// Keep the cards and the rules; you may also work out the category and the value
    /// vector here, once, as seed 002's constructor does.
    fn new(cards: Vec<Card>, rules: PokerRules) -> Hand {
        Hand { cards, rules }
    }

    fn cards(&self) -> &[Card] {
        &self.cards
    }

    /// The best category, checked from the top: straight flush, four of a kind, full house,
    /// flush, straight, three of a kind, two pairs, one pair, high card. Count the cards
    /// of each rank first (like the Plaisante counts array). A straight is five ranks in a
    /// row; when `self.rules.ace_low_straight` is true A-2-3-4-5 is one too (the wheel),
    /// but K-A-2-3-4 never is.
    fn category(&self) -> Category {
        let _ = self.rules;
        todo!()
    }

    /// Seed 002's value vector: `category().number()` (1 to 9) first, then what breaks a tie,
    /// most important first. With standard rules: groups by size then rank (a full house
    /// 3-3-3-K-K is [7, 3, 13]; two pairs 9-9-5-5-A is [3, 9, 5, 14]), a straight's high
    /// card (5 for the wheel), a flush's or high card's five ranks from the highest.
    /// Under `Ties::Draw1572` (seed 004) see the doc of `grader_api::poker::Ties`.
    fn tiebreak(&self) -> Vec<u32> {
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
        let cards = cards.iter().map(|card| card.parse().unwrap()).collect();
        Hand::new(cards, PokerRules::default())
    }

    /// Five in a row of one suit is a straight flush, not just a flush.
    #[test]
    fn five_hearts_in_a_row_are_a_straight_flush() {
        let hand = hand(&["5H", "6H", "7H", "8H", "9H"]);
        assert_eq!(hand.category(), Category::StraightFlush);
    }
}
