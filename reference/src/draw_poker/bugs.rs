//! Five-card draw's bugs: each the reference with a few edits, the bug it is, and the tests
//! that must catch it.

use crate::bugs::{Bug, Library};
use crate::poker::bugs::{NO_WHEEL, STRAIGHT_FLUSH, WHEEL_TEST, WRAPPING};

const CHECKED: &str = "        check_positions(positions)?;\n        if let Some(&beyond) = positions.iter().find(|&&p| p as usize > hand.len()) {\n            return Err(DiscardError::OutOfRange(beyond));\n        }\n";

/// The reference's seed 004 tie-break for the categories a group's rank decides.
const GROUP_RANK: &str = "            _ => vector.push(ranks.first().copied().unwrap_or(0)),\n";

/// `GROUP_RANK` with `category`'s vector taken from `rank` instead.
fn group_rank_of(category: &str, rank: &str) -> String {
    format!("            Category::{category} => vector.push({rank}),\n{GROUP_RANK}")
}

const IMPORTS: &str = "use grader_api::draw_poker::{DiscardError, DrawGame, check_positions};";

/// A draw mutant checking the positions itself, as students do, with only the checks asked
/// for: at most 3 positions, none twice, each 1 to 5.
fn checked_by_hand(
    name: &'static str,
    bug: &'static str,
    count: bool,
    repeats: bool,
    range: bool,
) -> Bug {
    let mut body = String::new();
    if count {
        body.push_str("        if positions.len() > 3 {\n            return Err(DiscardError::TooMany(positions.len()));\n        }\n");
    }
    body.push_str(if repeats {
        "        for (index, &position) in positions.iter().enumerate() {\n"
    } else {
        "        for &position in positions {\n"
    });
    if range {
        body.push_str("            if !(1..=5).contains(&position) {\n                return Err(DiscardError::OutOfRange(position));\n            }\n");
    }
    if repeats {
        body.push_str("            if positions[..index].contains(&position) {\n                return Err(DiscardError::Repeated(position));\n            }\n");
    }
    body.push_str("        }\n");
    Bug::new(
        name,
        bug,
        &[
            (
                IMPORTS,
                "use grader_api::draw_poker::{DiscardError, DrawGame};",
            ),
            (CHECKED, &body),
        ],
    )
}

pub const LIBRARY: Library = Library {
    assignment: "draw_poker",
    uses: &["poker"],
    bugs,
};

