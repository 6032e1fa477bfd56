//! Plaisante (seed 000): the hand a player plays, scored as its total value times its
//! hand's multiplier, from a table a spec may set.

use std::fmt;
use std::str::FromStr;

use crate::assignment::{self, Answering, Assignment, Lines, each_check, guarded};
use crate::card::Card;
use crate::deck::HandSource;
use crate::submission::Submission;
use crate::wire::Wire;

#[cfg(feature = "spec")]
mod spec;
pub mod stand_in;

/// Length of the array [`PlaisanteHand::count_values`] returns: one cell per value 0..=14.
pub const COUNTS_LEN: usize = 15;

labelled!(
    /// The hands [`PlaisanteHand::evaluate`] can name, worst to best.
    HandName {
        HighCard => "High Card",
        Pair => "Pair",
        TwoPair => "Two Pair",
        ThreeOfAKind => "Three of a Kind",
        Straight => "Straight",
        Flush => "Flush",
        FullHouse => "Full House",
        FourOfAKind => "Four of a Kind",
    }
);

impl FromStr for HandName {
    type Err = String;
    fn from_str(text: &str) -> Result<HandName, String> {
        HandName::by_label(text, normalize).ok_or_else(|| {
            let names: Vec<&str> = HandName::ALL.iter().map(|n| n.label()).collect();
            format!(
                "`{text}` is not a hand name; expected one of: {}",
                names.join(", ")
            )
        })
    }
}

fn normalize(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}
/// The multiplier of each hand: the table [`PlaisanteHand::base_mult`] looks a hand up in.
///
/// Seed 000 prints no numbers, only that "each hand has a different multiplier; the
/// better the hand, the larger the multiplier" and that a Pair multiplies by 2. So the
/// default counts up from 1 in [`HandName`]'s order, worst to best: high card 1, pair 2,
/// two pair 3, three of a kind 4, straight 5, flush 6, full house 7, four of a kind 8.
/// A spec may set another table (`rules: { multipliers: {...} }`); the reference and the
/// provided `base_mult` both use the one a request carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Multipliers([u32; HandName::ALL.len()]);

impl Multipliers {
    /// The table giving `HandName::ALL[i]` the multiplier `by_hand[i]`.
    pub fn new(by_hand: [u32; HandName::ALL.len()]) -> Multipliers {
        Multipliers(by_hand)
    }

    /// The multiplier of `hand`.
    pub fn of(&self, hand: HandName) -> u32 {
        self.0[hand as usize]
    }
}

impl Default for Multipliers {
    fn default() -> Multipliers {
        Multipliers([1, 2, 3, 4, 5, 6, 7, 8])
    }
}

impl fmt::Display for Multipliers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entries: Vec<String> = HandName::ALL
            .iter()
            .map(|&hand| format!("{hand} x{}", self.of(hand)))
            .collect();
        f.write_str(&entries.join(", "))
    }
}

impl Wire for Multipliers {
    fn put(&self, out: &mut (impl std::io::Write + ?Sized)) -> std::io::Result<()> {
        self.0.iter().try_for_each(|multiplier| multiplier.put(out))
    }
    fn take(input: &mut (impl std::io::Read + ?Sized)) -> std::io::Result<Multipliers> {
        let mut by_hand = [0; HandName::ALL.len()];
        for multiplier in &mut by_hand {
            *multiplier = u32::take(input)?;
        }
        Ok(Multipliers(by_hand))
    }
}

/// A Plaisante hand of up to five cards, as the seed's `Hand` class.
///
/// Students write the constructor, `count_values` and the seven `has_*` checks;
/// `evaluate`, `total_value`, `base_mult` and `score` are provided as in the seed and may
/// be overridden.
pub trait PlaisanteHand {
    /// A hand holding `cards`, in the order given.
    fn new(cards: Vec<Card>) -> Self
    where
        Self: Sized;

    /// The cards of the hand, in order.
    fn cards(&self) -> &[Card];

    /// How many cards of each value the hand holds: a sequence of 15 cells where the cell
    /// at index `v` counts the cards of value `v` (cells 0 and 1 are always 0).
    fn count_values(&self) -> Vec<u32>;

    /// Some value appears exactly twice.
    fn has_pair(&self) -> bool;
    /// Two different values each appear exactly twice.
    fn has_two_pair(&self) -> bool;
    /// Some value appears exactly three times.
    fn has_three_of_a_kind(&self) -> bool;
    /// Some value appears exactly four times.
    fn has_four_of_a_kind(&self) -> bool;
    /// Three of one value and two of another.
    fn has_full_house(&self) -> bool;
    /// Five cards, all of one suit.
    fn has_flush(&self) -> bool;
    /// Five different values in a row, ace high only (A-2-3-4-5 is not a straight).
    fn has_straight(&self) -> bool;

