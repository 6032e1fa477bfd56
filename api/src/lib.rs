//! The contract cardgrade submissions implement.
//!
//! A submission is a library crate with `pub fn submission() -> Submission` that registers
//! the types it implements. The grader builds a small runner around it and asks it
//! questions over a pipe; see [`protocol`].

#![forbid(unsafe_code)]

pub mod blackjack;
pub mod card;
pub mod crazy8;
pub mod deck;
pub mod draw;
pub mod plaisante;
pub mod poker;
pub mod protocol;
pub mod runner;
pub mod submission;
pub mod tableau;
pub mod wire;

pub use blackjack::{BlackjackGame, BlackjackHand};
pub use card::{Card, CardError, Suit, format_cards};
pub use deck::{Deck, HandSource};
pub use plaisante::{HandName, PlaisanteHand};
pub use submission::{Assignment, Submission};
pub use tableau::Tableau;
