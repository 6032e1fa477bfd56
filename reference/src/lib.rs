//! The instructors' solution to every assignment. It is itself a submission: the grader
//! asks it for every expected answer in-process, and graded as a student it scores 100%.

#![forbid(unsafe_code)]

use grader_api::Submission;

pub mod blackjack;
pub mod crazy8;
pub mod draw;
mod games;
pub mod plaisante;
pub mod poker;
pub mod tableau;

pub use games::{GAMES, Game};

pub fn submission() -> Submission {
    Submission::new()
        .plaisante_hand::<plaisante::Hand>()
        .tableau::<tableau::Table>()
        .blackjack::<blackjack::Hand, blackjack::Game>()
        .poker::<poker::Hand>()
        .draw_poker::<draw::Game, poker::Hand>()
        .crazy_eights::<crazy8::Engine>()
        .crazy_eights_player::<crazy8::Eager>("eager")
        .crazy_eights_player::<crazy8::Cautious>("cautious")
}
