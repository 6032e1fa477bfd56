//! The poker hand as a stand-in (see [`crate::stand_in`]): a `Hand` whose every method,
//! `compare` too, is answered by the implementation under test.

use std::cell::{OnceCell, RefCell};
use std::cmp::Ordering;
use std::io;
use std::sync::OnceLock;

use super::{Category, Contract, PokerHand, PokerHandBuilder, PokerRules};
use crate::card::Card;
use crate::stand_in::{
    self, Answerer, CONSTRUCTORS, Call, Link, NoCallbacks, Objects, method_of, no_args,
};
use crate::submission::Submission;
use crate::wire::Wire;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Method {
    New,
    Cards,
    Category,
    Tiebreak,
    Compare,
}

impl Method {
    const ALL: [Method; 5] = [
        Method::New,
        Method::Cards,
        Method::Category,
        Method::Tiebreak,
        Method::Compare,
    ];
}

/// How many method numbers a hand takes: draw_poker numbers its game's after these, so
/// that one link answers both.
pub(crate) const METHODS: u64 = Method::ALL.len() as u64;

/// The one object of the test's that the implementation calls back: `compare`'s `other`.
const OTHER: u64 = 0;

/// Registers the stand-in, as an implementation's `register` does its types.
pub fn register(submission: Submission) -> Submission {
    submission.poker::<Hand>()
}

/// A hand made and answered by the implementation under test.
pub struct Hand {
    number: u64,
    cards: OnceLock<Vec<Card>>,
}

impl Hand {
    fn ask<R: Wire>(&self, method: Method) -> R {
        stand_in::ask(self.number, method as u64, no_args, &mut NoCallbacks)
    }
}

/// The methods [`Hand`] and [`TestHand`] answer alike, each by asking the other side (the
/// implementation, or the test): `cards` once, kept, since the trait lends them out.
macro_rules! asked_methods {
    () => {
        fn cards(&self) -> &[Card] {
            self.cards.get_or_init(|| self.ask(Method::Cards))
        }

        fn category(&self) -> Category {
            self.ask(Method::Category)
        }

        fn tiebreak(&self) -> Vec<u32> {
            self.ask(Method::Tiebreak)
        }
    };
}

impl PokerHand for Hand {
    fn new(cards: Vec<Card>, rules: PokerRules) -> Hand {
        let put = |out: &mut Vec<u8>| {
            cards.put(out)?;
            rules.put(out)
        };
        Hand {
            number: stand_in::ask(CONSTRUCTORS, Method::New as u64, put, &mut NoCallbacks),
            cards: OnceLock::new(),
        }
    }

    asked_methods!();

    /// `other` may be any hand, the test's own included: the implementation calls it back
    /// for what it asks of it, as it would call it in the test's process.
    fn compare(&self, other: &dyn PokerHand) -> Ordering {
        let mut other = OtherHand(other);
        stand_in::ask(self.number, Method::Compare as u64, no_args, &mut other)
    }
}

/// The test's side of a `compare`: answers the implementation's calls of `other`.
struct OtherHand<'a>(&'a dyn PokerHand);

impl Answerer for OtherHand<'_> {
    fn answer(&mut self, call: Call<'_>) -> io::Result<()> {
        if call.object != OTHER {
            return Err(io::Error::other(format!(
                "no object {} to call back",
                call.object
            )));
        }
        match method_of(&Method::ALL, call.method)? {
            Method::Cards => self.0.cards().to_vec().put(call.out),
            Method::Category => self.0.category().put(call.out),
            Method::Tiebreak => self.0.tiebreak().put(call.out),
            Method::New | Method::Compare => Err(io::Error::other("not a call back")),
        }
    }
}

/// The oracle's side of `compare`'s `other`: each method a call back to the test. While the
/// test answers, it may call the implementation (its hand may be a stand-in): `server`
/// answers those calls. Its `compare` is the trait's, on the test's hand's answers.
struct TestHand<'a> {
    link: &'a Link,
    server: RefCell<&'a mut dyn Answerer>,
    cards: OnceCell<Vec<Card>>,
}

impl TestHand<'_> {
    /// What the test's hand answered; panics as it did.
    fn ask<R: Wire>(&self, method: Method) -> R {
        let mut server = self.server.borrow_mut();
        let answered = self
            .link
            .call(OTHER, method as u64, Vec::new(), &mut **server);
        match answered {
            Ok(Ok(value)) => R::take(&mut value.as_slice())
                .unwrap_or_else(|error| panic!("the test's hand answered no {method:?}: {error}")),
            Ok(Err(said)) => std::panic::panic_any(said),
            Err(error) => panic!("the test stopped answering: {error}"),
        }
    }
}

impl PokerHand for TestHand<'_> {
    /// Never called: the implementation is lent the test's hand, it makes none of its own.
    fn new(_: Vec<Card>, _: PokerRules) -> Self {
        unreachable!("a hand of the test's is made in the test")
    }

    asked_methods!();
}

/// The oracle's side: `submission`'s hands, made and asked at the test's calls.
pub(crate) struct Server {
    build: PokerHandBuilder,
    hands: Objects<dyn PokerHand>,
}

impl Server {
    pub(crate) fn new(build: PokerHandBuilder) -> Server {
        Server {
            build,
            hands: Objects::default(),
        }
    }
}

pub(crate) fn server(submission: &Submission) -> Option<Box<dyn Answerer + '_>> {
    Some(Box::new(Server::new(*submission.registered::<Contract>()?)))
}

impl Answerer for Server {
    fn answer(&mut self, call: Call<'_>) -> io::Result<()> {
        let method = method_of(&Method::ALL, call.method)?;
        if method == Method::New {
            let hand = (self.build)(Vec::take(call.args)?, PokerRules::take(call.args)?);
            return self.hands.keep(hand, call.out);
        }
        let hand = self.hands.get(call.object)?;
        let hand = hand.borrow();
        match method {
            Method::New | Method::Cards => hand.cards().to_vec().put(call.out),
            Method::Category => hand.category().put(call.out),
            Method::Tiebreak => hand.tiebreak().put(call.out),
            Method::Compare => {
                let other = TestHand {
                    link: call.link,
                    server: RefCell::new(self),
                    cards: OnceCell::new(),
                };
                hand.compare(&other).put(call.out)
            }
        }
    }
}
