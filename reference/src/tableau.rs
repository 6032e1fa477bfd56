//! The reference tableau.

use grader_api::Card;
use grader_api::tableau::{MAX_SELECTED, Tableau};

/// What `submission()` registers of this assignment: the reference's types.
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

    fn toggle_selection(&mut self, card: Card) {
        if let Some(position) = self.selected.iter().position(|&c| c == card) {
            self.selected.remove(position);
        } else if self.selected.len() < MAX_SELECTED && self.held.contains(&card) {
            self.selected.push(card);
        }
    }

    fn move_selected_to_play_area(&mut self) {
        for card in self.selected.drain(..) {
            self.held.retain(|&held| held != card);
            self.play_area.push(card);
        }
    }
}

/// Bugs students write, as edits of this module: what `grader spec audit` grades specs
/// against.
pub mod bugs;
