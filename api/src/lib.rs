//! The contract cardgrade submissions implement.
//!
//! A submission is a library crate with `pub fn submission() -> Submission` that registers
//! the types it implements. The grader builds a small runner around it and asks it
//! questions over a pipe; see [`protocol`].

// One exception, the runner's progress page: a shared mapping has no safe constructor.
#![deny(unsafe_code)]

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
                    match crate::nearest(text.trim(), &names) {
                        Some(near) => format!("`{text}` is not {}; did you mean `{near}`?", $what),
                        None => format!("`{text}` is not {}; expected one of: {}", $what, names.join(", ")),
                    }
                })
            }
        }

        crate::wire_by_position!($name);

        #[cfg(feature = "spec")]
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<$name, D::Error> {
                crate::spec::from_text(deserializer, $what)
            }
        }

        #[cfg(feature = "spec")]
        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            // Every assignment names its checks `Check`: the module tells them apart.
            fn schema_id() -> std::borrow::Cow<'static, str> {
                concat!(module_path!(), "::", stringify!($name)).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let names: Vec<&str> = $name::ALL.iter().map(|check| check.name()).collect();
                schemars::json_schema!({ "type": "string", "enum": names })
            }
        }
    };
}

/// The one of `known` that `word` is most likely a misspelling of: at most a third of its
/// letters away, at least one.
#[doc(hidden)]
pub fn nearest<'a>(word: &str, known: &[&'a str]) -> Option<&'a str> {
    let most = (word.chars().count() / 3).max(1);
    known
        .iter()
        .map(|&candidate| (edits(word, candidate), candidate))
        .filter(|&(distance, _)| distance <= most)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, candidate)| candidate)
}

/// Letters to insert, delete, replace or swap with a neighbour to turn `a` into `b`.
fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Three rows of the table: two rows back are needed for a swap.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut current = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let replace = previous[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            current[j] = replace.min(previous[j] + 1).min(current[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                current[j] = current[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut previous, current);
    }
    previous[b.len()]
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

#[cfg(test)]
mod tests {
    use super::nearest;

    #[test]
    fn a_near_miss_is_named_and_a_stranger_is_not() {
        let known = ["points", "name", "hint", "has_pair", "has_straight"];
        assert_eq!(nearest("pionts", &known), Some("points"));
        assert_eq!(nearest("has_straihgt", &known), Some("has_straight"));
        assert_eq!(nearest("has_pairs", &known), Some("has_pair"));
        assert_eq!(nearest("nmae", &known), Some("name"));
        assert_eq!(nearest("weight", &known), None);
        assert_eq!(nearest("x", &known), None);
    }
}
