//! A spec's `policy:`: what a course takes off a late submission, and how much a student
//! is told past a number of graded submissions a day. The grader applies it where the
//! platform says when a submission came (Gradescope's `submission_metadata.json`).

use serde::Deserialize;

use super::values::{DueDate, Ranged};
use crate::text::from_text;

/// A spec file's `policy:`.
#[derive(Deserialize, Debug, Clone, Default, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// What a late submission loses.
    pub late: Option<Late>,
    /// Graded submissions a day (UTC) that a student sees in full; past it, `past_limit`.
    pub daily_limit: Option<Ranged<u32, 1, 1_000>>,
    /// What a student sees of a submission past `daily_limit`: its score alone (the
    /// default), or only that it was received. Staff always see all.
    #[serde(default)]
    pub past_limit: PastLimit,
}

/// `late:` of a policy.
#[derive(Deserialize, Debug, Clone, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Late {
    /// The due date (`YYYY-MM-DD`, UTC): late from the end of that day. Without it, the
    /// platform's due date.
    pub after: Option<DueDate>,
    /// The share of the score lost for each day or part of a day late, such as `10%`.
    pub penalty_per_day: Percent,
    /// The least share of the score a late submission keeps, such as `50%` [default: 0%].
    #[serde(default)]
    pub floor: Percent,
}

/// What a student is told of a submission past the day's limit.
#[derive(Deserialize, Debug, Clone, Copy, Default, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PastLimit {
    /// The score, no test's result.
    #[default]
    ScoreOnly,
    /// That it was received: no score, no test.
    Nothing,
}

/// A share from 0% to 100%, written with its `%`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Percent(pub f64);

impl std::str::FromStr for Percent {
    type Err = String;

    fn from_str(text: &str) -> Result<Percent, String> {
        let bad = || format!("`{text}` is not a share: write it as a percentage, such as 10%");
        let number: f64 = text
            .trim()
            .strip_suffix('%')
            .ok_or_else(bad)?
            .trim()
            .parse()
            .map_err(|_| bad())?;
        match (0.0..=100.0).contains(&number) {
            true => Ok(Percent(number / 100.0)),
            false => Err(format!("`{text}` is outside 0% to 100%")),
        }
    }
}

impl<'de> Deserialize<'de> for Percent {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Percent, D::Error> {
        from_text(deserializer, "a percentage, such as 10%")
    }
}

impl schemars::JsonSchema for Percent {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Percent".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A share from 0% to 100%, such as 10%.",
            "type": "string",
            "pattern": "^ *[0-9]+(\\.[0-9]+)? *% *$",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_policy_reads_shares_with_their_sign_and_refuses_what_is_not_one() {
        let policy: Policy = serde_yaml::from_str(
            "late: { after: 2026-12-01, penalty_per_day: 10%, floor: 50 % }\ndaily_limit: 3\npast_limit: nothing",
        )
        .unwrap();
        let late = policy.late.unwrap();
        assert_eq!(
            (late.penalty_per_day, late.floor),
            (Percent(0.1), Percent(0.5))
        );
        assert_eq!(policy.past_limit, PastLimit::Nothing);
        for bad in ["10", "110%", "-5%", "ten%"] {
            let refused =
                serde_yaml::from_str::<Policy>(&format!("late: {{ penalty_per_day: \"{bad}\" }}"));
            assert!(refused.is_err(), "{bad}");
        }
        assert!(serde_yaml::from_str::<Policy>("daily_limit: 0").is_err());
    }
}
