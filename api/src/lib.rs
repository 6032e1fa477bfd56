//! The contract cardgrade submissions implement.
//!
//! A submission is a library crate with `pub fn submission() -> Submission` that registers
//! the types it implements. The grader builds a small runner around it and asks it
//! questions over a pipe; see [`protocol`].

// Three exceptions, each with its reason: the runner's progress page (a shared mapping has
// no safe constructor), and the oracle's fork and the socket it is handed with a link.
#![deny(unsafe_code)]

/// The global allocator of the runner the grader builds around a submission.
#[cfg(feature = "allocator")]
pub use mimalloc::MiMalloc as RunnerAllocator;

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
                    match crate::text::nearest(text.trim(), &names) {
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
                crate::text::from_text(deserializer, $what)
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

/// A fieldless enum whose variants reports show and specs name by a label: `ALL` in order,
/// `label()`, `Display` by the label, and `by_label`, which finds a variant by a text that
/// need only match under a key, since each enum forgives a spec's writing differently.
macro_rules! labelled {
    ($(#[$doc:meta])* $name:ident { $($variant:ident => $label:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($variant),+
        }

        impl $name {
            pub const ALL: [$name; [$($label),+].len()] = [$($name::$variant),+];

            pub fn label(self) -> &'static str {
                match self {
                    $($name::$variant => $label),+
                }
            }

            /// The variant whose label reads as `text` once both are put through `key`.
            pub fn by_label(text: &str, key: impl Fn(&str) -> String) -> Option<$name> {
                let wanted = key(text);
                $name::ALL.into_iter().find(|variant| key(variant.label()) == wanted)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.label())
            }
        }
    };
}

/// The items an [`Assignment`] impl opens with: its name, the builder call that registers
/// it, what it registers, and those of its types that a contract names only where it
/// differs: what the runner keeps between requests (nothing unless named), and its request,
/// input and answer (its module's `Request`, `Input` and `Answer` unless named).
macro_rules! contract_items {
    (@or [$named:ty] $default:ty) => { $named };
    (@or [] $default:ty) => { $default };
    ($name:literal, $registration:literal, $registered:ty
        $(, session: $session:ty)? $(, request: $request:ty)?
        $(, input: $input:ty)? $(, answer: $answer:ty)?) => {
        const NAME: &'static str = $name;
        const REGISTRATION: &'static str = $registration;
        type Registered = $registered;
        type Session = contract_items!(@or [$($session)?] ());
        type Request = contract_items!(@or [$($request)?] Request);
        type Input = contract_items!(@or [$($input)?] Input);
        type Answer = contract_items!(@or [$($answer)?] Answer);
    };
}

/// What a submission registers for its `$implementation` of `$contract`: a builder of the
/// boxed object, made by the contract's `new()`.
macro_rules! builder_of {
    ($contract:ident, $implementation:ident) => {{
        fn build<T: $contract + 'static>() -> Box<dyn $contract> {
            Box::new(T::new())
        }
        build::<$implementation>
    }};
}

#[cfg(feature = "spec")]
#[macro_use]
pub mod spec;

#[macro_use]
pub mod assignments;

/// Declares each assignment's module.
macro_rules! assignment_modules {
    ($($assignment:ident),+ $(,)?) => {
        $(pub mod $assignment;)+
    };
}

for_each_assignment!(assignment_modules);

pub mod assignment;
pub mod card;
pub mod deck;
pub mod oracle;
pub mod protocol;
pub mod serve;
pub mod source;
pub mod stand_in;
pub mod submission;
pub mod text;
pub mod transcript;
pub mod unit;
pub mod wire;

pub use assignment::Assignment;
pub use assignments::{ASSIGNMENTS, assignment};
pub use blackjack::{BlackjackGame, BlackjackHand};
pub use card::{Card, CardError, Suit, format_cards};
pub use deck::{Deck, HandSource};
pub use plaisante_hand::{HandName, Multipliers, PlaisanteHand};
pub use submission::Submission;
pub use tableau::Tableau;
pub use text::nearest;
pub use unit::Unit;
