//! Poker hands (seed 002) and their ranking rules, standard or seed 004's (`draw_1572`).

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use crate::assignment::{self, Answering, Assignment, Lines, each_check, guarded};
use crate::card::{Card, Suit, format_cards};
use crate::deck::{HandSource, RandomHands, below, seeded_rng};
use crate::protocol::{Reply, group_digits};
use crate::source::{Generator, Source};
use crate::submission::Submission;

#[cfg(feature = "spec")]
pub(crate) mod spec;
pub mod stand_in;

labelled!(
    /// The hand categories, worst to best; seed 002 numbers them 1 to 9 in the value vector.
    Category {
        HighCard => "high card",
        OnePair => "one pair",
        TwoPair => "two pairs",
        ThreeOfAKind => "three of a kind",
        Straight => "straight",
        Flush => "flush",
        FullHouse => "full house",
        FourOfAKind => "four of a kind",
        StraightFlush => "straight flush",
    }
);

impl Category {
    /// Seed 002's number for the category: 1 for high card up to 9 for a straight flush.
    pub fn number(self) -> u32 {
        self as u32 + 1
    }
}

impl FromStr for Category {
    type Err = String;
    fn from_str(text: &str) -> Result<Category, String> {
        // `two pair` is `two pairs`, and `one pairs` is `one pair`.
        let key = |t: &str| {
            let key: String = t.chars().filter(|c| c.is_alphanumeric()).collect();
            key.to_lowercase().trim_end_matches('s').to_string()
        };
        Category::by_label(text, key).ok_or_else(|| {
            format!("`{text}` is not a poker category, such as `full house` or `one pair`")
        })
    }
}

/// How ties are broken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ties {
    /// Every rank that can break a tie does (kickers included); suits never do.
    #[default]
    Standard,
    /// Seed 004 (Comp 1572): high card, flush, straight and straight flush by the highest
    /// card, then its suit (clubs < diamonds < hearts < spades); full house, three and four
    /// of a kind by the rank of the group; two pairs by the high pair; a pair by its rank.
    Draw1572,
}

impl Ties {
    pub const ALL: [Ties; 2] = [Ties::Standard, Ties::Draw1572];
}

/// The rules a spec chooses; the reference obeys them and a student's hand may read them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PokerRules {
    pub ties: Ties,
    /// A-2-3-4-5 is a straight whose high card is the 5.
    pub ace_low_straight: bool,
}

impl Default for PokerRules {
    fn default() -> PokerRules {
        PokerRules {
            ties: Ties::Standard,
            ace_low_straight: true,
        }
    }
}

/// A five-card poker hand, as seed 002's `Hand`.
pub trait PokerHand {
    /// The hand of `cards` under `rules`.
    fn new(cards: Vec<Card>, rules: PokerRules) -> Self
    where
        Self: Sized;

    fn cards(&self) -> &[Card];

    /// The best category the cards form (a straight flush is not also counted a flush).
    fn category(&self) -> Category;

    /// Seed 002's value vector: the category's number (1-9) first, then what breaks ties
    /// in order (ranks 2-14; a wheel's high card is 5; under `draw_1572` a suit as 1-4 for
    /// clubs to spades where the rules say a suit decides). Hands compare by this vector.
    /// Graded as this exact vector, as the seed lays it out; `compare` is graded on its own.
    fn tiebreak(&self) -> Vec<u32>;

    /// How this hand ranks against `other` (provided: the value vectors compared in order).
    fn compare(&self, other: &dyn PokerHand) -> Ordering {
        self.tiebreak().cmp(&other.tiebreak())
    }
}

/// Seed 004's number for a suit, as the `draw_1572` vectors hold it: clubs 1 to spades 4.
pub fn suit_number(suit: Suit) -> u32 {
    suit as u32 + 1
}

checks!(
    /// A question about one poker hand.
    Check, "a poker check" {
        Category => "category",
        Tiebreak => "tiebreak",
    }
);

