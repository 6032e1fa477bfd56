//! The registry a submission's `lib.rs` returns from `pub fn submission()`.

use std::fmt;

use crate::blackjack::{BlackjackGame, BlackjackHand};
use crate::card::Card;
use crate::crazy8::{Engine, PlayerStrategy};
use crate::draw::DrawGame;
use crate::plaisante::PlaisanteHand;
use crate::poker::{PokerHand, PokerRules};
use crate::tableau::Tableau;

/// An assignment a submission can implement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Assignment {
    PlaisanteHand,
    Tableau,
    Blackjack,
    Poker,
    DrawPoker,
    CrazyEights,
}

impl Assignment {
    pub const ALL: [Assignment; 6] = [
        Assignment::PlaisanteHand,
        Assignment::Tableau,
        Assignment::Blackjack,
        Assignment::Poker,
        Assignment::DrawPoker,
        Assignment::CrazyEights,
    ];

    /// The name specs use in their `assignment:` field.
    pub fn name(self) -> &'static str {
        match self {
            Assignment::PlaisanteHand => "plaisante_hand",
            Assignment::Tableau => "tableau",
            Assignment::Blackjack => "blackjack",
            Assignment::Poker => "poker",
            Assignment::DrawPoker => "draw_poker",
            Assignment::CrazyEights => "crazy_eights",
        }
    }

    /// The builder call that registers it, for messages that tell a student what to add.
    pub fn registration(self) -> &'static str {
        match self {
            Assignment::PlaisanteHand => ".plaisante_hand::<YourHand>()",
            Assignment::Tableau => ".tableau::<YourTableau>()",
            Assignment::Blackjack => ".blackjack::<YourHand, YourGame>()",
            Assignment::Poker => ".poker::<YourHand>()",
            Assignment::DrawPoker => ".draw_poker::<YourGame, YourHand>()",
            Assignment::CrazyEights => ".crazy_eights::<YourEngine>()",
        }
    }
}

crate::wire_by_position!(Assignment);

impl fmt::Display for Assignment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Assignment {
    type Err = String;
    fn from_str(text: &str) -> Result<Assignment, String> {
        Assignment::ALL
            .into_iter()
            .find(|a| a.name() == text.trim())
            .ok_or_else(|| {
                let names: Vec<&str> = Assignment::ALL.iter().map(|a| a.name()).collect();
                format!(
                    "`{text}` is not an assignment; expected one of: {}",
                    names.join(", ")
                )
            })
    }
}

#[cfg(feature = "spec")]
impl<'de> serde::Deserialize<'de> for Assignment {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Assignment, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

pub(crate) type HandBuilder = fn(Vec<Card>) -> Box<dyn PlaisanteHand>;
pub(crate) type TableauBuilder = fn() -> Box<dyn Tableau>;
pub(crate) type BlackjackHandBuilder = fn() -> Box<dyn BlackjackHand>;
pub(crate) type BlackjackGameBuilder = fn() -> Box<dyn BlackjackGame>;
pub(crate) type PokerHandBuilder = fn(Vec<Card>, PokerRules) -> Box<dyn PokerHand>;
pub(crate) type DrawGameBuilder = fn() -> Box<dyn DrawGame>;
pub(crate) type EngineBuilder = fn() -> Box<dyn Engine>;
pub(crate) type StrategyBuilder = fn() -> Box<dyn PlayerStrategy>;

/// What a submission implements, one builder call per assignment:
///
/// ```
/// # use grader_api::{Card, PlaisanteHand, Submission};
/// # struct MyHand(Vec<Card>);
/// # impl PlaisanteHand for MyHand {
/// #     fn new(cards: Vec<Card>) -> Self { MyHand(cards) }
/// #     fn cards(&self) -> &[Card] { &self.0 }
/// #     fn count_values(&self) -> Vec<u32> { todo!() }
/// #     fn has_pair(&self) -> bool { todo!() }
/// #     fn has_two_pair(&self) -> bool { todo!() }
/// #     fn has_three_of_a_kind(&self) -> bool { todo!() }
/// #     fn has_four_of_a_kind(&self) -> bool { todo!() }
/// #     fn has_full_house(&self) -> bool { todo!() }
/// #     fn has_flush(&self) -> bool { todo!() }
/// #     fn has_straight(&self) -> bool { todo!() }
/// # }
/// pub fn submission() -> Submission {
///     Submission::new().plaisante_hand::<MyHand>()
/// }
/// ```
#[derive(Default, Clone)]
pub struct Submission {
    plaisante_hand: Option<HandBuilder>,
    tableau: Option<TableauBuilder>,
    blackjack: Option<(BlackjackHandBuilder, BlackjackGameBuilder)>,
    poker: Option<PokerHandBuilder>,
    draw_poker: Option<(DrawGameBuilder, PokerHandBuilder)>,
    crazy_eights: Option<EngineBuilder>,
    strategies: Vec<(&'static str, StrategyBuilder)>,
}

fn poker_hand<H: PokerHand + 'static>(cards: Vec<Card>, rules: PokerRules) -> Box<dyn PokerHand> {
    Box::new(H::new(cards, rules))
}

impl Submission {
    pub fn new() -> Submission {
        Submission::default()
    }

