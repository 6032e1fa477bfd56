//! The Plaisante hand's bugs: each the reference with a few edits, the bug it is, and the
//! tests that must catch it.

use crate::bugs::{Bug, Library};

pub const HAS_PAIR: &str = "fn has_pair(&self) -> bool {\n        self.has_value_count(2)";
const HAS_THREE: &str = "fn has_three_of_a_kind(&self) -> bool {\n        self.has_value_count(3)";
const NO_REPEATS: &str = "\n            && self.count_values().iter().all(|&count| count <= 1)";
pub const COUNTING: &str = "let mut counts = vec![0; COUNTS_LEN];";
pub const BEFORE_STRAIGHT: &str = "    fn has_straight(&self) -> bool {\n";

/// An `evaluate` override checking in the given order, then the reference's `has_straight`.
fn evaluate_in(order: &[(&str, &str)]) -> String {
    let mut body = String::from("    fn evaluate(&self) -> grader_api::HandName {\n");
    for (check, name) in order {
        body.push_str(&format!("        if self.{check}() {{\n            return grader_api::HandName::{name};\n        }}\n"));
    }
    body.push_str("        grader_api::HandName::HighCard\n    }\n\n");
    body + BEFORE_STRAIGHT
}

/// A `base_mult` override with the multipliers written in as numbers, ignoring the table
/// the grader passes, then the reference's `has_straight`.
fn base_mult_written_in(by_hand: &[(&str, u32)]) -> String {
    let mut body = String::from(
        "    fn base_mult(&self, _multipliers: &grader_api::Multipliers) -> u32 {\n        match self.evaluate() {\n",
    );
    for (name, multiplier) in by_hand {
        body.push_str(&format!(
            "            grader_api::HandName::{name} => {multiplier},\n"
        ));
    }
    body.push_str("        }\n    }\n\n");
    body + BEFORE_STRAIGHT
}

pub const LIBRARY: Library = Library {
    assignment: "plaisante_hand",
    uses: &[],
    bugs,
};

