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

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use crate::assignment::{Assignment, ask, guarded};
use crate::card::{Card, Suit, format_cards};
use crate::deck::{Deck, below, seeded_rng};
use crate::protocol::{Reply, group_digits};
use crate::source::{Generator, Source, Window};
use crate::submission::Submission;
use crate::wire::{Wire, put_varint, take_tag};

#[cfg(feature = "spec")]
mod spec;

pub const PLAYERS: usize = 4;
/// The seats of a table a report shows at most.
const SHOWN_SEATS: usize = 2 * PLAYERS;
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

impl fmt::Display for PlayerTurn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.drew_a_card, self.played_card, self.declared_suit) {
            (true, _, _) => write!(f, "player {} draws", self.player_id),
            (_, Some(card), Some(suit)) => write!(
                f,
                "player {} plays {card}, declares {}",
                self.player_id,
                suit.name()
            ),
            (_, Some(card), None) => write!(f, "player {} plays {card}", self.player_id),
            _ => write!(f, "player {} does nothing", self.player_id),
        }
    }
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

impl fmt::Display for Cheat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            CheatKind::NotHeld => "a card it does not hold",
            CheatKind::DoesNotMatch => "a card that does not match",
            CheatKind::AlreadyPlayed => "a card already played",
        };
        write!(
            f,
            "player {} cheated: played {} ({what})",
            self.player_id, self.card
        )
    }
}

/// One game, compared whole.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameResult {
    pub scores: Vec<u32>,
    pub winner: Option<u32>,
    pub log: Vec<PlayerTurn>,
    pub cheater: Option<Cheat>,
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "scores   {:?}", self.scores)?;
        match self.winner {
            Some(winner) => writeln!(f, "winner   player {winner}")?,
            None => writeln!(f, "winner   none")?,
        }
        if let Some(cheat) = self.cheater {
            writeln!(f, "cheater  {cheat}")?;
        }
        write!(f, "turns    {}", self.log.len())
    }
}

/// A tournament's outcome.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TournamentResult {
    pub totals: Vec<u32>,
    pub games: u32,
    pub winner: Option<u32>,
    pub cheater: Option<Cheat>,
}

impl fmt::Display for TournamentResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let games = if self.games == 1 { "game" } else { "games" };
        writeln!(f, "totals   {:?} after {} {games}", self.totals, self.games)?;
        match self.winner {
            Some(winner) => write!(f, "winner   player {winner}")?,
            None => write!(f, "winner   none")?,
        }
        if let Some(cheat) = self.cheater {
            write!(f, "\ncheater  {cheat}")?;
        }
        Ok(())
    }
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

/// The harness's own players, legal and cheating.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Harness {
    /// Plays the first legal card it holds; draws when it has none.
    FirstLegal,
    /// Plays a legal card chosen from its seed.
    RandomLegal(u64),
    /// Keeps its eights for when nothing else is legal.
    EightsLast,
    /// Draws whenever it may.
    DrawsWhenever,
    /// Plays like `FirstLegal` until its turn `at_turn`, then cheats as soon as it can. A
    /// player counts its own turns, from 1 in each game: turn 1 is its first
    /// `should_draw_card` of the game.
    Cheater { kind: CheatKind, at_turn: u32 },
    /// Plays like `FirstLegal`, but from its turn `at_turn` (counted as a `Cheater`'s),
    /// holding nothing legal, it declines to draw and plays an illegal card.
    Stubborn { at_turn: u32 },
}

impl Harness {
    pub fn name(self) -> String {
        match self {
            Harness::FirstLegal => "first legal".into(),
            Harness::RandomLegal(seed) => format!("random legal (seed {seed})"),
            Harness::EightsLast => "eights last".into(),
            Harness::DrawsWhenever => "draws whenever it may".into(),
            Harness::Cheater { kind, at_turn } => format!("cheater ({kind:?} from turn {at_turn})"),
            Harness::Stubborn { at_turn } => {
                format!("cheater (declines to draw from turn {at_turn})")
            }
        }
    }

    pub fn player(self) -> Box<dyn PlayerStrategy> {
        Box::new(HarnessPlayer {
            style: self,
            id: 0,
            hand: Vec::new(),
            played: Vec::new(),
            turn: 0,
            chosen: None,
            rng: seeded_rng(match self {
                Harness::RandomLegal(seed) => seed,
                _ => 0,
            }),
        })
    }
}

impl std::str::FromStr for Harness {
    type Err = String;

