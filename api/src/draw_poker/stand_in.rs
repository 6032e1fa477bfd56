//! Five-card draw as a stand-in (see [`crate::stand_in`]): a `Game` whose every method is
//! answered by the implementation under test. It ranks hands with the poker stand-in's
//! `Hand`, which the same link answers with the hand the implementation registers here.

use std::io;

use super::{Contract, DiscardError, DrawGame};
use crate::card::Card;
use crate::deck::Deck;
use crate::poker;
use crate::stand_in::{
    self, Answerer, CONSTRUCTORS, Call, NoCallbacks, Objects, method_of, no_args,
};
use crate::submission::Submission;
use crate::wire::{Wire, invalid, put_varint, take_tag, take_varint};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Method {
    New,
    DiscardAndDraw,
    DealerDiscards,
}

impl Method {
    const ALL: [Method; 3] = [Method::New, Method::DiscardAndDraw, Method::DealerDiscards];

    /// The method's number on the link: a game's come after a hand's.
    fn number(self) -> u64 {
        poker::stand_in::METHODS + self as u64
    }
}

/// Registers the stand-ins, as an implementation's `register` does its types.
pub fn register(submission: Submission) -> Submission {
    submission.draw_poker::<Game, poker::stand_in::Hand>()
}

/// A game made and answered by the implementation under test.
pub struct Game {
    number: u64,
}

/// What `discard_and_draw` answers: its refusal if it refused, and the hand and the deck it
/// was lent, as it left them.
struct Discarded {
    refusal: Option<DiscardError>,
    hand: Vec<Card>,
    deck: Deck,
}

crate::wire_struct!(Discarded {
    refusal,
    hand,
    deck
});

/// A refusal crosses as its variant and the number it names.
impl Wire for DiscardError {
    fn put(&self, out: &mut (impl io::Write + ?Sized)) -> io::Result<()> {
        let (tag, number) = match *self {
            DiscardError::TooMany(count) => (0, count as u64),
            DiscardError::Repeated(position) => (1, u64::from(position)),
            DiscardError::OutOfRange(position) => (2, u64::from(position)),
        };
        put_varint(out, tag)?;
        put_varint(out, number)
    }

    fn take(input: &mut (impl io::Read + ?Sized)) -> io::Result<DiscardError> {
        let tag = take_tag(input, 3)?;
        let number = take_varint(input)?;
        let position = || u32::try_from(number).map_err(|_| invalid("a position past u32"));
        Ok(match tag {
            0 => DiscardError::TooMany(
                usize::try_from(number).map_err(|_| invalid("a count past usize"))?,
            ),
            1 => DiscardError::Repeated(position()?),
            _ => DiscardError::OutOfRange(position()?),
        })
    }
}

impl Game {
    fn ask<R: Wire>(&self, method: Method, args: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> R {
        stand_in::ask(self.number, method.number(), args, &mut NoCallbacks)
    }
}

impl DrawGame for Game {
    fn new() -> Game {
        Game {
            number: stand_in::ask(
                CONSTRUCTORS,
                Method::New.number(),
                no_args,
                &mut NoCallbacks,
            ),
        }
    }

    /// The implementation discards from copies of `hand` and `deck`, which then take their
    /// places.
    fn discard_and_draw(
        &self,
        hand: &mut [Card],
        positions: &[u32],
        deck: &mut Deck,
    ) -> Result<(), DiscardError> {
        let put = |out: &mut Vec<u8>| {
            hand.to_vec().put(out)?;
            positions.to_vec().put(out)?;
            deck.put(out)
        };
        let discarded: Discarded = self.ask(Method::DiscardAndDraw, put);
        hand.copy_from_slice(&discarded.hand);
        *deck = discarded.deck;
        discarded.refusal.map_or(Ok(()), Err)
    }

    fn dealer_discards(&self, hand: &[Card]) -> Vec<u32> {
        self.ask(Method::DealerDiscards, |out| hand.to_vec().put(out))
    }
}

/// The oracle's side: `submission`'s games, and the hands it ranks with, made and asked at
/// the test's calls.
struct Server {
    build: fn() -> Box<dyn DrawGame>,
    games: Objects<dyn DrawGame>,
    /// The hands of the poker stand-in, made with the hand registered with the game. While
    /// one calls the test back, the test's calls are answered here: hands, not games.
    hands: poker::stand_in::Server,
}

pub(crate) fn server(submission: &Submission) -> Option<Box<dyn Answerer + '_>> {
    let builders = submission.registered::<Contract>()?;
    Some(Box::new(Server {
        build: builders.game,
        games: Objects::default(),
        hands: poker::stand_in::Server::new(builders.hand),
    }))
}

impl Answerer for Server {
    fn answer(&mut self, call: Call<'_>) -> io::Result<()> {
        let Some(game_method) = call.method.checked_sub(poker::stand_in::METHODS) else {
            return self.hands.answer(call);
        };
        let method = method_of(&Method::ALL, game_method)?;
        if method == Method::New {
            return self.games.keep((self.build)(), call.out);
        }
        let game = self.games.get(call.object)?;
        let game = game.borrow();
        match method {
            Method::New | Method::DealerDiscards => {
                game.dealer_discards(&Vec::take(call.args)?).put(call.out)
            }
            Method::DiscardAndDraw => {
                let mut hand = Vec::take(call.args)?;
                let positions = Vec::take(call.args)?;
                let mut deck = Deck::take(call.args)?;
                let refusal = game
                    .discard_and_draw(&mut hand, &positions, &mut deck)
                    .err();
                Discarded {
                    refusal,
                    hand,
                    deck,
                }
                .put(call.out)
            }
        }
    }
}