impl Check {
    pub fn ask(self, hand: &dyn PokerHand) -> Answer {
        match self {
            Check::Category => Answer::Category(hand.category()),
            Check::Tiebreak => Answer::Cells(hand.tiebreak().into_iter().map(i64::from).collect()),
        }
    }
}

/// Two hands to compare.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Matchup {
    pub first: Vec<Card>,
    pub second: Vec<Card>,
}

impl Matchup {
    /// What each comparison answer is about, in the order they are answered: the pair
    /// both ways (compare must be antisymmetric) and the first hand against itself
    /// reordered (equal hands compare equal).
    pub const QUESTIONS: [&'static str; 3] = [
        "first.compare(second)",
        "second.compare(first)",
        "first.compare(first, its cards reversed)",
    ];

    pub fn describe(&self) -> String {
        format!(
            "first:  {}\nsecond: {}",
            format_cards(&self.first),
            format_cards(&self.second)
        )
    }

    pub fn answers(&self, build: &dyn Fn(Vec<Card>) -> Box<dyn PokerHand>) -> Vec<Reply<Answer>> {
        let first = build(self.first.clone());
        let second = build(self.second.clone());
        let reversed = build(self.first.iter().rev().copied().collect());
        [
            first.compare(&*second),
            second.compare(&*first),
            first.compare(&*reversed),
        ]
        .map(|ordering| Reply::Answer(Answer::Ordering(ordering)))
        .to_vec()
    }
}

/// Both hands' categories and value vectors side by side, as `build` sees them, and the
/// element that decides between them.
pub fn explain(matchup: &Matchup, build: &dyn Fn(Vec<Card>) -> Box<dyn PokerHand>) -> String {
    let (first, second) = (build(matchup.first.clone()), build(matchup.second.clone()));
    let (a, b) = (first.tiebreak(), second.tiebreak());
    let decided = a.iter().zip(&b).position(|(x, y)| x != y);
    let row = |name: &str, hand: &dyn PokerHand, vector: &[u32]| {
        let cells: Vec<String> = vector
            .iter()
            .enumerate()
            .map(|(i, v)| {
                if Some(i) == decided {
                    format!("[{v}]")
                } else {
                    v.to_string()
                }
            })
            .collect();
        format!(
            "{name:<7} {:<16} {:<18} {}",
            format_cards(hand.cards()),
            hand.category().label(),
            cells.join(" ")
        )
    };
    let verdict = match decided {
        Some(0) => "the categories decide".to_string(),
        Some(i) => format!("cell {i} of the vectors decides (marked; cells count from 0)"),
        None => "the vectors are equal: a tie".to_string(),
    };
    format!(
        "{}\n{}\n{verdict}",
        row("first", &*first, &a),
        row("second", &*second, &b)
    )
}

/// `count` pairs of hands dealt from one shuffled deck each; every fourth pair is two
/// hands of the same category, where tie-breaks matter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RandomPairs {
    pub count: u32,
    pub seed: u64,
}

impl Generator for RandomPairs {
    type Item = Matchup;

    fn count(&self) -> u32 {
        self.count
    }

    fn generate(&self, visit: &mut dyn FnMut(Matchup) -> bool) {
        let RandomPairs { count, seed } = self;
        let mut rng = seeded_rng(*seed);
        for index in 0..*count {
            let mut first = Vec::new();
            HandSource::Generated(RandomHands {
                count: 1,
                seed: u64::from(below(&mut rng, u32::MAX)),
                hand_size: 10,
                min_hand_size: 10,
            })
            .for_each_hand(|ten| {
                first = ten;
                false
            });
            let second = first.split_off(5);
            let matchup = if index % 4 == 3 {
                same_shape(&first, &second)
            } else {
                Matchup { first, second }
            };
            if !visit(matchup) {
                return;
            }
        }
    }
}

