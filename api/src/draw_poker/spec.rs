//! Five-card draw specs: discards tried on a hand, whole hands played from a deck, and
//! the dealer's discards on generated hands. The game's rules are seed 004's, fixed.

use serde::Deserialize;

use super::{Answer, Check, Contract, Discard, DrawTable, Request};
use crate::card::Card;
use crate::spec::{
    GenerateHands, Grading, NoRules, Problem, Spec, SpecTest, Written, case_tests, exactly_one,
    hand_source, only_fields,
};

spec_group!(Group {
    /// The checks a generated group asks: `[dealer_discards]`.
    checks: Option<Vec<Check>>,
    cases: Option<Vec<Case>>,
    generate: Option<GenerateHands>,
});

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    name: String,
    /// The five cards a discard is tried on.
    hand: Option<Vec<Card>>,
    /// The positions discarded from `hand` (1 to 5).
    discard: Option<Vec<u32>>,
    /// The deck, top first.
    deck: Option<Vec<Card>>,
    seed: Option<u64>,
    /// The player's discards for each hand played from `deck`.
    discards: Option<Vec<Vec<u32>>>,
    expect: Option<serde_yaml::Value>,
}

impl Spec for Contract {
    type Rules = NoRules;
    type Group = Group;

    fn tests(_: &NoRules, group: Group) -> Result<Vec<SpecTest<Contract>>, Problem> {
        let name = &group.name;
        exactly_one(
            name,
            &[
                ("cases", group.cases.is_some()),
                ("generate", group.generate.is_some()),
            ],
        )?;
        if let Some(cases) = group.cases {
            crate::spec::unused(
                name,
                &[("checks", group.checks.is_some())],
                "a group of cases",
            )?;
            return case_tests(name, cases, |case| &case.name, |case| case_test(&case));
        }
        if group.checks.as_deref() != Some(&[Check::DealerDiscards]) {
            return Err(Problem::group(
                name,
                "a generated draw_poker group takes `checks: [dealer_discards]`",
            ));
        }
        let source = hand_source(name, group.generate, None)?;
        Ok(vec![SpecTest {
            case: None,
            request: Request::DealerDiscards { source },
            grading: Grading::Bulk,
            written: Vec::new(),
        }])
    }
}

fn case_test(case: &Case) -> Result<(Request, Vec<Written<Contract>>), String> {
    let given = [
        ("hand", case.hand.is_some()),
        ("discard", case.discard.is_some()),
        ("deck", case.deck.is_some()),
        ("seed", case.seed.is_some()),
        ("discards", case.discards.is_some()),
        ("expect", case.expect.is_some()),
    ];
    if let Some(positions) = &case.discard {
        only_fields(&given, &["hand", "discard", "deck", "expect"])?;
        let hand = case.hand.clone().ok_or("needs `hand:`, the five cards")?;
        let discard = Discard {
            hand,
            positions: positions.clone(),
            deck: case.deck.clone().unwrap_or_default(),
        };
        let written = case.expect.as_ref().map(discard_expectation).transpose()?;
        return Ok((
            Request::Discards {
                discards: vec![discard],
            },
            written.into_iter().collect(),
        ));
    }
    only_fields(&given, &["deck", "seed", "discards"])?;
    let player = case.discards.clone().ok_or(
        "needs `discard:` (with `hand:`) to try a discard, or `discards:` to play hands from `deck:`",
    )?;
    if player.is_empty() {
        return Err("`discards:` lists no hands".into());
    }
    let table = DrawTable {
        deck: case.deck.clone().unwrap_or_default(),
        seed: case.seed.unwrap_or(0),
        player,
        dealer: None,
    };
    Ok((
        Request::Tables {
            tables: vec![table],
        },
        Vec::new(),
    ))
}

fn discard_expectation(value: &serde_yaml::Value) -> Result<Written<Contract>, String> {
    if value.as_str().is_some_and(|text| text.trim() == "refused") {
        return Ok(Written::exact(0, Answer::Refused));
    }
    let cards: Vec<Card> = serde_yaml::from_value(value.clone())
        .map_err(|e| format!("`expect` of a discard is the hand after it, or `refused`: {e}"))?;
    Ok(Written::exact(0, Answer::Cards(cards)))
}
