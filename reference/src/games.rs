//! The games `grader play` knows: the reference's front ends, one per assignment that has
//! one, each with the options it takes.

use std::io::{self, BufRead, Write};

/// Plays a game from the terminal's input to its output, on a deck shuffled from the seed,
/// with the flags given.
pub type Play = fn(&mut dyn BufRead, &mut dyn Write, u64, &[&str]) -> io::Result<()>;

/// A game in the terminal, played against the reference.
pub struct Game {
    /// The name `grader play` knows it by.
    pub name: &'static str,
    pub about: &'static str,
    /// The flags it takes besides `--seed`, each with what it does.
    pub options: &'static [(&'static str, &'static str)],
    pub play: Play,
}

/// Every game, in the order `grader play --help` lists them.
pub static GAMES: &[Game] = &[
    crate::blackjack::terminal::GAME,
    crate::draw_poker::terminal::GAME,
    crate::crazy_eights::terminal::GAME,
];