    /// `first legal`, `random legal 7`, `eights last`, `draws whenever`, or
    /// `cheats: not held | does not match | already played from turn N`.
    fn from_str(text: &str) -> Result<Harness, String> {
        let words = text.trim().to_lowercase();
        let unknown = || {
            format!(
                "`{text}` is not a harness player: write first legal, random legal N, eights last, \
                 draws whenever, or cheats: not held | does not match | already played | declines to draw from turn N"
            )
        };
        if let Some(cheat) = words.strip_prefix("cheats:") {
            let (what, turn) = cheat.split_once("from turn").ok_or_else(unknown)?;
            let at_turn = turn.trim().parse().map_err(|_| unknown())?;
            // Turn 0 would read as "before its first turn", which cheats no sooner than 1.
            if at_turn == 0 {
                return Err(format!(
                    "`{text}`: a player's turns count from 1, its first turn of each game; write `from turn 1` to cheat from the start"
                ));
            }
            if what.trim() == "declines to draw" {
                return Ok(Harness::Stubborn { at_turn });
            }
            let kind = match what.trim() {
                "not held" => CheatKind::NotHeld,
                "does not match" => CheatKind::DoesNotMatch,
                "already played" => CheatKind::AlreadyPlayed,
                _ => return Err(unknown()),
            };
            return Ok(Harness::Cheater { kind, at_turn });
        }
        match words.as_str() {
            "first legal" => Ok(Harness::FirstLegal),
            "eights last" => Ok(Harness::EightsLast),
            "draws whenever" => Ok(Harness::DrawsWhenever),
            "random legal" => Ok(Harness::RandomLegal(0)),
            other => other
                .strip_prefix("random legal ")
                .and_then(|seed| seed.trim().parse().ok())
                .map(Harness::RandomLegal)
                .ok_or_else(unknown),
        }
    }
}

/// Whether `card` may go on `top` (with the suit an 8 declared, if any).
pub fn is_legal(card: Card, top: Card, declared_suit: Option<Suit>) -> bool {
    card.value() == 8
        || card.value() == top.value()
        || card.suit() == declared_suit.unwrap_or(top.suit())
}

struct HarnessPlayer {
    style: Harness,
    id: u32,
    hand: Vec<Card>,
    /// Cards seen played, the top card included.
    played: Vec<Card>,
    turn: u32,
    chosen: Option<Card>,
    rng: rand_chacha::ChaCha8Rng,
}

impl HarnessPlayer {
    fn choose(&mut self, top: Card, declared: Option<Suit>) -> Option<Card> {
        let legal: Vec<Card> = self
            .hand
            .iter()
            .copied()
            .filter(|&c| is_legal(c, top, declared))
            .collect();
        match self.style {
            Harness::DrawsWhenever => None,
            Harness::FirstLegal => legal.first().copied(),
            Harness::RandomLegal(_) if legal.is_empty() => None,
            Harness::RandomLegal(_) => {
                Some(legal[below(&mut self.rng, legal.len() as u32) as usize])
            }
            Harness::EightsLast => legal
                .iter()
                .find(|c| c.value() != 8)
                .or(legal.first())
                .copied(),
            Harness::Cheater { kind, at_turn } if self.turn >= at_turn => match kind {
                CheatKind::AlreadyPlayed => Some(top),
                CheatKind::NotHeld => (0..52)
                    .filter_map(Card::from_index)
                    .find(|c| !self.hand.contains(c) && !self.played.contains(c) && *c != top),
                CheatKind::DoesNotMatch => {
                    let illegal = self
                        .hand
                        .iter()
                        .copied()
                        .find(|&c| !is_legal(c, top, declared));
                    illegal.or(legal.first().copied())
                }
            },
            Harness::Stubborn { at_turn } if self.turn >= at_turn => {
                legal.first().or(self.hand.first()).copied()
            }
            Harness::Cheater { .. } | Harness::Stubborn { .. } => legal.first().copied(),
        }
    }
}

impl PlayerStrategy for HarnessPlayer {
    fn init(&mut self, player_id: u32, _opponent_ids: &[u32]) {
        self.id = player_id;
    }

    fn receive_initial_cards(&mut self, cards: &[Card]) {
        self.hand = cards.to_vec();
    }

    fn should_draw_card(&mut self, top: Card, declared_suit: Option<Suit>) -> bool {
        self.turn += 1;
        if !self.played.contains(&top) {
            self.played.push(top);
        }
        self.chosen = self.choose(top, declared_suit);
        self.chosen.is_none()
    }

    fn receive_card(&mut self, card: Card) {
        self.hand.push(card);
    }

    fn play_card(&mut self) -> Card {
        let card = self
            .chosen
            .take()
            .or(self.hand.first().copied())
            .unwrap_or(Card::from_index(0).expect("2♣"));
        self.hand.retain(|&c| c != card);
        self.played.push(card);
        card
    }

    fn declare_suit(&mut self) -> Suit {
        Suit::ALL
            .into_iter()
            .max_by_key(|&suit| {
                (
                    self.hand.iter().filter(|c| c.suit() == suit).count(),
                    std::cmp::Reverse(suit),
                )
            })
            .unwrap_or(Suit::Clubs)
    }

