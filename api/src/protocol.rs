//! What crosses the pipe between the grader and the runner, and the one dispatch that
//! answers a request whether the registry is the reference's or the student's.

use std::fmt;
use std::io::{self, Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};

use std::cmp::Ordering;

use crate::blackjack::{self, Round, Rules, Table, TableSource, Tally};
use crate::card::{Card, format_cards};
use crate::crazy8::{
    self, Call, GameResult, PlayerStrategy, Reply, Setup, SetupSource, StrategyTrial,
    TournamentResult,
};
use crate::deck::HandSource;
use crate::draw::{self, Discard, DrawResult, DrawTable};
use crate::plaisante::{self, HandName};
use crate::poker::{self, Category, Matchup, MatchupSource, PokerRules};
use crate::submission::{Assignment, Submission};
use crate::tableau::{self, Script, ScriptSource, State};
use crate::wire::{Wire, put_varint, take_tag};

/// Bumped whenever the byte format changes; the grader refuses a runner that differs.
pub const PROTOCOL_VERSION: u64 = 7;

/// The version of this crate, reported by the runner so the grader can name a mismatch.
pub const API_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Set by the grader for the runner it starts: the runner's stdin is its end of a socket
/// pair, inherited rather than found by a path any process could connect to.
pub const CHANNEL_ENV: &str = "CARDGRADE_CHANNEL";

/// The environment variable that names the submission's folder, so panic locations can
/// be shown relative to it (`src/lib.rs:12:9`).
pub const SOURCE_ROOT_ENV: &str = "CARDGRADE_SOURCE_ROOT";

/// Written by the runner to its stdout and stderr after each request, so the grader can
/// tell which request the student's printing belongs to.
pub fn output_marker(sequence: u64) -> Vec<u8> {
    format!("{}{sequence:016x}]\n", OUTPUT_MARKER_PREFIX).into_bytes()
}

pub const OUTPUT_MARKER_PREFIX: &str = "\n\u{1b}[cardgrade-end:";
/// Bytes of a whole marker: the prefix, 16 hex digits, `]` and a newline.
pub const OUTPUT_MARKER_LEN: usize = OUTPUT_MARKER_PREFIX.len() + 18;

/// The first thing a runner says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    pub protocol: u64,
    pub api_version: String,
    pub assignments: Vec<Assignment>,
    /// The names of the submission's Crazy Eights strategies.
    pub strategies: Vec<String>,
}

/// A question for a submission: a list of inputs, each answered by one or more answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Every check on every hand; answers hand by hand, check by check.
    PlaisanteHands {
        source: HandSource,
        checks: Vec<plaisante::Check>,
    },
    /// Each script on a fresh tableau; the state after each of its steps.
    Tableau { source: ScriptSource },
    /// Every check on every hand built by adding its cards in order.
    BlackjackHands {
        source: HandSource,
        checks: Vec<blackjack::Check>,
    },
    /// A round (or a session of rounds) at each table.
    BlackjackTables { source: TableSource, rules: Rules },
    /// Every check on every poker hand.
    PokerHands {
        source: HandSource,
        checks: Vec<poker::Check>,
        rules: PokerRules,
    },
    /// Each pair of hands compared both ways, and the first with itself reordered.
    PokerMatchups {
        source: MatchupSource,
        rules: PokerRules,
    },
    /// Each discard tried: the hand after it, or a refusal.
    DrawDiscards { discards: Vec<Discard> },
    /// The dealer's choice on every hand, checked against the seed's limits.
    DealerDiscards { source: HandSource },
    /// Whole hands of five-card draw.
    DrawTables { tables: Vec<DrawTable> },
    /// Crazy Eights games or tournaments on the submission's engine with harness players.
    Crazy8Engine { source: SetupSource },
    /// One call on the submission's strategy instance in `slot` (the runner keeps them).
    StrategyCall { slot: u32, call: Call },
    /// The submission's strategies in the reference engine: driven by the grader, which
    /// sends `StrategyCall`s; never sent itself.
    Crazy8Strategies(StrategyTrial),
}

/// One input of a request, as the grader shows it next to a wrong answer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Input {
    Hand(Vec<Card>),
    Script(Script),
    Table(Table),
    Matchup(Matchup),
    Discard(Discard),
    DrawTable(DrawTable),
    Setup(Setup),
}

impl Request {
    pub fn assignment(&self) -> Assignment {
        match self {
            Request::PlaisanteHands { .. } => Assignment::PlaisanteHand,
            Request::Tableau { .. } => Assignment::Tableau,
            Request::BlackjackHands { .. } | Request::BlackjackTables { .. } => {
                Assignment::Blackjack
            }
            Request::PokerHands { .. } | Request::PokerMatchups { .. } => Assignment::Poker,
            Request::DrawDiscards { .. }
            | Request::DealerDiscards { .. }
            | Request::DrawTables { .. } => Assignment::DrawPoker,
            Request::Crazy8Engine { .. }
            | Request::StrategyCall { .. }
            | Request::Crazy8Strategies(_) => Assignment::CrazyEights,
        }
    }

