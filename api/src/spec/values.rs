//! The values a spec file writes that are more than a name or a list: a due date, a
//! number in its range, points, a visibility, a scoring; each read with the error a teacher
//! can act on, and described to the schema as it is read.

use serde::Deserialize;

use crate::text::{from_text, group_digits};

/// Who may see a group's results, as Gradescope names it.
#[derive(
    Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    #[default]
    Visible,
    Hidden,
    AfterDueDate,
    AfterPublished,
}

/// Who is told the known mistakes that explain a group's wrong answers.
#[derive(
    Clone, Copy, Debug, Deserialize, PartialEq, Eq, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Diagnose {
    /// The student and staff: the default for a visible group. A hidden group's diagnosis
    /// names the mistake, never its inputs or answers.
    Everyone,
    /// Staff alone: the default for a hidden or after-due-date group.
    Staff,
    /// Nobody.
    No,
}

impl Diagnose {
    /// Who is told, where a group does not say: everyone, unless the group is hidden from
    /// students for now.
    pub fn default_for(visibility: Visibility) -> Diagnose {
        match visibility {
            Visibility::Visible => Diagnose::Everyone,
            Visibility::Hidden | Visibility::AfterDueDate | Visibility::AfterPublished => {
                Diagnose::Staff
            }
        }
    }
}

/// A file's `defaults:`.
#[derive(Deserialize, Default, Debug, Clone, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// Each test's timeout in milliseconds, unless its group gives one (`--timeout-ms`
    /// replaces it).
    pub timeout_ms: Option<TimeoutMs>,
    /// How long building a submission may take, in seconds (`--build-timeout` wins).
    pub build_timeout_s: Option<BuildTimeoutS>,
    /// Crates a submission may depend on besides grader-api, by name.
    #[serde(default)]
    pub allow_dependencies: Vec<String>,
    /// The due date (`YYYY-MM-DD`): a student's view shows after_due_date groups from then on.
    pub due: Option<DueDate>,
}

/// A due date, `YYYY-MM-DD` (UTC), as the days from 1970-01-01 to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct DueDate(pub u64);

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

impl std::str::FromStr for DueDate {
    type Err = String;

    fn from_str(text: &str) -> Result<DueDate, String> {
        let bad = || format!("`{text}` is not a date: write it as YYYY-MM-DD, such as 2026-12-15");
        let parts: Vec<u64> = text
            .trim()
            .split('-')
            .map(|part| part.parse().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        let [year, month, day] = parts[..] else {
            return Err(bad());
        };
        if !(1970..=9999).contains(&year) || !(1..=12).contains(&month) || day == 0 {
            return Err(bad());
        }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
        let days_in_month = match month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        if day > days_in_month {
            return Err(format!(
                "`{text}` is not a date: {} {year} has {days_in_month} days",
                MONTHS[month as usize - 1]
            ));
        }
        // Days from the civil date, counting years from March so leap days fall last.
        let (y, m) = if month <= 2 {
            (year - 1, month + 9)
        } else {
            (year, month - 3)
        };
        let era = y / 400;
        let year_of_era = y - era * 400;
        let day_of_year = (153 * m + 2) / 5 + day - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
        Ok(DueDate(era * 146_097 + day_of_era - 719_468))
    }
}

impl<'de> Deserialize<'de> for DueDate {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<DueDate, D::Error> {
        from_text(deserializer, "a date, YYYY-MM-DD")
    }
}

/// What [`DueDate`]'s `Deserialize` reads: a date, which the pattern checks only in shape.
impl schemars::JsonSchema for DueDate {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "DueDate".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A date, YYYY-MM-DD (UTC), from 1970 to 9999.",
            "type": "string",
            "format": "date",
            "pattern": "^ *[0-9]{4}-[0-9]{2}-[0-9]{2} *$",
        })
    }
}

/// A whole number a spec field takes, from `MIN` to `MAX`, held as `T`. It is refused as it
/// is read, so the error is placed at the number itself, and the schema says the same range
/// from the same type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ranged<T, const MIN: u64, const MAX: u64>(pub T);

