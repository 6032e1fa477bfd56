//! Your submission. `grader check` builds this crate and asks `submission()` what it
//! implements; every method left as `todo!()` is reported as "not yet implemented".
//! Register only the assignments you are working on, and `grader check` grades just those.

use grader_api::Submission;

pub mod blackjack;
pub mod draw;
pub mod plaisante;
pub mod poker;
pub mod tableau;

pub fn submission() -> Submission {
    Submission::new()
        .plaisante_hand::<plaisante::Hand>()
        .tableau::<tableau::Table>()
        .blackjack::<blackjack::Hand, blackjack::Game>()
        .poker::<poker::Hand>()
        .draw_poker::<draw::Game, poker::Hand>()
}
