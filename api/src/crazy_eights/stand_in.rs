//! Crazy Eights as stand-ins (see [`crate::stand_in`]): an `Engine` and the reference's
//! strategies (`Eager`, `Cautious`), answered by the implementation under test. The players
//! a test seats stay in the test: the implementation calls each back, and a stand-in
//! strategy among them forwards that call to the implementation while the game waits.

use std::cell::RefCell;
use std::io;
use std::marker::PhantomData;
use std::rc::Rc;

use super::{
    Contract, EngineBuilder, Engine as EngineTrait, GameResult, PlayerStrategy, PlayerTurn,
    StrategyBuilder, TournamentResult,
};
use crate::card::{Card, Suit};
use crate::deck::Deck;
use crate::stand_in::{
    self, Answerer, CONSTRUCTORS, Call, Done, Link, NoCallbacks, Objects, WithDeck, method_of,
    no_args,
};
use crate::submission::Submission;
use crate::wire::Wire;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Method {
    PlayGame,
    PlayTournament,
    NewStrategy,
    // `PlayerStrategy`'s: a test's calls of the implementation's strategies, and the
    // implementation's calls back of the test's players.
    Init,
    ReceiveInitialCards,
    ShouldDrawCard,
    ReceiveCard,
    PlayCard,
    DeclareSuit,
    ProcessOpponentActions,
    Reset,
}

impl Method {
    const ALL: [Method; 11] = [
        Method::PlayGame,
        Method::PlayTournament,
        Method::NewStrategy,
        Method::Init,
        Method::ReceiveInitialCards,
        Method::ShouldDrawCard,
        Method::ReceiveCard,
        Method::PlayCard,
        Method::DeclareSuit,
        Method::ProcessOpponentActions,
        Method::Reset,
    ];
}

/// Registers the stand-ins, as an implementation's `register` does its types.
pub fn register(submission: Submission) -> Submission {
    submission
        .crazy_eights::<Engine>()
        .crazy_eights_player::<Eager>(PlaysFirstLegal::NAME)
        .crazy_eights_player::<Cautious>(KeepsEights::NAME)
}

/// The implementation's engine. A unit struct as the reference's, so that a test may write
/// `Engine.play_game(...)`: the implementation makes an engine of its own for each call
/// (its `new` runs then), the same as one engine for an engine that holds nothing.
pub struct Engine;

/// A strategy the implementation registers, by the name its `register` gives it.
pub trait Style {
    const NAME: &'static str;
}

/// A strategy made and answered by the implementation under test.
pub struct Styled<S: Style> {
    number: u64,
    style: PhantomData<S>,
}

pub struct PlaysFirstLegal;

impl Style for PlaysFirstLegal {
    const NAME: &'static str = "eager";
}

pub struct KeepsEights;

impl Style for KeepsEights {
    const NAME: &'static str = "cautious";
}

/// Plays the first legal card it holds.
pub type Eager = Styled<PlaysFirstLegal>;
/// Keeps its eights for when nothing else is legal.
pub type Cautious = Styled<KeepsEights>;

/// `PlayerStrategy` for a strategy on the other side of the link, whose `ask` makes a call
/// there: written once for both sides, so that both encode every call alike.
macro_rules! forwarded_strategy {
    ($($impl:tt)+) => {
        $($impl)+ {
            fn init(&mut self, player_id: u32, opponent_ids: &[u32]) {
                self.ask::<Done>(Method::Init, |out| {
                    player_id.put(out)?;
                    opponent_ids.to_vec().put(out)
                });
            }
            fn receive_initial_cards(&mut self, cards: &[Card]) {
                self.ask::<Done>(Method::ReceiveInitialCards, |out| cards.to_vec().put(out));
            }
            fn should_draw_card(&mut self, top: Card, declared_suit: Option<Suit>) -> bool {
                self.ask(Method::ShouldDrawCard, |out| {
                    top.put(out)?;
                    declared_suit.put(out)
                })
            }
            fn receive_card(&mut self, card: Card) {
                self.ask::<Done>(Method::ReceiveCard, |out| card.put(out));
            }
            fn play_card(&mut self) -> Card {
                self.ask(Method::PlayCard, no_args)
            }
            fn declare_suit(&mut self) -> Suit {
                self.ask(Method::DeclareSuit, no_args)
            }
            fn process_opponent_actions(&mut self, actions: &[PlayerTurn]) {
                self.ask::<Done>(Method::ProcessOpponentActions, |out| actions.to_vec().put(out));
            }
            fn reset(&mut self) {
                self.ask::<Done>(Method::Reset, no_args);
            }
        }
    };
}

