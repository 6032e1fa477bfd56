//! Plaisante hand specs: cases of one hand and one check, and bulk groups of hands.

use serde::Deserialize;

use super::{Answer, Check, Contract, HandName, Request};
use crate::card::Card;
use crate::deck::HandSource;
use crate::spec::{
    EveryHand, GenerateHands, Grading, NoRules, Problem, Spec, SpecTest, Written, bulk_checks,
    case_tests, check_of, exactly_one, expected, hand_source, unused,
};

spec_group!(Group {
    /// The check of every case that does not name its own.
    check: Option<Check>,
    /// The checks a bulk group asks of every hand.
    checks: Option<Vec<Check>>,
    cases: Option<Vec<Case>>,
    generate: Option<GenerateHands>,
    exhaustive: Option<EveryHand>,
});

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    name: String,
    hand: Vec<Card>,
    check: Option<Check>,
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
                ("exhaustive", group.exhaustive.is_some()),
            ],
        )?;
        if let Some(cases) = group.cases {
            unused(
                name,
                &[("checks", group.checks.is_some())],
                "a group of cases; give `check`",
            )?;
            return case_tests(
                name,
                cases,
                |case| &case.name,
                |case| {
                    let check = check_of(case.check, group.check)?;
                    let written = case
                        .expect
                        .as_ref()
                        .map(|value| expectation(check, value))
                        .transpose()?;
                    let request = Request {
                        source: HandSource::Listed(vec![case.hand]),
                        checks: vec![check],
                    };
                    Ok((request, written.into_iter().collect()))
                },
            );
        }
        unused(
            name,
            &[("check", group.check.is_some())],
            "a bulk group; give `checks`",
        )?;
        let source = hand_source(name, group.generate, group.exhaustive)?;
        if let HandSource::Generated { hand_size, .. } | HandSource::Exhaustive { hand_size, .. } =
            source
            && !(1..=5).contains(&hand_size)
        {
            return Err(Problem::group(
                name,
                format!("hand_size must be 1 to 5, not {hand_size}"),
            ));
        }
        let checks = bulk_checks(name, group.checks)?;
        Ok(vec![SpecTest {
            case: None,
            request: Request { source, checks },
            grading: Grading::Bulk,
            written: Vec::new(),
        }])
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
