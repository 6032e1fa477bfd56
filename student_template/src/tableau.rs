//! The Plaisante tableau (PA 2, part 3): the cards held, selected and played.
//!
//! `deal_from` is provided by the `Tableau` trait, as in the assignment's starter file.
//! Write `toggle_selection` and `move_selected_to_play_area`.

use grader_api::Card;
use grader_api::tableau::Tableau;

/// What `submission()` in `lib.rs` registers of this assignment: your types.
pub fn register(submission: grader_api::Submission) -> grader_api::Submission {
    submission.tableau::<Table>()
}

#[derive(Default)]
pub struct Table {
    held: Vec<Card>,
    selected: Vec<Card>,
    play_area: Vec<Card>,
}

impl Tableau for Table {
    fn new() -> Table {
        Table::default()
    }

    fn held(&self) -> &[Card] {
        &self.held
    }

    fn held_mut(&mut self) -> &mut Vec<Card> {
        &mut self.held
    }

    fn selected(&self) -> &[Card] {
        &self.selected
    }

    fn play_area(&self) -> &[Card] {
        &self.play_area
    }

    /// The player clicked `card`. Three cases:
    /// 1. it is already selected: remove it from `selected` (deselecting is always allowed);
    /// 2. otherwise, if fewer than `grader_api::tableau::MAX_SELECTED` (5) cards are selected,
    ///    add it to the end of `selected`;
    /// 3. otherwise do nothing.
    ///
    /// `selected` is always a subset of `held`: a card that is not held is never selected.
    fn toggle_selection(&mut self, card: Card) {
        let _ = card;
        todo!()
    }

    /// The player pressed Play. Walk `selected`; move each card out of `held` and onto the
    /// end of `play_area`; then empty `selected`. Careful: removing from a list while
    /// walking that same list skips elements.
    fn move_selected_to_play_area(&mut self) {
        todo!()
    }
}

// Your own tests go here, beside your code, or in files of `tests/` that `use` this module
// through your crate: `cargo test` runs them, and a course's `your tests` group runs them
// on a correct solution and on the bugs students write. Use only what every solution has
// (`Table::new`, the trait's methods, `grader_api`), not your own helpers, so they can be
// graded against the others. Each test: set up a small input, call the method, check the
// answer.
#[cfg(test)]
mod tests {
    use super::*;

    fn card(text: &str) -> Card {
        text.parse().unwrap()
    }

    /// Five cards may be selected; a sixth is refused.
    #[test]
    fn a_sixth_card_is_not_selected() {
        let mut table = Table::new();
        let cards = ["2C", "3C", "4C", "5C", "6C", "7C"].map(card);
        table.held_mut().extend(cards);
        for card in cards {
            table.toggle_selection(card);
        }
        assert_eq!(table.selected(), &cards[..5]);
    }
}
