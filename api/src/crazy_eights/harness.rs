//! The harness's own players (legal and cheating), the games and tournaments they play on an
//! engine, and what a watched game records: the table before each turn, the cards each seat
//! is left with, and every `process_opponent_actions` call each seat got.

use std::cell::RefCell;
use std::rc::Rc;

use super::{Answer, CheatKind, Engine, GameResult, PlayerStrategy, PlayerTurn, is_legal};
use crate::card::{Card, Suit, format_cards};
use crate::deck::{Deck, below, seeded_rng};
use crate::source::{Generator, Source};

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
        let card = play_chosen(&mut self.chosen, &mut self.hand);
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

/// A game's table at its end as its players saw it: the starter (the top card when the
/// first turn began; `None` when none did) and the cards each seat was left with (dealt and
/// drawn, less those it played, even one refused as a cheat), sorted, since a hand's order
/// is the engine's to keep.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableSeen {
    pub starter: Option<Card>,
    pub hands: Vec<Vec<Card>>,
}

/// One `process_opponent_actions` call a player got: before which turn of the game (counted
/// from 1 over every seat's turns; a turn begins with its `should_draw_card`), and the turns
/// it was told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Told {
    pub before_turn: u32,
    pub turns: Vec<PlayerTurn>,
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

crate::wire_struct!(TableSeen { starter, hands });
crate::wire_struct!(Told { before_turn, turns });
crate::wire_struct!(Setup {
    deck,
    seed,
    players,
    target
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

/// The card a player plays, out of its `hand`: the one it `chosen` when asked whether to
/// draw (the engine asks only after it said no), else its first (else 2♣, for an engine
/// that asks a player with no card).
pub fn play_chosen(chosen: &mut Option<Card>, hand: &mut Vec<Card>) -> Card {
    let card = chosen
        .take()
        .or(hand.first().copied())
        .unwrap_or(Card::from_index(0).expect("2♣"));
    hand.retain(|&held| held != card);
    card
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