    /// For a request whose answers depend on the submission's own choices (the dealer's
    /// discards), the same request with those choices fixed, for the reference to answer.
    pub fn pinned(&self, answers: &[Answer]) -> Option<Request> {
        match self {
            Request::DrawTables { tables } if tables.len() == 1 => Some(Request::DrawTables {
                tables: vec![tables[0].pinned(answers)?],
            }),
            _ => None,
        }
    }

    /// How many inputs the request holds.
    pub fn input_count(&self) -> u64 {
        match self {
            Request::PlaisanteHands { source, .. } | Request::BlackjackHands { source, .. } => {
                source.len()
            }
            Request::Tableau { source } => source.len(),
            Request::BlackjackTables { source, .. } => source.len(),
            Request::PokerHands { source, .. } | Request::DealerDiscards { source } => source.len(),
            Request::PokerMatchups { source, .. } => source.len(),
            Request::DrawDiscards { discards } => discards.len() as u64,
            Request::DrawTables { tables } => tables.len() as u64,
            Request::Crazy8Engine { source } => source.len(),
            Request::StrategyCall { .. } => 1,
            Request::Crazy8Strategies(trial) => u64::from(trial.games),
        }
    }

    /// What answer `index` of an input is the answer to, such as `has_pair()`.
    pub fn question(&self, index: usize) -> String {
        match self {
            Request::PlaisanteHands { checks, .. } => checks
                .get(index)
                .map(|c| format!("{c}()"))
                .unwrap_or_default(),
            Request::BlackjackHands { checks, .. } => checks
                .get(index)
                .map(|c| format!("{c}()"))
                .unwrap_or_default(),
            Request::Tableau { .. } => format!("the state after step {}", index + 1),
            Request::BlackjackTables {
                source: TableSource::Listed(tables),
                ..
            } if tables.first().is_some_and(|t| t.rounds > 0) => "the tally of the rounds".into(),
            Request::BlackjackTables { .. } => "the round".into(),
            Request::PokerHands { checks, .. } => checks
                .get(index)
                .map(|c| format!("{c}()"))
                .unwrap_or_default(),
            Request::PokerMatchups { .. } => Matchup::QUESTIONS
                .get(index)
                .copied()
                .unwrap_or_default()
                .into(),
            Request::DrawDiscards { .. } => "discard_and_draw(hand, positions, deck)".into(),
            Request::DealerDiscards { .. } => {
                "dealer_discards(hand): at most 3 positions, each 1 to 5".into()
            }
            Request::DrawTables { tables } => tables
                .first()
                .map(|t| t.question(index))
                .unwrap_or_default(),
            Request::Crazy8Engine {
                source: SetupSource::Listed(setups),
            } if setups.first().is_some_and(|s| s.target > 0) => "the tournament".into(),
            Request::Crazy8Engine { .. } => "the game".into(),
            Request::StrategyCall { call, .. } => format!("{call:?}"),
            Request::Crazy8Strategies(_) => "every move of your strategies".into(),
        }
    }

