//! A blackjack round's words, which the seed states with its rules: the player's actions
//! and who chooses them, the rules, a round's outcome and a session's tally, each with its
//! wire encoding and the words a report shows it in.

use std::fmt;
use std::str::FromStr;

use crate::card::{Card, format_cards};

/// Whether the player takes another card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    Hit,
    Stand,
}

impl Action {
    pub const ALL: [Action; 2] = [Action::Hit, Action::Stand];
}

impl FromStr for Action {
    type Err = String;
    fn from_str(text: &str) -> Result<Action, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "hit" | "h" => Ok(Action::Hit),
            "stand" | "s" => Ok(Action::Stand),
            _ => Err(format!("`{text}` is not an action: write hit or stand")),
        }
    }
}

/// Whoever decides the player's moves: a script, a rule, or a person at a terminal.
pub trait Player {
    /// Called while the player's total is 21 or less and no natural ended the round.
    fn decide(&mut self, hand: &[Card], total: u32, dealer_shows: Card) -> Action;
}

/// A player a spec can describe.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Policy {
    /// These actions in order, then stand.
    Script(Vec<Action>),
    /// Hit while the total is below this.
    HitBelow(u32),
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Policy::Script(actions) => {
                let words: Vec<&str> = actions
                    .iter()
                    .map(|a| match a {
                        Action::Hit => "hit",
                        Action::Stand => "stand",
                    })
                    .collect();
                if actions.last() == Some(&Action::Stand) {
                    write!(f, "[{}]", words.join(", "))
                } else {
                    write!(f, "[{}], then stand", words.join(", "))
                }
            }
            Policy::HitBelow(limit) => write!(f, "hit below {limit}"),
        }
    }
}

/// A [`Policy`] being played.
pub struct PolicyPlayer {
    policy: Policy,
    next: usize,
}

impl PolicyPlayer {
    pub fn new(policy: Policy) -> PolicyPlayer {
        PolicyPlayer { policy, next: 0 }
    }
}

impl Player for PolicyPlayer {
    fn decide(&mut self, _hand: &[Card], total: u32, _dealer_shows: Card) -> Action {
        match &self.policy {
            Policy::Script(actions) => {
                let action = actions.get(self.next).copied().unwrap_or(Action::Stand);
                self.next += 1;
                action
            }
            Policy::HitBelow(limit) => {
                if total < *limit {
                    Action::Hit
                } else {
                    Action::Stand
                }
            }
        }
    }
}

/// Rules a spec may vary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rules {
    /// H17: the dealer hits a soft 17 (the seed allows it); otherwise stands on every 17.
    pub dealer_hits_soft_17: bool,
}

/// How a round ended, for the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    PlayerWins,
    Push,
    DealerWins,
}

impl Outcome {
    pub const ALL: [Outcome; 3] = [Outcome::PlayerWins, Outcome::Push, Outcome::DealerWins];
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::PlayerWins => "player wins",
            Outcome::Push => "push",
            Outcome::DealerWins => "dealer wins",
        })
    }
}

impl FromStr for Outcome {
    type Err = String;
    fn from_str(text: &str) -> Result<Outcome, String> {
        let wanted: String = text
            .chars()
            .filter(|c| c.is_alphanumeric())
            .collect::<String>()
            .to_lowercase();
        Outcome::ALL
            .into_iter()
            .find(|o| o.to_string().replace(' ', "") == wanted)
            .ok_or_else(|| {
                format!("`{text}` is not an outcome: write player wins, push or dealer wins")
            })
    }
}

/// What a round produced: compared whole.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Round {
    pub outcome: Outcome,
    pub player: Vec<Card>,
    pub dealer: Vec<Card>,
    pub player_total: u32,
    pub dealer_total: u32,
}

impl fmt::Display for Round {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "outcome  {}", self.outcome)?;
        writeln!(
            f,
            "player   {} = {}",
            format_cards(&self.player),
            self.player_total
        )?;
        write!(
            f,
            "dealer   {} = {}",
            format_cards(&self.dealer),
            self.dealer_total
        )
    }
}

/// Rounds won, tied and lost by the player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tally {
    pub won: u32,
    pub tied: u32,
    pub lost: u32,
}

impl Tally {
    pub fn record(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::PlayerWins => self.won += 1,
            Outcome::Push => self.tied += 1,
            Outcome::DealerWins => self.lost += 1,
        }
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Won: {}. Tied: {}. Lost: {}",
            self.won, self.tied, self.lost
        )
    }
}

crate::wire_by_position!(Action);
crate::wire_by_position!(Outcome);
crate::wire_struct!(Rules {
    dealer_hits_soft_17
});
crate::wire_struct!(Round {
    outcome,
    player,
    dealer,
    player_total,
    dealer_total
});
crate::wire_struct!(Tally { won, tied, lost });
crate::wire_enum!(Policy {
    Script(actions),
    HitBelow(limit)
});
