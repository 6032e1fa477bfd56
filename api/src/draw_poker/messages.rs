//! What the grader and a five-card draw submission exchange: the requests, their inputs
//! (tables of hands, discards to try, hands for the dealer) and the answers, each with its
//! wire encoding and the words a report shows it in; and how the reference's game plays a
//! table or a discard through the student's trait.

use std::cmp::Ordering;
use std::fmt;

use super::{DrawGame, check_positions};
use crate::blackjack::Tally;
use crate::card::{Card, format_cards};
use crate::deck::{Deck, HandSource};
use crate::poker::{self, Category, PokerHand};
use crate::protocol::Reply;

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
