//! What only the groups of hands read: a hand's size, `generate:` and `exhaustive:` of
//! hands, the [`HandSource`] they make, and the checks their cases ask. The assignments of
//! other inputs never need it.

use serde::Deserialize;

use super::{Generated, Problem, Ranged, Written, unused};
use crate::assignment::Assignment;
use crate::deck::{HandSource, RandomHands};

/// The cards of a hand of a bulk group, `MIN` to `MAX`.
pub(crate) type HandSize<const MIN: u64, const MAX: u64> = Ranged<u8, MIN, MAX>;

/// The default hand size of generated and exhaustive groups.
pub(crate) fn five<const MIN: u64, const MAX: u64>() -> HandSize<MIN, MAX> {
    Ranged(5)
}

/// `generate:` of a group of hands, each of `MIN` to `MAX` cards.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct GenerateHands<const MIN: u64, const MAX: u64> {
    pub count: Generated,
    pub seed: u64,
    #[serde(default = "five::<MIN, MAX>")]
    pub hand_size: HandSize<MIN, MAX>,
    /// Hands of `min_hand_size` up to `hand_size` cards; all of `hand_size` by default.
    pub min_hand_size: Option<HandSize<MIN, MAX>>,
}

/// `exhaustive:` of a group of hands of `MIN` to `MAX` cards.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EveryHand<const MIN: u64, const MAX: u64> {
    #[serde(default = "five::<MIN, MAX>")]
    pub hand_size: HandSize<MIN, MAX>,
    /// Each hand's cards in a shuffled order instead of sorted.
    #[serde(default)]
    pub shuffled: bool,
}

/// The hands of a bulk group: generated or every hand of a size.
pub(crate) fn hand_source<const MIN: u64, const MAX: u64>(
    group: &str,
    generate: Option<GenerateHands<MIN, MAX>>,
    exhaustive: Option<EveryHand<MIN, MAX>>,
) -> Result<HandSource, Problem> {
    match (generate, exhaustive) {
        (Some(g), _) => {
            let Ranged(hand_size) = g.hand_size;
            let min_hand_size = g.min_hand_size.map_or(hand_size, |size| size.0);
            if min_hand_size > hand_size {
                return Err(Problem::group(
                    group,
                    format!("min_hand_size {min_hand_size} is more than hand_size {hand_size}"),
                ));
            }
            Ok(HandSource::Generated(RandomHands {
                count: g.count.0,
                seed: g.seed,
                hand_size,
                min_hand_size,
            }))
        }
        (None, Some(e)) => Ok(HandSource::Exhaustive {
            hand_size: e.hand_size.0,
            shuffled: e.shuffled,
        }),
        (None, None) => Err(Problem::group(group, "needs `generate` or `exhaustive`")),
    }
}

/// Refuses `checks` in a group of cases, each of which asks the group's `check` or its own.
pub(crate) fn cases_take_check(group: &str, checks_given: bool) -> Result<(), Problem> {
    unused(
        group,
        &[("checks", checks_given)],
        "a group of cases; give `check`",
    )
}

/// The check of a case (its own, or else its group's) and what the case's `expect` says it
/// returns, read by `expectation`, where the case has one.
pub(crate) fn case_check<C: Copy, A: Assignment>(
    check: Option<C>,
    expect: Option<&serde_yaml::Value>,
    expectation: impl FnOnce(C, &serde_yaml::Value) -> Result<Written<A>, String>,
) -> Result<(C, Vec<Written<A>>), String> {
    let check = check.ok_or("names no check: give it `check:` or give its group one")?;
    let written = expect.map(|value| expectation(check, value)).transpose()?;
    Ok((check, written.into_iter().collect()))
}