/// What a group may generate: more would keep the trusted, in-process reference busy for
/// hours, and none grades nothing for free points.
pub type Generated = Ranged<u32, 1, 1_000_000>;
/// Rounds of blackjack on one deck, games of a strategies trial, a tournament's target.
pub type Rounds = Ranged<u32, 1, 10_000>;
pub type Games = Ranged<u32, 1, 10_000>;
pub type Target = Ranged<u32, 1, 10_000>;
/// A case's share of its group's points.
pub type Weight = Ranged<u32, 1, 1_000>;
/// A test's timeout: none is no test at all, and ten minutes is more than any needs.
pub type TimeoutMs = Ranged<u64, 1, 600_000>;
/// A build's timeout, in seconds.
pub type BuildTimeoutS = Ranged<u64, 1, 3_600>;

/// `field: value` is outside `MIN` to `MAX`, as the error says it after the field's path.
fn outside<const MIN: u64, const MAX: u64>(value: impl std::fmt::Display) -> String {
    match MIN == MAX {
        true => format!("{value} is refused: this takes only {MIN}"),
        false => format!(
            "{value} is outside its range, {} to {}",
            group_digits(MIN),
            group_digits(MAX)
        ),
    }
}

/// A number as an error shows it: 1e300 written out would be a line of 301 digits.
fn shown_number(value: f64) -> String {
    match value.abs() < 1e15 {
        true => value.to_string(),
        false => format!("{value:e}"),
    }
}

impl<'de, T: TryFrom<u64>, const MIN: u64, const MAX: u64> Deserialize<'de>
    for Ranged<T, MIN, MAX>
{
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Whole<T, const MIN: u64, const MAX: u64>(std::marker::PhantomData<T>);
        impl<T: TryFrom<u64>, const MIN: u64, const MAX: u64> serde::de::Visitor<'_>
            for Whole<T, MIN, MAX>
        {
            type Value = Ranged<T, MIN, MAX>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(
                    f,
                    "a whole number from {} to {}",
                    group_digits(MIN),
                    group_digits(MAX)
                )
            }
            fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<Self::Value, E> {
                (MIN..=MAX)
                    .contains(&value)
                    .then(|| T::try_from(value).ok())
                    .flatten()
                    .map(Ranged)
                    .ok_or_else(|| E::custom(outside::<MIN, MAX>(value)))
            }
            fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<Self::Value, E> {
                match u64::try_from(value) {
                    Ok(value) => self.visit_u64(value),
                    Err(_) => Err(E::custom(outside::<MIN, MAX>(value))),
                }
            }
            fn visit_u128<E: serde::de::Error>(self, value: u128) -> Result<Self::Value, E> {
                Err(E::custom(outside::<MIN, MAX>(value)))
            }
            fn visit_i128<E: serde::de::Error>(self, value: i128) -> Result<Self::Value, E> {
                Err(E::custom(outside::<MIN, MAX>(value)))
            }
            /// A number past `u64`, or written with a point or an exponent.
            fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<Self::Value, E> {
                let shown = shown_number(value);
                match value.fract() == 0.0 {
                    true if (MIN as f64..=MAX as f64).contains(&value) => {
                        self.visit_u64(value as u64)
                    }
                    true => Err(E::custom(outside::<MIN, MAX>(shown))),
                    false => Err(E::custom(format!(
                        "expected a whole number from {} to {}, not {shown}",
                        group_digits(MIN),
                        group_digits(MAX)
                    ))),
                }
            }
        }
        // Any, not u64: a number written with a point is read as one, to say what is wrong.
        deserializer.deserialize_any(Whole(std::marker::PhantomData))
    }
}

/// As its number: the schema shows a default (`hand_size: 5`) as the value it is.
impl<T: serde::Serialize, const MIN: u64, const MAX: u64> serde::Serialize for Ranged<T, MIN, MAX> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// What [`Ranged`]'s `Deserialize` reads: a whole number in its range.
impl<T, const MIN: u64, const MAX: u64> schemars::JsonSchema for Ranged<T, MIN, MAX> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Whole_{MIN}_to_{MAX}").into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "integer", "minimum": MIN, "maximum": MAX })
    }
}

