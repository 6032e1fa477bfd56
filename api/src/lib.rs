//! The contract cardgrade submissions implement.
//!
//! A submission is a library crate with `pub fn submission() -> Submission` that registers
//! the types it implements. The grader builds a small runner around it and asks it
//! questions over a pipe; see [`protocol`].

#![forbid(unsafe_code)]

/// A fieldless enum of the checks a spec names: `ALL`, `name()`, `Display`, `FromStr`
/// (an unknown name lists the known ones) and its wire encoding.
macro_rules! checks {
    ($(#[$doc:meta])* $name:ident, $what:literal { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($variant),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The method's name, as specs write it.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(text: &str) -> Result<$name, String> {
                $name::ALL.iter().copied().find(|check| check.name() == text.trim()).ok_or_else(|| {
                    let names: Vec<&str> = $name::ALL.iter().map(|check| check.name()).collect();
                    format!("`{text}` is not {}; expected one of: {}", $what, names.join(", "))
                })
            }
        }

        crate::wire_by_position!($name);

        #[cfg(feature = "spec")]
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<$name, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

#[cfg(feature = "spec")]
#[macro_use]
pub mod spec;

pub mod assignment;
pub mod blackjack;
pub mod card;
pub mod crazy_eights;
pub mod deck;
pub mod draw_poker;
pub mod plaisante_hand;
pub mod poker;
pub mod protocol;
pub mod runner;
pub mod source;
pub mod submission;
pub mod tableau;
pub mod wire;

pub use assignment::{Assignment, Unit};
pub use blackjack::{BlackjackGame, BlackjackHand};
pub use card::{Card, CardError, Suit, format_cards};
pub use deck::{Deck, HandSource};
pub use plaisante_hand::{HandName, Multipliers, PlaisanteHand};
pub use submission::Submission;
pub use tableau::Tableau;

use assignment::Of;

/// Every assignment, in the order reports list them: a new assignment is its module and
/// one line here.
pub static ASSIGNMENTS: &[&dyn Unit] = &[
    &Of::<plaisante_hand::Contract>::UNIT,
    &Of::<tableau::Contract>::UNIT,
    &Of::<blackjack::Contract>::UNIT,
    &Of::<poker::Contract>::UNIT,
    &Of::<draw_poker::Contract>::UNIT,
    &Of::<crazy_eights::Contract>::UNIT,
];

/// The assignment specs and the runner call `name`.
pub fn assignment(name: &str) -> Option<&'static dyn Unit> {
    ASSIGNMENTS.iter().copied().find(|unit| unit.name() == name)
}
