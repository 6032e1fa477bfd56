//! The Plaisante hand as a stand-in (see [`crate::stand_in`]): a `Hand` whose every
//! method, the provided ones too, is answered by the implementation under test.

use std::io;
use std::sync::OnceLock;

use super::{Contract, HandBuilder, HandName, Multipliers, PlaisanteHand};
use crate::card::Card;
use crate::stand_in::{
    self, Answerer, CONSTRUCTORS, Call, NoCallbacks, Objects, method_of, no_args,
};
use crate::submission::Submission;
use crate::wire::Wire;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Method {
    New,
    Cards,
    CountValues,
    HasPair,
    HasTwoPair,
    HasThreeOfAKind,
    HasFourOfAKind,
    HasFullHouse,
    HasFlush,
    HasStraight,
    LowestValue,
    HighestValue,
    Evaluate,
    TotalValue,
    BaseMult,
    Score,
}

impl Method {
    const ALL: [Method; 16] = [
        Method::New,
        Method::Cards,
        Method::CountValues,
        Method::HasPair,
        Method::HasTwoPair,
        Method::HasThreeOfAKind,
        Method::HasFourOfAKind,
        Method::HasFullHouse,
        Method::HasFlush,
        Method::HasStraight,
        Method::LowestValue,
        Method::HighestValue,
        Method::Evaluate,
        Method::TotalValue,
        Method::BaseMult,
        Method::Score,
    ];
}

/// Registers the stand-in, as an implementation's `register` does its types.
pub fn register(submission: Submission) -> Submission {
    submission.plaisante_hand::<Hand>()
}

/// A hand made and answered by the implementation under test.
pub struct Hand {
    number: u64,
    cards: OnceLock<Vec<Card>>,
}

impl Hand {
    fn ask<R: Wire>(&self, method: Method, args: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> R {
        stand_in::ask(self.number, method as u64, args, &mut NoCallbacks)
    }
}

impl PlaisanteHand for Hand {
    fn new(cards: Vec<Card>) -> Hand {
        let put = |out: &mut Vec<u8>| cards.put(out);
        Hand {
            number: stand_in::ask(CONSTRUCTORS, Method::New as u64, put, &mut NoCallbacks),
            cards: OnceLock::new(),
        }
    }

    fn cards(&self) -> &[Card] {
        self.cards.get_or_init(|| self.ask(Method::Cards, no_args))
    }

    fn count_values(&self) -> Vec<u32> {
        self.ask(Method::CountValues, no_args)
    }

    fn has_pair(&self) -> bool {
        self.ask(Method::HasPair, no_args)
    }

    fn has_two_pair(&self) -> bool {
        self.ask(Method::HasTwoPair, no_args)
    }

    fn has_three_of_a_kind(&self) -> bool {
        self.ask(Method::HasThreeOfAKind, no_args)
    }

    fn has_four_of_a_kind(&self) -> bool {
        self.ask(Method::HasFourOfAKind, no_args)
    }

    fn has_full_house(&self) -> bool {
        self.ask(Method::HasFullHouse, no_args)
    }

    fn has_flush(&self) -> bool {
        self.ask(Method::HasFlush, no_args)
    }

    fn has_straight(&self) -> bool {
        self.ask(Method::HasStraight, no_args)
    }

    fn lowest_value(&self) -> u8 {
        self.ask(Method::LowestValue, no_args)
    }

    fn highest_value(&self) -> u8 {
        self.ask(Method::HighestValue, no_args)
    }

    fn evaluate(&self) -> HandName {
        self.ask(Method::Evaluate, no_args)
    }

    fn total_value(&self) -> u32 {
        self.ask(Method::TotalValue, no_args)
    }

    fn base_mult(&self, multipliers: &Multipliers) -> u32 {
        self.ask(Method::BaseMult, |out| multipliers.put(out))
    }

    fn score(&self, multipliers: &Multipliers) -> u32 {
        self.ask(Method::Score, |out| multipliers.put(out))
    }
}

/// The oracle's side: `submission`'s hands, made and asked at the test's calls.
struct Server {
    build: HandBuilder,
    hands: Objects<dyn PlaisanteHand>,
}

pub(crate) fn server(submission: &Submission) -> Option<Box<dyn Answerer + '_>> {
    Some(Box::new(Server {
        build: *submission.registered::<Contract>()?,
        hands: Objects::default(),
    }))
}

impl Answerer for Server {
    fn answer(&mut self, call: Call<'_>) -> io::Result<()> {
        let method = method_of(&Method::ALL, call.method)?;
        if method == Method::New {
            let hand = (self.build)(Vec::take(call.args)?);
            return self.hands.keep(hand, call.out);
        }
        let hand = self.hands.get(call.object)?;
        let hand = hand.borrow();
        match method {
            Method::New | Method::Cards => hand.cards().to_vec().put(call.out),
            Method::CountValues => hand.count_values().put(call.out),
            Method::HasPair => hand.has_pair().put(call.out),
            Method::HasTwoPair => hand.has_two_pair().put(call.out),
            Method::HasThreeOfAKind => hand.has_three_of_a_kind().put(call.out),
            Method::HasFourOfAKind => hand.has_four_of_a_kind().put(call.out),
            Method::HasFullHouse => hand.has_full_house().put(call.out),
            Method::HasFlush => hand.has_flush().put(call.out),
            Method::HasStraight => hand.has_straight().put(call.out),
            Method::LowestValue => hand.lowest_value().put(call.out),
            Method::HighestValue => hand.highest_value().put(call.out),
            Method::Evaluate => hand.evaluate().put(call.out),
            Method::TotalValue => hand.total_value().put(call.out),
            Method::BaseMult => hand.base_mult(&Multipliers::take(call.args)?).put(call.out),
            Method::Score => hand.score(&Multipliers::take(call.args)?).put(call.out),
        }
    }
}
