//! Blackjack as stand-ins (see [`crate::stand_in`]): a `Hand` and a `Game` whose every
//! method, the provided `play_session` too, is answered by the implementation under test.
//! A round's player stays in the test: the implementation calls it back for each decision.

use std::cell::RefCell;
use std::io;
use std::rc::Rc;
use std::sync::OnceLock;

use super::{Action, BlackjackGame, BlackjackHand, Contract, Player, Round, Rules, Tally};
use crate::card::Card;
use crate::deck::Deck;
use crate::stand_in::{
    self, Answerer, CONSTRUCTORS, Call, Done, Link, NoCallbacks, Objects, WithDeck, method_of,
    no_args,
};
use crate::submission::Submission;
use crate::wire::Wire;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Method {
    NewHand,
    Add,
    Cards,
    Value,
    IsSoft,
    PlayRound,
    PlaySession,
    /// The implementation's call back to the test's player.
    Decide,
}

impl Method {
    const ALL: [Method; 8] = [
        Method::NewHand,
        Method::Add,
        Method::Cards,
        Method::Value,
        Method::IsSoft,
        Method::PlayRound,
        Method::PlaySession,
        Method::Decide,
    ];
}

/// Registers the stand-ins, as an implementation's `register` does its types.
pub fn register(submission: Submission) -> Submission {
    submission.blackjack::<Hand, Game>()
}

/// A hand made and answered by the implementation under test.
pub struct Hand {
    number: u64,
    cards: OnceLock<Vec<Card>>,
}

/// The implementation's game. A unit struct as the reference's, so that a test may write
/// `Game.play_round(...)`: the implementation makes a game of its own for each call (its
/// `new` runs then), the same as one game for a game that holds nothing.
pub struct Game;

impl Hand {
    fn ask<R: Wire>(&self, method: Method, args: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> R {
        stand_in::ask(self.number, method as u64, args, &mut NoCallbacks)
    }
}

/// As the reference's hand, which derives it.
impl Default for Hand {
    fn default() -> Hand {
        Hand::new()
    }
}

impl BlackjackHand for Hand {
    fn new() -> Hand {
        Hand {
            number: stand_in::ask(CONSTRUCTORS, Method::NewHand as u64, no_args, &mut NoCallbacks),
            cards: OnceLock::new(),
        }
    }

    fn add(&mut self, card: Card) {
        self.cards.take();
        self.ask::<Done>(Method::Add, |out| card.put(out));
    }

    fn cards(&self) -> &[Card] {
        self.cards.get_or_init(|| self.ask(Method::Cards, no_args))
    }

    fn value(&self) -> u32 {
        self.ask(Method::Value, no_args)
    }

    fn is_soft(&self) -> bool {
        self.ask(Method::IsSoft, no_args)
    }
}

/// The test's player, answering the implementation's calls back while its round is played.
struct Deciding<'p>(&'p mut dyn Player);

impl Answerer for Deciding<'_> {
    fn answer(&mut self, call: Call<'_>) -> io::Result<()> {
        match method_of(&Method::ALL, call.method)? {
            Method::Decide => {
                let (hand, total) = (Vec::<Card>::take(call.args)?, u32::take(call.args)?);
                self.0.decide(&hand, total, Card::take(call.args)?).put(call.out)
            }
            other => Err(io::Error::other(format!("{other:?} is not a player's method"))),
        }
    }
}

impl BlackjackGame for Game {
    fn new() -> Game {
        Game
    }

    fn play_round(&self, deck: &mut Deck, player: &mut dyn Player, rules: &Rules) -> Round {
        let method = Method::PlayRound as u64;
        stand_in::ask_lending_deck(method, deck, |out| rules.put(out), &mut Deciding(player))
    }

    fn play_session(
        &self,
        deck: &mut Deck,
        player: &mut dyn Player,
        rules: &Rules,
        rounds: u32,
    ) -> Tally {
        let args = |out: &mut Vec<u8>| {
            rules.put(out)?;
            rounds.put(out)
        };
        let method = Method::PlaySession as u64;
        stand_in::ask_lending_deck(method, deck, args, &mut Deciding(player))
    }
}

/// The oracle's side: `submission`'s hands, made and asked at the test's calls, and its
/// games. Shared with the test's player while a round is played, so that a call the player
/// makes meanwhile (on a stand-in hand of its own) is answered too.
struct Oracle {
    hand: fn() -> Box<dyn BlackjackHand>,
    game: fn() -> Box<dyn BlackjackGame>,
    hands: RefCell<Objects<dyn BlackjackHand>>,
}

pub(crate) fn server(submission: &Submission) -> Option<Box<dyn Answerer + '_>> {
    let builders = submission.registered::<Contract>()?;
    Some(Box::new(Rc::new(Oracle {
        hand: builders.hand,
        game: builders.game,
        hands: RefCell::default(),
    })))
}

impl Answerer for Rc<Oracle> {
    fn answer(&mut self, call: Call<'_>) -> io::Result<()> {
        let hand = || self.hands.borrow().get(call.object);
        match method_of(&Method::ALL, call.method)? {
            Method::NewHand => {
                let made = (self.hand)();
                self.hands.borrow_mut().keep(made, call.out)
            }
            Method::Add => {
                hand()?.borrow_mut().add(Card::take(call.args)?);
                Done.put(call.out)
            }
            Method::Cards => hand()?.borrow().cards().to_vec().put(call.out),
            Method::Value => hand()?.borrow().value().put(call.out),
            Method::IsSoft => hand()?.borrow().is_soft().put(call.out),
            Method::PlayRound => {
                let (mut deck, rules) = (Deck::take(call.args)?, Rules::take(call.args)?);
                let mut player = TestPlayer { link: call.link, oracle: Rc::clone(self) };
                let round = (self.game)().play_round(&mut deck, &mut player, &rules);
                WithDeck { value: round, deck }.put(call.out)
            }
            Method::PlaySession => {
                let (mut deck, rules) = (Deck::take(call.args)?, Rules::take(call.args)?);
                let rounds = u32::take(call.args)?;
                let mut player = TestPlayer { link: call.link, oracle: Rc::clone(self) };
                let tally = (self.game)().play_session(&mut deck, &mut player, &rules, rounds);
                WithDeck { value: tally, deck }.put(call.out)
            }
            Method::Decide => Err(io::Error::other("a player's method, for the test to answer")),
        }
    }
}

/// The test's player as the implementation sees it: each decision is a call back.
struct TestPlayer<'l> {
    link: &'l Link,
    oracle: Rc<Oracle>,
}

impl Player for TestPlayer<'_> {
    fn decide(&mut self, hand: &[Card], total: u32, dealer_shows: Card) -> Action {
        let mut args = Vec::new();
        hand.to_vec()
            .put(&mut args)
            .and_then(|()| total.put(&mut args))
            .and_then(|()| dealer_shows.put(&mut args))
            .expect("writing to memory");
        // A round has one player: the test's answerer needs no object number.
        match self.link.call(0, Method::Decide as u64, args, &mut self.oracle) {
            Ok(Ok(reply)) => Action::take(&mut reply.as_slice())
                .unwrap_or_else(|error| panic!("the test's player answered no action: {error}")),
            // The player panicked: so does the implementation that asked it, with its message.
            Ok(Err(said)) => std::panic::panic_any(said),
            Err(error) => panic!("the test stopped answering: {error}"),
        }
    }
}