    fn process_opponent_actions(&mut self, actions: &[PlayerTurn]) {
        self.played
            .extend(actions.iter().filter_map(|turn| turn.played_card));
    }

    fn reset(&mut self) {
        self.hand.clear();
        self.played.clear();
        self.turn = 0;
        self.chosen = None;
    }
}

/// A game or tournament to play: the deck (top first; shuffled from `seed` when empty,
/// and fresh decks come from `seed`), the four players, and the target (0: one game).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Setup {
    pub deck: Vec<Card>,
    pub seed: u64,
    pub players: Vec<Harness>,
    pub target: u32,
}

impl Setup {
    pub fn describe(&self) -> String {
        let deck = if self.deck.is_empty() {
            format!("shuffled from seed {}", self.seed)
        } else {
            format!("{} (then seed {})", format_cards(&self.deck), self.seed)
        };
        let players: Vec<String> = self
            .players
            .iter()
            .enumerate()
            .map(|(i, h)| format!("{i}: {}", h.name()))
            .collect();
        let what = if self.target == 0 {
            "one game".to_string()
        } else {
            format!("a tournament to {}", self.target)
        };
        format!("deck: {deck}\nplayers: {}\n{what}", players.join(", "))
    }

    pub fn deck(&self) -> Deck {
        if self.deck.is_empty() {
            Deck::shuffled(self.seed)
        } else {
            Deck::stacked_seeded(self.deck.clone(), self.seed)
        }
    }

    /// Fresh harness players in seat order, not yet initialized.
    pub fn players(&self) -> Vec<Box<dyn PlayerStrategy>> {
        self.players.iter().map(|h| h.player()).collect()
    }
}

/// `init` for each player in seat order, with the other seats as opponents.
pub fn init_players(players: &mut [Box<dyn PlayerStrategy>]) {
    let ids: Vec<u32> = (0..players.len() as u32).collect();
    for (id, player) in (0u32..).zip(players.iter_mut()) {
        let opponents: Vec<u32> = ids.iter().copied().filter(|&o| o != id).collect();
        player.init(id, &opponents);
    }
}

/// `count` single games on decks shuffled from seeds drawn from `seed`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RandomGames {
    pub count: u32,
    pub seed: u64,
    pub players: Vec<Harness>,
    /// Each a tournament to this many points; 0 plays single games.
    pub target: u32,
    /// Each game on the first this many cards of its shuffled deck; 0 plays the whole
    /// deck. A short deck runs the draw pile dry.
    pub deck_size: u8,
}

impl Generator for RandomGames {
    type Item = Setup;

    fn count(&self) -> u32 {
        self.count
    }

    fn generate(&self, visit: &mut dyn FnMut(Setup) -> bool) {
        let RandomGames {
            count,
            seed,
            players,
            target,
            deck_size,
        } = self;
        let mut rng = seeded_rng(*seed);
        for _ in 0..*count {
            let seed = u64::from(below(&mut rng, u32::MAX));
            let mut shuffled = Deck::shuffled(seed);
            let deck = (0..*deck_size).filter_map(|_| shuffled.draw()).collect();
            let setup = Setup {
                deck,
                seed,
                players: players.clone(),
                target: *target,
            };
            if !visit(setup) {
                return;
            }
        }
    }
}

/// Where the setups of a request come from.
pub type SetupSource = Source<Setup, RandomGames>;

/// Plays `setup` with `engine`: a game, with what its players saw of the table at its
/// end, or a tournament.
pub fn play(setup: &Setup, engine: &dyn Engine) -> Answer {
    if setup.target == 0 {
        let (result, sight) = watch_game(setup, engine);
        return sight.answer(result);
    }
    let mut players = setup.players();
    Answer::Tournament(engine.play_tournament(&mut players, &mut setup.deck(), setup.target))
}

/// The table before a turn: the top card, the suit an 8 declared, and every hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnState {
    pub top: Card,
    pub declared: Option<Suit>,
    pub hands: Vec<Vec<Card>>,
}

impl fmt::Display for TurnState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "top card {}", self.top)?;
        if let Some(suit) = self.declared {
            write!(f, " (declared {})", suit.name())?;
        }
        write!(f, "{}", HandLines(&self.hands))
    }
}

/// Each seat's hand on a line of its own, with the points it is worth.
struct HandLines<'a>(&'a [Vec<Card>]);

impl fmt::Display for HandLines<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (seat, hand) in self.0.iter().enumerate() {
            let worth: u32 = hand.iter().map(|&card| points(card)).sum();
            if hand.is_empty() {
                write!(f, "\nplayer {seat}: (no cards)")?;
            } else {
                write!(
                    f,
                    "\nplayer {seat}: {} ({worth} points)",
                    format_cards(hand)
                )?;
            }
        }
        Ok(())
    }
}