/// Makes the call `method` of `strategy` with the arguments in `args`: the oracle's answer
/// to a stand-in strategy, and the test's to the implementation calling its player back.
fn answer_strategy(
    strategy: &mut dyn PlayerStrategy,
    method: Method,
    args: &mut &[u8],
    out: &mut Vec<u8>,
) -> io::Result<()> {
    match method {
        Method::Init => {
            strategy.init(u32::take(args)?, &Vec::take(args)?);
            Done.put(out)
        }
        Method::ReceiveInitialCards => {
            strategy.receive_initial_cards(&Vec::take(args)?);
            Done.put(out)
        }
        Method::ShouldDrawCard => {
            let top = Card::take(args)?;
            strategy.should_draw_card(top, Wire::take(args)?).put(out)
        }
        Method::ReceiveCard => {
            strategy.receive_card(Card::take(args)?);
            Done.put(out)
        }
        Method::PlayCard => strategy.play_card().put(out),
        Method::DeclareSuit => strategy.declare_suit().put(out),
        Method::ProcessOpponentActions => {
            strategy.process_opponent_actions(&Vec::take(args)?);
            Done.put(out)
        }
        Method::Reset => {
            strategy.reset();
            Done.put(out)
        }
        Method::PlayGame | Method::PlayTournament | Method::NewStrategy => Err(io::Error::other(
            format!("{method:?} is not a strategy's method"),
        )),
    }
}

impl<S: Style> Default for Styled<S> {
    fn default() -> Styled<S> {
        let name = |out: &mut Vec<u8>| S::NAME.to_string().put(out);
        Styled {
            number: stand_in::ask(CONSTRUCTORS, Method::NewStrategy as u64, name, &mut NoCallbacks),
            style: PhantomData,
        }
    }
}

impl<S: Style> Styled<S> {
    fn ask<R: Wire>(&self, method: Method, args: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> R {
        stand_in::ask(self.number, method as u64, args, &mut NoCallbacks)
    }
}

forwarded_strategy!(impl<S: Style> PlayerStrategy for Styled<S>);

/// The test's players, answering the implementation's calls back while their game is played:
/// the call's object is the seat.
struct Seats<'p>(&'p mut [Box<dyn PlayerStrategy>]);

impl Answerer for Seats<'_> {
    fn answer(&mut self, call: Call<'_>) -> io::Result<()> {
        let seat = call.object;
        let player = usize::try_from(seat)
            .ok()
            .and_then(|seat| self.0.get_mut(seat))
            .ok_or_else(|| io::Error::other(format!("no player in seat {seat}")))?;
        let method = method_of(&Method::ALL, call.method)?;
        answer_strategy(&mut **player, method, call.args, call.out)
    }
}

impl EngineTrait for Engine {
    fn new() -> Engine {
        Engine
    }

    fn play_game(&self, players: &mut [Box<dyn PlayerStrategy>], deck: &mut Deck) -> GameResult {
        let seats = players.len() as u64;
        let method = Method::PlayGame as u64;
        stand_in::ask_lending_deck(method, deck, |out| seats.put(out), &mut Seats(players))
    }

    fn play_tournament(
        &self,
        players: &mut [Box<dyn PlayerStrategy>],
        deck: &mut Deck,
        target: u32,
    ) -> TournamentResult {
        let seats = players.len() as u64;
        let args = |out: &mut Vec<u8>| {
            seats.put(out)?;
            target.put(out)
        };
        let method = Method::PlayTournament as u64;
        stand_in::ask_lending_deck(method, deck, args, &mut Seats(players))
    }
}

/// More seats than a list on the wire may hold is a broken call, not a table.
const MOST_SEATS: u64 = 1 << 18;

