//! The reference five-card draw game.

use std::collections::HashMap;

use grader_api::draw_poker::{DiscardError, DrawGame, check_positions};
use grader_api::{Card, Deck};

/// What `submission()` registers of this assignment: the reference's types.
pub fn register(submission: grader_api::Submission) -> grader_api::Submission {
    submission.draw_poker::<Game, crate::poker::Hand>()
}

pub struct Game;

impl DrawGame for Game {
    fn new() -> Game {
        Game
    }

    fn discard_and_draw(
        &self,
        hand: &mut [Card],
        positions: &[u32],
        deck: &mut Deck,
    ) -> Result<(), DiscardError> {
        check_positions(positions)?;
        if let Some(&beyond) = positions.iter().find(|&&p| p as usize > hand.len()) {
            return Err(DiscardError::OutOfRange(beyond));
        }
        for &position in positions {
            hand[position as usize - 1] = deck.deal();
        }
        Ok(())
    }

    /// Keeps every card that is part of a pair or better, and any five-card hand that is
    /// already a straight or flush; otherwise discards up to three of the lowest single cards.
    fn dealer_discards(&self, hand: &[Card]) -> Vec<u32> {
        let mut counts: HashMap<u8, usize> = HashMap::new();
        for card in hand {
            *counts.entry(card.value()).or_default() += 1;
        }
        let flush = hand.len() == 5 && hand.iter().all(|c| c.suit() == hand[0].suit());
        let values: Vec<u8> = hand.iter().map(|c| c.value()).collect();
        let (low, high) = (values.iter().min(), values.iter().max());
        let straight = counts.len() == 5 && matches!((low, high), (Some(l), Some(h)) if h - l == 4);
        if flush || straight {
            return Vec::new();
        }
        let mut singles: Vec<(u8, u32)> = hand
            .iter()
            .zip(1..)
            .filter(|(card, _)| counts[&card.value()] == 1)
            .map(|(card, position)| (card.value(), position))
            .collect();
        singles.sort();
        singles
            .into_iter()
            .take(3)
            .map(|(_, position)| position)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(text: &str) -> Vec<Card> {
        text.split_whitespace()
            .map(|c| c.parse().unwrap())
            .collect()
    }

    #[test]
    fn replacements_come_from_the_top_into_the_slots_in_the_order_typed() {
        let mut hand = cards("2C 3D 4H 5S 7C");
        let mut deck = Deck::stacked(cards("KH QH"));
        Game.discard_and_draw(&mut hand, &[5, 2], &mut deck)
            .unwrap();
        assert_eq!(hand, cards("2C QH 4H 5S KH"));
    }

    #[test]
    fn bad_positions_are_errors_and_leave_the_hand_alone() {
        let original = cards("2C 3D 4H 5S 7C");
        for positions in [&[1, 2, 3, 4][..], &[2, 2], &[0], &[6]] {
            let mut hand = original.clone();
            let mut deck = Deck::standard();
            assert!(
                Game.discard_and_draw(&mut hand, positions, &mut deck)
                    .is_err()
            );
            assert_eq!(hand, original);
        }
    }

    #[test]
    fn the_dealer_keeps_pairs_and_discards_low_singles() {
        assert_eq!(
            Game.dealer_discards(&cards("KH KC 2D 9S 4H")),
            vec![3, 5, 4]
        );
        assert!(Game.dealer_discards(&cards("2H 3H 4H 5H 9H")).is_empty());
        let choice = Game.dealer_discards(&cards("AH 3C 7D 9S JH"));
        assert!(check_positions(&choice).is_ok());
    }
}

/// Five-card draw at the terminal: the reference game against the person at the keyboard.
pub mod terminal;

/// Bugs students write, as edits of this module: what `grader spec audit` grades specs
/// against.
pub mod bugs;
