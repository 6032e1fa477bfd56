//! Five-card draw (seed 004): discard up to three cards by position, draw replacements,
//! and a whole hand against the dealer under the `draw_1572` rules.
//!
//! The contract is here: the student's trait, and how the grader asks it and explains its
//! answers. What they exchange (tables, discards, answers) is `messages.rs`, and the spec
//! side is apart.

use crate::assignment::{self, Answering, Assignment, Lines, ask, guarded};
use crate::card::Card;
use crate::deck::Deck;
use crate::poker::{self, PokerHand, PokerHandBuilder, PokerRules, Ties, poker_hand};
use crate::protocol::Reply;
use crate::submission::Submission;

mod messages;
#[cfg(feature = "spec")]
mod spec;
pub mod stand_in;

pub use messages::{Answer, Check, Discard, DrawResult, DrawTable, Input, Request};

/// At most this many cards may be discarded.
pub const MAX_DISCARDS: usize = 3;

/// The rules seed 004's game is played by.
pub const DRAW_RULES: PokerRules = PokerRules {
    ties: Ties::Draw1572,
    ace_low_straight: true,
};

/// Why a discard was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DiscardError {
    #[error("{0} positions: at most 3 cards may be discarded")]
    TooMany(usize),
    #[error("position {0} is given twice")]
    Repeated(u32),
    #[error("position {0} is not one of 1 to 5")]
    OutOfRange(u32),
}

/// Checks `positions` as the player typed them: at most 3, each 1 to 5, none twice.
pub fn check_positions(positions: &[u32]) -> Result<(), DiscardError> {
    if positions.len() > MAX_DISCARDS {
        return Err(DiscardError::TooMany(positions.len()));
    }
    for (index, &position) in positions.iter().enumerate() {
        if !(1..=5).contains(&position) {
            return Err(DiscardError::OutOfRange(position));
        }
        if positions[..index].contains(&position) {
            return Err(DiscardError::Repeated(position));
        }
    }
    Ok(())
}

/// Seed 004's game. Students write the discards; `play_hand` is provided.
pub trait DrawGame {
    fn new() -> Self
    where
        Self: Sized;

    /// Replaces the cards at `positions` (1 to 5, as the player types them) with cards
    /// drawn from the top of `deck`, in the order the positions are given, each into its
    /// discarded slot. More than 3 positions, a repeated one or one outside 1..=5 is an
    /// error, returned without touching the hand: never a panic.
    fn discard_and_draw(
        &self,
        hand: &mut [Card],
        positions: &[u32],
        deck: &mut Deck,
    ) -> Result<(), DiscardError>;

    /// The dealer's choice of positions to discard: at most 3, each 1 to 5. The seed's
    /// stub keeps every card (an empty list).
    fn dealer_discards(&self, hand: &[Card]) -> Vec<u32>;
}

/// The submission's game, and the hand it ranks with.
pub struct Builders {
    pub game: fn() -> Box<dyn DrawGame>,
    pub hand: PokerHandBuilder,
}

/// The five-card draw assignment (seed 004).
pub struct Contract;

impl Assignment for Contract {
    contract_items!(
        "draw_poker",
        ".draw_poker::<YourGame, YourHand>()",
        Builders
    );

    fn respond(mut answering: Answering<'_, Self>) {
        match answering.request {
            Request::Discards { discards } => {
                let mut answer = answering.window.only(|discard: &Discard| {
                    let reply = match answering.registered {
                        None => Reply::NotRegistered,
                        Some(builders) => ask(|| discard.answer(&*(builders.game)())),
                    };
                    answering.answer(Input::Discard(discard.clone()), vec![reply])
                });
                for discard in discards {
                    if !answer(discard) {
                        return;
                    }
                }
            }
            Request::DealerDiscards { source } => {
                source.for_each_hand_in(answering.window, |cards: Vec<Card>| {
                    let reply = match answering.registered {
                        None => Reply::NotRegistered,
                        Some(builders) => ask(|| {
                            let positions = (builders.game)().dealer_discards(&cards);
                            Answer::Rule(check_positions(&positions).err().map(|e| e.to_string()))
                        }),
                    };
                    answering.answer(Input::Hand(cards), vec![reply])
                })
            }
            Request::Tables { tables } => {
                let mut answer = answering.window.only(|table: &DrawTable| {
                    let expected_len = table.player.len() + 1;
                    let replies = match answering.registered {
                        None => vec![Reply::NotRegistered; expected_len],
                        Some(builders) => guarded(|| {
                            table.play(&*(builders.game)(), &|cards| {
                                (builders.hand)(cards, DRAW_RULES)
                            })
                        })
                        .map(|answers| answers.into_iter().map(Reply::Answer).collect())
                        .unwrap_or_else(|panic| vec![Reply::Panicked(panic); expected_len]),
                    };
                    answering.answer(Input::Table(table.clone()), replies)
                });
                for table in tables {
                    if !answer(table) {
                        return;
                    }
                }
            }
            Request::Ranking(ranking) => poker::Contract::respond(Answering {
                registered: answering.registered.map(|builders| &builders.hand),
                session: &mut (),
                request: ranking,
                window: answering.window,
                on_input: &mut |input, replies| {
                    let replies = replies.into_iter().map(|r| r.map(Answer::Ranking));
                    answering.answer(Input::Ranking(input), replies.collect())
                },
            }),
        }
    }