fn bugs() -> Vec<Bug> {
    let seed_multipliers = [
        ("HighCard", 1),
        ("Pair", 2),
        ("TwoPair", 3),
        ("ThreeOfAKind", 4),
        ("Straight", 5),
        ("Flush", 6),
        ("FullHouse", 7),
        ("FourOfAKind", 8),
    ];
    let mut straight_and_flush_swapped = seed_multipliers;
    straight_and_flush_swapped[4].1 = seed_multipliers[5].1;
    straight_and_flush_swapped[5].1 = seed_multipliers[4].1;

    let seed_order = [
        ("has_four_of_a_kind", "FourOfAKind"),
        ("has_full_house", "FullHouse"),
        ("has_flush", "Flush"),
        ("has_straight", "Straight"),
        ("has_three_of_a_kind", "ThreeOfAKind"),
        ("has_two_pair", "TwoPair"),
        ("has_pair", "Pair"),
    ];
    let swapped = |a: usize, b: usize| {
        let mut order = seed_order;
        order.swap(a, b);
        evaluate_in(&order)
    };
    vec![
        Bug::new(
            "bug-pair-at-least-two",
            "has_pair as count >= 2.",
            &[(
                HAS_PAIR,
                "fn has_pair(&self) -> bool {\n        self.count_values().iter().any(|&count| count >= 2)",
            )],
        )
        .caught_by("has_pair::three_kings_is_not_a_pair", &["expected   false", "actual     true", "K♥ K♦ K♣ 7♠ 9♥"])
        .caught_by("10_000_hands_from_a_seed", &[
            "10♥ 10♠ 8♣ 10♣ 9♣   (5 cards)",
            "has_pair(): expected false but got true",
        ]),
        Bug::new(
            "bug-three-at-least-three",
            "has_three_of_a_kind as count >= 3.",
            &[(
                HAS_THREE,
                "fn has_three_of_a_kind(&self) -> bool {\n        self.count_values().iter().any(|&count| count >= 3)",
            )],
        )
        .caught_by("has_three_of_a_kind::four_kings_is_not_three_of_a_kind", &["expected   false", "actual     true"])
        .caught_by("10_000_hands_from_a_seed", &[
            "9♠ 9♥ 9♦ 9♣ 8♥   (5 cards)",
            "has_three_of_a_kind(): expected false but got true",
        ]),
        Bug::new(
            "bug-full-house-loose-pair",
            "full house as three && some count >= 2.",
            &[(
                "self.has_three_of_a_kind() && self.has_pair()",
                "self.has_three_of_a_kind() && self.count_values().iter().any(|&count| count >= 2)",
            )],
        )
        .caught_by("has_full_house::three_kings_and_two_odd_cards", &["expected   false", "actual     true"])
        .caught_by("10_000_hands_from_a_seed", &[
            "10♥ 10♠ 8♣ 10♣ 9♣   (5 cards)",
            "has_full_house(): expected false but got true",
            "evaluate(): expected Three of a Kind but got Full House",
        ]),
        Bug::new(
            "bug-two-pair-counts-at-least-two",
            "two pair counts values with count >= 2.",
            &[(
                ".filter(|&&count| count == 2)",
                ".filter(|&&count| count >= 2)",
            )],
        )
        .caught_by("has_two_pair::a_full_house_is_not_two_pair", &["expected   false", "actual     true"])
        .caught_by("10_000_hands_from_a_seed", &[
            "A♣ J♥ A♠ J♦ J♠   (5 cards)",
            "has_two_pair(): expected false but got true",
        ]),
        Bug::new(
            "bug-straight-repeats",
            "straight without the no-repeats check.",
            &[(NO_REPEATS, "")],
        )
        .caught_by("has_straight::5_5_6_7_9_spans_four_but_repeats", &["expected   false", "actual     true"])
        .caught_by("10_000_hands_from_a_seed", &[
            "4♠ 7♠ 4♥ 6♦ 3♠   (5 cards)",
            "has_straight(): expected false but got true",
            "evaluate(): expected Pair but got Straight",
        ]),
        Bug::new(
            "bug-straight-ace-low",
            "straight accepting A-2-3-4-5.",
            &[(
                NO_REPEATS,
                "\n            && self.count_values().iter().all(|&count| count <= 1)\n            || self.cards.len() == 5 && [14, 2, 3, 4, 5].iter().all(|&v| self.count_values()[v] == 1)",
            )],
        )
        .caught_by("has_straight::a_2_3_4_5_is_not_a_straight_here", &["expected   false", "actual     true"])
        .caught_by("10_000_hands_from_a_seed", &[
            "5♠ 2♠ 4♠ 3♦ A♥   (5 cards)",
            "has_straight(): expected false but got true",
            "evaluate(): expected High Card but got Straight",
        ]),
        Bug::new(
            "bug-evaluate-order",
            "evaluate checks three of a kind before full house.",
            &[(BEFORE_STRAIGHT, &swapped(1, 4))],
        )
        .caught_by("evaluate_order::a_full_house_is_also_three_of_a_kind_and_a_pair", &["expected   Full House", "actual     Three of a Kind"])
        .caught_by("10_000_hands_from_a_seed", &[
            "A♣ J♥ A♠ J♦ J♠   (5 cards)",
            "evaluate(): expected Full House but got Three of a Kind",
        ]),
        Bug::new(
            "bug-evaluate-pair-before-two-pair",
            "evaluate checks pair before two pair.",
            &[(BEFORE_STRAIGHT, &swapped(5, 6))],
        )
        .caught_by("evaluate_order::two_pair_before_pair", &["K♥ K♦ 7♣ 7♠ 9♥", "expected   Two Pair", "actual     Pair"])
        .caught_by("10_000_hands_from_a_seed", &["5♦ Q♦ J♥ J♦ 5♠   (5 cards)", "evaluate(): expected Two Pair but got Pair"]),
        Bug::new(
            "bug-straight-before-flush",
            "evaluate checks straight before flush.",
            &[(BEFORE_STRAIGHT, &swapped(2, 3))],
        )
        .caught_by("evaluate_order::2_6_of_hearts_is_a_flush_before_a_straight", &["expected   Flush", "actual     Straight"])
        .caught_by("every_hand", &["evaluate(): expected Flush but got Straight  ×36"]),
        Bug::new(
            "bug-counts-fourteen",
            "a counts array of 14 cells, aces left out.",
            &[
                (COUNTING, "let mut counts = vec![0; COUNTS_LEN - 1];"),
                (
                    "counts[usize::from(card.value())] += 1;",
                    "if card.value() < 14 {\n                counts[usize::from(card.value())] += 1;\n            }",
                ),
            ],
        )
        .caught_by("count_values::k_k_3_7_9_has_15_cells", &["length 14 where 15 was expected", "- expected cell 14 = 0"])
        .caught_by("10_000_hands_from_a_seed", &[
            "7♣ 9♣ 6♠ A♥ Q♥   (5 cards)",
            "length 14 where 15 was expected",
            "has_pair(): expected true but got false",
        ]),
        Bug::new(
            "bug-counts-thirteen",
            "a counts array of 13 cells indexed by value: a king or an ace is out of bounds.",
            &[(COUNTING, "let mut counts = vec![0; COUNTS_LEN - 2];")],
        )
        .caught_by("count_values::k_k_3_7_9_has_15_cells", &["K♥ K♦ 3♣ 7♠ 9♥", "index out of bounds: the len is 13 but the index is 13"])
        // Grading stops mid-hand after a thousand panics; that hand counts, so the tallies
        // agree with the count by check.
        .caught_by("10_000_hands_from_a_seed", &["7♣ 9♣ 6♠ A♥ Q♥   (5 cards)", "index out of bounds: the len is 13 but the index is 14", "length 13 where 15 was expected", "wrong      206 of 206 answered wrongly", "count_values()  wrong on 206"]),
        Bug::new(
            "bug-counts-never-reset",
            "counts kept in a field and never reset.",
            &[
                (
                    "    cards: Vec<Card>,\n}",
                    "    cards: Vec<Card>,\n    counts: std::cell::RefCell<Vec<u32>>,\n}",
                ),
                (
                    "Hand { cards }",
                    "Hand {\n            cards,\n            counts: std::cell::RefCell::new(vec![0; COUNTS_LEN]),\n        }",
                ),
                (COUNTING, "let mut counts = self.counts.borrow_mut();"),
                (
                    "        }\n        counts\n",
                    "        }\n        counts.clone()\n",
                ),
            ],
        )
        .caught_by("has_full_house::kings_full_of_sevens", &["expected   true", "actual     false"])
        .caught_by("10_000_hands_from_a_seed", &[
            "7♣ 9♣ 6♠ A♥ Q♥   (5 cards)",
            "has_pair(): expected false but got true",
            "evaluate(): expected Pair but got High Card",
        ]),
        Bug::new(
            "bug-flush-four-cards",
            "flush true with fewer than 5 cards.",
            &[(
                "        self.cards.len() == 5\n            && self\n",
                "        !self.cards.is_empty()\n            && self\n",
            )],
        )
        .caught_by("has_flush::four_hearts_are_not_a_flush", &["expected   false", "actual     true", "(4 cards)"])
        .caught_by("hands_of_one_to_four_cards", &[
            "has_flush(): expected false but got true",
            "evaluate(): expected High Card but got Flush",
        ]),
        Bug::new(
            "bug-straight-four-cards",
            "straight true with fewer than 5 cards.",
            &[(
                "        self.cards.len() == 5\n            && self.highest_value() - self.lowest_value() == 4",
                "        !self.cards.is_empty()\n            && self.highest_value() - self.lowest_value() == 4",
            )],
        )
        .caught_by("has_straight::5_6_7_9_spans_four_but_is_four_cards", &["expected   false", "actual     true", "(4 cards)"])
        .caught_by("hands_of_one_to_four_cards", &[
            "has_straight(): expected false but got true",
            "evaluate(): expected High Card but got Straight",
        ]),
        Bug::new(
            "bug-score-adds",
            "score adds the multiplier instead of multiplying.",
            &[(
                BEFORE_STRAIGHT,
                &format!(
                    "    fn score(&self, multipliers: &grader_api::Multipliers) -> u32 {{\n        self.total_value() + self.base_mult(multipliers)\n    }}\n\n{BEFORE_STRAIGHT}"
                ),
            )],
        )
        .caught_by("total_value_and_score::k_k_3_7_9_scores_90", &["expected   90", "actual     47"])
        .caught_by("10_000_hands_from_a_seed", &[
            "A♣ 4♦ 2♦ A♠ 5♠   (5 cards)",
            "expected   78",
            "actual     41",
        ]),
        Bug::new(
            "bug-multipliers-written-in",
            "base_mult writes the seed's multipliers in as numbers, ignoring the table it is given.",
            &[(BEFORE_STRAIGHT, &base_mult_written_in(&seed_multipliers))],
        )
        .caught_by(
            "a_courses_own_multipliers::a_pair_multiplies_by_3_here",
            &["expected   3", "actual     2", "Pair: total_value 45 x base_mult 3 = score 135", "multipliers: High Card x1, Pair x3, Two Pair x5"],
        )
        .caught_by("a_courses_own_multipliers::k_k_3_7_9_scores_135_here", &[
            "check      score()",
            "expected   135",
            "actual     90",
        ]),
        Bug::new(
            "bug-multipliers-straight-and-flush-swapped",
            "base_mult gives a straight the flush's multiplier and a flush the straight's.",
            &[(BEFORE_STRAIGHT, &base_mult_written_in(&straight_and_flush_swapped))],
        )
        .caught_by("10_000_hands_from_a_seed", &["score(): expected 250 but got 300", "example 1 of a wrong answer"])
        .caught_by("a_courses_own_multipliers::a_straight_multiplies_by_9_here", &[
            "5♣ 6♦ 7♥ 8♠ 9♣",
            "expected   9",
            "actual     6",
        ]),
    ]
}
