//! Five-card draw's buggy submissions: each one edit of the reference, the bug it is, and the test that
//! must catch it.

use super::*;

fn draw(name: &'static str, bug: &'static str, edits: &[(&'static str, &str)]) -> Mutant {
    Mutant::of(Module::DrawPoker, name, bug, edits)
}

const CHECKED: &str = "        check_positions(positions)?;\n        if let Some(&beyond) = positions.iter().find(|&&p| p as usize > hand.len()) {\n            return Err(DiscardError::OutOfRange(beyond));\n        }\n";

const IMPORTS: &str = "use grader_api::draw_poker::{DiscardError, DrawGame, check_positions};";

/// A draw mutant checking the positions itself, as students do, with only the checks asked
/// for: at most 3 positions, none twice, each 1 to 5.
fn checked_by_hand(
    name: &'static str,
    bug: &'static str,
    count: bool,
    repeats: bool,
    range: bool,
) -> Mutant {
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
    draw(
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

/// Seed 004's draw bugs, one each.
pub fn mutants() -> Vec<Mutant> {
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
        ]),
        draw(
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
        ),
        draw(
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
        ]),
        draw(
            "draw-dealer-discards-four",
            "dealer_discards returns up to 4 positions.",
            &[(".take(3)", ".take(4)")],
        )
        .caught_by("the_dealers_discards", &[
            "expected within the rules but got against the rules: 4 positions: at most 3 cards may be discarded",
        ]),
        draw(
            "draw-standard-ties",
            "standard ties used in the draw game: the hand ignores draw_1572.",
            &[("match rules.ties {", "match Ties::Standard {")],
        )
        .caught_by("whole_hands::straights_by_the_suit_of_the_top_card", &[
            "player  5♣ 6♦ 7♥ 8♠ 9♥  straight",
            "dealer  5♦ 6♣ 7♠ 8♥ 9♣  straight",
            "winner  the player",
            "winner  nobody (a tie)",
        ]),
    ]
}