    fn input_count(request: &Request) -> u64 {
        match request {
            Request::Discards { discards } => discards.len() as u64,
            Request::DealerDiscards { source } => source.len(),
            Request::Tables { tables } => tables.len() as u64,
            Request::Ranking(ranking) => poker::Contract::input_count(ranking),
        }
    }

    fn question(request: &Request, index: usize) -> String {
        match request {
            Request::Discards { .. } => "discard_and_draw(hand, positions, deck)".into(),
            Request::DealerDiscards { .. } => {
                "dealer_discards(hand): at most 3 positions, each 1 to 5".into()
            }
            Request::Tables { tables } => tables
                .first()
                .map(|t| t.question(index))
                .unwrap_or_default(),
            Request::Ranking(ranking) => poker::Contract::question(ranking, index),
        }
    }

    fn scored_checks(request: &Request) -> usize {
        match request {
            Request::Ranking(ranking) => poker::Contract::scored_checks(ranking),
            _ => 1,
        }
    }

    fn describe_inputs(request: &Request) -> String {
        match request {
            Request::Discards { discards } => format!("{} discards", discards.len()),
            Request::DealerDiscards { source } => {
                format!("dealer_discards on {}", source.describe())
            }
            Request::Tables { tables } => format!("{} tables", tables.len()),
            Request::Ranking(ranking) => poker::Contract::describe_inputs(ranking),
        }
    }

    fn input_label(input: &Input) -> &'static str {
        match input {
            Input::Hand(_) => "hand",
            Input::Discard(_) => "discard",
            Input::Table(_) => "table",
            Input::Ranking(input) => poker::Contract::input_label(input),
        }
    }

    fn describe_input(input: &Input, through: usize) -> String {
        match input {
            Input::Hand(cards) => assignment::describe_hand(cards),
            Input::Discard(discard) => discard.describe(),
            Input::Table(table) => table.describe(),
            Input::Ranking(input) => poker::Contract::describe_input(input, through),
        }
    }

    fn pinned(request: &Request, replies: &[Reply<Answer>]) -> Option<Request> {
        match request {
            Request::Tables { tables } if tables.len() == 1 => Some(Request::Tables {
                tables: vec![tables[0].pinned(replies)?],
            }),
            _ => None,
        }
    }

    fn explain(
        reference: &Builders,
        request: &Request,
        input: &Input,
        expected: &Answer,
        actual: Option<&Answer>,
    ) -> Option<String> {
        match (request, input, expected) {
            (Request::Ranking(ranking), Input::Ranking(input), Answer::Ranking(expected)) => {
                let actual = match actual {
                    Some(Answer::Ranking(actual)) => Some(actual),
                    _ => None,
                };
                poker::Contract::explain(&reference.hand, ranking, input, expected, actual)
            }
            _ => None,
        }
    }

    fn lines(answer: &Answer) -> Option<Lines> {
        match answer {
            Answer::Ranking(answer) => poker::Contract::lines(answer),
            _ => None,
        }
    }

    fn kind(answer: &Answer) -> Option<&'static str> {
        match answer {
            Answer::Cards(_) => Some("cards"),
            Answer::Draw(_) => Some("hand result"),
            Answer::Tally(_) => Some("tally"),
            Answer::Ranking(answer) => poker::Contract::kind(answer),
            _ => None,
        }
    }
}

impl Submission {
    /// Registers `G` as this submission's five-card draw game, ranking hands with `H`.
    pub fn draw_poker<G: DrawGame + 'static, H: PokerHand + 'static>(self) -> Submission {
        self.register::<Contract>(Builders {
            game: builder_of!(DrawGame, G),
            hand: poker_hand::<H>,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::round_trip;
    use std::cmp::Ordering;

    #[test]
    fn positions_are_checked_as_the_seed_says() {
        assert_eq!(check_positions(&[]), Ok(()));
        assert_eq!(check_positions(&[5, 1, 3]), Ok(()));
        assert_eq!(
            check_positions(&[1, 2, 3, 4]),
            Err(DiscardError::TooMany(4))
        );
        assert_eq!(check_positions(&[2, 2]), Err(DiscardError::Repeated(2)));
        assert_eq!(check_positions(&[0]), Err(DiscardError::OutOfRange(0)));
        assert_eq!(check_positions(&[6]), Err(DiscardError::OutOfRange(6)));
    }

    #[test]
    fn draw_values_round_trip() {
        round_trip(Ordering::Less);
        round_trip(Ordering::Greater);
        round_trip(DrawTable {
            deck: vec![],
            seed: 4,
            player: vec![vec![1, 2], vec![]],
            dealer: None,
        });
    }

    #[test]
    fn a_pinned_table_takes_the_dealers_choices() {
        let table = DrawTable {
            deck: vec![],
            seed: 1,
            player: vec![vec![1], vec![2]],
            dealer: None,
        };
        let answers = [
            Reply::Answer(Answer::Choice {
                positions: vec![3],
                problem: None,
            }),
            Reply::Answer(Answer::Choice {
                positions: vec![],
                problem: None,
            }),
        ];
        assert_eq!(
            table.pinned(&answers).unwrap().dealer,
            Some(vec![vec![3], vec![]])
        );
    }
}