    /// Where the inputs come from and what is asked of them, for a bulk group's report.
    pub fn describe_inputs(&self) -> String {
        let hands = |source: &HandSource, what: &str| match source {
            HandSource::Listed(hands) => format!("{} hands", hands.len()),
            HandSource::Generated {
                count,
                seed,
                hand_size,
            } if what == "plaisante" => {
                format!(
                    "{} {hand_size}-card hands generated from seed {seed}",
                    group_digits(u64::from(*count))
                )
            }
            HandSource::Generated { count, seed, .. } => {
                format!(
                    "{} random hands of 1 to 12 cards from seed {seed}",
                    group_digits(u64::from(*count))
                )
            }
            HandSource::Exhaustive { hand_size } => format!("every {hand_size}-card hand"),
        };
        let names = |names: Vec<&str>| names.join(", ");
        match self {
            Request::PlaisanteHands { source, checks } => format!(
                "{}\nchecks: {}",
                hands(source, "plaisante"),
                names(checks.iter().map(|c| c.name()).collect())
            ),
            Request::BlackjackHands { source, checks } => format!(
                "{}\nchecks: {}",
                hands(source, "blackjack"),
                names(checks.iter().map(|c| c.name()).collect())
            ),
            Request::Tableau { source } => match source {
                ScriptSource::Listed(scripts) => format!("{} scripts", scripts.len()),
                ScriptSource::Generated { count, seed } => {
                    format!(
                        "{} random step sequences from seed {seed}, each state compared",
                        group_digits(u64::from(*count))
                    )
                }
            },
            Request::PokerHands {
                source,
                checks,
                rules,
            } => format!(
                "{} ({})\nchecks: {}",
                hands(source, "plaisante"),
                describe_rules(rules),
                names(checks.iter().map(|c| c.name()).collect())
            ),
            Request::PokerMatchups { source, rules } => match source {
                MatchupSource::Listed(list) => {
                    format!("{} pairs of hands ({})", list.len(), describe_rules(rules))
                }
                MatchupSource::Generated { count, seed } => format!(
                    "{} pairs of hands from seed {seed}, compared both ways and each with itself ({})",
                    group_digits(u64::from(*count)),
                    describe_rules(rules)
                ),
            },
            Request::DealerDiscards { source } => {
                format!("dealer_discards on {}", hands(source, "plaisante"))
            }
            Request::DrawDiscards { discards } => format!("{} discards", discards.len()),
            Request::DrawTables { tables } => format!("{} tables", tables.len()),
            Request::StrategyCall { slot, call } => format!("{call:?} on strategy {slot}"),
            Request::Crazy8Strategies(trial) => {
                let names: Vec<String> = trial.opponents.iter().map(|p| p.name()).collect();
                format!(
                    "{} games from seed {} for each of your strategies, against {}",
                    trial.games,
                    trial.seed,
                    names.join(", ")
                )
            }
            Request::Crazy8Engine { source } => match source {
                SetupSource::Listed(setups) => format!("{} games", setups.len()),
                SetupSource::Generated {
                    count,
                    seed,
                    players,
                } => {
                    let names: Vec<String> = players.iter().map(|p| p.name()).collect();
                    format!(
                        "{} games on decks shuffled from seed {seed}, players: {}",
                        group_digits(u64::from(*count)),
                        names.join(", ")
                    )
                }
            },
            Request::BlackjackTables { source, rules } => {
                let h17 = if rules.dealer_hits_soft_17 {
                    "H17"
                } else {
                    "S17"
                };
                match source {
                    TableSource::Listed(tables) => format!("{} tables ({h17})", tables.len()),
                    TableSource::Generated {
                        count,
                        seed,
                        policy,
                    } => format!(
                        "{} rounds on decks shuffled from seed {seed}, player: {policy} ({h17})",
                        group_digits(u64::from(*count))
                    ),
                }
            }
        }
    }

    /// A short name for the question of answer `index`, for a breakdown by kind.
    pub fn question_kind(&self, index: usize) -> String {
        match self {
            Request::Tableau { .. } => "state".into(),
            _ => self.question(index),
        }
    }

    pub fn write(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        match self {
            Request::PlaisanteHands { source, checks } => {
                put_varint(out, 0)?;
                source.put(out)?;
                checks.put(out)
            }
            Request::Tableau { source } => {
                put_varint(out, 1)?;
                source.put(out)
            }
            Request::BlackjackHands { source, checks } => {
                put_varint(out, 2)?;
                source.put(out)?;
                checks.put(out)
            }
            Request::BlackjackTables { source, rules } => {
                put_varint(out, 3)?;
                source.put(out)?;
                rules.put(out)
            }
            Request::PokerHands {
                source,
                checks,
                rules,
            } => {
                put_varint(out, 4)?;
                source.put(out)?;
                checks.put(out)?;
                rules.put(out)
            }
            Request::PokerMatchups { source, rules } => {
                put_varint(out, 5)?;
                source.put(out)?;
                rules.put(out)
            }
            Request::DrawDiscards { discards } => {
                put_varint(out, 6)?;
                discards.put(out)
            }
            Request::DealerDiscards { source } => {
                put_varint(out, 7)?;
                source.put(out)
            }
            Request::DrawTables { tables } => {
                put_varint(out, 8)?;
                tables.put(out)
            }
            Request::Crazy8Engine { source } => {
                put_varint(out, 9)?;
                source.put(out)
            }
            Request::StrategyCall { slot, call } => {
                put_varint(out, 10)?;
                slot.put(out)?;
                call.put(out)
            }
            Request::Crazy8Strategies(trial) => {
                put_varint(out, 11)?;
                trial.put(out)
            }
        }
    }