/// Where the matchups of a request come from.
pub type MatchupSource = Source<Matchup, RandomPairs>;

/// A second hand with the first's pattern of ranks shifted and suits rotated, so the two
/// usually share a category and tie-breaks decide.
fn same_shape(first: &[Card], second: &[Card]) -> Matchup {
    let shift = u32::from(second[0].value()) % 3;
    let shifted = first
        .iter()
        .map(|card| {
            let value = 2 + (u32::from(card.value()) - 2 + shift) % 13;
            let suit = Suit::ALL[(card.suit() as usize + 1) % 4];
            Card::new(value as u8, suit).expect("value kept in 2..=14")
        })
        .collect();
    Matchup {
        first: first.to_vec(),
        second: shifted,
    }
}

crate::wire_by_position!(Category);
crate::wire_by_position!(Ties);
crate::wire_struct!(PokerRules {
    ties,
    ace_low_straight
});
crate::wire_struct!(Matchup { first, second });

crate::wire_struct!(RandomPairs { count, seed });

/// What a poker hand's method returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Category(Category),
    Cells(Vec<i64>),
    Ordering(Ordering),
}

crate::wire_enum!(Answer {
    Category(category),
    Cells(cells),
    Ordering(ordering)
});

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Category(category) => write!(f, "{category}"),
            Answer::Cells(cells) => f.write_str(&assignment::cells_text(cells)),
            Answer::Ordering(ordering) => write!(f, "{ordering:?}"),
        }
    }
}

/// A question for a poker submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Every check on every poker hand.
    Hands {
        source: HandSource,
        checks: Vec<Check>,
        rules: PokerRules,
    },
    /// Each pair of hands compared both ways, and the first with itself reordered.
    Matchups {
        source: MatchupSource,
        rules: PokerRules,
    },
}

crate::wire_enum!(Request {
    Hands {
        source,
        checks,
        rules
    },
    Matchups { source, rules }
});

/// One input: a hand, or two to compare.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Hand(Vec<Card>),
    Matchup(Matchup),
}

crate::wire_enum!(Input {
    Hand(cards),
    Matchup(matchup)
});

/// Builds the submission's poker hand from its cards, under the rules given.
pub type PokerHandBuilder = fn(Vec<Card>, PokerRules) -> Box<dyn PokerHand>;

pub(crate) fn poker_hand<H: PokerHand + 'static>(
    cards: Vec<Card>,
    rules: PokerRules,
) -> Box<dyn PokerHand> {
    Box::new(H::new(cards, rules))
}

fn describe_rules(rules: &PokerRules) -> String {
    let ties = match rules.ties {
        Ties::Standard => "standard ties",
        Ties::Draw1572 => "draw_1572 ties",
    };
    let wheel = if rules.ace_low_straight {
        "A-2-3-4-5 a straight"
    } else {
        "no ace-low straight"
    };
    format!("{ties}, {wheel}")
}

/// The poker hands assignment (seed 002).
pub struct Contract;

impl Assignment for Contract {
    contract_items!("poker", ".poker::<YourHand>()", PokerHandBuilder);

    fn respond(mut answering: Answering<'_, Self>) {
        match answering.request {
            Request::Hands {
                source,
                checks,
                rules,
            } => source.for_each_hand_in(answering.window, |cards: Vec<Card>| {
                let hand = answering
                    .registered
                    .map(|build| guarded(|| build(cards.clone(), *rules)));
                let replies = each_check(hand, checks.len(), |hand, i| checks[i].ask(hand));
                answering.answer(Input::Hand(cards), replies)
            }),
            Request::Matchups { source, rules } => {
                let questions = Matchup::QUESTIONS.len();
                source.for_each(answering.window.only(|matchup: Matchup| {
                    let replies = match answering.registered {
                        None => vec![Reply::NotRegistered; questions],
                        Some(build) => guarded(|| matchup.answers(&|cards| build(cards, *rules)))
                            .unwrap_or_else(|panic| vec![Reply::Panicked(panic); questions]),
                    };
                    answering.answer(Input::Matchup(matchup), replies)
                }));
            }
        }
    }

