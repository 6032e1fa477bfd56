//! The tableau's bugs: each the reference with a few edits, the bug it is, and the tests
//! that must catch it.

use crate::bugs::{Bug, Library};

const TOGGLE: &str = "    fn toggle_selection(&mut self, card: Card) {\n";
const DESELECT: &str = "self.selected.remove(position);";
const PLAY_LOOP: &str = "for card in self.selected.drain(..) {";

pub const LIBRARY: Library = Library {
    assignment: "tableau",
    uses: &[],
    bugs,
};

/// DOMAIN.md's Tableau bugs, and others students write, one each.
fn bugs() -> Vec<Bug> {
    vec![
        Bug::new(
            "tableau-sixth-card-selectable",
            "a sixth card selectable: the limit checked with <=.",
            &[(
                "self.selected.len() < MAX_SELECTED",
                "self.selected.len() <= MAX_SELECTED",
            )],
        )
        .caught_by("the_seeds_walk_through::deal_eight_select_five_a_sixth_refused_deselect_two_play_three", &[
            "the state after step 7",
            "- expected selected  2♣ 3♣ 4♣ 5♣ 6♣",
            "+ actual   selected  2♣ 3♣ 4♣ 5♣ 6♣ 7♣",
        ])
        .caught_by("random_step_sequences", &[
            "- expected selected  J♠ 6♣ J♥ 7♣ 10♥",
            "+ actual   selected  J♠ 6♣ J♥ 7♣ 10♥ Q♥",
        ]),
        Bug::new(
            "tableau-deselect-keeps-card",
            "deselect not removing: clicking a selected card leaves it selected.",
            &[(DESELECT, "let _ = position;")],
        )
        .caught_by("toggle_selection::toggling_twice_deselects", &[
            "the state after step 3",
            "- expected selected  (none)",
            "+ actual   selected  5♣",
        ])
        .caught_by("random_step_sequences", &[
            "7. toggle_selection(6♣)",
            "- expected selected  8♣ J♠",
            "+ actual   selected  6♣ 8♣ J♠",
        ]),
        Bug::new(
            "tableau-unheld-card-selectable",
            "a card not held becoming selected.",
            &[(" && self.held.contains(&card)", "")],
        )
        .caught_by("toggle_selection::a_card_that_is_not_held_is_refused", &[
            "toggle_selection(10♣)",
            "- expected selected  (none)",
            "+ actual   selected  10♣",
        ])
        .caught_by("random_step_sequences", &[
            "4. toggle_selection(2♠)",
            "- expected selected  6♣ 8♣",
            "+ actual   selected  6♣ 8♣ 2♠",
        ]),
        Bug::new(
            "tableau-remove-while-iterating",
            "removing from the selection while walking it by index: every other card is skipped.",
            &[(
                "        for card in self.selected.drain(..) {\n            self.held.retain(|&held| held != card);\n            self.play_area.push(card);\n        }\n",
                "        let mut index = 0;\n        while index < self.selected.len() {\n            let card = self.selected.remove(index);\n            self.held.retain(|&held| held != card);\n            self.play_area.push(card);\n            index += 1;\n        }\n",
            )],
        )
        .caught_by("move_selected_to_play_area::play_five_adjacent_cards", &[
            "- expected selected  (none)",
            "+ actual   selected  4♣ 6♣",
            "+ actual   play_area 3♣ 5♣ 7♣",
        ])
        .caught_by("random_step_sequences", &[
            "- expected play_area 9♠ 4♦ 10♠",
            "+ actual   selected  4♦",
            "+ actual   play_area 9♠ 10♠",
        ]),
        Bug::new(
            "tableau-selection-kept-after-play",
            "selection not cleared after play.",
            &[(PLAY_LOOP, "for &card in &self.selected {")],
        )
        .caught_by("move_selected_to_play_area::the_selection_is_empty_after_playing", &[
            "the state after step 3",
            "- expected selected  (none)",
            "+ actual   selected  2♣",
        ])
        .caught_by("random_step_sequences", &[
            "12. move_selected_to_play_area()",
            "- expected selected  (none)",
            "+ actual   selected  9♠ 4♦ 10♠",
        ]),
        Bug::new(
            "tableau-play-area-reversed",
            "cards played by popping the selection: the play area gets them in reverse order.",
            &[(PLAY_LOOP, "while let Some(card) = self.selected.pop() {")],
        )
        .caught_by("move_selected_to_play_area::play_five_adjacent_cards", &[
            "- expected play_area 3♣ 4♣ 5♣ 6♣ 7♣",
            "+ actual   play_area 7♣ 6♣ 5♣ 4♣ 3♣",
        ])
        .caught_by("random_step_sequences", &[
            "12. move_selected_to_play_area()",
            "- expected play_area 9♠ 4♦ 10♠",
            "+ actual   play_area 10♠ 4♦ 9♠",
        ]),
        Bug::new(
            "tableau-played-cards-stay-held",
            "played cards not removed from held.",
            &[("            self.held.retain(|&held| held != card);\n", "")],
        )
        .caught_by("move_selected_to_play_area::play_five_adjacent_cards", &[
            "- expected held      2♣ 8♣ 9♣",
            "+ actual   held      2♣ 3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 9♣",
        ])
        .caught_by("random_step_sequences", &[
            "12. move_selected_to_play_area()",
            "- expected held      J♣ K♠ 9♥ A♥ 10♦",
            "+ actual   held      J♣ 4♦ K♠ 10♠ 9♠ 9♥ A♥ 10♦",
        ]),
        Bug::new(
            "tableau-deselect-removes-from-held",
            "deselecting also removes the card from held.",
            &[(
                DESELECT,
                "self.selected.remove(position);\n            self.held.retain(|&held| held != card);",
            )],
        )
        .caught_by("toggle_selection::toggling_twice_deselects", &[
            "- expected held      2♣ 3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 9♣",
            "+ actual   held      2♣ 3♣ 4♣ 6♣ 7♣ 8♣ 9♣",
        ])
        .caught_by("random_step_sequences", &[
            "7. toggle_selection(6♣)",
            "- expected held      10♥ 7♣ J♠ 8♣ 6♠ Q♥ J♥ 6♣",
            "+ actual   held      10♥ 7♣ J♠ 8♣ 6♠ Q♥ J♥\n",
        ]),
        Bug::new(
            "tableau-play-replaces-play-area",
            "each play replaces the play area instead of adding to its end.",
            &[(
                PLAY_LOOP,
                "self.play_area.clear();\n        for card in self.selected.drain(..) {",
            )],
        )
        .caught_by("move_selected_to_play_area::plays_add_to_the_end_of_the_play_area", &["- expected play_area 8♣ 2♣ 5♣", "+ actual   play_area 5♣"])
        .caught_by("random_step_sequences", &[
            "15. move_selected_to_play_area()",
            "- expected play_area 9♠ 4♦ 10♠",
            "+ actual   play_area (none)",
        ]),
        Bug::new(
            "tableau-full-selection-refuses-deselect",
            "the limit checked before deselecting: a card of a full selection cannot be deselected.",
            &[(
                TOGGLE,
                "    fn toggle_selection(&mut self, card: Card) {\n        if self.selected.len() >= MAX_SELECTED {\n            return;\n        }\n",
            )],
        )
        .caught_by("toggle_selection::a_full_selection_refuses_then_accepts_after_a_deselect", &[
            "the state after step 8",
            "- expected selected  2♥ 4♥ 5♥ 6♥",
            "+ actual   selected  2♥ 3♥ 4♥ 5♥ 6♥",
        ])
        .caught_by("random_step_sequences", &[
            "25. toggle_selection(10♥)",
            "- expected selected  J♠ 6♣ J♥ 7♣\n",
            "+ actual   selected  J♠ 6♣ J♥ 7♣ 10♥",
        ]),
    ]
}