    /// The next request, or `None` when the grader closed the connection.
    pub fn read(input: &mut (impl Read + ?Sized)) -> io::Result<Option<Request>> {
        let tag = match take_tag(input, 12) {
            Ok(tag) => tag,
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        };
        Ok(Some(match tag {
            0 => Request::PlaisanteHands {
                source: Wire::take(input)?,
                checks: Wire::take(input)?,
            },
            1 => Request::Tableau {
                source: Wire::take(input)?,
            },
            2 => Request::BlackjackHands {
                source: Wire::take(input)?,
                checks: Wire::take(input)?,
            },
            3 => Request::BlackjackTables {
                source: Wire::take(input)?,
                rules: Wire::take(input)?,
            },
            4 => Request::PokerHands {
                source: Wire::take(input)?,
                checks: Wire::take(input)?,
                rules: Wire::take(input)?,
            },
            5 => Request::PokerMatchups {
                source: Wire::take(input)?,
                rules: Wire::take(input)?,
            },
            6 => Request::DrawDiscards {
                discards: Wire::take(input)?,
            },
            7 => Request::DealerDiscards {
                source: Wire::take(input)?,
            },
            8 => Request::DrawTables {
                tables: Wire::take(input)?,
            },
            9 => Request::Crazy8Engine {
                source: Wire::take(input)?,
            },
            10 => Request::StrategyCall {
                slot: Wire::take(input)?,
                call: Wire::take(input)?,
            },
            _ => Request::Crazy8Strategies(Wire::take(input)?),
        }))
    }
}

fn describe_rules(rules: &PokerRules) -> String {
    let ties = match rules.ties {
        poker::Ties::Standard => "standard ties",
        poker::Ties::Draw1572 => "draw_1572 ties",
    };
    let wheel = if rules.ace_low_straight {
        "A-2-3-4-5 a straight"
    } else {
        "no ace-low straight"
    };
    format!("{ties}, {wheel}")
}

/// 2598960 as 2,598,960.
pub fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl Input {
    /// What the input is, as a report's field name.
    pub fn label(&self) -> &'static str {
        match self {
            Input::Hand(_) => "hand",
            Input::Script(_) => "steps",
            Input::Table(_) | Input::DrawTable(_) => "table",
            Input::Matchup(_) => "hands",
            Input::Discard(_) => "discard",
            Input::Setup(_) => "game",
        }
    }

    /// The input as a student reads it; for a script, its steps through `through`.
    pub fn describe(&self, through: usize) -> String {
        match self {
            Input::Hand(cards) if cards.is_empty() => "(no cards)".into(),
            Input::Hand(cards) => format!("{}   ({} cards)", format_cards(cards), cards.len()),
            Input::Script(script) => script.describe_through(through),
            Input::Table(table) => table.describe(),
            Input::Matchup(matchup) => matchup.describe(),
            Input::Discard(discard) => discard.describe(),
            Input::DrawTable(table) => table.describe(),
            Input::Setup(setup) => setup.describe(),
        }
    }
}

/// What a submission's method returned, or why it returned nothing.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Answer {
    Bool(bool),
    Hand(HandName),
    Number(i64),
    Cells(Vec<i64>),
    Tableau(State),
    Round(Round),
    Tally(Tally),
    Category(Category),
    Ordering(Ordering),
    Cards(Vec<Card>),
    /// `discard_and_draw` returned an error.
    Refused,
    /// Whether a rule held (`None`) or how it was broken.
    Rule(Option<String>),
    /// The dealer's discards, and how they break the rules if they do.
    Choice {
        positions: Vec<u32>,
        problem: Option<String>,
    },
    Draw(DrawResult),
    Game(GameResult),
    Tournament(TournamentResult),
    Move(Reply),
    Panicked(Panic),
    NotRegistered(Assignment),
}

/// A panic caught inside the submission's code.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Panic {
    pub message: String,
    /// `file:line:column`, when the runner's panic hook saw it.
    pub location: Option<String>,
}

impl Panic {
    /// `todo!()` and `unimplemented!()`: the student has not written this yet.
    pub fn is_not_yet_implemented(&self) -> bool {
        self.message.starts_with("not yet implemented")
            || self.message.starts_with("not implemented")
    }
}

impl fmt::Display for Panic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = self
            .location
            .as_deref()
            .map(|at| format!(" at {at}"))
            .unwrap_or_default();
        if self.is_not_yet_implemented() {
            write!(f, "not yet implemented (todo!(){place})")
        } else {
            write!(f, "panicked{place}: {}", self.message)
        }
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Bool(value) => write!(f, "{value}"),
            Answer::Hand(name) => write!(f, "{name}"),
            Answer::Number(value) => write!(f, "{value}"),
            Answer::Cells(cells) => {
                let cells: Vec<String> = cells.iter().map(i64::to_string).collect();
                write!(f, "[{}]", cells.join(", "))
            }
            Answer::Tableau(state) => write!(f, "{state}"),
            Answer::Round(round) => write!(f, "{round}"),
            Answer::Tally(tally) => write!(f, "{tally}"),
            Answer::Category(category) => write!(f, "{category}"),
            Answer::Ordering(ordering) => write!(f, "{ordering:?}"),
            Answer::Cards(cards) => write!(f, "{}", format_cards(cards)),
            Answer::Refused => write!(f, "an error (refused)"),
            Answer::Rule(None) => write!(f, "within the rules"),
            Answer::Rule(Some(problem)) => write!(f, "against the rules: {problem}"),
            Answer::Choice {
                positions,
                problem: None,
            } => write!(f, "discard {positions:?}"),
            Answer::Choice {
                positions,
                problem: Some(problem),
            } => write!(f, "discard {positions:?}, against the rules: {problem}"),
            Answer::Draw(result) => write!(f, "{result}"),
            Answer::Game(result) => write!(f, "{result}"),
            Answer::Tournament(result) => write!(f, "{result}"),
            Answer::Move(reply) => write!(f, "{reply}"),
            Answer::Panicked(panic) => write!(f, "{panic}"),
            Answer::NotRegistered(assignment) => write!(
                f,
                "not registered: submission() does not list {}",
                assignment.name()
            ),
        }
    }
}