    /// The value of the lowest card (provided, as in the seed's starter file).
    fn lowest_value(&self) -> u8 {
        self.cards().iter().map(|c| c.value()).min().unwrap_or(0)
    }

    /// The value of the highest card (provided).
    fn highest_value(&self) -> u8 {
        self.cards().iter().map(|c| c.value()).max().unwrap_or(0)
    }

    /// The best hand the cards form, checking from best to worst (provided).
    fn evaluate(&self) -> HandName {
        if self.has_four_of_a_kind() {
            HandName::FourOfAKind
        } else if self.has_full_house() {
            HandName::FullHouse
        } else if self.has_flush() {
            HandName::Flush
        } else if self.has_straight() {
            HandName::Straight
        } else if self.has_three_of_a_kind() {
            HandName::ThreeOfAKind
        } else if self.has_two_pair() {
            HandName::TwoPair
        } else if self.has_pair() {
            HandName::Pair
        } else {
            HandName::HighCard
        }
    }

    /// The sum of the card values: 2..10 face value, J 11, Q 12, K 13, A 14 (provided).
    fn total_value(&self) -> u32 {
        self.cards().iter().map(|c| u32::from(c.value())).sum()
    }

    /// The multiplier of the hand [`evaluate`](PlaisanteHand::evaluate) names, from
    /// `multipliers`, the table the grader passes: the seed's unless a spec sets another
    /// (provided).
    fn base_mult(&self, multipliers: &Multipliers) -> u32 {
        multipliers.of(self.evaluate())
    }

    /// `total_value() * base_mult(multipliers)` (provided).
    fn score(&self, multipliers: &Multipliers) -> u32 {
        self.total_value() * self.base_mult(multipliers)
    }
}

checks!(
    /// One question a spec can ask of a hand: a method of [`PlaisanteHand`].
    Check, "a check" {
        CountValues => "count_values",
        HasPair => "has_pair",
        HasTwoPair => "has_two_pair",
        HasThreeOfAKind => "has_three_of_a_kind",
        HasFourOfAKind => "has_four_of_a_kind",
        HasFullHouse => "has_full_house",
        HasFlush => "has_flush",
        HasStraight => "has_straight",
        Evaluate => "evaluate",
        TotalValue => "total_value",
        BaseMult => "base_mult",
        Score => "score",
    }
);

impl Check {
    /// Calls the method on `hand`, with the spec's `multipliers` where it takes them, and
    /// wraps what it returns.
    pub fn ask(self, hand: &dyn PlaisanteHand, multipliers: &Multipliers) -> Answer {
        match self {
            Check::CountValues => {
                Answer::Cells(hand.count_values().into_iter().map(i64::from).collect())
            }
            Check::HasPair => Answer::Bool(hand.has_pair()),
            Check::HasTwoPair => Answer::Bool(hand.has_two_pair()),
            Check::HasThreeOfAKind => Answer::Bool(hand.has_three_of_a_kind()),
            Check::HasFourOfAKind => Answer::Bool(hand.has_four_of_a_kind()),
            Check::HasFullHouse => Answer::Bool(hand.has_full_house()),
            Check::HasFlush => Answer::Bool(hand.has_flush()),
            Check::HasStraight => Answer::Bool(hand.has_straight()),
            Check::Evaluate => Answer::Hand(hand.evaluate()),
            Check::TotalValue => Answer::Number(i64::from(hand.total_value())),
            Check::BaseMult => Answer::Number(i64::from(hand.base_mult(multipliers))),
            Check::Score => Answer::Number(i64::from(hand.score(multipliers))),
        }
    }
}

/// What one method of a Plaisante hand returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Bool(bool),
    Hand(HandName),
    Number(i64),
    Cells(Vec<i64>),
}

crate::wire_enum!(Answer {
    Bool(value),
    Hand(name),
    Number(value),
    Cells(cells),
});

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Bool(value) => write!(f, "{value}"),
            Answer::Hand(name) => write!(f, "{name}"),
            Answer::Number(value) => write!(f, "{value}"),
            Answer::Cells(cells) => f.write_str(&assignment::cells_text(cells)),
        }
    }
}

