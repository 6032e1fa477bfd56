//! The submission's strategies across the process boundary: the course interface's calls
//! and responses, the runner's instances of them (`Strategies`, the contract's session), the
//! grader's `RemoteStrategy` that makes each method a call, and `StrategyTrial`, a spec's
//! trial of them in the reference engine.

use std::cell::RefCell;
use std::rc::Rc;

use super::{Answer, Builders, Harness, PlayerStrategy, PlayerTurn};
use crate::assignment::{ask, guarded};
use crate::card::{Card, Suit};
use crate::protocol::Reply;

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

/// The submission's strategy instances, kept by the runner from call to call.
#[derive(Default)]
pub struct Strategies {
    slots: std::collections::HashMap<u32, Box<dyn PlayerStrategy>>,
}

impl Strategies {
    /// Makes `call` on the instance in `slot` (or creates it), guarded like every call.
    pub(super) fn answer(&mut self, builders: &Builders, slot: u32, call: &Call) -> Reply<Answer> {
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

crate::wire_struct!(StrategyTrial {
    games,
    seed,
    opponents,
    require,
    strategy
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