/// A group's points: a score of hundreds of digits helps nobody.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Points(pub f64);

impl Points {
    pub const MOST: u64 = 1_000;
}

impl<'de> Deserialize<'de> for Points {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Points, D::Error> {
        struct Number;
        impl serde::de::Visitor<'_> for Number {
            type Value = Points;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "a number from 0 to {}", group_digits(Points::MOST))
            }
            fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<Points, E> {
                match value.is_finite() && (0.0..=Points::MOST as f64).contains(&value) {
                    true => Ok(Points(value)),
                    false => Err(E::custom(outside::<0, { Points::MOST }>(shown_number(
                        value,
                    )))),
                }
            }
            fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<Points, E> {
                self.visit_f64(value as f64)
            }
            fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<Points, E> {
                self.visit_f64(value as f64)
            }
        }
        deserializer.deserialize_f64(Number)
    }
}

/// What [`Points`]' `Deserialize` reads: a number in its range.
impl schemars::JsonSchema for Points {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Points".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "number", "minimum": 0, "maximum": Points::MOST })
    }
}

/// How a group graded as one test (a bulk group) earns its points when some answers are
/// wrong. Each check it asks has an equal share, earned as the mode says.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Scoring {
    /// A check earns its share only when right on every input: a wrong answer is a bug.
    #[default]
    AllOrNothing,
    /// A check earns the part of its share that it answered right.
    Proportional,
    /// A check earns its whole share when right on at least this fraction of the inputs,
    /// and nothing otherwise.
    Threshold(f64),
}

impl Scoring {
    const NAMES: [&str; 2] = ["all_or_nothing", "proportional"];
    const EXPECTING: &str = "`all_or_nothing`, `proportional` or `{ threshold: 0.999 }`";
}

impl<'de> Deserialize<'de> for Scoring {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Scoring, D::Error> {
        struct Mode;
        impl<'de> serde::de::Visitor<'de> for Mode {
            type Value = Scoring;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(Scoring::EXPECTING)
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Scoring, E> {
                match text.trim() {
                    "all_or_nothing" => Ok(Scoring::AllOrNothing),
                    "proportional" => Ok(Scoring::Proportional),
                    other => Err(E::custom(match crate::nearest(other, &Scoring::NAMES) {
                        Some(near) => format!("`{other}` is not a scoring; did you mean `{near}`?"),
                        None => format!(
                            "`{other}` is not a scoring; expected {}",
                            Scoring::EXPECTING
                        ),
                    })),
                }
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Scoring, M::Error> {
                use serde::de::Error;
                let Some(key) = map.next_key::<String>()? else {
                    return Err(M::Error::custom(
                        "a scoring written as a mapping needs `threshold`, such as `{ threshold: 0.999 }`",
                    ));
                };
                if key != "threshold" {
                    return Err(M::Error::unknown_field(&key, &["threshold"]));
                }
                let fraction: f64 = map.next_value()?;
                if !(fraction > 0.0 && fraction <= 1.0) {
                    return Err(M::Error::custom(format!(
                        "a threshold is the fraction of inputs a check must answer right, above 0 and at most 1 (0.999 is 99.9%); {} is not",
                        shown_number(fraction)
                    )));
                }
                if let Some(more) = map.next_key::<String>()? {
                    return Err(M::Error::unknown_field(&more, &["threshold"]));
                }
                Ok(Scoring::Threshold(fraction))
            }
        }
        deserializer.deserialize_any(Mode)
    }
}

/// What [`Scoring`]'s `Deserialize` reads: one of two names, or a threshold.
impl schemars::JsonSchema for Scoring {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Scoring".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "How a bulk group earns its points when some answers are wrong: each check all or nothing (the default), in proportion to the inputs it answers right, or whole from a threshold of right answers on.",
            "oneOf": [
                { "type": "string", "enum": Scoring::NAMES },
                {
                    "type": "object",
                    "properties": {
                        "threshold": { "type": "number", "exclusiveMinimum": 0, "maximum": 1 }
                    },
                    "required": ["threshold"],
                    "additionalProperties": false
                }
            ]
        })
    }
}
