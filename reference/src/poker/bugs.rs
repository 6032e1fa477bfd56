//! Poker's bugs: each the reference with a few edits, the bug it is, and the tests that
//! must catch it.

use crate::bugs::{Bug, Library};

pub(crate) const WHEEL: &str = "    } else if wheel {\n        Some(5)\n";
/// The edits that leave the wheel unrecognised.
pub(crate) const NO_WHEEL: [(&str, &str); 2] = [(WHEEL, ""), ("let wheel =", "let _wheel =")];
/// The straight flush arm of the reference's category match.
pub(crate) const STRAIGHT_FLUSH: &str = "        (Some(_), true, _) => Category::StraightFlush,\n";
/// The wrap-around straight test students write: five ranks in a row modulo 13.
pub(crate) const WRAPPING: &str = "rules.ace_low_straight\n        && five_distinct\n        && (0..13u32).any(|start| (0..5).all(|k| counts[2 + ((start + k) % 13) as usize] == 1))";
pub(crate) const WHEEL_TEST: &str =
    "rules.ace_low_straight && five_distinct && [14, 2, 3, 4, 5].iter().all(|&r| counts[r] == 1)";
const EVALUATED: &str = "let (category, tiebreak) = evaluate(&cards, rules);";
const RANKS: &str = "let ranks: Vec<u32> = groups.iter().map(|g| g.1).collect();";

/// `Hand::new` keeping the reference's category but a value vector of `vector`, an
/// expression over `category` and `cards`.
fn tiebreak_of(vector: &str) -> String {
    format!(
        "let (category, _) = evaluate(&cards, rules);\n        let tiebreak: Vec<u32> = {vector};"
    )
}

/// The grouped ranks, then `change` applied to the mutable `ranks` for `category`.
fn ranks_changed(category: &str, change: &str) -> String {
    format!(
        "let mut ranks: Vec<u32> = groups.iter().map(|g| g.1).collect();\n    if category == Category::{category} {{\n        {change}\n    }}"
    )
}

pub const LIBRARY: Library = Library {
    assignment: "poker",
    uses: &[],
    bugs,
};