/// A game's table at its end as its players saw it: the starter (the top card when the
/// first turn began; `None` when none did) and the cards each seat was left with (dealt and
/// drawn, less those it played, even one refused as a cheat), sorted, since a hand's order
/// is the engine's to keep.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableSeen {
    pub starter: Option<Card>,
    pub hands: Vec<Vec<Card>>,
}

impl TableSeen {
    /// The table after the last turn of `log`: the starter, the top card then, every hand.
    pub fn describe(&self, log: &[PlayerTurn]) -> String {
        // A runner may answer with more seats than a frame seems to hold cards for: a few
        // show that they are wrong, and the rest are counted.
        let shown = &self.hands[..self.hands.len().min(SHOWN_SEATS)];
        let more = match self.hands.len() - shown.len() {
            0 => String::new(),
            n => format!("\n(and {n} more seats)"),
        };
        let Some(starter) = self.starter else {
            return format!("no starter (no turn began){}{more}", HandLines(shown));
        };
        let last_play = log
            .iter()
            .rev()
            .find_map(|turn| turn.played_card.map(|card| (card, turn.declared_suit)));
        let (top, declared) = last_play.unwrap_or((starter, None));
        let table = TurnState {
            top,
            declared,
            hands: shown.to_vec(),
        };
        format!("starter {starter}, {table}{more}")
    }
}

/// One `process_opponent_actions` call a player got: before which turn of the game (counted
/// from 1 over every seat's turns; a turn begins with its `should_draw_card`), and the turns
/// it was told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Told {
    pub before_turn: u32,
    pub turns: Vec<PlayerTurn>,
}

/// The most turns of one call a report lists.
const SHOWN_TURNS: usize = 8;

impl fmt::Display for Told {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown: Vec<String> = self
            .turns
            .iter()
            .take(SHOWN_TURNS)
            .map(PlayerTurn::to_string)
            .collect();
        write!(f, "before turn {}: [{}", self.before_turn, shown.join(", "))?;
        match self.turns.len().saturating_sub(SHOWN_TURNS) {
            0 => write!(f, "]"),
            more => write!(f, ", and {more} more]"),
        }
    }
}

/// Where two records of the calls each seat got first part: the seat, and the first of its
/// calls that differs. Of the seats that differ, the one whose difference comes first in
/// the game.
fn told_apart(want: &[Vec<Told>], got: &[Vec<Told>]) -> Option<(usize, usize)> {
    let none = Vec::new();
    (0..want.len().max(got.len()))
        .filter_map(|seat| {
            let want = want.get(seat).unwrap_or(&none);
            let got = got.get(seat).unwrap_or(&none);
            let call = (0..want.len().max(got.len())).find(|&i| want.get(i) != got.get(i))?;
            let when = |calls: &[Told]| calls.get(call).map_or(u32::MAX, |told| told.before_turn);
            Some((when(want).min(when(got)), seat, call))
        })
        .min()
        .map(|(_, seat, call)| (seat, call))
}

/// A game's parts: its result, the table at its end, and the calls each seat got.
type GameParts<'a> = (&'a GameResult, &'a TableSeen, &'a [Vec<Told>]);

/// The parts of two answers that are both games.
fn both_games<'a>(expected: &'a Answer, actual: &'a Answer) -> Option<[GameParts<'a>; 2]> {
    let parts = |answer: &'a Answer| match answer {
        Answer::Game {
            result,
            table,
            told,
        } => Some((result, table, told.as_slice())),
        _ => None,
    };
    Some([parts(expected)?, parts(actual)?])
}

/// The calls `seat` got from `call` on, a few of them, one a line; or that there were none.
fn calls_from(told: &[Vec<Told>], seat: usize, call: usize) -> Vec<String> {
    let shown: Vec<String> = told
        .get(seat)
        .map(|calls| {
            calls
                .iter()
                .skip(call)
                .take(3)
                .map(Told::to_string)
                .collect()
        })
        .unwrap_or_default();
    if shown.is_empty() {
        return vec!["no more calls".into()];
    }
    shown
}

/// What the players of one game saw: the cards each seat holds, the table before each turn
/// (each turn begins with one `should_draw_card`), and the calls that told each seat the
/// others' turns.
#[derive(Default)]
struct Sight {
    hands: Vec<Vec<Card>>,
    before_turns: Vec<TurnState>,
    told: Vec<Vec<Told>>,
}

impl Sight {
    /// The game's answer: its result, the table at its end, and what each seat was told.
    fn answer(mut self, result: GameResult) -> Answer {
        self.hands.iter_mut().for_each(|hand| hand.sort());
        Answer::Game {
            result,
            table: TableSeen {
                starter: self.before_turns.first().map(|state| state.top),
                hands: self.hands,
            },
            told: self.told,
        }
    }
}

