//! The instructors' solution to every assignment. It is itself a submission: the grader
//! asks it for every expected answer in-process, and graded as a student it scores 100%.

#![forbid(unsafe_code)]

use grader_api::Submission;

pub mod blackjack;
pub mod bugs;
pub mod crazy_eights;
pub mod draw_poker;
mod games;
pub mod plaisante_hand;
pub mod poker;
pub mod tableau;

pub use games::{GAMES, Game};

pub fn submission() -> Submission {
    Submission::new()
        .plaisante_hand::<plaisante_hand::Hand>()
        .tableau::<tableau::Table>()
        .blackjack::<blackjack::Hand, blackjack::Game>()
        .poker::<poker::Hand>()
        .draw_poker::<draw_poker::Game, poker::Hand>()
        .crazy_eights::<crazy_eights::Engine>()
        .crazy_eights_player::<crazy_eights::Eager>("eager")
        .crazy_eights_player::<crazy_eights::Cautious>("cautious")
}
