//! Blackjack (seed 001): a hand that totals its aces right, and rounds against a dealer.
//!
//! The contract is here: the two traits (the hand and the game), and how the grader asks
//! them and explains their answers. A round's words (actions, players, rules, outcomes,
//! the tally) are `round.rs`, and the spec side is apart.

use std::fmt;

use crate::assignment::{self, Answering, Assignment, Lines, ask, each_check, guarded};
use crate::card::{ACE, Card, format_cards};
use crate::deck::{Deck, HandSource, RandomHands, below, seeded_rng};
use crate::protocol::{Reply, group_digits};
use crate::source::{Generator, Source};
use crate::submission::Submission;

mod round;
#[cfg(feature = "spec")]
mod spec;
pub mod stand_in;

pub use round::{Action, Outcome, Player, Policy, PolicyPlayer, Round, Rules, Tally};

/// The seed's `BlackjackHand`: cards and their blackjack value.
pub trait BlackjackHand {
    /// An empty hand.
    fn new() -> Self
    where
        Self: Sized;
    /// Adds `card` to the hand; there is no limit on how many cards or aces it holds.
    fn add(&mut self, card: Card);
    /// The cards, in the order added.
    fn cards(&self) -> &[Card];
    /// The blackjack value: 2-10 face value, J Q K 10, aces 11 unless that busts the hand,
    /// and then only as many aces as needed count 1. Graded for every hand, a bust one too
    /// (its exact total), whatever a round makes of it.
    fn value(&self) -> u32;
    /// True while some ace still counts 11; graded for every hand, a soft 21 too.
    fn is_soft(&self) -> bool;
}

/// The seed's game: rounds dealt from one deck.
///
/// Students write `play_round`; `play_session` is provided.
pub trait BlackjackGame {
    fn new() -> Self
    where
        Self: Sized;

    /// One round: deal dealer, player, dealer, player with [`Deck::deal`]; settle naturals
    /// (both: push; one: that side wins at once); let `player` hit or stand while at 21
    /// or less (a bust ends the round, the dealer draws nothing); the dealer hits on 16
    /// or less and stands on 17 (hits a soft 17 under `rules.dealer_hits_soft_17`); a
    /// dealer bust loses; otherwise the higher total wins and equal totals push.
    fn play_round(&self, deck: &mut Deck, player: &mut dyn Player, rules: &Rules) -> Round;

    /// `rounds` rounds from the same deck, tallied (provided).
    fn play_session(
        &self,
        deck: &mut Deck,
        player: &mut dyn Player,
        rules: &Rules,
        rounds: u32,
    ) -> Tally {
        let mut tally = Tally::default();
        for _ in 0..rounds {
            tally.record(self.play_round(deck, player, rules).outcome);
        }
        tally
    }
}

checks!(
    /// A question about a blackjack hand.
    Check, "a blackjack check" {
        Value => "value",
        IsSoft => "is_soft",
    }
);

impl Check {
    pub fn ask(self, hand: &dyn BlackjackHand) -> Answer {
        match self {
            Check::Value => Answer::Number(i64::from(hand.value())),
            Check::IsSoft => Answer::Bool(hand.is_soft()),
        }
    }
}

/// A round to play: the deck's cards in order, the seed of the fresh decks after them,
/// and the player.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Table {
    pub deck: Vec<Card>,
    pub seed: u64,
    pub policy: Policy,
    /// 0 for one round answered by a [`Round`]; more for a session answered by a [`Tally`].
    pub rounds: u32,
}

impl Table {
    pub fn describe(&self) -> String {
        let deck = if self.deck.is_empty() {
            format!("shuffled from seed {}", self.seed)
        } else {
            format!(
                "{} (then fresh decks from seed {})",
                format_cards(&self.deck),
                self.seed
            )
        };
        let what = if self.rounds == 0 {
            "one round".to_string()
        } else {
            format!("{} rounds on one deck", self.rounds)
        };
        format!("deck: {deck}\nplayer: {}\n{what}", self.policy)
    }

    pub fn deck(&self) -> Deck {
        if self.deck.is_empty() {
            Deck::shuffled(self.seed)
        } else {
            Deck::stacked_seeded(self.deck.clone(), self.seed)
        }
    }

