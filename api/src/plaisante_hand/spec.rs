//! Plaisante hand specs: cases of one hand and one check, and bulk groups of hands, scored
//! with the file's or the group's multipliers.

use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;

use super::{Answer, Check, Contract, HandName, Multipliers, Request};
use crate::card::Card;
use crate::deck::HandSource;
use crate::spec::hands::{EveryHand, GenerateHands, case_check, cases_take_check, hand_source};
use crate::spec::schema::AnyValue;
use crate::spec::{
    Grading, Problems, Spec, SpecTest, Written, bulk_checks, case_tests, dealt, expected, unused,
};

/// `rules:` of a Plaisante hand file or group.
#[derive(Deserialize, Default, Clone, Copy, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RulesSpec {
    /// The multiplier of each hand, instead of the seed's table.
    multipliers: Option<MultipliersSpec>,
}

/// The largest multiplier a table may give: five cards are worth at most 70, so any score
/// stays far inside the `u32` it is.
const MOST_MULTIPLIER: u32 = 1000;

/// `multipliers:`, a whole table: every hand by its key (`two_pair: 3`). A partial table is
/// refused rather than filled from the seed's, so a course's table never silently mixes in
/// numbers it did not choose.
#[derive(Deserialize, Clone, Copy)]
#[serde(try_from = "BTreeMap<String, i64>")]
struct MultipliersSpec(Multipliers);

impl TryFrom<BTreeMap<String, i64>> for MultipliersSpec {
    type Error = String;

    fn try_from(mut given: BTreeMap<String, i64>) -> Result<MultipliersSpec, String> {
        let keys: Vec<String> = HandName::ALL.iter().map(|&hand| key(hand)).collect();
        let mut by_hand = [0; HandName::ALL.len()];
        for (multiplier, key) in by_hand.iter_mut().zip(&keys) {
            let value = given.remove(key).ok_or_else(|| {
                format!(
                    "multipliers gives no `{key}`; a table gives every hand: {}",
                    keys.join(", ")
                )
            })?;
            *multiplier = u32::try_from(value)
                .ok()
                .filter(|m| (1..=MOST_MULTIPLIER).contains(m))
                .ok_or_else(|| {
                    format!(
                        "the multiplier of `{key}` is {value}; a multiplier is a whole number from 1 to {MOST_MULTIPLIER}"
                    )
                })?;
        }
        match given.keys().next() {
            Some(stray) => Err(format!(
                "`{stray}` is not a hand of multipliers; expected one of: {}",
                keys.join(", ")
            )),
            None => Ok(MultipliersSpec(Multipliers::new(by_hand))),
        }
    }
}

/// What [`MultipliersSpec::try_from`] takes: every hand by its key, no other.
impl JsonSchema for MultipliersSpec {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Multipliers".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let keys: Vec<String> = HandName::ALL.iter().map(|&hand| key(hand)).collect();
        let multiplier =
            json_schema!({ "type": "integer", "minimum": 1, "maximum": MOST_MULTIPLIER });
        let properties: BTreeMap<&String, Schema> =
            keys.iter().map(|key| (key, multiplier.clone())).collect();
        json_schema!({
            "description": format!("A whole table: every hand's multiplier, 1 to {MOST_MULTIPLIER}."),
            "type": "object",
            "properties": properties,
            "required": keys,
            "additionalProperties": false,
        })
    }
}

/// How `rules.multipliers` names `hand`: its label in snake case (`three_of_a_kind`).
fn key(hand: HandName) -> String {
    hand.label().to_ascii_lowercase().replace(' ', "_")
}

spec_group!(Group with rules {
    /// The check of every case that does not name its own.
    check: Option<Check>,
    /// The checks a bulk group asks of every hand.
    checks: Option<Vec<Check>>,
    /// Hands listed one by one, each a test of its own.
    cases: Option<Vec<Case>>,
    /// Random hands from a seed, asked `checks` in bulk.
    generate: Option<GenerateHands<1, 5>>,
    /// Every hand of a size, asked `checks` in bulk.
    exhaustive: Option<EveryHand<1, 5>>,
}, sources: [cases, generate, exhaustive]);

/// The most cards a case's hand holds.
const MOST_CARDS: usize = 5;

spec_case!(Case {
    #[schemars(length(max = MOST_CARDS), extend("uniqueItems" = true))]
    hand: Vec<Card>,
    /// The check asked of the hand, if not the group's.
    check: Option<Check>,
    /// What the check returns; the reference must agree. Without it the reference answers.
    #[schemars(with = "Option<AnyValue>")]
    expect: Option<serde_yaml::Value>,
});

impl Spec for Contract {
    type Rules = RulesSpec;
    type Group = Group;

    fn expect_text(answer: &Answer) -> Option<String> {
        Some(answer.to_string())
    }

    fn tests(file: &RulesSpec, group: Group) -> Result<Vec<SpecTest<Contract>>, Problems> {
        let name = &group.name;
        // A group's table replaces the file's whole, as a file's replaces the seed's.
        let multipliers = group
            .rules
            .unwrap_or_default()
            .multipliers
            .or(file.multipliers)
            .map_or_else(Multipliers::default, |table| table.0);
        if let Some(cases) = group.cases {
            cases_take_check(name, group.checks.is_some())?;
            return case_tests(name, cases, |case| {
                dealt("a Plaisante hand", &case.hand, 0..=MOST_CARDS)?;
                let (check, written) = case_check(
                    case.check.or(group.check),
                    case.expect.as_ref(),
                    expectation,
                )?;
                let request = Request {
                    source: HandSource::Listed(vec![case.hand]),
                    checks: vec![check],
                    multipliers,
                };
                Ok((request, written))
            });
        }
        unused(
            name,
            &[("check", group.check.is_some())],
            "a bulk group; give `checks`",
        )?;
        let source = hand_source(name, group.generate, group.exhaustive)?;
        let checks = bulk_checks(name, group.checks)?;
        Ok(vec![SpecTest::whole(
            Request {
                source,
                checks,
                multipliers,
            },
            Grading::Bulk,
        )])
    }
}

fn expectation(check: Check, value: &serde_yaml::Value) -> Result<Written<Contract>, String> {
    let answer = match check {
        Check::CountValues => Answer::Cells(expected(value, check, "a list of 15 counts")?),
        Check::Evaluate => {
            let text: String = expected(value, check, "a hand name such as \"Pair\"")?;
            Answer::Hand(text.parse::<HandName>()?)
        }
        Check::TotalValue | Check::BaseMult | Check::Score => {
            Answer::Number(expected(value, check, "a number")?)
        }
        _ => Answer::Bool(expected(value, check, "true or false")?),
    };
    Ok(Written::exact(0, answer))
}
