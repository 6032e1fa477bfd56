//! Blackjack specs: cases of one hand and one check, or one table played (a round or a
//! session), and generated hands or rounds.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    Action, Answer, Check, Contract, Outcome, Policy, RandomRounds, Request, Round, Rules, Table,
    Tally,
};
use crate::card::Card;
use crate::deck::{HandSource, RandomHands};
use crate::source::Source;
use crate::spec::hands::{case_check, cases_take_check};
use crate::spec::schema::AnyValue;
use crate::spec::{
    Generated, Grading, Problem, Problems, Rounds, Spec, SpecTest, Written, bulk_checks,
    cards_expect, case_tests, expected, only_fields, unused,
};

/// `rules:` of a blackjack file or group.
#[derive(Deserialize, Default, Clone, Copy, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RulesSpec {
    /// Whether the dealer hits a soft 17; false unless given.
    dealer_hits_soft_17: Option<bool>,
}

spec_group!(Group with rules {
    /// The check of every hand case that does not name its own.
    check: Option<Check>,
    /// The checks a generated group of hands asks of every hand.
    checks: Option<Vec<Check>>,
    /// Hands or tables listed one by one, each a test of its own.
    cases: Option<Vec<Case>>,
    /// Random hands or rounds from a seed, compared in bulk.
    generate: Option<Generate>,
}, sources: [cases, generate]);

