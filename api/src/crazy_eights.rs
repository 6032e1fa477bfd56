//! Crazy Eights (seed 003): a game engine driving four `PlayerStrategy` objects.
//!
//! The rules every engine follows, so that the same deck and players give the same game
//! on every engine that follows them (the grader compares the [`GameResult`], and the
//! cards each player is left with as it was told them: dealt and drawn, less those played):
//! - Deal five cards to each player, one at a time in seat order (0, 1, 2, 3, 0, ...),
//!   drawing with [`Deck::draw`]; then `receive_initial_cards` to each, in seat order.
//! - Turn over the starter: while it is an 8, [`Deck::bury`] it and turn over the next;
//!   if the deck runs out during the deal or the starter, or holds nothing but 8s, the
//!   game ends before any turn with no winner (each scores the other hands).
//! - Players take turns in seat order from player 0. Before each turn the player gets
//!   one `process_opponent_actions` call with the turns played since its own last turn
//!   (before its first turn: every turn so far), even when that is none: player 0 gets `[]`
//!   before turn 1, player 1 gets `[turn 1]` before turn 2, player 0 gets `[turns 2, 3, 4]`
//!   before turn 5. No other call is made (none after the game's last turn). The grader
//!   compares every call each player gets, and before which turn, with the reference's.
//!   Then `should_draw_card(top, declared_suit)`:
//!   - true: the player draws one card (`receive_card`); the turn is logged as a draw. A
//!     draw from an empty pile (only the first turn can meet one, when the deal and the
//!     starter took the whole deck) ends the game at once, before the turn is logged, with
//!     no winner: each player scores the points of the other players' hands;
//!   - false: `play_card()`; the card must not be one already played (else the player
//!     cheated: [`CheatKind::AlreadyPlayed`]), must be held ([`CheatKind::NotHeld`]), and
//!     must be an 8, or match the top card's rank, or the suit to match (the suit an 8
//!     declared, else the top card's) ([`CheatKind::DoesNotMatch`]). An 8 is followed by
//!     `declare_suit()`. The card goes on the discard pile.
//! - A cheat ends the game at once: the cheating turn is not written to the log (the log
//!   holds the turns before it), every score is 0, there is no winner, and the cheater is
//!   reported.
//! - After each turn: a player with no cards left wins and scores the points of the
//!   cards in the other hands (8 = 50, K Q J 10 = 10, A = 1, others face value); else, if
//!   the draw pile is empty, the game ends with no winner and each player scores the
//!   points of the other players' hands.
//! - A tournament: `init(id, opponent_ids)` once for each player in seat order; games until
//!   some total reaches the target or a player cheats. The highest total wins; when several
//!   players share it, the lowest seat among them wins (totals [287, 55, 279, 287]: player
//!   0). Before every game after the first, each player is `reset()` and the deck is
//!   [`Deck::renew`]ed. A tournament ended by a cheat has no winner: `games` counts
//!   the game of the cheat, the totals are those before it (that game adds nothing), and
//!   the cheater is reported.
//!
//! This file is the contract: the course interface's traits, the engine's, the requests and
//! answers, and the `Contract`. Its modules: `harness` (the harness's players and the games
//! they play, watched), `log` (how a game reads in a report), `remote` (strategies across
//! the process boundary), `spec` (the spec side).

use crate::assignment::{Answering, Assignment, ask};
use crate::card::{Card, Suit};
use crate::deck::Deck;
use crate::protocol::{Reply, group_digits};
use crate::source::Source;
use crate::submission::Submission;
use crate::wire::{Wire, put_varint, take_tag};

mod harness;
mod log;
mod remote;
#[cfg(feature = "spec")]
mod spec;
pub mod stand_in;

