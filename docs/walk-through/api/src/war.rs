//! War: which of two cards wins a battle. The smallest assignment there is, the one
//! ARCHITECTURE.md's walk-through adds.

use std::fmt;

use crate::assignment::{Answering, Assignment, ask};
use crate::card::Card;
use crate::deck::Deck;
use crate::protocol::Reply;
use crate::source::{Generator, Source};
use crate::submission::Submission;

#[cfg(feature = "spec")]
mod spec;
pub mod stand_in;

/// What a student writes.
pub trait War {
    /// Which card wins: the higher value (aces high), whatever the suits; equal values tie.
    fn battle(first: Card, second: Card) -> Winner;
}

checks!(
    /// Who wins a battle.
    Winner, "a winner" {
        First => "first",
        Second => "second",
        Tie => "tie",
    }
);

/// The two cards of a battle.
#[derive(Clone, Debug, PartialEq)]
pub struct Battle {
    pub first: Card,
    pub second: Card,
}

impl fmt::Display for Battle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "battle({}, {})", self.first, self.second)
    }
}

/// `count` battles dealt two cards at a time from decks shuffled from `seed`.
#[derive(Clone, Debug, PartialEq)]
pub struct RandomBattles {
    pub count: u32,
    pub seed: u64,
}

impl Generator for RandomBattles {
    type Item = Battle;

    fn count(&self) -> u32 {
        self.count
    }

    fn generate(&self, visit: &mut dyn FnMut(Battle) -> bool) {
        let mut deck = Deck::shuffled(self.seed);
        for _ in 0..self.count {
            let (first, second) = (deck.deal(), deck.deal());
            if !visit(Battle { first, second }) {
                return;
            }
        }
    }
}

crate::wire_struct!(Battle { first, second });
crate::wire_struct!(RandomBattles { count, seed });

pub struct Contract;

impl Assignment for Contract {
    const NAME: &'static str = "war";
    const REGISTRATION: &'static str = ".war::<YourWar>()";
    type Registered = fn(Card, Card) -> Winner;
    type Session = ();
    type Request = Source<Battle, RandomBattles>;
    type Input = Battle;
    type Answer = Winner;

    fn respond(mut answering: Answering<'_, Self>) {
        let battles = answering.request;
        battles.for_each(answering.window.only(|input: Battle| {
            let reply = answering.registered.map_or(Reply::NotRegistered, |battle| {
                ask(|| battle(input.first, input.second))
            });
            answering.answer(input, vec![reply])
        }));
    }

    fn input_count(battles: &Source<Battle, RandomBattles>) -> u64 {
        battles.len()
    }

    fn question(_: &Source<Battle, RandomBattles>, _: usize) -> String {
        "battle(first, second)".into()
    }

    fn describe_inputs(battles: &Source<Battle, RandomBattles>) -> String {
        format!("{} battles", battles.len())
    }

    fn input_label(_: &Battle) -> &'static str {
        "cards"
    }

    fn describe_input(battle: &Battle, _: usize) -> String {
        battle.to_string()
    }
}

impl Submission {
    pub fn war<W: War>(self) -> Submission {
        self.register::<Contract>(W::battle)
    }
}