/// Answers `request` with `submission`, calling `emit` with each answer in order; stops
/// early when `emit` returns `false`. Panics in the submission's code become answers.
pub fn respond(submission: &Submission, request: &Request, mut emit: impl FnMut(Answer) -> bool) {
    respond_by_input(submission, request, |_, answers| {
        answers.into_iter().all(&mut emit)
    });
}

/// Answers `request`, calling `on_input` with each input and its answers; stops early
/// when `on_input` returns `false`.
pub fn respond_by_input(
    submission: &Submission,
    request: &Request,
    mut on_input: impl FnMut(Input, Vec<Answer>) -> bool,
) {
    let refusal = Answer::NotRegistered(request.assignment());
    match request {
        Request::PlaisanteHands { source, checks } => {
            let build = submission.plaisante_hand_builder();
            source.for_each_hand(|cards| {
                let hand = build.map(|build| guarded(|| build(cards.clone())));
                let answers =
                    each_check(hand, &refusal, checks.len(), |hand, i| checks[i].ask(hand));
                on_input(Input::Hand(cards), answers)
            });
        }
        Request::BlackjackHands { source, checks } => {
            let build = submission.blackjack_hand_builder();
            let mut visit = |cards: Vec<Card>| {
                let hand = build.map(|build| guarded(|| blackjack::hand_of(build, &cards)));
                let answers =
                    each_check(hand, &refusal, checks.len(), |hand, i| checks[i].ask(hand));
                on_input(Input::Hand(cards), answers)
            };
            match source {
                HandSource::Generated { count, seed, .. } => {
                    blackjack::random_hands(*count, *seed, visit)
                }
                _ => source.for_each_hand(&mut visit),
            }
        }
        Request::Tableau { source } => {
            let build = submission.tableau_builder();
            source.for_each_script(|script| {
                let mut answers = Vec::with_capacity(script.steps.len());
                match build {
                    None => answers.resize(script.steps.len(), refusal.clone()),
                    Some(build) => {
                        let played = guarded(|| {
                            let mut tableau = build();
                            tableau::play_script(&mut *tableau, &script, |state| {
                                answers.push(state);
                                true
                            });
                        });
                        if let Err(panic) = played {
                            answers.resize(script.steps.len(), Answer::Panicked(panic));
                        }
                    }
                }
                on_input(Input::Script(script), answers)
            });
        }
        Request::BlackjackTables { source, rules } => {
            let build = submission.blackjack_game_builder();
            source.for_each_table(|table| {
                let answer = match build {
                    None => refusal.clone(),
                    Some(build) => ask(|| table.play(&*build(), rules)),
                };
                on_input(Input::Table(table), vec![answer])
            });
        }
        Request::PokerHands {
            source,
            checks,
            rules,
        } => {
            let build = submission.poker_hand_builder();
            source.for_each_hand(|cards| {
                let hand = build.map(|build| guarded(|| build(cards.clone(), *rules)));
                let answers =
                    each_check(hand, &refusal, checks.len(), |hand, i| checks[i].ask(hand));
                on_input(Input::Hand(cards), answers)
            });
        }
        Request::PokerMatchups { source, rules } => {
            let build = submission.poker_hand_builder();
            let questions = Matchup::QUESTIONS.len();
            source.for_each_matchup(|matchup| {
                let answers = match build {
                    None => vec![refusal.clone(); questions],
                    Some(build) => match guarded(|| matchup.answers(&|cards| build(cards, *rules)))
                    {
                        Ok(answers) => answers,
                        Err(panic) => vec![Answer::Panicked(panic); questions],
                    },
                };
                on_input(Input::Matchup(matchup), answers)
            });
        }
        Request::DrawDiscards { discards } => {
            let build = submission.draw_builders();
            for discard in discards {
                let answer = match build {
                    None => refusal.clone(),
                    Some((game, _)) => ask(|| discard.answer(&*game())),
                };
                if !on_input(Input::Discard(discard.clone()), vec![answer]) {
                    return;
                }
            }
        }
        Request::DealerDiscards { source } => {
            let build = submission.draw_builders();
            source.for_each_hand(|cards| {
                let answer = match build {
                    None => refusal.clone(),
                    Some((game, _)) => ask(|| {
                        let positions = game().dealer_discards(&cards);
                        Answer::Rule(
                            draw::check_positions(&positions)
                                .err()
                                .map(|e| e.to_string()),
                        )
                    }),
                };
                on_input(Input::Hand(cards), vec![answer])
            });
        }
        Request::DrawTables { tables } => {
            let build = submission.draw_builders();
            for table in tables {
                let expected_len = table.player.len() + 1;
                let answers = match build {
                    None => vec![refusal.clone(); expected_len],
                    Some((game, hand)) => {
                        let played = guarded(|| {
                            table.play(&*game(), &|cards| hand(cards, draw::DRAW_RULES))
                        });
                        played.unwrap_or_else(|panic| vec![Answer::Panicked(panic); expected_len])
                    }
                };
                if !on_input(Input::DrawTable(table.clone()), answers) {
                    return;
                }
            }
        }
        // Answered by the runner's `Strategies`, which keeps the instances between calls.
        Request::StrategyCall { .. } | Request::Crazy8Strategies(_) => {}
        Request::Crazy8Engine { source } => {
            let build = submission.crazy8_engine_builder();
            source.for_each_setup(|setup| {
                let answer = match build {
                    None => refusal.clone(),
                    Some(build) => ask(|| crazy8::play(&setup, &*build())),
                };
                on_input(Input::Setup(setup), vec![answer])
            });
        }
    }
}