/// Plays one game of `setup` on `engine` with every player watched.
fn watch_game(setup: &Setup, engine: &dyn Engine) -> (GameResult, Sight) {
    let sight = Rc::new(RefCell::new(Sight {
        hands: vec![Vec::new(); setup.players.len()],
        before_turns: Vec::new(),
        told: vec![Vec::new(); setup.players.len()],
    }));
    let mut players: Vec<Box<dyn PlayerStrategy>> = setup
        .players()
        .into_iter()
        .enumerate()
        .map(|(seat, inner)| {
            Box::new(Watched {
                seat,
                inner,
                sight: Rc::clone(&sight),
            }) as Box<dyn PlayerStrategy>
        })
        .collect();
    init_players(&mut players);
    let result = engine.play_game(&mut players, &mut setup.deck());
    drop(players);
    // Only an engine that kept a player past the game holds the sight still.
    let sight = Rc::try_unwrap(sight)
        .map(RefCell::into_inner)
        .unwrap_or_default();
    (result, sight)
}

/// Plays one game of `setup` on `engine` and returns the table before each turn.
pub fn states_before_turns(setup: &Setup, engine: &dyn Engine) -> Vec<TurnState> {
    watch_game(setup, engine).1.before_turns
}

/// A harness player whose hand and turns are written down as the game goes.
struct Watched {
    seat: usize,
    inner: Box<dyn PlayerStrategy>,
    sight: Rc<RefCell<Sight>>,
}

impl PlayerStrategy for Watched {
    fn init(&mut self, player_id: u32, opponent_ids: &[u32]) {
        self.inner.init(player_id, opponent_ids);
    }
    fn receive_initial_cards(&mut self, cards: &[Card]) {
        self.sight.borrow_mut().hands[self.seat] = cards.to_vec();
        self.inner.receive_initial_cards(cards);
    }
    fn should_draw_card(&mut self, top: Card, declared_suit: Option<Suit>) -> bool {
        let mut sight = self.sight.borrow_mut();
        let hands = sight.hands.clone();
        sight.before_turns.push(TurnState {
            top,
            declared: declared_suit,
            hands,
        });
        drop(sight);
        self.inner.should_draw_card(top, declared_suit)
    }
    fn receive_card(&mut self, card: Card) {
        self.sight.borrow_mut().hands[self.seat].push(card);
        self.inner.receive_card(card);
    }
    fn play_card(&mut self) -> Card {
        let card = self.inner.play_card();
        self.sight.borrow_mut().hands[self.seat].retain(|&c| c != card);
        card
    }
    fn declare_suit(&mut self) -> Suit {
        self.inner.declare_suit()
    }
    fn process_opponent_actions(&mut self, actions: &[PlayerTurn]) {
        let mut sight = self.sight.borrow_mut();
        let before_turn = sight.before_turns.len() as u32 + 1;
        sight.told[self.seat].push(Told {
            before_turn,
            turns: actions.to_vec(),
        });
        drop(sight);
        self.inner.process_opponent_actions(actions);
    }
    fn reset(&mut self) {
        self.sight.borrow_mut().hands[self.seat].clear();
        self.inner.reset();
    }
}

/// The index of the first turn where two logs differ; when they agree, their length: the
/// turn after the last, which a cheat or a draw from an empty pile keeps out of the log.
pub fn first_difference(expected: &[PlayerTurn], actual: &[PlayerTurn]) -> usize {
    (0..expected.len().max(actual.len()))
        .find(|&i| expected.get(i) != actual.get(i))
        .unwrap_or(expected.len())
}