    pub fn play(&self, game: &dyn BlackjackGame, rules: &Rules) -> Answer {
        let mut deck = self.deck();
        let mut player = PolicyPlayer::new(self.policy.clone());
        if self.rounds == 0 {
            Answer::Round(game.play_round(&mut deck, &mut player, rules))
        } else {
            Answer::Tally(game.play_session(&mut deck, &mut player, rules, self.rounds))
        }
    }
}

/// `count` single rounds on decks shuffled from seeds drawn from `seed`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RandomRounds {
    pub count: u32,
    pub seed: u64,
    pub policy: Policy,
}

impl Generator for RandomRounds {
    type Item = Table;

    fn count(&self) -> u32 {
        self.count
    }

    fn generate(&self, visit: &mut dyn FnMut(Table) -> bool) {
        let RandomRounds {
            count,
            seed,
            policy,
        } = self;
        let mut rng = seeded_rng(*seed);
        for _ in 0..*count {
            let table = Table {
                deck: Vec::new(),
                seed: u64::from(below(&mut rng, u32::MAX)),
                policy: policy.clone(),
                rounds: 0,
            };
            if !visit(table) {
                return;
            }
        }
    }
}

/// Where the tables of a request come from.
pub type TableSource = Source<Table, RandomRounds>;

/// Random hands for value checks: 1 to 12 cards, drawn with replacement, aces four times
/// as likely as in a deck, so hands of many aces are common.
pub fn random_hands(count: u32, seed: u64, mut visit: impl FnMut(Vec<Card>) -> bool) {
    let mut rng = seeded_rng(seed);
    for _ in 0..count {
        let size = 1 + below(&mut rng, 12) as usize;
        let hand = (0..size)
            .map(|_| {
                let pick = below(&mut rng, 52 + 12) as u8;
                let index = if pick < 52 {
                    pick
                } else {
                    (ACE - 2) * 4 + (pick - 52) % 4
                };
                Card::from_index(index).expect("index below 52")
            })
            .collect();
        if !visit(hand) {
            return;
        }
    }
}

/// Builds a hand from `cards` added one by one.
pub fn hand_of(build: fn() -> Box<dyn BlackjackHand>, cards: &[Card]) -> Box<dyn BlackjackHand> {
    let mut hand = build();
    for card in cards {
        hand.add(*card);
    }
    hand
}

crate::wire_struct!(Table {
    deck,
    seed,
    policy,
    rounds
});

crate::wire_struct!(RandomRounds {
    count,
    seed,
    policy
});

/// What a blackjack hand's method or a game returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Number(i64),
    Bool(bool),
    Round(Round),
    Tally(Tally),
}

crate::wire_enum!(Answer {
    Number(value),
    Bool(value),
    Round(round),
    Tally(tally)
});

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Number(value) => write!(f, "{value}"),
            Answer::Bool(value) => write!(f, "{value}"),
            Answer::Round(round) => write!(f, "{round}"),
            Answer::Tally(tally) => write!(f, "{tally}"),
        }
    }
}

/// A question for a blackjack submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Every check on every hand built by adding its cards in order.
    Hands {
        source: HandSource,
        checks: Vec<Check>,
    },
    /// A round (or a session of rounds) at each table.
    Tables { source: TableSource, rules: Rules },
}

crate::wire_enum!(Request {
    Hands { source, checks },
    Tables { source, rules }
});

/// One input: a hand, or a table to play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Hand(Vec<Card>),
    Table(Table),
}

crate::wire_enum!(Input { Hand(cards), Table(table) });

/// The submission's hand and game.
pub struct Builders {
    pub hand: fn() -> Box<dyn BlackjackHand>,
    pub game: fn() -> Box<dyn BlackjackGame>,
}

/// The blackjack assignment (seed 001).
pub struct Contract;

impl Assignment for Contract {
    contract_items!("blackjack", ".blackjack::<YourHand, YourGame>()", Builders);

    fn respond(mut answering: Answering<'_, Self>) {
        match answering.request {
            Request::Hands { source, checks } => {
                let mut visit = answering.window.only(|cards: Vec<Card>| {
                    let hand = answering
                        .registered
                        .map(|b| guarded(|| hand_of(b.hand, &cards)));
                    let replies = each_check(hand, checks.len(), |hand, i| checks[i].ask(hand));
                    answering.answer(Input::Hand(cards), replies)
                });
                match source {
                    HandSource::Generated(hands) => random_hands(hands.count, hands.seed, visit),
                    _ => source.for_each_hand(&mut visit),
                }
            }
            Request::Tables { source, rules } => {
                source.for_each(answering.window.only(|table: Table| {
                    let reply = match answering.registered {
                        None => Reply::NotRegistered,
                        Some(builders) => ask(|| table.play(&*(builders.game)(), rules)),
                    };
                    answering.answer(Input::Table(table), vec![reply])
                }))
            }
        }
    }