pub use harness::{
    Harness, RandomGames, Setup, SetupSource, TableSeen, Told, TurnState, init_players, play,
    play_chosen, states_before_turns,
};
use log::{both_games, calls_from, told_apart};
pub use log::{first_difference, logs_side_by_side};
pub use remote::{Call, RemoteStrategy, Response, Strategies, StrategyTrial, perform};

pub const PLAYERS: usize = 4;
pub const HAND_SIZE: usize = 5;
pub const DEFAULT_TARGET: u32 = 200;
/// A tournament stops after this many games even if nobody reached the target.
pub const MAX_GAMES: u32 = 1_000;

/// What a card is worth at the end of a game.
pub fn points(card: Card) -> u32 {
    match card.value() {
        8 => 50,
        10..=13 => 10,
        14 => 1,
        value => u32::from(value),
    }
}

/// The course interface's `PlayerTurn`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PlayerTurn {
    pub player_id: u32,
    pub drew_a_card: bool,
    pub played_card: Option<Card>,
    pub declared_suit: Option<Suit>,
}

/// The course interface, in Rust.
pub trait PlayerStrategy {
    fn init(&mut self, player_id: u32, opponent_ids: &[u32]);
    fn receive_initial_cards(&mut self, cards: &[Card]);
    /// `declared_suit` is `None` unless an 8 on top declared it.
    fn should_draw_card(&mut self, top: Card, declared_suit: Option<Suit>) -> bool;
    fn receive_card(&mut self, card: Card);
    fn play_card(&mut self) -> Card;
    fn declare_suit(&mut self) -> Suit;
    fn process_opponent_actions(&mut self, actions: &[PlayerTurn]);
    fn reset(&mut self);
}

/// Ways a player can cheat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CheatKind {
    NotHeld,
    DoesNotMatch,
    AlreadyPlayed,
}

impl CheatKind {
    pub const ALL: [CheatKind; 3] = [
        CheatKind::NotHeld,
        CheatKind::DoesNotMatch,
        CheatKind::AlreadyPlayed,
    ];
}

/// Who cheated, how, with which card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cheat {
    pub player_id: u32,
    pub kind: CheatKind,
    pub card: Card,
}

/// One game, compared whole.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameResult {
    pub scores: Vec<u32>,
    pub winner: Option<u32>,
    pub log: Vec<PlayerTurn>,
    pub cheater: Option<Cheat>,
}

/// A tournament's outcome.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TournamentResult {
    pub totals: Vec<u32>,
    pub games: u32,
    pub winner: Option<u32>,
    pub cheater: Option<Cheat>,
}

/// The seed's game engine. Students write both methods.
pub trait Engine {
    fn new() -> Self
    where
        Self: Sized;

    /// One game by the rules in this module's documentation; the players are already
    /// initialized (`init`).
    fn play_game(&self, players: &mut [Box<dyn PlayerStrategy>], deck: &mut Deck) -> GameResult;

    /// Games until a total reaches `target` or someone cheats, as the module documents.
    fn play_tournament(
        &self,
        players: &mut [Box<dyn PlayerStrategy>],
        deck: &mut Deck,
        target: u32,
    ) -> TournamentResult;
}

/// Whether `card` may go on `top` (with the suit an 8 declared, if any).
pub fn is_legal(card: Card, top: Card, declared_suit: Option<Suit>) -> bool {
    card.value() == 8
        || card.value() == top.value()
        || card.suit() == declared_suit.unwrap_or(top.suit())
}

/// What the submission's engine or strategy answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A game's result, what its players saw of the table at its end, and the
    /// `process_opponent_actions` calls each seat got, in order (compared too: a correct
    /// engine leaves the same table and tells each player the same turns at the same time).
    Game {
        result: GameResult,
        table: TableSeen,
        told: Vec<Vec<Told>>,
    },
    Tournament(TournamentResult),
    /// A strategy's response to one call.
    Response(Response),
    /// The names of the strategies registered, in order.
    Names(Vec<String>),
}

