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
