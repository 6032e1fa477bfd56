//! Five-card draw (seed 004): discard up to three cards and draw replacements.

use grader_api::draw_poker::{DiscardError, DrawGame};
use grader_api::{Card, Deck};

/// What `submission()` in `lib.rs` registers of this assignment: your types.
pub fn register(submission: grader_api::Submission) -> grader_api::Submission {
    submission.draw_poker::<Game, crate::poker::Hand>()
}

pub struct Game;

impl DrawGame for Game {
    fn new() -> Game {
        Game
    }

    /// The player typed `positions` (1 to 5). First refuse what the assignment forbids, by
    /// returning an error and leaving the hand alone: more than 3 positions
    /// (`DiscardError::TooMany`), a position outside 1..=5 (`OutOfRange`), one given twice
    /// (`Repeated`); `grader_api::draw_poker::check_positions` does exactly that if you want it.
    /// Then, for each position in the order typed, put `deck.deal()` into that slot.
    fn discard_and_draw(&self, hand: &mut [Card], positions: &[u32], deck: &mut Deck) -> Result<(), DiscardError> {
        let _ = (hand, positions, deck);
        todo!()
    }

    /// The positions (1 to 5) the dealer discards: at most 3, none twice. The assignment lets
    /// this stay a stub, `Vec::new()` (the dealer keeps every card), until you write a
    /// strategy of your own; write at least that, so the dealer can play.
    fn dealer_discards(&self, hand: &[Card]) -> Vec<u32> {
        let _ = hand;
        todo!()
    }
}

// Your own tests go here, beside your code, or in files of `tests/` that `use` this module
// through your crate: `cargo test` runs them, and a course's `your tests` group runs them
// on a correct solution and on the bugs students write. Use only what every solution has
// (`Game::new`, the trait's methods, `grader_api`), not your own helpers, so they can be
// graded against the others. Each test: set up a small input, call the method, check the
// answer.
#[cfg(test)]
mod tests {
    use super::*;

    fn cards(texts: &[&str]) -> Vec<Card> {
        texts.iter().map(|card| card.parse().unwrap()).collect()
    }

    /// More than three positions is refused, and the hand is left as it was.
    #[test]
    fn four_discards_are_refused_and_change_nothing() {
        let mut hand = cards(&["KH", "KD", "3C", "7S", "9H"]);
        let mut deck = Deck::stacked(cards(&["2C", "2D", "2H", "2S"]));
        let refused = Game::new().discard_and_draw(&mut hand, &[1, 2, 3, 4], &mut deck);
        assert!(refused.is_err());
        assert_eq!(hand, cards(&["KH", "KD", "3C", "7S", "9H"]));
    }
}
