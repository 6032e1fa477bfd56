//! Five-card draw (seed 004): discard up to three cards by position, draw replacements,
//! and a whole hand against the dealer under the `draw_1572` rules.
//!
//! Over 600 lines, as one concern: the draw game's rules (discards, replacements, the
//! dealer, the `draw_1572` ranking) are one contract; its spec side is apart.

use std::cmp::Ordering;
use std::fmt;

use crate::assignment::{self, Assignment, Lines, ask, guarded};
use crate::blackjack::Tally;
use crate::card::{Card, format_cards};
use crate::deck::{Deck, HandSource};
use crate::poker::{self, Category, PokerHand, PokerHandBuilder, PokerRules, Ties, poker_hand};
use crate::protocol::Reply;
use crate::source::Window;
use crate::submission::Submission;

#[cfg(feature = "spec")]
mod spec;
pub mod stand_in;

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

/// A hand (or several) of the game on one deck.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DrawTable {
    /// The deck, top first; fresh decks after it come from `seed`.
    pub deck: Vec<Card>,
    pub seed: u64,
    /// The player's discards, one list per hand played.
    pub player: Vec<Vec<u32>>,
    /// The dealer's discards per hand; `None` asks the submission's own `dealer_discards`.
    pub dealer: Option<Vec<Vec<u32>>>,
}

impl DrawTable {
    pub fn describe(&self) -> String {
        let deck = if self.deck.is_empty() {
            format!("shuffled from seed {}", self.seed)
        } else {
            format_cards(&self.deck)
        };
        let player: Vec<String> = self.player.iter().map(|p| format!("{p:?}")).collect();
        let dealer = match &self.dealer {
            None => "its own dealer_discards".to_string(),
            Some(lists) => format!("{lists:?}"),
        };
        format!(
            "deck: {deck}\nplayer discards: {}\ndealer discards: {dealer}",
            player.join(" then ")
        )
    }

    /// The questions answered, in order: the dealer's choice for each hand, then the
    /// hand's result (one hand) or the tally (several).
    pub fn question(&self, index: usize) -> String {
        match index.checked_sub(self.player.len()) {
            None => format!("dealer_discards (hand {})", index + 1),
            Some(_) if self.player.len() == 1 => "the hand's result".into(),
            Some(_) => "the tally".into(),
        }
    }

    /// Plays the table with `game` and `build`; a dealer choice that breaks the rules is
    /// reported and the dealer then keeps every card.
    pub fn play(
        &self,
        game: &dyn DrawGame,
        build: &dyn Fn(Vec<Card>) -> Box<dyn PokerHand>,
    ) -> Vec<Answer> {
        let mut deck = if self.deck.is_empty() {
            Deck::shuffled(self.seed)
        } else {
            Deck::stacked_seeded(self.deck.clone(), self.seed)
        };
        let mut answers = Vec::new();
        let mut tally = Tally::default();
        let mut last = None;
        for (index, player_positions) in self.player.iter().enumerate() {
            let mut player: Vec<Card> = (0..5).map(|_| deck.deal()).collect();
            let mut dealer: Vec<Card> = (0..5).map(|_| deck.deal()).collect();
            // The spec's player discards are valid; a refusal leaves the hand as dealt.
            let _ = game.discard_and_draw(&mut player, player_positions, &mut deck);
            let (positions, problem) = match &self.dealer {
                Some(lists) => (lists.get(index).cloned().unwrap_or_default(), None),
                None => {
                    let own = game.dealer_discards(&dealer);
                    let problem = check_positions(&own).err().map(|e| e.to_string());
                    (own, problem)
                }
            };
            if check_positions(&positions).is_ok() {
                let _ = game.discard_and_draw(&mut dealer, &positions, &mut deck);
            }
            answers.push(Answer::Choice { positions, problem });
            let (player_hand, dealer_hand) = (build(player.clone()), build(dealer.clone()));
            let result = DrawResult {
                player_category: player_hand.category(),
                dealer_category: dealer_hand.category(),
                winner: player_hand.compare(&*dealer_hand),
                player,
                dealer,
            };
            tally.record(match result.winner {
                Ordering::Greater => crate::blackjack::Outcome::PlayerWins,
                Ordering::Equal => crate::blackjack::Outcome::Push,
                Ordering::Less => crate::blackjack::Outcome::DealerWins,
            });
            last = Some(result);
        }
        match last {
            Some(result) if self.player.len() == 1 => answers.push(Answer::Draw(result)),
            _ => answers.push(Answer::Tally(tally)),
        }
        answers
    }

