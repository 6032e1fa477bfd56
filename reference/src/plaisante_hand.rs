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
    use grader_api::HandSource;
    use grader_api::plaisante_hand::{HandName, Multipliers};

    fn hand(cards: &[&str]) -> Hand {
        Hand::new(cards.iter().map(|c| c.parse().unwrap()).collect())
    }

    /// Counts, over all 2,598,960 hands, how often each evaluate() result and each check is true.
    struct Census {
        evaluated: [u64; 8],
        pair: u64,
        two_pair: u64,
        three: u64,
        four: u64,
        full_house: u64,
        flush: u64,
        straight: u64,
        flush_and_straight: u64,
    }

    fn census() -> Census {
        let mut c = Census {
            evaluated: [0; 8],
            pair: 0,
            two_pair: 0,
            three: 0,
            four: 0,
            full_house: 0,
            flush: 0,
            straight: 0,
            flush_and_straight: 0,
        };
        HandSource::Exhaustive {
            hand_size: 5,
            shuffled: false,
        }
        .for_each_hand(|cards| {
            let h = Hand::new(cards);
            c.evaluated[h.evaluate() as usize] += 1;
            c.pair += u64::from(h.has_pair());
            c.two_pair += u64::from(h.has_two_pair());
            c.three += u64::from(h.has_three_of_a_kind());
            c.four += u64::from(h.has_four_of_a_kind());
            c.full_house += u64::from(h.has_full_house());
            c.flush += u64::from(h.has_flush());
            c.straight += u64::from(h.has_straight());
            c.flush_and_straight += u64::from(h.has_flush() && h.has_straight());
            true
        });
        c
    }

    #[test]
    fn evaluate_and_every_check_match_the_exhaustive_counts() {
        let c = census();
        let expected = [
            (HandName::FourOfAKind, 624),
            (HandName::FullHouse, 3_744),
            (HandName::Flush, 5_148),
            (HandName::Straight, 9_180),
            (HandName::ThreeOfAKind, 54_912),
            (HandName::TwoPair, 123_552),
            (HandName::Pair, 1_098_240),
            (HandName::HighCard, 1_303_560),
        ];
        for (name, count) in expected {
            assert_eq!(c.evaluated[name as usize], count, "{name}");
        }
        assert_eq!(c.evaluated.iter().sum::<u64>(), 2_598_960);
        assert_eq!(c.pair, 1_225_536);
        assert_eq!(c.two_pair, 123_552);
        assert_eq!(c.three, 58_656);
        assert_eq!(c.four, 624);
        assert_eq!(c.full_house, 3_744);
        assert_eq!(c.flush, 5_148);
        assert_eq!(c.straight, 9_216);
        assert_eq!(c.flush_and_straight, 36);
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
