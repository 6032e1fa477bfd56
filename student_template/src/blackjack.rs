//! Blackjack (Assignment 18): a hand that counts aces right, and a round against a dealer.

use grader_api::blackjack::{BlackjackGame, BlackjackHand, Player, Round, Rules};
use grader_api::{Card, Deck};

/// What `submission()` in `lib.rs` registers of this assignment: your types.
pub fn register(submission: grader_api::Submission) -> grader_api::Submission {
    submission.blackjack::<Hand, Game>()
}

#[derive(Default)]
pub struct Hand {
    cards: Vec<Card>,
}

impl BlackjackHand for Hand {
    /// An empty hand.
    fn new() -> Hand {
        Hand::default()
    }

    /// Adds `card` to the hand. There is no limit on the number of cards or aces.
    fn add(&mut self, card: Card) {
        self.cards.push(card);
    }

    fn cards(&self) -> &[Card] {
        &self.cards
    }

    /// The value of the hand: 2-10 face value, J Q K 10, and aces 11 unless that would take
    /// the hand over 21, in which case only as many aces as needed count 1.
    ///
    /// Count every ace as 11 and count the aces; then, while the total is over 21 and some
    /// ace still counts 11, subtract 10. A+5 is 16; add a 9 and it is 15; add an ace
    /// instead and it is 17 (not 7). 3+A+8 is 12: you cannot decide an ace's value when
    /// you meet it.
    fn value(&self) -> u32 {
        todo!()
    }

    /// True while some ace in the hand still counts 11 (A+5 is a soft 16; A+5+9 is hard).
    fn is_soft(&self) -> bool {
        todo!()
    }
}

pub struct Game;

impl BlackjackGame for Game {
    fn new() -> Game {
        Game
    }

    /// One round, drawing every card with `deck.deal()` (it never runs out):
    /// 1. deal dealer, player, dealer, player (the dealer's first card is face down;
    ///    `player.decide` is told the second, face-up card);
    /// 2. if both hands total 21: push; if only one does, that side wins at once;
    /// 3. while the player's total is 21 or less, ask `player.decide(...)`: hit draws a
    ///    card, stand ends the turn; over 21, the player loses and the dealer draws nothing;
    /// 4. the dealer hits on 16 or less and stands on 17 or more; with
    ///    `rules.dealer_hits_soft_17` it also hits a soft 17;
    /// 5. a dealer over 21 loses; otherwise the higher total wins and equal totals push.
    ///
    /// Return both hands' cards in the order dealt, both totals and the outcome.
    fn play_round(&self, deck: &mut Deck, player: &mut dyn Player, rules: &Rules) -> Round {
        let _ = (deck, player, rules);
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

    /// An ace counts 11 unless that busts the hand: A+5+A is a soft 17.
    #[test]
    fn ace_five_ace_is_a_soft_17() {
        let mut hand = Hand::new();
        for card in ["AH", "5D", "AC"] {
            hand.add(card.parse().unwrap());
        }
        assert_eq!(hand.value(), 17);
        assert!(hand.is_soft());
    }
}