/// What `submission` (the reference, in the grader) makes of `input`, beyond its answers,
/// where an `expected` and an `actual` answer part: for two poker hands, both categories
/// and value vectors and the element that decides; for a Crazy Eights game, the table
/// before the first turn that differs.
pub fn explain(
    submission: &Submission,
    request: &Request,
    input: &Input,
    expected: &Answer,
    actual: Option<&Answer>,
) -> Option<String> {
    match (request, input, expected, actual) {
        (Request::PokerMatchups { rules, .. }, Input::Matchup(matchup), _, _) => {
            let build = submission.poker_hand_builder()?;
            guarded(|| poker::explain(matchup, &|cards| build(cards, *rules))).ok()
        }
        (
            Request::Crazy8Engine { .. },
            Input::Setup(setup),
            Answer::Game(want),
            Some(Answer::Game(got)),
        ) => {
            let engine = submission.crazy8_engine_builder()?();
            let turn = crazy8::first_difference(&want.log, &got.log);
            let states = guarded(|| crazy8::states_before_turns(setup, &*engine)).ok()?;
            states
                .get(turn)
                .map(|state| format!("before turn {}: {state}", turn + 1))
        }
        _ => None,
    }
}

/// `count` answers from a submission's object: each asked under a guard, or all the same
/// when the assignment is not registered (`None`) or building the object panicked.
fn each_check<T: ?Sized>(
    built: Option<Result<Box<T>, Panic>>,
    refusal: &Answer,
    count: usize,
    question: impl Fn(&T, usize) -> Answer,
) -> Vec<Answer> {
    match built {
        None => vec![refusal.clone(); count],
        Some(Err(panic)) => vec![Answer::Panicked(panic); count],
        Some(Ok(object)) => (0..count).map(|i| ask(|| question(&*object, i))).collect(),
    }
}

/// The submission's strategy instances, kept by the runner from call to call.
#[derive(Default)]
pub struct Strategies {
    slots: std::collections::HashMap<u32, Box<dyn PlayerStrategy>>,
}

impl Strategies {
    /// Makes `call` on the instance in `slot` (or creates it), guarded like every call.
    pub fn answer(&mut self, submission: &Submission, slot: u32, call: &Call) -> Answer {
        if let Call::Create(name) = call {
            return match guarded(|| submission.build_strategy(name)) {
                Ok(Some(strategy)) => {
                    self.slots.insert(slot, strategy);
                    Answer::Move(Reply::Done)
                }
                Ok(None) => Answer::Move(Reply::Unknown(format!(
                    "no strategy is registered as `{name}`"
                ))),
                Err(panic) => Answer::Panicked(panic),
            };
        }
        match self.slots.get_mut(&slot) {
            None => Answer::Move(Reply::Unknown(format!("no strategy in slot {slot}"))),
            Some(strategy) => guarded(|| crazy8::perform(&mut **strategy, call))
                .map(Answer::Move)
                .unwrap_or_else(Answer::Panicked),
        }
    }
}