    /// Registers `H` as this submission's Plaisante hand.
    pub fn plaisante_hand<H: PlaisanteHand + 'static>(mut self) -> Submission {
        fn build<H: PlaisanteHand + 'static>(cards: Vec<Card>) -> Box<dyn PlaisanteHand> {
            Box::new(H::new(cards))
        }
        self.plaisante_hand = Some(build::<H>);
        self
    }

    /// Registers `T` as this submission's Plaisante tableau.
    pub fn tableau<T: Tableau + 'static>(mut self) -> Submission {
        fn build<T: Tableau + 'static>() -> Box<dyn Tableau> {
            Box::new(T::new())
        }
        self.tableau = Some(build::<T>);
        self
    }

    /// Registers `H` as this submission's blackjack hand and `G` as its game.
    pub fn blackjack<H: BlackjackHand + 'static, G: BlackjackGame + 'static>(
        mut self,
    ) -> Submission {
        fn hand<H: BlackjackHand + 'static>() -> Box<dyn BlackjackHand> {
            Box::new(H::new())
        }
        fn game<G: BlackjackGame + 'static>() -> Box<dyn BlackjackGame> {
            Box::new(G::new())
        }
        self.blackjack = Some((hand::<H>, game::<G>));
        self
    }

    /// Registers `H` as this submission's poker hand (seed 002).
    pub fn poker<H: PokerHand + 'static>(mut self) -> Submission {
        self.poker = Some(poker_hand::<H>);
        self
    }

    /// Registers `G` as this submission's five-card draw game, ranking hands with `H`.
    pub fn draw_poker<G: DrawGame + 'static, H: PokerHand + 'static>(mut self) -> Submission {
        fn game<G: DrawGame + 'static>() -> Box<dyn DrawGame> {
            Box::new(G::new())
        }
        self.draw_poker = Some((game::<G>, poker_hand::<H>));
        self
    }

    /// Registers `E` as this submission's Crazy Eights engine.
    pub fn crazy_eights<E: Engine + 'static>(mut self) -> Submission {
        fn engine<E: Engine + 'static>() -> Box<dyn Engine> {
            Box::new(E::new())
        }
        self.crazy_eights = Some(engine::<E>);
        self
    }

    /// Registers `S` as a Crazy Eights strategy named `name` (the spec may require two).
    pub fn crazy_eights_player<S: PlayerStrategy + Default + 'static>(
        mut self,
        name: &'static str,
    ) -> Submission {
        fn build<S: PlayerStrategy + Default + 'static>() -> Box<dyn PlayerStrategy> {
            Box::new(S::default())
        }
        self.strategies.push((name, build::<S>));
        self
    }

    /// The names of the registered Crazy Eights strategies, in registration order.
    pub fn strategy_names(&self) -> Vec<String> {
        self.strategies
            .iter()
            .map(|(name, _)| name.to_string())
            .collect()
    }

    /// A fresh instance of the strategy registered as `name`.
    pub fn build_strategy(&self, name: &str) -> Option<Box<dyn PlayerStrategy>> {
        self.strategies
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, build)| build())
    }

    /// The assignments registered, in a stable order.
    pub fn assignments(&self) -> Vec<Assignment> {
        let registered = [
            self.plaisante_hand.is_some(),
            self.tableau.is_some(),
            self.blackjack.is_some(),
            self.poker.is_some(),
            self.draw_poker.is_some(),
            self.crazy_eights.is_some() || !self.strategies.is_empty(),
        ];
        Assignment::ALL
            .into_iter()
            .zip(registered)
            .filter_map(|(assignment, present)| present.then_some(assignment))
            .collect()
    }

    pub(crate) fn plaisante_hand_builder(&self) -> Option<HandBuilder> {
        self.plaisante_hand
    }

    pub(crate) fn tableau_builder(&self) -> Option<TableauBuilder> {
        self.tableau
    }

    pub(crate) fn blackjack_hand_builder(&self) -> Option<BlackjackHandBuilder> {
        self.blackjack.map(|(hand, _)| hand)
    }

    pub(crate) fn poker_hand_builder(&self) -> Option<PokerHandBuilder> {
        self.poker
    }

    /// The registered draw game and its hand, for code that plays it directly.
    pub fn draw_builders(&self) -> Option<(DrawGameBuilder, PokerHandBuilder)> {
        self.draw_poker
    }

    /// The registered Crazy Eights engine, for code that plays it directly.
    pub fn crazy8_engine_builder(&self) -> Option<EngineBuilder> {
        self.crazy_eights
    }

    /// Builds the registered blackjack game, for code that plays it directly.
    pub fn blackjack_game_builder(&self) -> Option<BlackjackGameBuilder> {
        self.blackjack.map(|(_, game)| game)
    }

    /// Builds the registered Plaisante hand from `cards`, for code that drives it directly.
    pub fn build_plaisante_hand(&self, cards: Vec<Card>) -> Option<Box<dyn PlaisanteHand>> {
        self.plaisante_hand.map(|build| build(cards))
    }

    /// Runs this submission as cardgrade's runner: the generated runner's `main` calls
    /// this. It never returns.
    pub fn serve(self) -> ! {
        crate::runner::serve(self)
    }
}
