//! Tableau specs: scripts of steps on a deck, with the states they expect, and generated
//! step sequences.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;

use super::{Contract, RandomScripts, Script, State, Step};
use crate::card::{Card, format_cards};
use crate::source::Source;
use crate::spec::schema::AnyValue;
use crate::spec::{
    Generated, NoRules, Problems, Spec, SpecTest, Written, dealt, listed_or_generated,
};

spec_group!(Group {
    /// Scripts listed one by one, each a test of its own.
    cases: Option<Vec<Case>>,
    /// Random scripts from a seed, compared in bulk.
    generate: Option<Generate>,
}, sources: [cases, generate]);

spec_case!(Case {
    /// The cards dealt from, top first.
    #[schemars(length(max = Card::COUNT), extend("uniqueItems" = true))]
    deck: Vec<Card>,
    /// What the player does.
    steps: Vec<StepSpec>,
});

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Generate {
    count: Generated,
    seed: u64,
}

/// A step as written: a word, or a map with its expectation.
enum StepSpec {
    Word(String),
    Action(ActionStep),
}

/// By hand rather than `untagged`, whose one error for every shape says no more than "did
/// not match any variant", at the list rather than the step; this one says what a step is,
/// and a map's own mistakes keep their place.
impl<'de> Deserialize<'de> for StepSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<StepSpec, D::Error> {
        struct Step;
        impl<'de> serde::de::Visitor<'de> for Step {
            type Value = StepSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a step: deal, play, or { toggle: KH }")
            }
            fn visit_str<E: serde::de::Error>(self, word: &str) -> Result<StepSpec, E> {
                Ok(StepSpec::Word(word.to_string()))
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(self, map: M) -> Result<StepSpec, M::Error> {
                ActionStep::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(StepSpec::Action)
            }
        }
        deserializer.deserialize_any(Step)
    }
}

/// What [`StepSpec`]'s `Deserialize` reads: a word, or the map of an [`ActionStep`].
impl JsonSchema for StepSpec {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "StepSpec".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A step: `deal`, `play`, or a map such as `{ toggle: KH }` that may add an `expect`.",
            "anyOf": [{ "type": "string" }, generator.subschema_for::<ActionStep>()],
        })
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ActionStep {
    /// The card or cards clicked, one step each.
    toggle: Option<OneOrMany>,
    /// `deal: ~` (any value) when the key is there.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "AnyValue", transform = no_default)]
    deal: bool,
    /// `play: ~` (any value) when the key is there.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "AnyValue", transform = no_default)]
    play: bool,
    /// The state after the step; the reference must agree.
    expect: Option<StateSpec>,
}

/// True for a key that is present, whatever its value (`~` included).
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    serde::de::IgnoredAny::deserialize(deserializer).map(|_| true)
}

/// The schema of a key read by [`present`] says no default: an editor would write in
/// `false`, and so make the key present.
fn no_default(schema: &mut Schema) {
    schema.remove("default");
}

/// `toggle:`'s cards: one card, or a list of them.
enum OneOrMany {
    One(Card),
    Many(Vec<Card>),
}

/// By hand rather than `untagged`, which says only that the value "did not match any
/// variant", at the step: this one says what is wrong with a card, at the card.
impl<'de> Deserialize<'de> for OneOrMany {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<OneOrMany, D::Error> {
        struct Cards;
        impl<'de> serde::de::Visitor<'de> for Cards {
            type Value = OneOrMany;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a card or a list of cards, such as KH or [KH, QH]")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<OneOrMany, E> {
                text.parse().map(OneOrMany::One).map_err(E::custom)
            }
            fn visit_seq<S: serde::de::SeqAccess<'de>>(
                self,
                seq: S,
            ) -> Result<OneOrMany, S::Error> {
                Vec::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))
                    .map(OneOrMany::Many)
            }
        }
        deserializer.deserialize_any(Cards)
    }
}