    fn input_count(request: &Request) -> u64 {
        match request {
            Request::Hands { source, .. } => source.len(),
            Request::Tables { source, .. } => source.len(),
        }
    }

    fn question(request: &Request, index: usize) -> String {
        match request {
            Request::Hands { checks, .. } => assignment::check_question(checks, index),
            Request::Tables {
                source: Source::Listed(tables),
                ..
            } if tables.first().is_some_and(|t| t.rounds > 0) => "the tally of the rounds".into(),
            Request::Tables { .. } => "the round".into(),
        }
    }

    fn scored_checks(request: &Request) -> usize {
        match request {
            Request::Hands { checks, .. } => checks.len(),
            Request::Tables { .. } => 1,
        }
    }

    fn describe_inputs(request: &Request) -> String {
        match request {
            Request::Hands { source, checks } => {
                let hands = match source {
                    HandSource::Generated(RandomHands { count, seed, .. }) => format!(
                        "{} random hands of 1 to 12 cards from seed {seed}",
                        group_digits(u64::from(*count))
                    ),
                    _ => source.describe(),
                };
                format!("{hands}\nchecks: {}", assignment::check_names(checks))
            }
            Request::Tables { source, rules } => {
                let h17 = if rules.dealer_hits_soft_17 {
                    "H17"
                } else {
                    "S17"
                };
                match source {
                    Source::Listed(tables) => format!("{} tables ({h17})", tables.len()),
                    Source::Generated(RandomRounds {
                        count,
                        seed,
                        policy,
                    }) => format!(
                        "{} rounds on decks shuffled from seed {seed}, player: {policy} ({h17})",
                        group_digits(u64::from(*count))
                    ),
                }
            }
        }
    }

    fn input_label(input: &Input) -> &'static str {
        match input {
            Input::Hand(_) => "hand",
            Input::Table(_) => "table",
        }
    }

    fn describe_input(input: &Input, _: usize) -> String {
        match input {
            Input::Hand(cards) => assignment::describe_hand(cards),
            Input::Table(table) => table.describe(),
        }
    }

    fn lines(answer: &Answer) -> Option<Lines> {
        match answer {
            Answer::Round(round) => Some(Lines::Text(round.to_string())),
            _ => None,
        }
    }

    // Totals are listed by value, so a breakdown says "expected 12 but got 22": the two
    // numbers are how a student tells aces counted 11 from aces counted 1.
    fn kind(answer: &Answer) -> Option<&'static str> {
        match answer {
            Answer::Round(_) => Some("cards and totals"),
            Answer::Tally(_) => Some("tally"),
            Answer::Number(_) | Answer::Bool(_) => None,
        }
    }

    // A round that differs is named by its first field that does, with both values.
    fn breakdown(expected: &Answer, actual: &Answer) -> Option<(String, String)> {
        match (expected, actual) {
            (Answer::Round(want), Answer::Round(got)) => {
                let fields = [
                    (want.outcome != got.outcome)
                        .then(|| (want.outcome.to_string(), got.outcome.to_string())),
                    (want.player_total != got.player_total).then(|| {
                        let total =
                            |round: &Round| format!("a player's total of {}", round.player_total);
                        (total(want), total(got))
                    }),
                    (want.dealer_total != got.dealer_total).then(|| {
                        let total =
                            |round: &Round| format!("a dealer's total of {}", round.dealer_total);
                        (total(want), total(got))
                    }),
                    (want.player.len() != got.player.len()).then(|| {
                        let cards = |round: &Round| {
                            format!("the player holding {} cards", round.player.len())
                        };
                        (cards(want), cards(got))
                    }),
                    (want.dealer.len() != got.dealer.len()).then(|| {
                        let cards = |round: &Round| {
                            format!("the dealer holding {} cards", round.dealer.len())
                        };
                        (cards(want), cards(got))
                    }),
                ];
                // Same outcome, totals and counts: name the first card dealt otherwise.
                fields.into_iter().flatten().next().or_else(|| {
                    let first_other = |who: &str, want: &[Card], got: &[Card]| {
                        let at = want.iter().zip(got).position(|(w, g)| w != g)?;
                        let card = |card: &Card| format!("the {who}'s card {} {card}", at + 1);
                        Some((card(&want[at]), card(&got[at])))
                    };
                    first_other("player", &want.player, &got.player)
                        .or_else(|| first_other("dealer", &want.dealer, &got.dealer))
                })
            }
            _ => None,
        }
    }
}