/// What a reader needs beside expected and actual to see where two long answers part:
/// for Crazy Eights games, both turn logs side by side from the first turn that differs.
pub fn compare_detail(expected: &Answer, actual: &Answer) -> Option<String> {
    match (expected, actual) {
        (Answer::Game(want), Answer::Game(got)) if want.log != got.log => {
            Some(crazy8::logs_side_by_side(&want.log, &got.log))
        }
        _ => None,
    }
}

fn ask(call: impl FnOnce() -> Answer) -> Answer {
    guarded(call).unwrap_or_else(Answer::Panicked)
}

fn guarded<T>(call: impl FnOnce() -> T) -> Result<T, Panic> {
    catch_unwind(AssertUnwindSafe(call)).map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic with a non-text payload".to_string());
        Panic {
            message,
            location: crate::runner::take_panic_location(),
        }
    })
}

crate::wire_struct!(Panic { message, location });
crate::wire_struct!(Hello {
    protocol,
    api_version,
    assignments,
    strategies
});

impl Hello {
    pub fn write(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        self.put(out)
    }

    pub fn read(input: &mut (impl Read + ?Sized)) -> io::Result<Hello> {
        let protocol = u64::take(input)?;
        if protocol != PROTOCOL_VERSION {
            // Nothing after the version can be trusted to have our shape.
            return Ok(Hello {
                protocol,
                api_version: String::new(),
                assignments: Vec::new(),
                strategies: Vec::new(),
            });
        }
        Ok(Hello {
            protocol,
            api_version: Wire::take(input)?,
            assignments: Wire::take(input)?,
            strategies: Wire::take(input)?,
        })
    }
}

/// One item of a response stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    Answer(Answer),
    /// The end of the response to request number `0`, counting from 0.
    End(u64),
}

impl Item {
    pub fn write(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        let answer = match self {
            Item::End(sequence) => {
                put_varint(out, 0)?;
                return sequence.put(out);
            }
            Item::Answer(answer) => answer,
        };
        match answer {
            Answer::Bool(false) => put_varint(out, 1),
            Answer::Bool(true) => put_varint(out, 2),
            Answer::Hand(name) => {
                put_varint(out, 3)?;
                name.put(out)
            }
            Answer::Number(value) => {
                put_varint(out, 4)?;
                value.put(out)
            }
            Answer::Cells(cells) => {
                put_varint(out, 5)?;
                cells.put(out)
            }
            Answer::Panicked(panic) => {
                put_varint(out, 6)?;
                panic.put(out)
            }
            Answer::NotRegistered(assignment) => {
                put_varint(out, 7)?;
                assignment.put(out)
            }
            Answer::Tableau(state) => {
                put_varint(out, 8)?;
                state.put(out)
            }
            Answer::Round(round) => {
                put_varint(out, 9)?;
                round.put(out)
            }
            Answer::Tally(tally) => {
                put_varint(out, 10)?;
                tally.put(out)
            }
            Answer::Category(category) => {
                put_varint(out, 11)?;
                category.put(out)
            }
            Answer::Ordering(ordering) => {
                put_varint(out, 12)?;
                ordering.put(out)
            }
            Answer::Cards(cards) => {
                put_varint(out, 13)?;
                cards.put(out)
            }
            Answer::Refused => put_varint(out, 14),
            Answer::Rule(problem) => {
                put_varint(out, 15)?;
                problem.put(out)
            }
            Answer::Choice { positions, problem } => {
                put_varint(out, 16)?;
                positions.put(out)?;
                problem.put(out)
            }
            Answer::Draw(result) => {
                put_varint(out, 17)?;
                result.put(out)
            }
            Answer::Game(result) => {
                put_varint(out, 18)?;
                result.put(out)
            }
            Answer::Tournament(result) => {
                put_varint(out, 19)?;
                result.put(out)
            }
            Answer::Move(reply) => {
                put_varint(out, 20)?;
                reply.put(out)
            }
        }
    }