/// What [`OneOrMany`]'s `Deserialize` reads: a card, or a list of cards.
impl JsonSchema for OneOrMany {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "OneOrMany".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A card, or a list of cards toggled one after another.",
            "anyOf": [generator.subschema_for::<Card>(), generator.subschema_for::<Vec<Card>>()],
        })
    }
}

/// A tableau state as a spec writes it: only the lists given are checked.
#[derive(Deserialize, Clone, Debug, JsonSchema)]
#[serde(deny_unknown_fields)]
struct StateSpec {
    held: Option<Vec<Card>>,
    selected: Option<Vec<Card>>,
    play_area: Option<Vec<Card>>,
}

impl StateSpec {
    fn agrees(&self, got: &State) -> bool {
        let same =
            |want: &Option<Vec<Card>>, got: &Vec<Card>| want.as_ref().is_none_or(|w| w == got);
        same(&self.held, &got.held)
            && same(&self.selected, &got.selected)
            && same(&self.play_area, &got.play_area)
    }
}

impl std::fmt::Display for StateSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lists = [
            ("held", &self.held),
            ("selected", &self.selected),
            ("play_area", &self.play_area),
        ];
        let given: Vec<String> = lists
            .iter()
            .filter_map(|(name, cards)| {
                cards
                    .as_ref()
                    .map(|c| format!("{name} {}", format_cards(c)))
            })
            .collect();
        f.write_str(&given.join("; "))
    }
}

impl Spec for Contract {
    type Rules = NoRules;
    type Group = Group;

    fn tests(_: &NoRules, group: Group) -> Result<Vec<SpecTest<Contract>>, Problems> {
        let generated = |generate: Generate| {
            Ok(Source::Generated(RandomScripts {
                count: generate.count.0,
                seed: generate.seed,
            }))
        };
        listed_or_generated(&group.name, group.cases, group.generate, generated, |case| {
            dealt("a deck", &case.deck, 0..=Card::COUNT)?;
            let (steps, written) = script_steps(&case.steps)?;
            let script = Script {
                deck: case.deck,
                steps,
            };
            Ok((Source::Listed(vec![script]), written))
        })
    }
}

/// Expands the spec's steps (a toggle may list several cards) into single steps, with the
/// expectations attached to the last step of each.
fn script_steps(specs: &[StepSpec]) -> Result<(Vec<Step>, Vec<Written<Contract>>), String> {
    let mut steps = Vec::new();
    let mut written = Vec::new();
    for spec in specs {
        let expect = match spec {
            StepSpec::Word(word) => {
                steps.push(match word.trim() {
                    "deal" => Step::Deal,
                    "play" => Step::Play,
                    other => {
                        return Err(format!(
                            "`{other}` is not a step: write deal, play, or {{ toggle: KH }}"
                        ));
                    }
                });
                None
            }
            StepSpec::Action(action) => {
                let chosen = [action.toggle.is_some(), action.deal, action.play];
                if chosen.iter().filter(|&&c| c).count() != 1 {
                    return Err("a step is one of deal, play or { toggle: ... }".into());
                }
                match &action.toggle {
                    Some(OneOrMany::One(card)) => steps.push(Step::Toggle(*card)),
                    Some(OneOrMany::Many(cards)) if cards.is_empty() => {
                        return Err("`toggle: []` toggles nothing: name a card or more".into());
                    }
                    Some(OneOrMany::Many(cards)) => {
                        steps.extend(cards.iter().map(|c| Step::Toggle(*c)))
                    }
                    None if action.deal => steps.push(Step::Deal),
                    None => steps.push(Step::Play),
                }
                action.expect.clone()
            }
        };
        if let Some(state) = expect {
            written.push(Written {
                index: steps.len() - 1,
                text: state.to_string(),
                agrees: Box::new(move |got| state.agrees(got)),
            });
        }
    }
    if steps.is_empty() {
        return Err("has no steps".into());
    }
    Ok((steps, written))
}