spec_case!(Case {
    /// The cards of a hand to check.
    hand: Option<Vec<Card>>,
    /// The check asked of the hand, if not the group's.
    check: Option<Check>,
    /// What the check returns, or the round or session played; the reference must agree.
    #[schemars(with = "Option<AnyValue>")]
    expect: Option<serde_yaml::Value>,
    /// The deck of a table, top card first.
    deck: Option<Vec<Card>>,
    /// The seed of the fresh decks after `deck`, or of the whole deck without one.
    seed: Option<u64>,
    /// `[hit, stand]` or `hit below 17`.
    player: Option<PlayerSpec>,
    /// Play this many rounds on one deck and compare the tally.
    rounds: Option<Rounds>,
});

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Generate {
    count: Generated,
    seed: u64,
    /// Generate rounds played by this player instead of hands.
    player: Option<PlayerSpec>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum PlayerSpec {
    Script(Vec<String>),
    Rule(String),
}

/// A round as a spec writes it: only the fields given are checked.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct RoundSpec {
    outcome: Option<String>,
    player: Option<Vec<Card>>,
    dealer: Option<Vec<Card>>,
    player_total: Option<u32>,
    dealer_total: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TallySpec {
    won: u32,
    tied: u32,
    lost: u32,
}

impl Spec for Contract {
    type Rules = RulesSpec;
    type Group = Group;

    fn expect_text(answer: &Answer) -> Option<String> {
        Some(match answer {
            Answer::Number(value) => value.to_string(),
            Answer::Bool(value) => value.to_string(),
            Answer::Tally(tally) => format!(
                "{{ won: {}, tied: {}, lost: {} }}",
                tally.won, tally.tied, tally.lost
            ),
            Answer::Round(round) => format!(
                "{{ outcome: {}, player: {}, dealer: {}, player_total: {}, dealer_total: {} }}",
                round.outcome,
                cards_expect(&round.player),
                cards_expect(&round.dealer),
                round.player_total,
                round.dealer_total
            ),
        })
    }

    fn tests(file: &RulesSpec, group: Group) -> Result<Vec<SpecTest<Contract>>, Problems> {
        let name = &group.name;
        let own = group.rules.unwrap_or_default();
        let rules = Rules {
            dealer_hits_soft_17: own
                .dealer_hits_soft_17
                .or(file.dealer_hits_soft_17)
                .unwrap_or(false),
        };
        if let Some(generate) = group.generate {
            let count = generate.count.0;
            let request = match generate.player {
                Some(player) => {
                    unused(
                        name,
                        &[("checks", group.checks.is_some())],
                        "a group of generated rounds",
                    )?;
                    Request::Tables {
                        source: Source::Generated(RandomRounds {
                            count,
                            seed: generate.seed,
                            policy: policy(Some(&player)).map_err(|m| Problem::group(name, m))?,
                        }),
                        rules,
                    }
                }
                None => Request::Hands {
                    source: HandSource::Generated(RandomHands {
                        count,
                        seed: generate.seed,
                        hand_size: 0,
                        min_hand_size: 0,
                    }),
                    checks: bulk_checks(name, group.checks)?,
                },
            };
            unused(
                name,
                &[("check", group.check.is_some())],
                "a bulk group; give `checks`",
            )?;
            return Ok(vec![SpecTest::whole(request, Grading::Bulk)]);
        }
        cases_take_check(name, group.checks.is_some())?;
        let cases = group.cases.unwrap_or_default();
        case_tests(name, cases, |case| case_test(&case, group.check, rules))
    }
}

fn case_test(
    case: &Case,
    group_check: Option<Check>,
    rules: Rules,
) -> Result<(Request, Vec<Written<Contract>>), String> {
    let given = [
        ("hand", case.hand.is_some()),
        ("check", case.check.is_some()),
        ("expect", case.expect.is_some()),
        ("deck", case.deck.is_some()),
        ("seed", case.seed.is_some()),
        ("player", case.player.is_some()),
        ("rounds", case.rounds.is_some()),
    ];
    if let Some(hand) = &case.hand {
        only_fields(&given, &["hand", "check", "expect"])?;
        let (check, written) = case_check(
            case.check.or(group_check),
            case.expect.as_ref(),
            hand_expectation,
        )?;
        let request = Request::Hands {
            source: HandSource::Listed(vec![hand.clone()]),
            checks: vec![check],
        };
        return Ok((request, written));
    }
    only_fields(&given, &["deck", "seed", "player", "rounds", "expect"])?;
    if case.deck.is_none() && case.seed.is_none() {
        return Err("needs `hand:` (to check a hand) or `deck:`/`seed:` (to play a round)".into());
    }
    let rounds = case.rounds.map_or(0, |rounds| rounds.0);
    let table = Table {
        deck: case.deck.clone().unwrap_or_default(),
        seed: case.seed.unwrap_or(0),
        policy: policy(case.player.as_ref())?,
        rounds,
    };
    let written = case
        .expect
        .as_ref()
        .map(|value| table_expectation(rounds, value))
        .transpose()?;
    let request = Request::Tables {
        source: Source::Listed(vec![table]),
        rules,
    };
    Ok((request, written.into_iter().collect()))
}

fn hand_expectation(check: Check, value: &serde_yaml::Value) -> Result<Written<Contract>, String> {
    let answer = match check {
        Check::Value => Answer::Number(expected(value, check, "a number")?),
        Check::IsSoft => Answer::Bool(expected(value, check, "true or false")?),
    };
    Ok(Written::exact(0, answer))
}

fn table_expectation(rounds: u32, value: &serde_yaml::Value) -> Result<Written<Contract>, String> {
    if rounds > 0 {
        let tally: TallySpec = serde_yaml::from_value(value.clone())
            .map_err(|e| format!("`expect` of a session: {e}"))?;
        return Ok(Written::exact(
            0,
            Answer::Tally(Tally {
                won: tally.won,
                tied: tally.tied,
                lost: tally.lost,
            }),
        ));
    }
    let round: RoundSpec =
        serde_yaml::from_value(value.clone()).map_err(|e| format!("`expect` of a round: {e}"))?;
    let outcome = round
        .outcome
        .as_deref()
        .map(str::parse::<Outcome>)
        .transpose()?;
    let text = format!("{round:?}");
    Ok(Written {
        index: 0,
        text,
        agrees: Box::new(move |answer| match answer {
            Answer::Round(got) => agrees(&round, outcome, got),
            _ => false,
        }),
    })
}

fn agrees(want: &RoundSpec, outcome: Option<Outcome>, got: &Round) -> bool {
    outcome.is_none_or(|o| o == got.outcome)
        && want.player.as_ref().is_none_or(|p| *p == got.player)
        && want.dealer.as_ref().is_none_or(|d| *d == got.dealer)
        && want.player_total.is_none_or(|t| t == got.player_total)
        && want.dealer_total.is_none_or(|t| t == got.dealer_total)
}

fn policy(player: Option<&PlayerSpec>) -> Result<Policy, String> {
    match player {
        None => {
            Err("needs `player:`, a script like [hit, stand] or a rule like `hit below 17`".into())
        }
        Some(PlayerSpec::Script(words)) => Ok(Policy::Script(
            words
                .iter()
                .map(|w| w.parse::<Action>())
                .collect::<Result<_, _>>()?,
        )),
        Some(PlayerSpec::Rule(rule)) => {
            let limit = rule
                .trim()
                .strip_prefix("hit below ")
                .and_then(|n| n.trim().parse().ok())
                .ok_or_else(|| format!("`{rule}` is not a player: write a script like [hit, stand] or `hit below 17`"))?;
            Ok(Policy::HitBelow(limit))
        }
    }
}
