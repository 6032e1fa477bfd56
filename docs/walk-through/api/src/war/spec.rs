//! War specs: battles listed with the winner they may expect, or dealt from a seed.

use super::{Battle, Contract, RandomBattles, Winner};
use crate::card::Card;
use crate::source::Source;
use crate::spec::{Generated, NoRules, Problems, Spec, SpecTest, Written, listed_or_generated};

spec_group!(Group {
    cases: Option<Vec<Case>>,
    /// Battles dealt from decks shuffled from `seed`.
    generate: Option<Generate>,
}, sources: [cases, generate]);

spec_case!(Case {
    first: Card,
    second: Card,
    expect: Option<Winner>,
});

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Generate {
    count: Generated,
    seed: u64,
}

impl Spec for Contract {
    type Rules = NoRules;
    type Group = Group;

    fn tests(_: &NoRules, group: Group) -> Result<Vec<SpecTest<Contract>>, Problems> {
        let dealt = |Generate { count, seed }| {
            let count = count.0;
            Ok(Source::Generated(RandomBattles { count, seed }))
        };
        listed_or_generated(&group.name, group.cases, group.generate, dealt, |case| {
            let Case { first, second, .. } = case;
            let written = case.expect.map(|winner| Written::exact(0, winner));
            Ok((Source::Listed(vec![Battle { first, second }]), written.into_iter().collect()))
        })
    }

    fn expect_text(winner: &Winner) -> Option<String> {
        Some(winner.name().to_string())
    }
}