    pub fn read(input: &mut (impl Read + ?Sized)) -> io::Result<Item> {
        let answer = match take_tag(input, 21)? {
            0 => return Ok(Item::End(Wire::take(input)?)),
            1 => Answer::Bool(false),
            2 => Answer::Bool(true),
            3 => Answer::Hand(Wire::take(input)?),
            4 => Answer::Number(Wire::take(input)?),
            5 => Answer::Cells(Wire::take(input)?),
            6 => Answer::Panicked(Wire::take(input)?),
            7 => Answer::NotRegistered(Wire::take(input)?),
            8 => Answer::Tableau(Wire::take(input)?),
            9 => Answer::Round(Wire::take(input)?),
            10 => Answer::Tally(Wire::take(input)?),
            11 => Answer::Category(Wire::take(input)?),
            12 => Answer::Ordering(Wire::take(input)?),
            13 => Answer::Cards(Wire::take(input)?),
            14 => Answer::Refused,
            15 => Answer::Rule(Wire::take(input)?),
            16 => Answer::Choice {
                positions: Wire::take(input)?,
                problem: Wire::take(input)?,
            },
            17 => Answer::Draw(Wire::take(input)?),
            18 => Answer::Game(Wire::take(input)?),
            19 => Answer::Tournament(Wire::take(input)?),
            _ => Answer::Move(Wire::take(input)?),
        };
        Ok(Item::Answer(answer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blackjack::Policy;

    fn round_trip_item(item: Item) {
        let mut bytes = Vec::new();
        item.write(&mut bytes).unwrap();
        assert_eq!(Item::read(&mut bytes.as_slice()).unwrap(), item);
    }

    #[test]
    fn every_answer_survives_the_pipe() {
        let king: Card = "KH".parse().unwrap();
        for item in [
            Item::End(7),
            Item::Answer(Answer::Bool(true)),
            Item::Answer(Answer::Bool(false)),
            Item::Answer(Answer::Hand(HandName::FullHouse)),
            Item::Answer(Answer::Number(-7_000_000_000)),
            Item::Answer(Answer::Cells(vec![0, 1, 2, -3, i64::MAX, i64::MIN])),
            Item::Answer(Answer::Panicked(Panic {
                message: "boom ♥".into(),
                location: Some("src/lib.rs:3:5".into()),
            })),
            Item::Answer(Answer::NotRegistered(Assignment::Blackjack)),
            Item::Answer(Answer::Tableau(State {
                held: vec![king],
                selected: vec![king],
                play_area: vec![],
            })),
            Item::Answer(Answer::Tally(Tally {
                won: 1,
                tied: 0,
                lost: 9,
            })),
        ] {
            round_trip_item(item);
        }
    }

    #[test]
    fn every_request_survives_the_pipe() {
        let king: Card = "KH".parse().unwrap();
        let requests = [
            Request::PlaisanteHands {
                source: HandSource::Exhaustive { hand_size: 5 },
                checks: plaisante::Check::ALL.to_vec(),
            },
            Request::PlaisanteHands {
                source: HandSource::Listed(vec![vec![king], vec![]]),
                checks: vec![plaisante::Check::HasPair],
            },
            Request::Tableau {
                source: ScriptSource::Generated { count: 2, seed: 3 },
            },
            Request::BlackjackHands {
                source: HandSource::Generated {
                    count: 10,
                    seed: u64::MAX,
                    hand_size: 0,
                },
                checks: blackjack::Check::ALL.to_vec(),
            },
            Request::PokerMatchups {
                source: MatchupSource::Generated { count: 3, seed: 1 },
                rules: PokerRules::default(),
            },
            Request::DrawTables {
                tables: vec![DrawTable {
                    deck: vec![king],
                    seed: 2,
                    player: vec![vec![1]],
                    dealer: None,
                }],
            },
            Request::DrawDiscards {
                discards: vec![Discard {
                    hand: vec![king],
                    positions: vec![1, 1],
                    deck: vec![],
                }],
            },
            Request::BlackjackTables {
                source: TableSource::Listed(vec![Table {
                    deck: vec![king],
                    seed: 1,
                    policy: Policy::HitBelow(17),
                    rounds: 0,
                }]),
                rules: Rules {
                    dealer_hits_soft_17: true,
                },
            },
        ];
        for request in requests {
            let mut bytes = Vec::new();
            request.write(&mut bytes).unwrap();
            assert_eq!(Request::read(&mut bytes.as_slice()).unwrap(), Some(request));
        }
        assert_eq!(Request::read(&mut [].as_slice()).unwrap(), None);
    }

    #[test]
    fn hello_round_trips() {
        let hello = Hello {
            protocol: PROTOCOL_VERSION,
            api_version: API_VERSION.into(),
            assignments: Assignment::ALL.to_vec(),
            strategies: vec!["cautious".into()],
        };
        let mut bytes = Vec::new();
        hello.write(&mut bytes).unwrap();
        assert_eq!(Hello::read(&mut bytes.as_slice()).unwrap(), hello);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(Item::read(&mut [99u8].as_slice()).is_err());
        assert!(Item::read(&mut [5u8, 0xff, 0xff, 0xff, 0xff, 0x7f].as_slice()).is_err());
        assert!(Request::read(&mut [0u8, 7].as_slice()).is_err());
    }

    #[test]
    fn digits_are_grouped() {
        assert_eq!(group_digits(2_598_960), "2,598,960");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(1000), "1,000");
    }

    #[test]
    fn markers_have_the_documented_length() {
        assert_eq!(output_marker(u64::MAX).len(), OUTPUT_MARKER_LEN);
    }
}