/// The oracle's side: `submission`'s engine, and its strategies, made and asked at the
/// test's calls. Shared with the test's players while a game is played, so that a call one
/// makes meanwhile (a stand-in strategy seated there forwarding its own) is answered too.
struct Oracle {
    engine: Option<EngineBuilder>,
    strategies: Vec<(&'static str, StrategyBuilder)>,
    made: RefCell<Objects<dyn PlayerStrategy>>,
}

pub(crate) fn server(submission: &Submission) -> Option<Box<dyn Answerer + '_>> {
    let builders = submission.registered::<Contract>()?;
    Some(Box::new(Rc::new(Oracle {
        engine: builders.engine,
        strategies: builders.strategies.clone(),
        made: RefCell::default(),
    })))
}

impl Oracle {
    fn engine(&self) -> io::Result<Box<dyn EngineTrait>> {
        let build = self.engine.ok_or_else(|| io::Error::other("no engine is registered"))?;
        Ok(build())
    }
}

/// The test's players in `seats` seats, as the implementation sees them.
fn test_players(
    link: &Link,
    seats: u64,
    oracle: &Rc<Oracle>,
) -> io::Result<Vec<Box<dyn PlayerStrategy>>> {
    if seats > MOST_SEATS {
        return Err(io::Error::other(format!("{seats} seats")));
    }
    // A `Box<dyn PlayerStrategy>` borrows nothing: the players own a handle on the link.
    let link = Rc::new(link.try_clone()?);
    let player = |seat| -> Box<dyn PlayerStrategy> {
        Box::new(TestPlayer {
            link: Rc::clone(&link),
            seat,
            oracle: Rc::clone(oracle),
        })
    };
    Ok((0..seats).map(player).collect())
}

impl Answerer for Rc<Oracle> {
    fn answer(&mut self, call: Call<'_>) -> io::Result<()> {
        match method_of(&Method::ALL, call.method)? {
            Method::PlayGame => {
                let mut deck = Deck::take(call.args)?;
                let mut players = test_players(call.link, u64::take(call.args)?, self)?;
                let result = self.engine()?.play_game(&mut players, &mut deck);
                WithDeck { value: result, deck }.put(call.out)
            }
            Method::PlayTournament => {
                let mut deck = Deck::take(call.args)?;
                let mut players = test_players(call.link, u64::take(call.args)?, self)?;
                let target = u32::take(call.args)?;
                let result = self.engine()?.play_tournament(&mut players, &mut deck, target);
                WithDeck { value: result, deck }.put(call.out)
            }
            Method::NewStrategy => {
                let name = String::take(call.args)?;
                let (_, build) = self
                    .strategies
                    .iter()
                    .find(|(registered, _)| *registered == name)
                    .ok_or_else(|| io::Error::other(format!("no strategy is named `{name}`")))?;
                let made = build();
                self.made.borrow_mut().keep(made, call.out)
            }
            method => {
                let strategy = self.made.borrow().get(call.object)?;
                answer_strategy(&mut **strategy.borrow_mut(), method, call.args, call.out)
            }
        }
    }
}

/// A test's player as the implementation sees it: each call is a call back to the test.
struct TestPlayer {
    link: Rc<Link>,
    seat: u64,
    oracle: Rc<Oracle>,
}

impl TestPlayer {
    fn ask<R: Wire>(
        &mut self,
        method: Method,
        args: impl FnOnce(&mut Vec<u8>) -> io::Result<()>,
    ) -> R {
        let mut encoded = Vec::new();
        args(&mut encoded).expect("writing to memory");
        match self.link.call(self.seat, method as u64, encoded, &mut self.oracle) {
            Ok(Ok(reply)) => R::take(&mut reply.as_slice()).unwrap_or_else(|error| {
                panic!("player {} answered {method:?} with no answer: {error}", self.seat)
            }),
            // The player panicked: so does the implementation that called it, with its message.
            Ok(Err(said)) => std::panic::panic_any(said),
            Err(error) => panic!("the test stopped answering: {error}"),
        }
    }
}

forwarded_strategy!(impl PlayerStrategy for TestPlayer);