    /// This table with the dealer's choices the submission made in `answers`, for the
    /// reference to play the same hands.
    pub fn pinned(&self, answers: &[Reply<Answer>]) -> Option<DrawTable> {
        if self.dealer.is_some() {
            return None;
        }
        let choices = answers
            .iter()
            .take(self.player.len())
            .map(|answer| match answer {
                Reply::Answer(Answer::Choice { positions, .. }) => positions.clone(),
                _ => Vec::new(),
            })
            .collect();
        Some(DrawTable {
            dealer: Some(choices),
            ..self.clone()
        })
    }
}

/// One hand of the game, compared whole.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DrawResult {
    pub player: Vec<Card>,
    pub dealer: Vec<Card>,
    pub player_category: Category,
    pub dealer_category: Category,
    /// The player's hand against the dealer's.
    pub winner: Ordering,
}

impl fmt::Display for DrawResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let winner = match self.winner {
            Ordering::Greater => "the player",
            Ordering::Equal => "nobody (a tie)",
            Ordering::Less => "the dealer",
        };
        writeln!(
            f,
            "player  {}  {}",
            format_cards(&self.player),
            self.player_category
        )?;
        writeln!(
            f,
            "dealer  {}  {}",
            format_cards(&self.dealer),
            self.dealer_category
        )?;
        write!(f, "winner  {winner}")
    }
}

/// A discard to try: a hand, the positions typed and the deck replacements come from.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Discard {
    pub hand: Vec<Card>,
    pub positions: Vec<u32>,
    pub deck: Vec<Card>,
}

impl Discard {
    pub fn describe(&self) -> String {
        format!(
            "hand: {}\npositions: {:?}\ndeck: {}",
            format_cards(&self.hand),
            self.positions,
            format_cards(&self.deck)
        )
    }

    pub fn answer(&self, game: &dyn DrawGame) -> Answer {
        let mut hand = self.hand.clone();
        let mut deck = Deck::stacked(self.deck.clone());
        match game.discard_and_draw(&mut hand, &self.positions, &mut deck) {
            Ok(()) => Answer::Cards(hand),
            // The contract: an error is returned without touching the hand.
            Err(_) if hand == self.hand => Answer::Refused,
            Err(_) => Answer::RefusedAfterChanging(hand),
        }
    }
}

crate::wire_struct!(DrawTable {
    deck,
    seed,
    player,
    dealer
});
crate::wire_struct!(Discard {
    hand,
    positions,
    deck
});
crate::wire_struct!(DrawResult {
    player,
    dealer,
    player_category,
    dealer_category,
    winner
});

checks!(
    /// The question a generated group asks of every hand.
    Check, "a draw_poker check" {
        DealerDiscards => "dealer_discards",
        Category => "category",
        Tiebreak => "tiebreak",
    }
);

impl Check {
    /// The question about the hand the game ranks with, asked as poker asks it.
    pub fn ranking(self) -> Option<poker::Check> {
        match self {
            Check::DealerDiscards => None,
            Check::Category => Some(poker::Check::Category),
            Check::Tiebreak => Some(poker::Check::Tiebreak),
        }
    }
}

/// What the submission's draw game returned, or what the grader made of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The hand after `discard_and_draw`.
    Cards(Vec<Card>),
    /// `discard_and_draw` returned an error.
    Refused,
    /// `discard_and_draw` returned an error, but changed the hand first (to this).
    RefusedAfterChanging(Vec<Card>),
    /// Whether a rule held (`None`) or how it was broken.
    Rule(Option<String>),
    /// The dealer's discards, and how they break the rules if they do.
    Choice {
        positions: Vec<u32>,
        problem: Option<String>,
    },
    Draw(DrawResult),
    Tally(Tally),
    /// What the hand the game ranks with answered, under seed 004's rules.
    Ranking(poker::Answer),
}

crate::wire_enum!(Answer {
    Cards(cards),
    Refused,
    Rule(problem),
    Choice { positions, problem },
    Draw(result),
    Tally(tally),
    RefusedAfterChanging(cards),
    Ranking(answer)
});

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Cards(cards) => write!(f, "{}", format_cards(cards)),
            Answer::Refused => write!(f, "an error (refused)"),
            Answer::RefusedAfterChanging(cards) => write!(
                f,
                "an error (refused), but the hand was changed first, to {}",
                format_cards(cards)
            ),
            Answer::Rule(None) => write!(f, "within the rules"),
            Answer::Rule(Some(problem)) => write!(f, "against the rules: {problem}"),
            Answer::Choice {
                positions,
                problem: None,
            } => write!(f, "discard {positions:?}"),
            Answer::Choice {
                positions,
                problem: Some(problem),
            } => write!(f, "discard {positions:?}, against the rules: {problem}"),
            Answer::Draw(result) => write!(f, "{result}"),
            Answer::Tally(tally) => write!(f, "{tally}"),
            Answer::Ranking(answer) => write!(f, "{answer}"),
        }
    }
}