    fn input_count(request: &Request) -> u64 {
        match request {
            Request::Hands { source, .. } => source.len(),
            Request::Matchups { source, .. } => source.len(),
        }
    }

    fn question(request: &Request, index: usize) -> String {
        match request {
            Request::Hands { checks, .. } => assignment::check_question(checks, index),
            Request::Matchups { .. } => Matchup::QUESTIONS
                .get(index)
                .copied()
                .unwrap_or_default()
                .into(),
        }
    }

    fn scored_checks(request: &Request) -> usize {
        match request {
            Request::Hands { checks, .. } => checks.len(),
            Request::Matchups { .. } => 1,
        }
    }

    fn describe_inputs(request: &Request) -> String {
        match request {
            Request::Hands {
                source,
                checks,
                rules,
            } => {
                format!(
                    "{} ({})\nchecks: {}",
                    source.describe(),
                    describe_rules(rules),
                    assignment::check_names(checks)
                )
            }
            Request::Matchups { source, rules } => match source {
                Source::Listed(list) => {
                    format!("{} pairs of hands ({})", list.len(), describe_rules(rules))
                }
                Source::Generated(RandomPairs { count, seed }) => format!(
                    "{} pairs of hands from seed {seed}, compared both ways and each with itself ({})",
                    group_digits(u64::from(*count)),
                    describe_rules(rules)
                ),
            },
        }
    }

    fn input_label(input: &Input) -> &'static str {
        match input {
            Input::Hand(_) => "hand",
            Input::Matchup(_) => "hands",
        }
    }

    fn describe_input(input: &Input, _: usize) -> String {
        match input {
            Input::Hand(cards) => assignment::describe_hand(cards),
            Input::Matchup(matchup) => matchup.describe(),
        }
    }

    fn explain(
        reference: &PokerHandBuilder,
        request: &Request,
        input: &Input,
        _: &Answer,
        _: Option<&Answer>,
    ) -> Option<String> {
        match (request, input) {
            (Request::Matchups { rules, .. }, Input::Matchup(matchup)) => {
                Some(explain(matchup, &|cards| reference(cards, *rules)))
            }
            _ => None,
        }
    }

    fn lines(answer: &Answer) -> Option<Lines> {
        match answer {
            Answer::Cells(cells) => Some(assignment::cell_lines(cells)),
            _ => None,
        }
    }
}

impl Submission {
    /// Registers `H` as this submission's poker hand (seed 002).
    pub fn poker<H: PokerHand + 'static>(self) -> Submission {
        self.register::<Contract>(poker_hand::<H>)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::round_trip;

    #[test]
    fn poker_values_round_trip() {
        round_trip(PokerRules {
            ties: Ties::Draw1572,
            ace_low_straight: false,
        });
        round_trip(MatchupSource::Generated(RandomPairs { count: 4, seed: 8 }));
        round_trip(Category::StraightFlush);
    }

    #[test]
    fn categories_parse_as_people_write_them() {
        assert_eq!("full house".parse(), Ok(Category::FullHouse));
        assert_eq!("Two pair".parse(), Ok(Category::TwoPair));
        assert_eq!("two_pairs".parse(), Ok(Category::TwoPair));
        assert_eq!("straight-flush".parse(), Ok(Category::StraightFlush));
        assert!("pear".parse::<Category>().is_err());
    }

    #[test]
    fn generated_matchups_are_ten_distinct_cards_or_same_shaped() {
        let mut count = 0;
        Source::Generated(RandomPairs { count: 40, seed: 3 }).for_each(|m| {
            assert_eq!((m.first.len(), m.second.len()), (5, 5));
            count += 1;
            true
        });
        assert_eq!(count, 40);
    }
}
