//! The reference Plaisante hand: the seed's rules exactly (ace high only, no straight flush).

use grader_api::Card;
use grader_api::plaisante_hand::{COUNTS_LEN, PlaisanteHand};

/// What `submission()` registers of this assignment: the reference's types.
pub fn register(submission: grader_api::Submission) -> grader_api::Submission {
    submission.plaisante_hand::<Hand>()
}

pub struct Hand {
    cards: Vec<Card>,
}

impl Hand {
    fn has_value_count(&self, wanted: u32) -> bool {
        self.count_values().contains(&wanted)
    }
}

impl PlaisanteHand for Hand {
    fn new(cards: Vec<Card>) -> Hand {
        Hand { cards }
    }

    fn cards(&self) -> &[Card] {
        &self.cards
    }

    fn count_values(&self) -> Vec<u32> {
        let mut counts = vec![0; COUNTS_LEN];
        for card in &self.cards {
            counts[usize::from(card.value())] += 1;
        }
        counts
    }

    fn has_pair(&self) -> bool {
        self.has_value_count(2)
    }

    fn has_two_pair(&self) -> bool {
        self.count_values()
            .iter()
            .filter(|&&count| count == 2)
            .count()
            == 2
    }

    fn has_three_of_a_kind(&self) -> bool {
        self.has_value_count(3)
    }

    fn has_four_of_a_kind(&self) -> bool {
        self.has_value_count(4)
    }

    fn has_full_house(&self) -> bool {
        self.has_three_of_a_kind() && self.has_pair()
    }

    fn has_flush(&self) -> bool {
        self.cards.len() == 5
            && self
                .cards
                .iter()
                .all(|card| card.suit() == self.cards[0].suit())
    }

    fn has_straight(&self) -> bool {
        self.cards.len() == 5
            && self.highest_value() - self.lowest_value() == 4
            && self.count_values().iter().all(|&count| count <= 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use grader_api::plaisante_hand::{HandName, Multipliers};

    fn hand(cards: &[&str]) -> Hand {
        Hand::new(cards.iter().map(|c| c.parse().unwrap()).collect())
    }

    #[test]
    fn each_check_counts_exactly() {
        let (three_kings, four_sevens) = (
            hand(&["KH", "KD", "KC", "7S", "9H"]),
            hand(&["7H", "7D", "7C", "7S", "9H"]),
        );
        assert!(!three_kings.has_pair());
        assert!(!three_kings.has_full_house());
        assert!(!four_sevens.has_three_of_a_kind());
        assert!(!hand(&["KH", "KD", "KC", "7S", "7H"]).has_two_pair());
    }

    #[test]
    fn evaluate_names_the_best_hand_in_the_seeds_order() {
        assert_eq!(
            hand(&["KH", "KD", "KC", "7S", "7H"]).evaluate(),
            HandName::FullHouse
        );
        assert_eq!(
            hand(&["KH", "KD", "7C", "7S", "9H"]).evaluate(),
            HandName::TwoPair
        );
        // No straight flush in the seed: a flush is checked first.
        assert_eq!(
            hand(&["2H", "3H", "4H", "5H", "6H"]).evaluate(),
            HandName::Flush
        );
    }

    #[test]
    fn counting_twice_counts_the_same() {
        let h = hand(&["KH", "KD", "3C", "7S", "AH"]);
        let first = h.count_values();
        assert_eq!(h.count_values(), first);
        assert_eq!(first[14], 1);
    }

    #[test]
    fn a_straight_takes_the_straights_multiplier() {
        let straight = hand(&["5H", "6C", "7D", "8S", "9H"]);
        assert_eq!(straight.base_mult(&Multipliers::default()), 5);
        assert!(!hand(&["5H", "5D", "6C", "7S", "9H"]).has_straight());
    }

    #[test]
    fn the_seeds_worked_example() {
        let h = hand(&["KH", "KD", "3C", "7S", "9H"]);
        let counts = h.count_values();
        assert_eq!(counts.len(), 15);
        assert_eq!(counts[13], 2);
        assert_eq!(counts[3], 1);
        assert_eq!(counts[4], 0);
        assert_eq!(h.evaluate(), HandName::Pair);
        assert_eq!(h.total_value(), 45);
        assert_eq!(h.score(&Multipliers::default()), 90);
    }

    #[test]
    fn a_spec_table_sets_the_multiplier_and_the_score() {
        let two_pair = hand(&["KH", "KD", "7C", "7S", "9H"]);
        let table = Multipliers::new([1, 3, 5, 7, 9, 11, 13, 15]);
        assert_eq!(two_pair.base_mult(&table), 5);
        assert_eq!(two_pair.score(&table), 49 * 5);
        assert_eq!(two_pair.score(&Multipliers::default()), 49 * 3);
    }

    #[test]
    fn the_seeds_flush_and_straight_tests() {
        let five = hand(&["2H", "3H", "4H", "5H", "6H"]);
        assert!(five.has_flush() && five.has_straight());
        let four = hand(&["2H", "3H", "4H", "5H"]);
        assert!(!four.has_flush() && !four.has_straight());
        // Four cards spanning five values, as a straight of five would.
        assert!(!hand(&["5H", "6C", "7D", "9S"]).has_straight());
        assert!(!hand(&["AH", "2C", "3D", "4S", "5H"]).has_straight());
    }
}

/// Bugs students write, as edits of this module: what `grader spec audit` grades specs
/// against.
pub mod bugs;