/// Two game logs side by side from a little before the first turn that differs.
pub fn logs_side_by_side(expected: &[PlayerTurn], actual: &[PlayerTurn]) -> String {
    let first = first_difference(expected, actual);
    let mut out = format!("{:<5} {:<40} {}\n", "turn", "expected", "actual");
    for i in first.saturating_sub(3)..(first + 4).min(expected.len().max(actual.len())) {
        let show = |turn: Option<&PlayerTurn>| {
            turn.map(|t| t.to_string())
                .unwrap_or_else(|| "(game over)".into())
        };
        let mark = if i == first { ">" } else { " " };
        out.push_str(&format!(
            "{mark}{:<4} {:<40} {}\n",
            i + 1,
            show(expected.get(i)),
            show(actual.get(i))
        ));
    }
    out.trim_end().to_string()
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
crate::wire_struct!(TableSeen { starter, hands });
crate::wire_struct!(Told { before_turn, turns });
crate::wire_struct!(Setup {
    deck,
    seed,
    players,
    target
});

impl Wire for Suit {
    fn put(&self, out: &mut (impl std::io::Write + ?Sized)) -> std::io::Result<()> {
        put_varint(out, *self as u64)
    }
    fn take(input: &mut (impl std::io::Read + ?Sized)) -> std::io::Result<Suit> {
        Ok(Suit::ALL[take_tag(input, 4)? as usize])
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
    fn harness_players_parse_from_spec_words() {
        assert_eq!("first legal".parse(), Ok(Harness::FirstLegal));
        assert_eq!("Random legal 7".parse(), Ok(Harness::RandomLegal(7)));
        assert_eq!(
            "cheats: already played from turn 3".parse(),
            Ok(Harness::Cheater {
                kind: CheatKind::AlreadyPlayed,
                at_turn: 3
            })
        );
        assert!("cheats: sometimes".parse::<Harness>().is_err());
        assert!("clever".parse::<Harness>().is_err());
        for zero in [
            "cheats: not held from turn 0",
            "cheats: declines to draw from turn 0",
        ] {
            assert_eq!(
                zero.parse::<Harness>(),
                Err(format!(
                    "`{zero}`: a player's turns count from 1, its first turn of each game; write `from turn 1` to cheat from the start"
                ))
            );
        }
    }

    /// The turn a cheater starts from is its own, counted from 1: `from turn 1` cheats on
    /// its first turn, `from turn 2` on its second.
    #[test]
    fn a_cheater_counts_its_own_turns_from_1() {
        let card = |text: &str| text.parse::<Card>().unwrap();
        let top = card("5H");
        let cards_played_by = |at_turn: u32| {
            let mut cheater = Harness::Cheater {
                kind: CheatKind::AlreadyPlayed,
                at_turn,
            }
            .player();
            cheater.init(0, &[1, 2, 3]);
            cheater.receive_initial_cards(&[card("6H"), card("7H"), card("9H")]);
            (0..2)
                .map(|_| {
                    assert!(!cheater.should_draw_card(top, None));
                    cheater.play_card()
                })
                .collect::<Vec<Card>>()
        };
        assert_eq!(cards_played_by(1), [top, top]);
        assert_eq!(cards_played_by(2), [card("6H"), top]);
    }

    #[test]
    fn the_table_at_the_end_shows_the_last_card_played_and_what_each_hand_is_worth() {
        let card = |text: &str| text.parse::<Card>().unwrap();
        let table = TableSeen {
            starter: Some(card("5H")),
            hands: vec![vec![card("8C"), card("KD")], Vec::new()],
        };
        let eight = PlayerTurn {
            player_id: 1,
            drew_a_card: false,
            played_card: Some(card("8S")),
            declared_suit: Some(Suit::Clubs),
        };
        let draw = PlayerTurn {
            player_id: 0,
            drew_a_card: true,
            played_card: None,
            declared_suit: None,
        };
        assert_eq!(
            table.describe(&[eight, draw]),
            "starter 5♥, top card 8♠ (declared clubs)\nplayer 0: 8♣ K♦ (60 points)\nplayer 1: (no cards)"
        );
        assert!(
            table
                .describe(&[draw])
                .starts_with("starter 5♥, top card 5♥\n")
        );
    }

    /// The same game told otherwise is named by the first call that differs, by value:
    /// player 0's `[]` before turn 1 against the turn it was told later; games that read
    /// alike by their first turn that differs.
    #[test]
    fn a_game_told_otherwise_names_the_first_call_that_differs() {
        let turn = |player_id, card: &str| PlayerTurn {
            player_id,
            drew_a_card: false,
            played_card: Some(card.parse().unwrap()),
            declared_suit: None,
        };
        let call = |before_turn, turns: &[PlayerTurn]| Told {
            before_turn,
            turns: turns.to_vec(),
        };
        let game = |told| Answer::Game {
            result: GameResult::default(),
            table: TableSeen::default(),
            told,
        };
        let (first, second) = (turn(0, "5H"), turn(1, "6H"));
        let reference = game(vec![
            vec![call(1, &[]), call(3, &[second])],
            vec![call(2, &[first])],
        ]);
        let one_at_a_time = game(vec![vec![call(3, &[second])], vec![call(2, &[first])]]);
        assert_eq!(
            Contract::detail(&reference, &one_at_a_time),
            Some((
                "told",
                "player 0's process_opponent_actions calls, from the first that differs:\nthe reference's engine:\n  before turn 1: []\n  before turn 3: [player 1 plays 6♥]\nyour engine:\n  before turn 3: [player 1 plays 6♥]".into()
            ))
        );
        assert_eq!(
            Contract::breakdown(&reference, &game(vec![Vec::new(), vec![call(2, &[first])]])),
            Some((
                "player 0, before turn 1: []".into(),
                "player 0, no more calls".into()
            ))
        );
        let played = |turn| Answer::Game {
            result: GameResult {
                log: vec![turn],
                ..GameResult::default()
            },
            table: TableSeen::default(),
            told: Vec::new(),
        };
        assert_eq!(
            Contract::breakdown(&played(first), &played(second)),
            Some((
                "turn 1: player 0 plays 5♥".into(),
                "turn 1: player 1 plays 6♥".into()
            ))
        );
        let long = call(9, &[first; 10]);
        assert!(
            long.to_string().ends_with("player 0 plays 5♥, and 2 more]"),
            "{long}"
        );
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

/// One call of the course interface, as the grader sends it to a strategy in the runner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    /// Makes a fresh instance of the submission's strategy `name` in the slot.
    Create(String),
    Init(u32, Vec<u32>),
    ReceiveInitialCards(Vec<Card>),
    ShouldDrawCard(Card, Option<Suit>),
    ReceiveCard(Card),
    PlayCard,
    DeclareSuit,
    ProcessOpponentActions(Vec<PlayerTurn>),
    Reset,
}

/// What a strategy answered.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Response {
    Done,
    Draw(bool),
    Card(Card),
    Suit(Suit),
    /// No strategy of that name, or no instance in the slot.
    Unknown(String),
}

impl fmt::Display for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Response::Done => f.write_str("done"),
            Response::Draw(draw) => write!(f, "should draw: {draw}"),
            Response::Card(card) => write!(f, "plays {card}"),
            Response::Suit(suit) => write!(f, "declares {}", suit.name()),
            Response::Unknown(what) => write!(f, "unknown: {what}"),
        }
    }
}