crate::wire_enum!(Answer {
    Game { result, table, told },
    Tournament(result),
    Response(response),
    Names(names)
});

/// A question for a Crazy Eights submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Games or tournaments on the submission's engine with harness players.
    Engine { source: SetupSource },
    /// One call on the submission's strategy instance in `slot` (the runner keeps them).
    StrategyCall { slot: u32, call: Call },
    /// The names of the submission's strategies.
    Roster,
    /// The submission's strategies in the reference engine: a driven test, which sends
    /// `Roster` and `StrategyCall`s.
    Strategies(StrategyTrial),
}

crate::wire_enum!(Request {
    Engine { source },
    StrategyCall { slot, call },
    Roster,
    Strategies(trial)
});

/// One input: a game to play, or one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Setup(Setup),
    Call(Call),
    Roster,
}

crate::wire_enum!(Input {
    Setup(setup),
    Call(call),
    Roster
});

pub type EngineBuilder = fn() -> Box<dyn Engine>;
pub type StrategyBuilder = fn() -> Box<dyn PlayerStrategy>;

/// The submission's engine and strategies, each optional.
#[derive(Default)]
pub struct Builders {
    pub engine: Option<EngineBuilder>,
    pub strategies: Vec<(&'static str, StrategyBuilder)>,
}

/// The Crazy Eights assignment (seed 003).
pub struct Contract;

impl Assignment for Contract {
    contract_items!("crazy_eights", ".crazy_eights::<YourEngine>()", Builders, session: Strategies);

    fn respond(mut answering: Answering<'_, Self>) {
        match answering.request {
            Request::Engine { source } => {
                let engine = answering.registered.and_then(|builders| builders.engine);
                source.for_each(answering.window.only(|setup: Setup| {
                    let reply = match engine {
                        None => Reply::NotRegistered,
                        Some(build) => ask(|| play(&setup, &*build())),
                    };
                    answering.answer(Input::Setup(setup), vec![reply])
                }));
            }
            Request::StrategyCall { slot, call } => {
                let reply = match answering.registered {
                    None => Reply::NotRegistered,
                    Some(builders) => answering.session.answer(builders, *slot, call),
                };
                answering.answer(Input::Call(call.clone()), vec![reply]);
            }
            Request::Roster => {
                let names = answering
                    .registered
                    .map(|builders| {
                        builders
                            .strategies
                            .iter()
                            .map(|(n, _)| n.to_string())
                            .collect()
                    })
                    .unwrap_or_default();
                answering.answer(Input::Roster, vec![Reply::Answer(Answer::Names(names))]);
            }
            Request::Strategies(_) => {}
        }
    }

    fn input_count(request: &Request) -> u64 {
        match request {
            Request::Engine { source } => source.len(),
            Request::StrategyCall { .. } | Request::Roster => 1,
            Request::Strategies(trial) => u64::from(trial.games),
        }
    }

    fn question(request: &Request, _: usize) -> String {
        match request {
            Request::Engine {
                source: Source::Listed(setups),
            } if setups.first().is_some_and(|s| s.target > 0) => "the tournament".into(),
            Request::Engine { .. } => "the game".into(),
            Request::StrategyCall { call, .. } => format!("{call:?}"),
            Request::Roster => "the strategies registered".into(),
            Request::Strategies(_) => "every move of your strategies".into(),
        }
    }

