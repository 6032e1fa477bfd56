//! Crazy Eights specs: games and tournaments on the submission's engine, generated games,
//! and the submission's strategies played in the reference engine, a test this assignment
//! drives itself.

use std::cell::RefCell;
use std::rc::Rc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    Answer, Builders, Call, Contract, Harness, PLAYERS, PlayerStrategy, PlayerTurn, RandomGames,
    RemoteStrategy, Request, Response, Setup, StrategyTrial, init_players,
};
use crate::card::Card;
use crate::deck::Deck;
use crate::protocol::{Reply, decode_reply};
use crate::source::Source;
use crate::spec::{
    Driven, Field, Games, Generated, Grading, Label, NoRules, Problem, Problems, Ranged, Spec,
    SpecTest, Target, Transport, case_tests, dealt,
};
use crate::wire::Wire;

/// A short deck holds at least the deal (four hands of five) and a starter.
type DeckSize = Ranged<u8, 21, 52>;

spec_group!(Group {
    /// Games or tournaments listed one by one, each a test of its own.
    cases: Option<Vec<Case>>,
    /// Random games from a seed, compared in bulk.
    generate: Option<Generate>,
    /// The submission's strategies played in the reference engine.
    strategies: Option<StrategiesSpec>,
}, sources: [cases, generate, strategies]);