/// DOMAIN.md's Poker bugs, one each.
fn bugs() -> Vec<Bug> {
    vec![
        Bug::new(
            "poker-wheel-not-a-straight",
            "wheel not recognised: A-2-3-4-5 is ace high.",
            &NO_WHEEL,
        )
        .caught_by("category::the_wheel_is_a_straight", &[
            "A♥ 2♣ 3♦ 4♠ 5♥",
            "expected   straight",
            "actual     high card",
        ])
        .caught_by("random_pairs", &[
            "second: 5♦ 2♦ 3♥ A♣ 4♣",
            "5♦ 2♦ 3♥ A♣ 4♣   straight           [5] 5",
            "the categories decide",
        ]),
        Bug::new(
            "poker-wheel-ace-high",
            "wheel ranked as ace-high: its high card 14 instead of 5.",
            &[(WHEEL, "    } else if wheel {\n        Some(14)\n")],
        )
        .caught_by("tiebreak::the_wheels_high_card_is_5", &["A♥ 2♣ 3♦ 4♠ 5♥", "expected   [5, 5]", "actual     [5, 14]"])
        .caught_by("random_pairs", &[
            "first:  2♦ 3♦ A♦ 4♦ 5♥",
            "2♦ 3♦ A♦ 4♦ 5♥   straight           5 [5]",
            "4♥ 5♥ 3♥ 6♥ 7♠   straight           5 [7]",
        ]),
        Bug::new(
            "poker-straight-wraps",
            "K-A-2-3-4 accepted by modulo arithmetic: five ranks in a row modulo 13.",
            &[(WHEEL_TEST, WRAPPING)],
        )
        .caught_by("category::k_a_2_3_4_does_not_wrap", &[
            "K♥ A♣ 2♦ 3♠ 4♥",
            "expected   high card",
            "actual     straight",
        ])
        .caught_by("random_pairs", &[
            "first:  A♦ K♠ 2♣ 4♠ 3♣",
            "A♦ K♠ 2♣ 4♠ 3♣   high card          [1] 14 13 4 3 2",
        ]),
        Bug::new(
            "poker-ties-by-category-only",
            "ties decided by category only: the value vector is just the category.",
            &[(EVALUATED, &tiebreak_of("vec![category.number()]"))],
        )
        .caught_by("compare::full_house_by_its_triple", &[
            "expected   Less",
            "actual     Equal",
            "3♥ 3♣ 3♦ K♠ K♥   full house         7 [3] 13",
            "4♥ 4♣ 4♦ 2♠ 2♥   full house         7 [4] 2",
            "cell 1 of the vectors decides",
        ])
        .caught_by("random_pairs", &[
            "first.compare(second): expected Less but got Equal",
            "9♠ Q♣ A♣ 7♥ 2♣   high card          1 14 [12] 9 7 2",
            "9♣ 6♦ A♦ K♥ 3♠   high card          1 14 [13] 9 6 3",
        ]),
        Bug::new(
            "poker-ties-by-highest-card-only",
            "ties decided by the highest card only.",
            &[(
                EVALUATED,
                &tiebreak_of(
                    "vec![\n            category.number(),\n            cards.iter().map(|c| u32::from(c.value())).max().unwrap_or(0),\n        ]",
                ),
            )],
        )
        .caught_by("compare::two_pairs_by_the_high_pair", &[
            "expected   Greater",
            "actual     Less",
            "K♥ K♣ 2♦ 2♠ 3♥   two pairs          3 [13] 2 3",
            "Q♥ Q♣ J♦ J♠ A♥   two pairs          3 [12] 11 14",
        ])
        .caught_by("random_pairs", &[
            "4♣ 9♣ 2♥ 2♣ K♦   one pair           2 [2] 13 9 4",
            "7♠ 3♠ J♠ K♥ 3♦   one pair           2 [3] 13 11 7",
        ]),
        Bug::new(
            "poker-full-house-by-its-pair",
            "full house compared by its pair before its triple.",
            &[(RANKS, &ranks_changed("FullHouse", "ranks.reverse();"))],
        )
        .caught_by("tiebreak::full_house_is_its_triple_then_its_pair", &[
            "3♥ 3♣ 3♦ K♠ K♥",
            "expected   [7, 3, 13]",
            "actual     [7, 13, 3]",
        ])
        .caught_by("random_pairs", &[
            "6♥ 6♣ 6♦ K♣ K♠   full house         7 [6] 13",
            "8♠ 8♦ 8♥ 2♦ 2♣   full house         7 [8] 2",
        ]),
        Bug::new(
            "poker-two-pairs-without-the-low-pair",
            "two pair ignoring the second pair: the high pair, then the kicker.",
            &[(RANKS, &ranks_changed("TwoPair", "ranks.remove(1);"))],
        )
        .caught_by("compare::two_pairs_by_the_low_pair", &[
            "expected   Greater",
            "actual     Less",
            "two pairs          3 13 [5] 2",
            "two pairs          3 13 [4] 14",
        ])
        .caught_by("random_pairs", &[
            "A♣ Q♦ 4♠ A♥ Q♣   two pairs          3 14 [12] 4",
            "3♦ A♥ 6♣ 3♠ A♦   two pairs          3 14 [3] 6",
        ]),
        Bug::new(
            "poker-two-pairs-without-the-kicker",
            "two pair ignoring the kicker: both pairs only.",
            &[(RANKS, &ranks_changed("TwoPair", "ranks.truncate(2);"))],
        )
        .caught_by("compare::two_pairs_by_the_kicker", &[
            "expected   Less",
            "actual     Equal",
            "two pairs          3 9 5 [2]",
            "two pairs          3 9 5 [3]",
            "cell 3 of the vectors decides",
        ])
        .caught_by("every_hand", &[
            "category()  right on every input",
            "tiebreak(): expected [3, 10, 2, 11] but got [3, 10, 2]",
        ]),
        Bug::new(
            "poker-ranks-not-grouped",
            "sorted ranks compared without grouping by count: the category, then all five ranks high to low.",
            &[(
                RANKS,
                "let mut ranks: Vec<u32> = cards.iter().map(|c| u32::from(c.value())).collect();\n    ranks.sort_unstable_by(|a, b| b.cmp(a));",
            )],
        )
        .caught_by("tiebreak::two_pairs_high_pair_low_pair_kicker", &[
            "5♥ 5♣ 9♦ 9♠ A♥",
            "expected   [3, 9, 5, 14]",
            "actual     [3, 14, 9, 9, 5, 5]",
        ])
        .caught_by("random_pairs", &[
            "10♦ 7♦ 4♥ 10♠ A♠ one pair           2 [10] 14 7 4",
            "J♥ 8♥ 5♠ J♣ 2♣   one pair           2 [11] 8 5 2",
        ]),
        Bug::new(
            "poker-straight-flush-is-a-flush",
            "straight flush seen as a flush.",
            &[(STRAIGHT_FLUSH, "")],
        )
        .caught_by("category::royal_flush", &[
            "10♠ J♠ Q♠ K♠ A♠",
            "expected   straight flush",
            "actual     flush",
        ])
        .caught_by("every_hand", &[
            "category(): expected straight flush but got flush  ×40",
            "tiebreak(): expected [9, 5] but got [6, 14, 5, 4, 3, 2]",
        ]),
        Bug::new(
            "poker-any-ace-follows",
            "a straight test that takes any ace after the lowest card for the next rank (public code has it): 9-10-J-Q-A and 2-3-4-A-A pass as straights.",
            &[(
                "if five_distinct && high - low == 4 {",
                "if {\n        let mut values: Vec<u32> = cards.iter().map(|c| u32::from(c.value())).collect();\n        values.sort_unstable();\n        values.windows(2).all(|w| w[1] == w[0] + 1 || w[1] == 14)\n    } {",
            )],
        )
        .caught_by("category::9_10_j_q_a_is_ace_high", &[
            "9♣ 10♦ J♥ Q♠ A♣",
            "expected   high card",
            "actual     straight",
        ])
        .caught_by("category::2_3_4_a_a_is_one_pair", &[
            "expected   one pair",
            "actual     straight",
        ])
        .caught_by("category::3_4_5_6_a_suited_is_a_flush", &[
            "expected   flush",
            "actual     straight flush",
        ])
        .caught_by("random_pairs", &["first:  9♠ 10♥ A♥ 8♠ J♣", "high card          1 14 [11] 10 9 8"]),
    ]
}