    fn describe_inputs(request: &Request) -> String {
        match request {
            Request::Engine { source } => match source {
                Source::Listed(setups) => format!("{} games", setups.len()),
                Source::Generated(RandomGames {
                    count,
                    seed,
                    players,
                    target,
                    deck_size,
                }) => {
                    let names: Vec<String> = players.iter().map(|p| p.name()).collect();
                    let games = match target {
                        0 => "games".to_string(),
                        target => format!("tournaments to {target}"),
                    };
                    let decks = match deck_size {
                        0 => "decks".to_string(),
                        size => format!("the first {size} cards of decks"),
                    };
                    format!(
                        "{} {games} on {decks} shuffled from seed {seed}, players: {}",
                        group_digits(u64::from(*count)),
                        names.join(", ")
                    )
                }
            },
            Request::StrategyCall { slot, call } => format!("{call:?} on strategy {slot}"),
            Request::Roster => "the strategies registered".into(),
            Request::Strategies(trial) => {
                let names: Vec<String> = trial.opponents.iter().map(|p| p.name()).collect();
                format!(
                    "{} games from seed {} for each of your strategies, against {}",
                    trial.games,
                    trial.seed,
                    names.join(", ")
                )
            }
        }
    }

    fn input_label(input: &Input) -> &'static str {
        match input {
            Input::Setup(_) => "game",
            Input::Call(_) => "call",
            Input::Roster => "roster",
        }
    }

    fn describe_input(input: &Input, _: usize) -> String {
        match input {
            Input::Setup(setup) => setup.describe(),
            Input::Call(call) => format!("{call:?}"),
            Input::Roster => "the strategies registered".into(),
        }
    }

    fn explain(
        reference: &Builders,
        _: &Request,
        input: &Input,
        expected: &Answer,
        actual: Option<&Answer>,
    ) -> Option<String> {
        let (
            Input::Setup(setup),
            Answer::Game { result: want, .. },
            Some(Answer::Game { result: got, .. }),
        ) = (input, expected, actual)
        else {
            return None;
        };
        let engine = reference.engine?();
        let turn = first_difference(&want.log, &got.log);
        states_before_turns(setup, &*engine)
            .get(turn)
            .map(|state| format!("before turn {}: {state}", turn + 1))
    }

    fn detail(expected: &Answer, actual: &Answer) -> Option<(&'static str, String)> {
        let [(want, reference, reference_told), (got, yours, your_told)] =
            both_games(expected, actual)?;
        if want.log != got.log {
            return Some(("turns", logs_side_by_side(&want.log, &got.log)));
        }
        if let Some((seat, call)) = told_apart(reference_told, your_told) {
            let calls = |told| calls_from(told, seat, call).join("\n  ");
            let text = format!(
                "player {seat}'s process_opponent_actions calls, from the first that differs:\nthe reference's engine:\n  {}\nyour engine:\n  {}",
                calls(reference_told),
                calls(your_told)
            );
            return Some(("told", text));
        }
        // The same turns to another end: the cause is in the table the turns left.
        let tables = format!(
            "the reference's table:\n{}\nyour engine's table:\n{}",
            reference.describe(&want.log),
            yours.describe(&got.log)
        );
        Some(("at the end", tables))
    }

    /// Games whose records read alike (the same scores, winner, cheater and number of turns)
    /// are named by what parts them first: a turn of the log, a call that told a player the
    /// others' turns, or a line of the table at the end.
    fn breakdown(expected: &Answer, actual: &Answer) -> Option<(String, String)> {
        let [
            (want, reference_table, reference_told),
            (got, your_table, your_told),
        ] = both_games(expected, actual)?;
        if want.to_string() != got.to_string() {
            return None;
        }
        if want.log != got.log {
            let turn = first_difference(&want.log, &got.log);
            let show = |log: &[PlayerTurn]| match log.get(turn) {
                Some(played) => format!("turn {}: {played}", turn + 1),
                None => format!("turn {}: (game over)", turn + 1),
            };
            return Some((show(&want.log), show(&got.log)));
        }
        if let Some((seat, call)) = told_apart(reference_told, your_told) {
            let first = |told| {
                let told = calls_from(told, seat, call).swap_remove(0);
                format!("player {seat}, {told}")
            };
            return Some((first(reference_told), first(your_told)));
        }
        let table = |seen: &TableSeen| seen.describe(&want.log);
        let (reference, yours) = (table(reference_table), table(your_table));
        reference
            .lines()
            .zip(yours.lines())
            .find(|(w, g)| w != g)
            .map(|(w, g)| (format!("at the end {w}"), format!("at the end {g}")))
    }