impl Submission {
    /// Registers `H` as this submission's blackjack hand and `G` as its game.
    pub fn blackjack<H: BlackjackHand + 'static, G: BlackjackGame + 'static>(self) -> Submission {
        self.register::<Contract>(Builders {
            hand: builder_of!(BlackjackHand, H),
            game: builder_of!(BlackjackGame, G),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::round_trip;

    #[test]
    fn a_breakdown_names_wrong_totals_and_rounds_by_value() {
        assert_eq!(
            Contract::kind(&Answer::Number(12)),
            None,
            "totals are listed by value"
        );
        let cards = |text: &str| -> Vec<Card> {
            text.split(' ').map(|card| card.parse().unwrap()).collect()
        };
        let want = Round {
            outcome: Outcome::PlayerWins,
            player: cards("10H 7S"),
            dealer: cards("10C 6D KH"),
            player_total: 17,
            dealer_total: 26,
        };
        let busted_later = Round {
            dealer_total: 16,
            ..want.clone()
        };
        assert_eq!(
            Contract::breakdown(&Answer::Round(want.clone()), &Answer::Round(busted_later)),
            Some((
                "a dealer's total of 26".to_string(),
                "a dealer's total of 16".to_string()
            ))
        );
        let lost = Round {
            outcome: Outcome::DealerWins,
            ..want.clone()
        };
        let (expected, actual) =
            Contract::breakdown(&Answer::Round(want.clone()), &Answer::Round(lost)).unwrap();
        assert_eq!(
            (expected.as_str(), actual.as_str()),
            ("player wins", "dealer wins")
        );
        let dealt_otherwise = Round {
            player: cards("10H 7C"),
            ..want.clone()
        };
        assert_eq!(
            Contract::breakdown(&Answer::Round(want), &Answer::Round(dealt_otherwise)),
            Some((
                "the player's card 2 7♠".to_string(),
                "the player's card 2 7♣".to_string()
            ))
        );
    }

    #[test]
    fn blackjack_values_round_trip() {
        let card: Card = "AS".parse().unwrap();
        round_trip(Table {
            deck: vec![card],
            seed: 3,
            policy: Policy::Script(vec![Action::Hit, Action::Stand]),
            rounds: 2,
        });
        round_trip(Round {
            outcome: Outcome::Push,
            player: vec![card],
            dealer: vec![],
            player_total: 21,
            dealer_total: 0,
        });
        round_trip(Tally {
            won: 1,
            tied: 2,
            lost: 3,
        });
        round_trip(TableSource::Generated(RandomRounds {
            count: 5,
            seed: 1,
            policy: Policy::HitBelow(17),
        }));
    }

    #[test]
    fn a_script_runs_out_into_standing() {
        let card: Card = "5C".parse().unwrap();
        let mut player = PolicyPlayer::new(Policy::Script(vec![Action::Hit]));
        assert_eq!(player.decide(&[], 10, card), Action::Hit);
        assert_eq!(player.decide(&[], 15, card), Action::Stand);
        let mut rule = PolicyPlayer::new(Policy::HitBelow(17));
        assert_eq!(rule.decide(&[], 16, card), Action::Hit);
        assert_eq!(rule.decide(&[], 17, card), Action::Stand);
    }

    #[test]
    fn random_hands_hold_many_aces() {
        let mut most_aces = 0;
        random_hands(2_000, 1, |hand| {
            most_aces = most_aces.max(hand.iter().filter(|c| c.value() == ACE).count());
            (1..=12).contains(&hand.len())
        });
        assert!(most_aces >= 5, "{most_aces}");
    }

    #[test]
    fn outcomes_parse_as_people_write_them() {
        assert_eq!("player wins".parse(), Ok(Outcome::PlayerWins));
        assert_eq!("Push".parse(), Ok(Outcome::Push));
        assert_eq!("dealer_wins".parse(), Ok(Outcome::DealerWins));
    }
}