/// Makes `call` on `strategy` and wraps what it returns.
pub fn perform(strategy: &mut dyn PlayerStrategy, call: &Call) -> Response {
    match call {
        Call::Create(name) => {
            Response::Unknown(format!("`{name}` is created by the runner, not called"))
        }
        Call::Init(id, opponents) => {
            strategy.init(*id, opponents);
            Response::Done
        }
        Call::ReceiveInitialCards(cards) => {
            strategy.receive_initial_cards(cards);
            Response::Done
        }
        Call::ShouldDrawCard(top, declared) => {
            Response::Draw(strategy.should_draw_card(*top, *declared))
        }
        Call::ReceiveCard(card) => {
            strategy.receive_card(*card);
            Response::Done
        }
        Call::PlayCard => Response::Card(strategy.play_card()),
        Call::DeclareSuit => Response::Suit(strategy.declare_suit()),
        Call::ProcessOpponentActions(turns) => {
            strategy.process_opponent_actions(turns);
            Response::Done
        }
        Call::Reset => {
            strategy.reset();
            Response::Done
        }
    }
}

/// A strategy that lives elsewhere (in the runner): every method is a call through
/// `transport`. The first call that fails is kept in `failure`; after it the strategy
/// draws whenever asked, so the engine's game ends without it.
pub struct RemoteStrategy<T: FnMut(Call) -> Result<Response, String>> {
    transport: T,
    failure: Rc<RefCell<Option<String>>>,
}

impl<T: FnMut(Call) -> Result<Response, String>> RemoteStrategy<T> {
    pub fn new(transport: T, failure: Rc<RefCell<Option<String>>>) -> RemoteStrategy<T> {
        RemoteStrategy { transport, failure }
    }

    fn call(&mut self, call: Call) -> Option<Response> {
        if self.failure.borrow().is_some() {
            return None;
        }
        let what = format!("{call:?}");
        match (self.transport)(call) {
            Ok(Response::Unknown(why)) => {
                *self.failure.borrow_mut() = Some(format!("{what}: {why}"));
                None
            }
            Ok(reply) => Some(reply),
            Err(why) => {
                *self.failure.borrow_mut() = Some(format!("{what}: {why}"));
                None
            }
        }
    }

    fn call_unanswered(&mut self, call: Call) {
        let _ = self.call(call);
    }

    /// Sends `call` as it is, for calls outside the course interface (`Create`).
    pub fn transport_call(&mut self, call: Call) -> Result<Response, String> {
        (self.transport)(call)
    }
}

impl<T: FnMut(Call) -> Result<Response, String>> PlayerStrategy for RemoteStrategy<T> {
    fn init(&mut self, player_id: u32, opponent_ids: &[u32]) {
        self.call_unanswered(Call::Init(player_id, opponent_ids.to_vec()));
    }
    fn receive_initial_cards(&mut self, cards: &[Card]) {
        self.call_unanswered(Call::ReceiveInitialCards(cards.to_vec()));
    }
    fn should_draw_card(&mut self, top: Card, declared_suit: Option<Suit>) -> bool {
        match self.call(Call::ShouldDrawCard(top, declared_suit)) {
            Some(Response::Draw(draw)) => draw,
            _ => true,
        }
    }
    fn receive_card(&mut self, card: Card) {
        self.call_unanswered(Call::ReceiveCard(card));
    }
    fn play_card(&mut self) -> Card {
        match self.call(Call::PlayCard) {
            Some(Response::Card(card)) => card,
            // Only reached after a failure, which already fails the test.
            _ => Card::from_index(0).expect("2♣"),
        }
    }
    fn declare_suit(&mut self) -> Suit {
        match self.call(Call::DeclareSuit) {
            Some(Response::Suit(suit)) => suit,
            _ => Suit::Clubs,
        }
    }
    fn process_opponent_actions(&mut self, actions: &[PlayerTurn]) {
        self.call_unanswered(Call::ProcessOpponentActions(actions.to_vec()));
    }
    fn reset(&mut self) {
        self.call_unanswered(Call::Reset);
    }
}