/// A question for a five-card draw submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Each discard tried: the hand after it, or a refusal.
    Discards { discards: Vec<Discard> },
    /// The dealer's choice on every hand, checked against the seed's limits.
    DealerDiscards { source: HandSource },
    /// Whole hands of five-card draw.
    Tables { tables: Vec<DrawTable> },
    /// Hands ranked, or compared, by the hand the game ranks with, as poker asks them
    /// (under [`DRAW_RULES`]).
    Ranking(poker::Request),
}

crate::wire_enum!(Request {
    Discards { discards },
    DealerDiscards { source },
    Tables { tables },
    Ranking(request)
});

/// One input: a discard, a hand for the dealer, a table, or hands to rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Hand(Vec<Card>),
    Discard(Discard),
    Table(DrawTable),
    Ranking(poker::Input),
}

crate::wire_enum!(Input {
    Hand(cards),
    Discard(discard),
    Table(table),
    Ranking(input)
});

/// The submission's game, and the hand it ranks with.
pub struct Builders {
    pub game: fn() -> Box<dyn DrawGame>,
    pub hand: PokerHandBuilder,
}

/// The five-card draw assignment (seed 004).
pub struct Contract;

impl Assignment for Contract {
    const NAME: &'static str = "draw_poker";
    const REGISTRATION: &'static str = ".draw_poker::<YourGame, YourHand>()";
    type Registered = Builders;
    type Session = ();
    type Request = Request;
    type Input = Input;
    type Answer = Answer;

    fn respond(
        registered: Option<&Builders>,
        _: &mut (),
        request: &Request,
        window: Window,
        mut on_input: impl FnMut(Input, Vec<Reply<Answer>>) -> bool,
    ) {
        match request {
            Request::Discards { discards } => {
                let mut answer = window.only(|discard: &Discard| {
                    let reply = match registered {
                        None => Reply::NotRegistered,
                        Some(builders) => ask(|| discard.answer(&*(builders.game)())),
                    };
                    on_input(Input::Discard(discard.clone()), vec![reply])
                });
                for discard in discards {
                    if !answer(discard) {
                        return;
                    }
                }
            }
            Request::DealerDiscards { source } => {
                source.for_each_hand_in(window, |cards: Vec<Card>| {
                    let reply = match registered {
                        None => Reply::NotRegistered,
                        Some(builders) => ask(|| {
                            let positions = (builders.game)().dealer_discards(&cards);
                            Answer::Rule(check_positions(&positions).err().map(|e| e.to_string()))
                        }),
                    };
                    on_input(Input::Hand(cards), vec![reply])
                })
            }
            Request::Tables { tables } => {
                let mut answer = window.only(|table: &DrawTable| {
                    let expected_len = table.player.len() + 1;
                    let replies = match registered {
                        None => vec![Reply::NotRegistered; expected_len],
                        Some(builders) => guarded(|| {
                            table.play(&*(builders.game)(), &|cards| {
                                (builders.hand)(cards, DRAW_RULES)
                            })
                        })
                        .map(|answers| answers.into_iter().map(Reply::Answer).collect())
                        .unwrap_or_else(|panic| vec![Reply::Panicked(panic); expected_len]),
                    };
                    on_input(Input::Table(table.clone()), replies)
                });
                for table in tables {
                    if !answer(table) {
                        return;
                    }
                }
            }
            Request::Ranking(ranking) => poker::Contract::respond(
                registered.map(|builders| &builders.hand),
                &mut (),
                ranking,
                window,
                |input, replies| {
                    let replies = replies.into_iter().map(|r| r.map(Answer::Ranking));
                    on_input(Input::Ranking(input), replies.collect())
                },
            ),
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
        fn game<G: DrawGame + 'static>() -> Box<dyn DrawGame> {
            Box::new(G::new())
        }
        self.register::<Contract>(Builders {
            game: game::<G>,
            hand: poker_hand::<H>,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::round_trip;

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
