//! The reference poker hand: seed 002's value vector, under standard or seed 004 rules.

use grader_api::Card;
use grader_api::poker::{Category, PokerHand, PokerRules, Ties, suit_number};

/// What `submission()` registers of this assignment: the reference's types.
pub fn register(submission: grader_api::Submission) -> grader_api::Submission {
    submission.poker::<Hand>()
}

pub struct Hand {
    cards: Vec<Card>,
    category: Category,
    tiebreak: Vec<u32>,
}

impl PokerHand for Hand {
    fn new(cards: Vec<Card>, rules: PokerRules) -> Hand {
        let (category, tiebreak) = evaluate(&cards, rules);
        Hand {
            cards,
            category,
            tiebreak,
        }
    }

    fn cards(&self) -> &[Card] {
        &self.cards
    }

    fn category(&self) -> Category {
        self.category
    }

    fn tiebreak(&self) -> Vec<u32> {
        self.tiebreak.clone()
    }
}

fn evaluate(cards: &[Card], rules: PokerRules) -> (Category, Vec<u32>) {
    let mut counts = [0u32; 15];
    for card in cards {
        counts[usize::from(card.value())] += 1;
    }
    // (count, rank), the biggest group first and higher ranks first within a size.
    let mut groups: Vec<(u32, u32)> = (2..=14u32)
        .filter(|&rank| counts[rank as usize] > 0)
        .map(|rank| (counts[rank as usize], rank))
        .collect();
    groups.sort_by(|a, b| b.cmp(a));
    let five_distinct = cards.len() == 5 && groups.len() == 5;
    let flush = cards.len() == 5 && cards.iter().all(|c| c.suit() == cards[0].suit());
    let (high, low) = (
        groups.first().map_or(0, |g| g.1),
        groups.last().map_or(0, |g| g.1),
    );
    let wheel =
        rules.ace_low_straight && five_distinct && [14, 2, 3, 4, 5].iter().all(|&r| counts[r] == 1);
    let straight_top = if five_distinct && high - low == 4 {
        Some(high)
    } else if wheel {
        Some(5)
    } else {
        None
    };
    let shape: Vec<u32> = groups.iter().map(|g| g.0).collect();
    let category = match (straight_top, flush, shape.as_slice()) {
        (Some(_), true, _) => Category::StraightFlush,
        (_, _, [4, ..]) => Category::FourOfAKind,
        (_, _, [3, 2]) => Category::FullHouse,
        (_, true, _) => Category::Flush,
        (Some(_), false, _) => Category::Straight,
        (_, _, [3, ..]) => Category::ThreeOfAKind,
        (_, _, [2, 2, ..]) => Category::TwoPair,
        (_, _, [2, ..]) => Category::OnePair,
        _ => Category::HighCard,
    };
    let ranks: Vec<u32> = groups.iter().map(|g| g.1).collect();
    let mut vector = vec![category.number()];
    match rules.ties {
        Ties::Standard => match straight_top {
            Some(top) if matches!(category, Category::Straight | Category::StraightFlush) => {
                vector.push(top)
            }
            _ => vector.extend(ranks),
        },
        Ties::Draw1572 => match category {
            Category::HighCard | Category::Flush | Category::Straight | Category::StraightFlush => {
                let top = straight_top
                    .filter(|_| matches!(category, Category::Straight | Category::StraightFlush))
                    .unwrap_or(high);
                // In a wheel the ace is low: the top card is the five.
                let top_card = cards
                    .iter()
                    .filter(|c| u32::from(c.value()) == top)
                    .max_by_key(|c| c.suit());
                vector.push(top);
                vector.extend(top_card.map(|c| suit_number(c.suit())));
            }
            _ => vector.push(ranks.first().copied().unwrap_or(0)),
        },
    }
    (category, vector)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    use grader_api::HandSource;

    const STANDARD: PokerRules = PokerRules {
        ties: Ties::Standard,
        ace_low_straight: true,
    };
    const DRAW: PokerRules = PokerRules {
        ties: Ties::Draw1572,
        ace_low_straight: true,
    };

    fn hand(text: &str, rules: PokerRules) -> Hand {
        Hand::new(
            text.split_whitespace()
                .map(|c| c.parse().unwrap())
                .collect(),
            rules,
        )
    }

    #[test]
    fn every_category_count_and_the_7462_distinct_values_over_all_hands() {
        let mut counts: HashMap<Category, u64> = HashMap::new();
        let mut values: HashMap<Category, HashSet<Vec<u32>>> = HashMap::new();
        HandSource::Exhaustive {
            hand_size: 5,
            shuffled: false,
        }
        .for_each_hand(|cards| {
            let (category, vector) = evaluate(&cards, STANDARD);
            *counts.entry(category).or_default() += 1;
            values.entry(category).or_default().insert(vector);
            true
        });
        let expected = [
            (Category::StraightFlush, 40, 10),
            (Category::FourOfAKind, 624, 156),
            (Category::FullHouse, 3_744, 156),
            (Category::Flush, 5_108, 1_277),
            (Category::Straight, 10_200, 10),
            (Category::ThreeOfAKind, 54_912, 858),
            (Category::TwoPair, 123_552, 858),
            (Category::OnePair, 1_098_240, 2_860),
            (Category::HighCard, 1_302_540, 1_277),
        ];
        for (category, hands, distinct) in expected {
            assert_eq!(counts[&category], hands, "{category}");
            assert_eq!(values[&category].len(), distinct, "{category}");
        }
        assert_eq!(values.values().map(HashSet::len).sum::<usize>(), 7_462);
    }

    #[test]
    fn the_wheel_is_the_lowest_straight_and_wrapping_is_not_a_straight() {
        let wheel = hand("AH 2C 3D 4S 5H", STANDARD);
        assert_eq!(
            (wheel.category(), wheel.tiebreak()),
            (Category::Straight, vec![5, 5])
        );
        assert!(wheel.compare(&hand("2H 3C 4D 5S 6H", STANDARD)).is_lt());
        assert_eq!(
            hand("KH AC 2D 3S 4H", STANDARD).category(),
            Category::HighCard
        );
        let no_wheel = PokerRules {
            ace_low_straight: false,
            ..STANDARD
        };
        assert_eq!(
            hand("AH 2C 3D 4S 5H", no_wheel).category(),
            Category::HighCard
        );
    }

    #[test]
    fn standard_ties_group_by_count_then_rank() {
        assert_eq!(hand("3H 3C 3D KS KH", STANDARD).tiebreak(), vec![7, 3, 13]);
        assert!(
            hand("3H 3C 3D KS KH", STANDARD)
                .compare(&hand("4H 4C 4D 2S 2H", STANDARD))
                .is_lt()
        );
        assert_eq!(
            hand("9H 9C 5D 5S AH", STANDARD).tiebreak(),
            vec![3, 9, 5, 14]
        );
        assert!(
            hand("9H 9C 5D 5S 2H", STANDARD)
                .compare(&hand("9D 9S 5H 5C 3H", STANDARD))
                .is_lt()
        );
        assert_eq!(
            hand("2S 3S 4S 5S 6S", STANDARD).category(),
            Category::StraightFlush
        );
    }

    #[test]
    fn draw_1572_ties_use_the_top_card_and_its_suit() {
        let clubs = hand("AC 9D 7H 5S 3C", DRAW);
        let spades = hand("AS 8D 6H 4C 2C", DRAW);
        assert_eq!(clubs.tiebreak(), vec![1, 14, 1]);
        assert!(clubs.compare(&spades).is_lt());
        assert_eq!(hand("KH KC 9D 9S AH", DRAW).tiebreak(), vec![3, 13]);
        assert!(
            hand("7H 7C 2D 3S 4H", DRAW)
                .compare(&hand("7D 7S AD KS QH", DRAW))
                .is_eq()
        );
        assert_eq!(hand("AH 2C 3D 4S 5H", DRAW).tiebreak(), vec![5, 5, 3]);
    }
}

/// Bugs students write, as edits of this module: what `grader spec audit` grades specs
/// against.
pub mod bugs;