spec_case!(Case {
    /// The deck, top first; shuffled from `seed` when not given.
    #[schemars(length(max = Card::COUNT), extend("uniqueItems" = true))]
    deck: Option<Vec<Card>>,
    seed: Option<u64>,
    /// The four harness players, in seat order.
    #[schemars(length(min = PLAYERS, max = PLAYERS))]
    players: Vec<String>,
    /// Play a tournament to this many points instead of one game.
    target: Option<Target>,
});

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Generate {
    count: Generated,
    seed: u64,
    /// The harness players of every generated game.
    #[schemars(length(min = PLAYERS, max = PLAYERS))]
    players: Vec<String>,
    /// Play tournaments to this many points instead of single games.
    target: Option<Target>,
    /// Play each game on the first this many cards of its deck (21, the deal and a
    /// starter, up to 52).
    deck_size: Option<DeckSize>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StrategiesSpec {
    /// Games each strategy plays, its seat changing from game to game.
    games: Games,
    seed: u64,
    /// The three harness players in the other seats.
    #[schemars(length(min = PLAYERS - 1, max = PLAYERS - 1))]
    opponents: Vec<String>,
    /// Fail unless the submission registers at least this many strategies.
    #[serde(default)]
    require: u32,
}

impl Spec for Contract {
    type Rules = NoRules;
    type Group = Group;

    fn tests(_: &NoRules, group: Group) -> Result<Vec<SpecTest<Contract>>, Problems> {
        let name = &group.name;
        let whole_group = |request, grading| {
            Ok(vec![SpecTest {
                case: None,
                request,
                grading,
                written: Vec::new(),
            }])
        };
        if let Some(strategies) = group.strategies {
            let opponents = harness(&strategies.opponents, PLAYERS - 1, "opponents")
                .map_err(|m| Problem::group(name, m))?;
            let trial = |strategy| {
                Request::Strategies(StrategyTrial {
                    games: strategies.games.0,
                    seed: strategies.seed,
                    opponents: opponents.clone(),
                    require: strategies.require,
                    strategy,
                })
            };
            if strategies.require == 0 {
                return whole_group(trial(None), Grading::Driven);
            }
            // A test per required strategy: an illegal one costs only its own points.
            return Ok((0..strategies.require)
                .map(|index| SpecTest {
                    case: Some(Label::named(format!("strategy {}", index + 1))),
                    request: trial(Some(index)),
                    grading: Grading::Driven,
                    written: Vec::new(),
                })
                .collect());
        }
        if let Some(generate) = group.generate {
            let players = harness(&generate.players, PLAYERS, "players")
                .map_err(|m| Problem::group(name, m))?;
            return whole_group(
                Request::Engine {
                    source: Source::Generated(RandomGames {
                        count: generate.count.0,
                        seed: generate.seed,
                        players,
                        target: generate.target.map_or(0, |target| target.0),
                        deck_size: generate.deck_size.map_or(0, |size| size.0),
                    }),
                },
                Grading::Bulk,
            );
        }
        let cases = group.cases.unwrap_or_default();
        case_tests(name, cases, |case| {
            if let Some(deck) = &case.deck {
                dealt("a deck", deck, 0..=Card::COUNT)?;
            }
            let setup = Setup {
                players: harness(&case.players, PLAYERS, "players")?,
                deck: case.deck.unwrap_or_default(),
                seed: case.seed.unwrap_or(0),
                target: case.target.map_or(0, |target| target.0),
            };
            let request = Request::Engine {
                source: Source::Listed(vec![setup]),
            };
            Ok((request, Vec::new()))
        })
    }

    fn drive(
        reference: Option<&Builders>,
        request: &Request,
        transport: Rc<dyn Transport>,
    ) -> Driven {
        let (Request::Strategies(trial), Some(engine)) =
            (request, reference.and_then(|builders| builders.engine))
        else {
            return failed(vec![Field::problem(
                "problem",
                "the reference has no Crazy Eights engine to play your strategies in",
            )]);
        };
        play_strategies(trial, &*engine(), &transport)
    }
}

/// Harness players from the spec's words: `count` of them, named in `field`.
fn harness(words: &[String], count: usize, field: &str) -> Result<Vec<Harness>, String> {
    if words.len() != count {
        return Err(format!(
            "`{field}:` lists {} players; it takes {count}, such as `first legal`",
            words.len()
        ));
    }
    words.iter().map(|w| w.parse()).collect()
}

fn failed(fields: Vec<Field>) -> Driven {
    Driven {
        passed: false,
        fields,
        notes: Vec::new(),
    }
}

/// One request to the runner, its reply decoded.
fn ask(transport: &dyn Transport, request: Request) -> Result<Answer, String> {
    let mut payload = Vec::new();
    request
        .put(&mut payload)
        .map_err(|error| error.to_string())?;
    let frame = transport.ask(payload)?;
    match decode_reply::<Answer>(&frame) {
        Ok(Reply::Answer(answer)) => Ok(answer),
        Ok(Reply::Panicked(panic)) => Err(panic.to_string()),
        Ok(Reply::NotRegistered) => Err("not registered".into()),
        Err(error) => Err(format!("a reply the grader could not read ({error})")),
    }
}

/// Plays each of the submission's strategies in `engine`: each lives in the runner and
/// answers the engine's calls through `transport`, seat by seat, game after game.
fn play_strategies(
    trial: &StrategyTrial,
    engine: &dyn super::Engine,
    transport: &Rc<dyn Transport>,
) -> Driven {
    let strategies = match ask(&**transport, Request::Roster) {
        Ok(Answer::Names(names)) => names,
        Ok(other) => {
            return failed(vec![Field::problem(
                "problem",
                format!("the runner named no strategies: {other}"),
            )]);
        }
        Err(why) => return failed(vec![Field::problem("problem", why)]),
    };
    let playing: Vec<&String> = match trial.strategy {
        Some(index) => strategies.get(index as usize).into_iter().collect(),
        None => strategies.iter().collect(),
    };
    if strategies.len() < trial.require as usize && playing.is_empty() {
        return failed(vec![Field::problem(
            "problem",
            format!(
                "your submission registers {} strategies ({}); at least {} are required: add\n`.crazy_eights_player::<YourStrategy>(\"a name\")` to submission() for each",
                strategies.len(),
                strategies.join(", "),
                trial.require
            ),
        )]);
    }
    let mut notes = Vec::new();
    for name in playing {
        let mut wins = 0;
        for game in 0..trial.games {
            let seat = game as usize % PLAYERS;
            let failure = Rc::new(RefCell::new(None));
            let link = Rc::clone(transport);
            let call_runner = move |call: Call| -> Result<Response, String> {
                match ask(&*link, Request::StrategyCall { slot: 0, call })? {
                    Answer::Response(response) => Ok(response),
                    other => Err(other.to_string()),
                }
            };
            let mut remote = RemoteStrategy::new(call_runner, Rc::clone(&failure));
            let created = match remote.transport_call(Call::Create(name.clone())) {
                Ok(Response::Done) => Ok(()),
                Ok(other) => Err(other.to_string()),
                Err(why) => Err(why),
            };
            let mut opponents = trial.opponents.iter().map(|h| h.player());
            let mut players: Vec<Box<dyn PlayerStrategy>> = Vec::with_capacity(PLAYERS);
            let mut remote = Some(remote);
            for position in 0..PLAYERS {
                match (position == seat, remote.take()) {
                    (true, Some(remote)) => players.push(Box::new(remote)),
                    (_, unused) => {
                        remote = unused;
                        players.push(
                            opponents
                                .next()
                                .unwrap_or_else(|| Harness::FirstLegal.player()),
                        );
                    }
                }
            }
            let result = created.map(|()| {
                init_players(&mut players);
                let mut deck = Deck::shuffled(trial.seed.wrapping_add(u64::from(game)));
                engine.play_game(&mut players, &mut deck)
            });
            drop(players);
            let place = format!(
                "strategy `{name}`, game {} of {} (seat {seat})",
                game + 1,
                trial.games
            );
            let failed_call = failure.borrow().clone().or(result.as_ref().err().cloned());
            if let Some(why) = failed_call {
                let log = result.map(|r| r.log).unwrap_or_default();
                return failed(failure_fields(
                    place,
                    format!("its code failed: {why}"),
                    &log,
                ));
            }
            let Ok(result) = result else { continue };
            if let Some(cheat) = result.cheater.filter(|c| c.player_id as usize == seat) {
                return failed(failure_fields(
                    place,
                    format!("an illegal move: {cheat}"),
                    &result.log,
                ));
            }
            wins += u32::from(result.winner == Some(seat as u32));
        }
        let opponents: Vec<String> = trial.opponents.iter().map(|h| h.name()).collect();
        notes.push(format!(
            "strategy `{name}` won {wins} of {} games ({:.0}%) against {}",
            trial.games,
            100.0 * f64::from(wins) / f64::from(trial.games.max(1)),
            opponents.join(", ")
        ));
    }
    Driven {
        passed: true,
        fields: Vec::new(),
        notes,
    }
}

fn failure_fields(place: String, problem: String, log: &[PlayerTurn]) -> Vec<Field> {
    let mut fields = vec![
        Field::plain("game", place),
        Field::problem("problem", problem),
    ];
    let shown: Vec<String> = log
        .iter()
        .enumerate()
        .map(|(i, turn)| format!("{:>3}. {turn}", i + 1))
        .collect();
    if !shown.is_empty() {
        fields.push(Field::plain("turns", shown.join("\n")));
    }
    fields
}