/// Seed 004's draw bugs, one each.
fn bugs() -> Vec<Bug> {
    vec![
        checked_by_hand(
            "draw-four-discards-accepted",
            "more than 3 positions accepted.",
            false,
            true,
            true,
        )
        .caught_by("refused_discards::four_positions", &[
            "positions: [1, 2, 3, 4]",
            "expected   an error (refused)",
            "actual     K♥ Q♥ J♥ 10♥ 7♣",
        ])
        .caught_by("refused_discards::four_positions_in_another_order", &[
            "positions: [5, 4, 3, 2]",
            "expected   an error (refused)",
            "actual     2♣ 10♥ J♥ Q♥ K♥",
        ]),
        checked_by_hand(
            "draw-repeated-position-accepted",
            "a repeated position accepted: the slot is replaced twice.",
            true,
            false,
            true,
        )
        .caught_by("refused_discards::a_repeated_position", &[
            "positions: [2, 2]",
            "expected   an error (refused)",
            "actual     2♣ Q♥ 4♥ 5♠ 7♣",
        ])
        .caught_by("refused_discards::a_position_repeated_after_another", &[
            "positions: [1, 3, 1]",
            "expected   an error (refused)",
            "actual     J♥ 3♦ Q♥ 5♠ 7♣",
        ]),
        checked_by_hand(
            "draw-position-out-of-range-panics",
            "position 0 or 6 not checked: the hand is indexed out of bounds, a panic instead of an error.",
            true,
            true,
            false,
        )
        .caught_by("refused_discards::position_6", &[
            "positions: [6]",
            "expected   an error (refused)",
            "actual     panicked at src/lib.rs:",
            "index out of bounds: the len is 5 but the index is 5",
        ])
        .caught_by("refused_discards::position_0", &[
            "positions: [0]",
            "expected   an error (refused)",
            "actual     panicked at src/lib.rs:",
        ]),
        Bug::new(
            "draw-refuses-after-replacing",
            "positions checked one by one while replacing: a refused discard has already changed the hand.",
            &[(
                "        check_positions(positions)?;\n        if let Some(&beyond) = positions.iter().find(|&&p| p as usize > hand.len()) {\n            return Err(DiscardError::OutOfRange(beyond));\n        }\n        for &position in positions {\n            hand[position as usize - 1] = deck.deal();\n        }\n",
                "        for (index, &position) in positions.iter().enumerate() {\n            if index >= 3 {\n                return Err(DiscardError::TooMany(positions.len()));\n            }\n            if !(1..=5).contains(&position) {\n                return Err(DiscardError::OutOfRange(position));\n            }\n            if positions[..index].contains(&position) {\n                return Err(DiscardError::Repeated(position));\n            }\n            hand[position as usize - 1] = deck.deal();\n        }\n",
            )],
        )
        .caught_by(
            "refused_discards::a_repeated_position",
            &[
                "positions: [2, 2]",
                "expected   an error (refused)",
                "actual     an error (refused), but the hand was changed first, to 2♣ K♥ 4♥ 5♠ 7♣",
            ],
        )
        .caught_by("refused_discards::position_9_after_a_valid_one", &[
            "positions: [1, 9]",
            "actual     an error (refused), but the hand was changed first, to K♥ 3♦ 4♥ 5♠ 7♣",
        ])
        .caught_by("refused_discards::position_0_after_a_valid_one", &[
            "positions: [3, 0]",
            "actual     an error (refused), but the hand was changed first, to 2♣ 3♦ K♥ 5♠ 7♣",
        ]),
        Bug::new(
            "draw-replacements-in-slot-order",
            "replacements dealt in ascending slot order instead of the order typed.",
            &[(
                "        for &position in positions {\n",
                "        let mut sorted = positions.to_vec();\n        sorted.sort_unstable();\n        for &position in &sorted {\n",
            )],
        )
        .caught_by("discard_and_draw::discard_three_in_the_order_typed", &[
            "positions: [4, 1, 2]",
            "expected   Q♥ J♥ 4♥ K♥ 7♣",
            "actual     K♥ Q♥ 4♥ J♥ 7♣",
        ])
        .caught_by("whole_hands::ace_high_ties_go_to_the_suit_of_the_ace", &[
            "dealer discards: [[5, 4, 3]]",
            "dealer  A♣ K♦ 10♥ 10♦ 10♣  three of a kind",
            "dealer  A♣ K♦ 10♣ 10♦ 10♥  three of a kind",
        ]),
        Bug::new(
            "draw-dealer-discards-four",
            "dealer_discards returns up to 4 positions.",
            &[(".take(3)", ".take(4)")],
        )
        .caught_by("the_dealers_discards", &[
            "expected within the rules but got against the rules: 4 positions: at most 3 cards may be discarded",
        ])
        .caught_by("whole_hands::high_card_against_high_card", &[
            "check      dealer_discards (hand 1)",
            "actual     discard [1, 2, 3, 4], against the rules: 4 positions: at most 3 cards may be discarded",
        ]),
        Bug::new(
            "draw-standard-ties",
            "standard ties used in the draw game: the hand ignores draw_1572.",
            &[("match rules.ties {", "match Ties::Standard {")],
        )
        .caught_by("whole_hands::straights_by_the_suit_of_the_top_card", &[
            "player  5♣ 6♦ 7♥ 8♠ 9♥  straight",
            "dealer  5♦ 6♣ 7♠ 8♥ 9♣  straight",
            "winner  the player",
            "winner  nobody (a tie)",
        ])
        .caught_by("random_pairs", &[
            "first:  4♣ J♣ 8♠ 7♣ A♦",
            "expected   Less",
            "actual     Greater",
            "second  J♦ 6♣ A♠ 5♠ 8♣   high card          1 14 [4]",
        ]),
        Bug::new(
            "draw-wheel-not-a-straight",
            "the wheel not recognised by the draw game's hand: A-2-3-4-5 is ace high.",
            &NO_WHEEL,
        )
        .caught_by("category::the_wheel_is_a_straight", &[
            "A♥ 2♣ 3♦ 4♠ 5♥",
            "expected   straight",
            "actual     high card",
        ])
        .caught_by("random_pairs", &[
            "second: 5♦ 2♦ 3♥ A♣ 4♣",
            "first.compare(second): expected Less but got Greater",
        ]),
        Bug::new(
            "draw-straight-wraps",
            "K-A-2-3-4 taken for a straight by modulo arithmetic.",
            &[(WHEEL_TEST, WRAPPING)],
        )
        .caught_by("category::k_a_2_3_4_does_not_wrap", &[
            "K♥ A♣ 2♦ 3♠ 4♥",
            "expected   high card",
            "actual     straight",
        ])
        .caught_by("random_pairs", &[
            "first:  A♦ K♠ 2♣ 4♠ 3♣",
            "first.compare(second): expected Less but got Greater",
        ]),
        Bug::new(
            "draw-straight-flush-is-a-flush",
            "a straight flush seen as a flush.",
            &[(STRAIGHT_FLUSH, "")],
        )
        .caught_by("category::royal_flush", &[
            "10♠ J♠ Q♠ K♠ A♠",
            "expected   straight flush",
            "actual     flush",
        ])
        .caught_by("compare::straight_flushes_by_the_top_card", &[
            "expected   Less",
            "actual     Greater",
            "A♥ 2♥ 3♥ 4♥ 5♥   straight flush     9 [5] 3",
        ])
        .caught_by("every_hand", &[
            "category(): expected straight flush but got flush  ×40",
            "tiebreak(): expected [9, 10, 1] but got [6, 10, 1]",
        ]),
        Bug::new(
            "draw-hearts-outrank-spades",
            "suits ranked clubs, diamonds, spades, hearts: hearts outrank spades.",
            &[(
                "vector.extend(top_card.map(|c| suit_number(c.suit())));",
                "vector.extend(top_card.map(|c| match c.suit() {\n                    grader_api::Suit::Hearts => 4,\n                    grader_api::Suit::Spades => 3,\n                    suit => suit_number(suit),\n                }));",
            )],
        )
        .caught_by("compare::spades_outrank_hearts", &[
            "expected   Greater",
            "actual     Less",
            "A♠ 9♦ 7♥ 5♠ 3♣   high card          1 14 [4]",
        ])
        .caught_by("random_pairs", &["second: J♠ 3♥ 7♠ 5♥ K♠"]),
        Bug::new(
            "draw-two-pairs-by-the-low-pair",
            "two pairs tie-broken by the low pair.",
            &[(GROUP_RANK, &group_rank_of("TwoPair", "ranks[1]"))],
        )
        .caught_by("tiebreak::two_pairs_is_the_high_pair", &[
            "5♥ 5♣ 9♦ 9♠ A♥",
            "expected   [3, 9]",
            "actual     [3, 5]",
        ])
        .caught_by("random_pairs", &["second: K♦ K♠ 9♥ 5♣ 5♦"]),
        Bug::new(
            "draw-full-house-by-its-pair",
            "a full house tie-broken by its pair.",
            &[(GROUP_RANK, &group_rank_of("FullHouse", "ranks[1]"))],
        )
        .caught_by("compare::full_house_by_its_triple_not_its_pair", &[
            "expected   Less",
            "actual     Greater",
            "3♥ 3♣ 3♦ K♠ K♥   full house         7 [3]",
        ])
        .caught_by("random_pairs", &["second: 8♠ 8♦ 8♥ 2♦ 2♣"]),
    ]
}