/// A spec's trial of the submission's strategies in the reference engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrategyTrial {
    pub games: u32,
    pub seed: u64,
    /// The three harness players in the other seats.
    pub opponents: Vec<Harness>,
    /// Fail unless the submission registers at least this many strategies.
    pub require: u32,
    /// The registered strategy this trial plays (counting from 0), or `None` for all.
    pub strategy: Option<u32>,
}

crate::wire_struct!(StrategyTrial {
    games,
    seed,
    opponents,
    require,
    strategy
});

crate::wire_enum!(Harness {
    FirstLegal,
    RandomLegal(seed),
    EightsLast,
    DrawsWhenever,
    Cheater { kind, at_turn },
    Stubborn { at_turn }
});
crate::wire_struct!(RandomGames {
    count,
    seed,
    players,
    target,
    deck_size
});
crate::wire_enum!(Call {
    Create(name),
    Init(id, opponents),
    ReceiveInitialCards(cards),
    ShouldDrawCard(top, declared),
    ReceiveCard(card),
    PlayCard,
    DeclareSuit,
    ProcessOpponentActions(turns),
    Reset
});
crate::wire_enum!(Response {
    Done,
    Draw(draw),
    Card(card),
    Suit(suit),
    Unknown(what)
});

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

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Game { result, .. } => write!(f, "{result}"),
            Answer::Tournament(result) => write!(f, "{result}"),
            Answer::Response(response) => write!(f, "{response}"),
            Answer::Names(names) => write!(f, "{}", names.join(", ")),
        }
    }
}

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

/// The submission's strategy instances, kept by the runner from call to call.
#[derive(Default)]
pub struct Strategies {
    slots: std::collections::HashMap<u32, Box<dyn PlayerStrategy>>,
}

impl Strategies {
    /// Makes `call` on the instance in `slot` (or creates it), guarded like every call.
    fn answer(&mut self, builders: &Builders, slot: u32, call: &Call) -> Reply<Answer> {
        if let Call::Create(name) = call {
            let build = builders.strategies.iter().find(|(n, _)| n == name);
            return match build.map(|(_, build)| guarded(build)) {
                Some(Ok(strategy)) => {
                    self.slots.insert(slot, strategy);
                    Reply::Answer(Answer::Response(Response::Done))
                }
                None => Reply::Answer(Answer::Response(Response::Unknown(format!(
                    "no strategy is registered as `{name}`"
                )))),
                Some(Err(panic)) => Reply::Panicked(panic),
            };
        }
        match self.slots.get_mut(&slot) {
            None => Reply::Answer(Answer::Response(Response::Unknown(format!(
                "no strategy in slot {slot}"
            )))),
            Some(strategy) => ask(|| Answer::Response(perform(&mut **strategy, call))),
        }
    }
}

/// The Crazy Eights assignment (seed 003).
pub struct Contract;

impl Assignment for Contract {
    const NAME: &'static str = "crazy_eights";
    const REGISTRATION: &'static str = ".crazy_eights::<YourEngine>()";
    type Registered = Builders;
    type Session = Strategies;
    type Request = Request;
    type Input = Input;
    type Answer = Answer;

    fn respond(
        registered: Option<&Builders>,
        session: &mut Strategies,
        request: &Request,
        window: Window,
        mut on_input: impl FnMut(Input, Vec<Reply<Answer>>) -> bool,
    ) {
        match request {
            Request::Engine { source } => {
                let engine = registered.and_then(|builders| builders.engine);
                source.for_each(window.only(|setup: Setup| {
                    let reply = match engine {
                        None => Reply::NotRegistered,
                        Some(build) => ask(|| play(&setup, &*build())),
                    };
                    on_input(Input::Setup(setup), vec![reply])
                }));
            }
            Request::StrategyCall { slot, call } => {
                let reply = match registered {
                    None => Reply::NotRegistered,
                    Some(builders) => session.answer(builders, *slot, call),
                };
                on_input(Input::Call(call.clone()), vec![reply]);
            }
            Request::Roster => {
                let names = registered
                    .map(|builders| {
                        builders
                            .strategies
                            .iter()
                            .map(|(n, _)| n.to_string())
                            .collect()
                    })
                    .unwrap_or_default();
                on_input(Input::Roster, vec![Reply::Answer(Answer::Names(names))]);
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
        fn engine<E: Engine + 'static>() -> Box<dyn Engine> {
            Box::new(E::new())
        }
        self.update::<Contract>(|builders| builders.engine = Some(engine::<E>))
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
