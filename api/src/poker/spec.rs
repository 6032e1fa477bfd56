//! Poker specs: cases of one hand and one check or two hands compared, and bulk groups of
//! hands or pairs of hands, under the file's or the group's ranking rules.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Answer, Check, Contract, Matchup, PokerRules, RandomPairs, Request, Ties};
use crate::card::Card;
use crate::deck::HandSource;
use crate::source::Source;
use crate::spec::hands::{EveryHand, HandSize, case_check, cases_take_check, five, hand_source};
use crate::spec::schema::AnyValue;
use crate::spec::{
    Generated, Grading, Problem, Problems, Spec, SpecTest, Written, bulk_checks, case_tests, dealt,
    expected, only_fields, unused,
};

/// Every bulk hand of poker has five cards.
pub(crate) type FiveCards = HandSize<5, 5>;
/// `exhaustive:` of poker's hands.
pub(crate) type EveryFiveCardHand = EveryHand<5, 5>;

/// `rules:` of a poker file or group.
#[derive(Deserialize, Default, Clone, Copy, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RulesSpec {
    /// Which ranks break a tie; `standard` unless given.
    ties: Option<TiesSpec>,
    /// Whether A-2-3-4-5 is a straight, the lowest; true unless given.
    ace_low_straight: Option<bool>,
}

#[derive(Deserialize, Clone, Copy, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum TiesSpec {
    Standard,
    #[serde(rename = "draw_1572")]
    Draw1572,
}

spec_group!(Group with rules {
    /// The check of every case that does not name its own.
    check: Option<Check>,
    /// The checks a bulk group of hands asks of every hand.
    checks: Option<Vec<Check>>,
    /// Hands listed one by one, each a test of its own.
    cases: Option<Vec<Case>>,
    /// Random hands or pairs of hands from a seed, compared in bulk.
    generate: Option<Generate>,
    /// Every hand of five cards, asked `checks` in bulk.
    exhaustive: Option<EveryFiveCardHand>,
}, sources: [cases, generate, exhaustive]);

/// The cards of every hand a case ranks.
const HAND_SIZE: usize = 5;

spec_case!(Case {
    #[schemars(length(min = HAND_SIZE, max = HAND_SIZE), extend("uniqueItems" = true))]
    pub(crate) hand: Vec<Card>,
    /// The hand `hand` is compared with.
    #[schemars(length(min = HAND_SIZE, max = HAND_SIZE), extend("uniqueItems" = true))]
    pub(crate) versus: Option<Vec<Card>>,
    /// The check asked of the hand, if not the group's.
    pub(crate) check: Option<Check>,
    /// What the check returns, or which hand wins; the reference must agree.
    #[schemars(with = "Option<AnyValue>")]
    pub(crate) expect: Option<serde_yaml::Value>,
});

/// `generate:` of a group of hands or of pairs of hands.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Generate {
    pub(crate) count: Generated,
    pub(crate) seed: u64,
    #[serde(default = "five::<5, 5>")]
    pub(crate) hand_size: FiveCards,
    /// Generate pairs of hands to compare instead of hands.
    #[serde(default)]
    pub(crate) pairs: bool,
}

impl Spec for Contract {
    type Rules = RulesSpec;
    type Group = Group;

    fn expect_text(answer: &Answer) -> Option<String> {
        Some(match answer {
            Answer::Ordering(std::cmp::Ordering::Greater) => "greater".into(),
            Answer::Ordering(std::cmp::Ordering::Less) => "less".into(),
            Answer::Ordering(std::cmp::Ordering::Equal) => "equal".into(),
            other => other.to_string(),
        })
    }