/// Every check of `checks` on every hand of `source`, scored with `multipliers`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub source: HandSource,
    pub checks: Vec<Check>,
    pub multipliers: Multipliers,
}

crate::wire_struct!(Request {
    source,
    checks,
    multipliers
});

/// Builds the submission's hand from its cards.
pub type HandBuilder = fn(Vec<Card>) -> Box<dyn PlaisanteHand>;

/// The Plaisante hand assignment (seed 000).
pub struct Contract;

impl Assignment for Contract {
    contract_items!("plaisante_hand", ".plaisante_hand::<YourHand>()", HandBuilder, input: Vec<Card>);

    fn respond(mut answering: Answering<'_, Self>) {
        let request = answering.request;
        let checks = &request.checks;
        request
            .source
            .for_each_hand_in(answering.window, |cards: Vec<Card>| {
                let hand = answering
                    .registered
                    .map(|build| guarded(|| build(cards.clone())));
                let replies = each_check(hand, checks.len(), |hand, i| {
                    checks[i].ask(hand, &request.multipliers)
                });
                answering.answer(cards, replies)
            });
    }

    fn input_count(request: &Request) -> u64 {
        request.source.len()
    }

    fn question(request: &Request, index: usize) -> String {
        assignment::check_question(&request.checks, index)
    }

    fn scored_checks(request: &Request) -> usize {
        request.checks.len()
    }

    fn describe_inputs(request: &Request) -> String {
        let mut text = format!(
            "{}\nchecks: {}",
            request.source.describe(),
            assignment::check_names(&request.checks)
        );
        // The seed's table goes without saying; a course's own is what a student must see.
        if request.multipliers != Multipliers::default() {
            text.push_str(&format!("\nmultipliers: {}", request.multipliers));
        }
        text
    }

    fn input_label(_: &Vec<Card>) -> &'static str {
        "hand"
    }

    fn describe_input(cards: &Vec<Card>, _: usize) -> String {
        assignment::describe_hand(cards)
    }

    /// How a listed case's multiplier or score comes out of the request's table: a
    /// student reading the number alone cannot tell a wrong hand from a wrong table.
    fn explain(
        reference: &HandBuilder,
        request: &Request,
        input: &Vec<Card>,
        _: &Answer,
        _: Option<&Answer>,
    ) -> Option<String> {
        let [Check::BaseMult | Check::Score] = request.checks.as_slice() else {
            return None;
        };
        let multipliers = &request.multipliers;
        let hand = reference(input.clone());
        let name = hand.evaluate();
        Some(format!(
            "{name}: total_value {} x base_mult {} = score {}\nmultipliers: {multipliers}",
            hand.total_value(),
            hand.base_mult(multipliers),
            hand.score(multipliers)
        ))
    }

    fn lines(answer: &Answer) -> Option<Lines> {
        match answer {
            Answer::Cells(cells) => Some(assignment::cell_lines(cells)),
            _ => None,
        }
    }

    // Numbers are listed by value, so a breakdown says "expected 24 but got 16": the two
    // numbers are how a student tells a wrong multiplier from a wrong total.
    fn kind(answer: &Answer) -> Option<&'static str> {
        match answer {
            Answer::Cells(_) => Some("counts"),
            _ => None,
        }
    }
}

impl Submission {
    /// Registers `H` as this submission's Plaisante hand.
    pub fn plaisante_hand<H: PlaisanteHand + 'static>(self) -> Submission {
        fn build<H: PlaisanteHand + 'static>(cards: Vec<Card>) -> Box<dyn PlaisanteHand> {
            Box::new(H::new(cards))
        }
        self.register::<Contract>(build::<H>)
    }
}

crate::wire_by_position!(HandName);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::round_trip;

    #[test]
    fn the_default_multipliers_rise_with_the_hand_and_a_pair_doubles() {
        let table = Multipliers::default();
        assert_eq!(table.of(HandName::Pair), 2);
        for pair in HandName::ALL.windows(2) {
            assert!(
                table.of(pair[0]) < table.of(pair[1]),
                "{} {}",
                pair[0],
                pair[1]
            );
        }
    }

    #[test]
    fn requests_round_trip_with_their_multipliers() {
        round_trip(Request {
            source: HandSource::Generated(crate::deck::RandomHands {
                count: 3,
                seed: 9,
                hand_size: 5,
                min_hand_size: 1,
            }),
            checks: vec![Check::Score],
            multipliers: Multipliers::new([1, 3, 5, 7, 9, 11, 13, 15]),
        });
    }
}
