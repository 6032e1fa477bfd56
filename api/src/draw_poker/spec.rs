//! Five-card draw specs: discards tried on a hand, whole hands played from a deck, the
//! dealer's discards on generated hands, and the hand the game ranks with, asked as poker
//! asks it. The game's rules are seed 004's, fixed.

use super::{Answer, Check, Contract, DRAW_RULES, Discard, DrawTable, Request};
use crate::card::Card;
use crate::poker;
use crate::poker::spec::{EveryFiveCardHand, Generate};
use crate::spec::schema::AnyValue;
use crate::spec::hands::{GenerateHands, cases_take_check, hand_source};
use crate::spec::{Grading, NoRules, Problem, Problems, Spec, SpecTest, Written, cards_expect, case_tests, only_fields, unused};

spec_group!(Group {
    /// The check of every case that ranks a hand and does not name its own.
    check: Option<Check>,
    /// The checks a bulk group asks: `[dealer_discards]`, or of the ranking hand
    /// `category` and `tiebreak`.
    checks: Option<Vec<Check>>,
    /// Discards, hands or plays listed one by one, each a test of its own.
    cases: Option<Vec<Case>>,
    /// Random hands or pairs of hands from a seed, compared in bulk.
    generate: Option<Generate>,
    /// Every hand of five cards, ranked in bulk.
    exhaustive: Option<EveryFiveCardHand>,
}, sources: [cases, generate, exhaustive]);

spec_case!(Case {
    /// The five cards a discard is tried on, or the hand ranked.
    hand: Option<Vec<Card>>,
    /// The positions discarded from `hand` (1 to 5).
    discard: Option<Vec<u32>>,
    /// The deck, top first.
    deck: Option<Vec<Card>>,
    seed: Option<u64>,
    /// The player's discards for each hand played from `deck`.
    discards: Option<Vec<Vec<u32>>>,
    /// The hand `hand` is compared with.
    versus: Option<Vec<Card>>,
    /// The question asked of the ranked hand.
    check: Option<Check>,
    /// The hand after the discard (or `refused`), what the check returns, or which hand
    /// wins; the reference must agree.
    #[schemars(with = "Option<AnyValue>")]
    expect: Option<serde_yaml::Value>,
});

impl Spec for Contract {
    type Rules = NoRules;
    type Group = Group;

    fn expect_text(answer: &Answer) -> Option<String> {
        match answer {
            Answer::Cards(cards) => Some(cards_expect(cards)),
            Answer::Refused => Some("refused".into()),
            Answer::Ranking(ranking) => <poker::Contract as Spec>::expect_text(ranking),
            _ => None,
        }
    }

    fn tests(_: &NoRules, group: Group) -> Result<Vec<SpecTest<Contract>>, Problems> {
        let name = &group.name;
        if let Some(cases) = group.cases {
            cases_take_check(name, group.checks.is_some())?;
            let group_check = group.check;
            return case_tests(name, cases, |case| case_test(case, group_check));
        }
        unused(
            name,
            &[("check", group.check.is_some())],
            "a bulk group; give `checks`",
        )?;
        let request = if group.checks.as_deref() == Some(&[Check::DealerDiscards]) {
            let generate = match group.generate {
                Some(g) if !g.pairs => Some(GenerateHands {
                    count: g.count,
                    seed: g.seed,
                    hand_size: g.hand_size,
                    min_hand_size: None,
                }),
                _ => {
                    return Err(Problem::group(
                        name,
                        "`dealer_discards` is asked of generated hands: give `generate: { count, seed }`",
                    )
                    .into());
                }
            };
            Request::DealerDiscards {
                source: hand_source::<5, 5>(name, generate, None)?,
            }
        } else {
            let checks = group
                .checks
                .map(|checks| ranking_checks(&checks))
                .transpose()
                .map_err(|message| Problem::group(name, message))?;
            Request::Ranking(poker::spec::bulk_request(
                name,
                checks,
                group.generate,
                group.exhaustive,
                DRAW_RULES,
            )?)
        };
        Ok(vec![SpecTest::whole(request, Grading::Bulk)])
    }
}

/// The poker checks of a bulk group of ranked hands; `dealer_discards` is its own group.
fn ranking_checks(checks: &[Check]) -> Result<Vec<poker::Check>, String> {
    checks
        .iter()
        .map(|check| {
            check.ranking().ok_or_else(|| {
                "`dealer_discards` is a group of its own: `checks: [dealer_discards]`".to_string()
            })
        })
        .collect()
}

fn case_test(
    case: Case,
    group_check: Option<Check>,
) -> Result<(Request, Vec<Written<Contract>>), String> {
    let given = [
        ("hand", case.hand.is_some()),
        ("discard", case.discard.is_some()),
        ("deck", case.deck.is_some()),
        ("seed", case.seed.is_some()),
        ("discards", case.discards.is_some()),
        ("versus", case.versus.is_some()),
        ("check", case.check.is_some()),
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
    if let Some(hand) = case.hand {
        only_fields(&given, &["hand", "versus", "check", "expect"])?;
        return ranking_case(
            case.name,
            hand,
            case.versus,
            case.check.or(group_check),
            case.expect,
        );
    }
    only_fields(&given, &["deck", "seed", "discards"])?;
    let player = case.discards.ok_or(
        "needs `discard:` (with `hand:`) to try a discard, `hand:` to rank a hand, or `discards:` to play hands from `deck:`",
    )?;
    if player.is_empty() {
        return Err("`discards:` lists no hands".into());
    }
    let table = DrawTable {
        deck: case.deck.unwrap_or_default(),
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

/// A hand ranked, or two compared, as a poker case under seed 004's rules.
fn ranking_case(
    name: String,
    hand: Vec<Card>,
    versus: Option<Vec<Card>>,
    check: Option<Check>,
    expect: Option<serde_yaml::Value>,
) -> Result<(Request, Vec<Written<Contract>>), String> {
    let check = match check {
        Some(check) => Some(
            check
                .ranking()
                .ok_or("`dealer_discards` is asked of generated hands, not of a case")?,
        ),
        None => None,
    };
    let case = poker::spec::Case {
        name,
        id: None,
        weight: None,
        hand,
        versus,
        check,
        expect,
    };
    let (request, written) = poker::spec::case_test(&case, None, DRAW_RULES)?;
    let written = written
        .into_iter()
        .map(|written| {
            let agrees = written.agrees;
            Written {
                index: written.index,
                text: written.text,
                agrees: Box::new(move |answer: &Answer| {
                    matches!(answer, Answer::Ranking(answer) if agrees(answer))
                }),
            }
        })
        .collect();
    Ok((Request::Ranking(request), written))
}

fn discard_expectation(value: &serde_yaml::Value) -> Result<Written<Contract>, String> {
    if value.as_str().is_some_and(|text| text.trim() == "refused") {
        return Ok(Written::exact(0, Answer::Refused));
    }
    let cards: Vec<Card> = serde_yaml::from_value(value.clone())
        .map_err(|e| format!("`expect` of a discard is the hand after it, or `refused`: {e}"))?;
    Ok(Written::exact(0, Answer::Cards(cards)))
}