    fn tests(file: &RulesSpec, group: Group) -> Result<Vec<SpecTest<Contract>>, Problems> {
        let name = &group.name;
        let own = group.rules.unwrap_or_default();
        let rules = PokerRules {
            ties: match own.ties.or(file.ties) {
                Some(TiesSpec::Draw1572) => Ties::Draw1572,
                _ => Ties::Standard,
            },
            ace_low_straight: own
                .ace_low_straight
                .or(file.ace_low_straight)
                .unwrap_or(true),
        };
        if let Some(cases) = group.cases {
            cases_take_check(name, group.checks.is_some())?;
            return case_tests(name, cases, |case| case_test(&case, group.check, rules));
        }
        unused(
            name,
            &[("check", group.check.is_some())],
            "a bulk group; give `checks`",
        )?;
        let request = bulk_request(name, group.checks, group.generate, group.exhaustive, rules)?;
        Ok(vec![SpecTest::whole(request, Grading::Bulk)])
    }
}

/// The request of a bulk group: generated pairs of hands compared, or generated or every
/// hand asked `checks`.
pub(crate) fn bulk_request(
    name: &str,
    checks: Option<Vec<Check>>,
    generate: Option<Generate>,
    exhaustive: Option<EveryFiveCardHand>,
    rules: PokerRules,
) -> Result<Request, Problem> {
    Ok(match generate {
        Some(g) if g.pairs => {
            unused(
                name,
                &[("checks", checks.is_some())],
                "a group of generated pairs",
            )?;
            Request::Matchups {
                source: Source::Generated(RandomPairs {
                    count: g.count.0,
                    seed: g.seed,
                }),
                rules,
            }
        }
        generate => {
            let source = hand_source(
                name,
                generate.map(|g| crate::spec::hands::GenerateHands {
                    count: g.count,
                    seed: g.seed,
                    hand_size: g.hand_size,
                    min_hand_size: None,
                }),
                exhaustive,
            )?;
            Request::Hands {
                source,
                checks: bulk_checks(name, checks)?,
                rules,
            }
        }
    })
}

pub(crate) fn case_test(
    case: &Case,
    group_check: Option<Check>,
    rules: PokerRules,
) -> Result<(Request, Vec<Written<Contract>>), String> {
    for cards in std::iter::once(&case.hand).chain(case.versus.as_ref()) {
        dealt("a poker hand", cards, HAND_SIZE..=HAND_SIZE)?;
    }
    if let Some(versus) = &case.versus {
        only_fields(
            &[("check", case.check.is_some())],
            &["hand", "versus", "expect"],
        )?;
        let written = case.expect.as_ref().map(ordering_expectation).transpose()?;
        let request = Request::Matchups {
            source: Source::Listed(vec![Matchup {
                first: case.hand.clone(),
                second: versus.clone(),
            }]),
            rules,
        };
        return Ok((request, written.into_iter().collect()));
    }
    let (check, written) = case_check(
        case.check.or(group_check),
        case.expect.as_ref(),
        check_expectation,
    )?;
    let request = Request::Hands {
        source: HandSource::Listed(vec![case.hand.clone()]),
        checks: vec![check],
        rules,
    };
    Ok((request, written))
}

fn check_expectation(check: Check, value: &serde_yaml::Value) -> Result<Written<Contract>, String> {
    let answer = match check {
        Check::Category => {
            let text: String = expected(value, check, "a category such as `full house`")?;
            Answer::Category(text.parse()?)
        }
        Check::Tiebreak => Answer::Cells(expected(value, check, "a list of numbers")?),
    };
    Ok(Written::exact(0, answer))
}

fn ordering_expectation(value: &serde_yaml::Value) -> Result<Written<Contract>, String> {
    let text: String = serde_yaml::from_value(value.clone()).unwrap_or_default();
    let ordering = match text.trim().to_ascii_lowercase().as_str() {
        "greater" | "first" | "first wins" => std::cmp::Ordering::Greater,
        "less" | "second" | "second wins" => std::cmp::Ordering::Less,
        "equal" | "tie" => std::cmp::Ordering::Equal,
        _ => {
            return Err(format!(
                "`expect` of a comparison is greater, less or equal, not `{text}`"
            ));
        }
    };
    Ok(Written::exact(0, Answer::Ordering(ordering)))
}
