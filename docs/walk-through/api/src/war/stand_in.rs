//! War as a stand-in (see [`crate::stand_in`]): `Battles`, whose `battle` the
//! implementation under test answers, for the students' own tests of War.

use std::io;

use super::{Contract, War, Winner};
use crate::card::Card;
use crate::stand_in::{self, Answerer, CONSTRUCTORS, Call, NoCallbacks};
use crate::submission::Submission;
use crate::wire::Wire;

/// Registers the stand-in, as an implementation's `register` does its types.
pub fn register(submission: Submission) -> Submission {
    submission.war::<Battles>()
}

/// War's one function, answered by the implementation under test.
pub struct Battles;

impl War for Battles {
    fn battle(first: Card, second: Card) -> Winner {
        let cards = |out: &mut Vec<u8>| {
            first.put(out)?;
            second.put(out)
        };
        stand_in::ask(CONSTRUCTORS, 0, cards, &mut NoCallbacks)
    }
}

/// The oracle's side: `battle` asked with the registered implementation.
struct Server {
    battle: fn(Card, Card) -> Winner,
}

pub(crate) fn server(submission: &Submission) -> Option<Box<dyn Answerer + '_>> {
    Some(Box::new(Server {
        battle: *submission.registered::<Contract>()?,
    }))
}

impl Answerer for Server {
    fn answer(&mut self, call: Call<'_>) -> io::Result<()> {
        (self.battle)(Card::take(call.args)?, Card::take(call.args)?).put(call.out)
    }
}