    fn kind(answer: &Answer) -> Option<&'static str> {
        match answer {
            Answer::Game { .. } => Some("game record"),
            Answer::Tournament(_) => Some("tournament record"),
            _ => None,
        }
    }
}

impl Submission {
    /// Registers `E` as this submission's Crazy Eights engine.
    pub fn crazy_eights<E: Engine + 'static>(self) -> Submission {
        self.update::<Contract>(|builders| builders.engine = Some(builder_of!(Engine, E)))
    }

    /// Registers `S` as a Crazy Eights strategy named `name` (the spec may require two).
    pub fn crazy_eights_player<S: PlayerStrategy + Default + 'static>(
        self,
        name: &'static str,
    ) -> Submission {
        fn build<S: PlayerStrategy + Default + 'static>() -> Box<dyn PlayerStrategy> {
            Box::new(S::default())
        }
        self.update::<Contract>(|builders| builders.strategies.push((name, build::<S>)))
    }
}

crate::wire_by_position!(CheatKind);
crate::wire_struct!(PlayerTurn {
    player_id,
    drew_a_card,
    played_card,
    declared_suit
});
crate::wire_struct!(Cheat {
    player_id,
    kind,
    card
});
crate::wire_struct!(GameResult {
    scores,
    winner,
    log,
    cheater
});
crate::wire_struct!(TournamentResult {
    totals,
    games,
    winner,
    cheater
});

impl Wire for Suit {
    fn put(&self, out: &mut (impl std::io::Write + ?Sized)) -> std::io::Result<()> {
        put_varint(out, *self as u64)
    }
    fn take(input: &mut (impl std::io::Read + ?Sized)) -> std::io::Result<Suit> {
        Ok(Suit::ALL[take_tag(input, 4)? as usize])
    }
    #[cfg(feature = "spec")]
    fn largest(_budget: usize) -> Vec<Suit> {
        Suit::ALL.to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::round_trip;

    #[test]
    fn crazy_eights_values_round_trip() {
        let card: Card = "8S".parse().unwrap();
        round_trip(GameResult {
            scores: vec![0, 12, 0, 0],
            winner: Some(1),
            log: vec![PlayerTurn {
                player_id: 0,
                drew_a_card: false,
                played_card: Some(card),
                declared_suit: Some(Suit::Hearts),
            }],
            cheater: Some(Cheat {
                player_id: 2,
                kind: CheatKind::NotHeld,
                card,
            }),
        });
        round_trip(Answer::Game {
            result: GameResult::default(),
            table: TableSeen {
                starter: Some(card),
                hands: vec![vec![card], Vec::new()],
            },
            told: vec![
                vec![Told {
                    before_turn: 1,
                    turns: Vec::new(),
                }],
                Vec::new(),
            ],
        });
        round_trip(SetupSource::Generated(RandomGames {
            count: 3,
            seed: 4,
            players: vec![
                Harness::RandomLegal(9),
                Harness::Cheater {
                    kind: CheatKind::AlreadyPlayed,
                    at_turn: 2,
                },
            ],
            target: 100,
            deck_size: 21,
        }));
    }

    #[test]
    fn points_follow_the_seed() {
        let total: u32 = (0..52).filter_map(Card::from_index).map(points).sum();
        assert_eq!(total, 508);
    }

    #[test]
    fn a_declared_suit_replaces_the_top_cards_suit() {
        let top: Card = "8H".parse().unwrap();
        assert!(is_legal("2S".parse().unwrap(), top, Some(Suit::Spades)));
        assert!(!is_legal("2H".parse().unwrap(), top, Some(Suit::Spades)));
        assert!(is_legal("8C".parse().unwrap(), top, Some(Suit::Spades)));
    }
}
