//! Spec files: YAML an instructor writes, loaded into the groups and tests the grader runs.
//!
//! Every error names the file and, where the YAML parser or a case name can tell us, the
//! line and column.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;

use grader_api::blackjack::{self, Action, Outcome, Policy, Rules, Table, TableSource};
use grader_api::crazy8::{self, Harness, Setup, SetupSource, StrategyTrial};
use grader_api::draw::{Discard, DrawTable};
use grader_api::plaisante::{self, HandName};
use grader_api::poker::{self, Matchup, MatchupSource, PokerRules, Ties};
use grader_api::protocol::{Answer, Request};
use grader_api::tableau::{Script, ScriptSource, Step};
use grader_api::{Assignment, Card, HandSource};
use serde::Deserialize;

/// The specs shipped with the grader, used when `--spec` is not given.
pub const BUILT_IN: &[(&str, &str)] = &[
    (
        "specs/plaisante_hand.yaml",
        include_str!("../specs/plaisante_hand.yaml"),
    ),
    ("specs/tableau.yaml", include_str!("../specs/tableau.yaml")),
    (
        "specs/blackjack.yaml",
        include_str!("../specs/blackjack.yaml"),
    ),
    ("specs/poker.yaml", include_str!("../specs/poker.yaml")),
    (
        "specs/draw_poker.yaml",
        include_str!("../specs/draw_poker.yaml"),
    ),
    (
        "specs/crazy_eights.yaml",
        include_str!("../specs/crazy_eights.yaml"),
    ),
];

const DEFAULT_TIMEOUT_MS: u64 = 2_000;

/// A spec that cannot be used, and where.
#[derive(Debug, thiserror::Error)]
#[error("{file}{}: {message}", location.map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default())]
pub struct SpecError {
    pub file: String,
    pub location: Option<(usize, usize)>,
    pub message: String,
}

/// Who may see a group's results, as Gradescope names it.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    #[default]
    Visible,
    Hidden,
    AfterDueDate,
    AfterPublished,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecFile {
    assignment: Assignment,
    #[serde(default)]
    rules: RulesSpec,
    #[serde(default)]
    defaults: Defaults,
    groups: Vec<GroupSpec>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Defaults {
    timeout_ms: Option<u64>,
    /// How long building a submission may take, in seconds (`--build-timeout` wins).
    build_timeout_s: Option<u64>,
    /// Crates a submission may depend on besides grader-api, by name.
    #[serde(default)]
    allow_dependencies: Vec<String>,
}

/// Rule settings (blackjack's H17, poker's ties and wheel); the reference obeys them.
#[derive(Deserialize, Default, Clone, Copy)]
#[serde(deny_unknown_fields)]
struct RulesSpec {
    dealer_hits_soft_17: Option<bool>,
    ties: Option<TiesSpec>,
    ace_low_straight: Option<bool>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum TiesSpec {
    Standard,
    #[serde(rename = "draw_1572")]
    Draw1572,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GroupSpec {
    name: String,
    #[serde(default)]
    points: f64,
    #[serde(default)]
    visibility: Visibility,
    hint: Option<String>,
    timeout_ms: Option<u64>,
    /// Rules for this group alone.
    rules: Option<RulesSpec>,
    /// The check of every case that does not name its own.
    check: Option<String>,
    /// The checks a generated or exhaustive group asks of every hand.
    checks: Option<Vec<String>>,
    cases: Option<Vec<CaseSpec>>,
    generate: Option<GenerateSpec>,
    exhaustive: Option<ExhaustiveSpec>,
    /// crazy_eights: the submission's strategies played in the reference engine.
    strategies: Option<StrategiesSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StrategiesSpec {
    games: u32,
    seed: u64,
    /// The three harness players in the other seats.
    opponents: Vec<String>,
    /// Fail unless the submission registers at least this many strategies.
    #[serde(default)]
    require: u32,
}

/// A case; which fields it needs depends on the assignment.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseSpec {
    name: String,
    /// plaisante_hand, blackjack: the cards of a hand.
    hand: Option<Vec<Card>>,
    check: Option<String>,
    expect: Option<serde_yaml::Value>,
    /// tableau, blackjack: the deck, top card first.
    deck: Option<Vec<Card>>,
    /// tableau: what the player does.
    steps: Option<Vec<StepSpec>>,
    /// blackjack: the seed of the fresh decks after `deck`, or of the whole deck without one.
    seed: Option<u64>,
    /// blackjack: `[hit, stand]` or `hit below 17`.
    player: Option<PlayerSpec>,
    /// blackjack: play this many rounds on one deck and compare the tally.
    rounds: Option<u32>,
    /// poker: the hand `hand` is compared with.
    versus: Option<Vec<Card>>,
    /// draw_poker: the positions discarded from `hand` (1 to 5).
    discard: Option<Vec<u32>>,
    /// draw_poker: the player's discards for each hand played from `deck`.
    discards: Option<Vec<Vec<u32>>>,
    /// crazy_eights: the four harness players, in seat order.
    players: Option<Vec<String>>,
    /// crazy_eights: play a tournament to this many points instead of one game.
    target: Option<u32>,
}

impl CaseSpec {
    /// The fields this case gives, besides its name.
    fn fields(&self) -> Vec<&'static str> {
        let given = [
            ("hand", self.hand.is_some()),
            ("check", self.check.is_some()),
            ("expect", self.expect.is_some()),
            ("deck", self.deck.is_some()),
            ("steps", self.steps.is_some()),
            ("seed", self.seed.is_some()),
            ("player", self.player.is_some()),
            ("rounds", self.rounds.is_some()),
            ("versus", self.versus.is_some()),
            ("discard", self.discard.is_some()),
            ("discards", self.discards.is_some()),
            ("players", self.players.is_some()),
            ("target", self.target.is_some()),
        ];
        given
            .into_iter()
            .filter(|(_, present)| *present)
            .map(|(name, _)| name)
            .collect()
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum StepSpec {
    Word(String),
    Action(ActionStep),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ActionStep {
    toggle: Option<OneOrMany>,
    /// `deal: ~` (any value) when the key is there.
    #[serde(default, deserialize_with = "present")]
    deal: bool,
    #[serde(default, deserialize_with = "present")]
    play: bool,
    expect: Option<StateSpec>,
}

/// True for a key that is present, whatever its value (`~` included).
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    serde::de::IgnoredAny::deserialize(deserializer).map(|_| true)
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(Card),
    Many(Vec<Card>),
}

/// A tableau state as a spec writes it: only the lists given are checked.
#[derive(Deserialize, Clone, Debug)]
#[serde(deny_unknown_fields)]
pub struct StateSpec {
    held: Option<Vec<Card>>,
    selected: Option<Vec<Card>>,
    play_area: Option<Vec<Card>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum PlayerSpec {
    Script(Vec<String>),
    Rule(String),
}

/// A round as a spec writes it: only the fields given are checked.
#[derive(Deserialize, Clone, Debug)]
#[serde(deny_unknown_fields)]
pub struct RoundSpec {
    outcome: Option<String>,
    player: Option<Vec<Card>>,
    dealer: Option<Vec<Card>>,
    player_total: Option<u32>,
    dealer_total: Option<u32>,
}

#[derive(Deserialize, Clone, Debug)]
#[serde(deny_unknown_fields)]
pub struct TallySpec {
    won: u32,
    tied: u32,
    lost: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GenerateSpec {
    count: u32,
    seed: u64,
    #[serde(default = "five")]
    hand_size: u8,
    /// blackjack: generate rounds played by this player instead of hands.
    player: Option<PlayerSpec>,
    /// poker: generate pairs of hands to compare instead of hands.
    #[serde(default)]
    pairs: bool,
    /// crazy_eights: the harness players of every generated game.
    players: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExhaustiveSpec {
    #[serde(default = "five")]
    hand_size: u8,
}

fn five() -> u8 {
    5
}

/// Expectations with the index of the answer each is about.
pub type WrittenAnswers = Vec<(usize, Written)>;

/// An expectation written in a spec, checked against the reference's answer.
#[derive(Clone, Debug)]
pub enum Written {
    Exact(Answer),
    State(StateSpec),
    Round(RoundSpec),
}

impl Written {
    pub fn agrees_with(&self, answer: &Answer) -> bool {
        match (self, answer) {
            (Written::Exact(want), got) => want == got,
            (Written::State(want), Answer::Tableau(got)) => {
                let same = |want: &Option<Vec<Card>>, got: &Vec<Card>| {
                    want.as_ref().is_none_or(|w| w == got)
                };
                same(&want.held, &got.held)
                    && same(&want.selected, &got.selected)
                    && same(&want.play_area, &got.play_area)
            }
            (Written::Round(want), Answer::Round(got)) => {
                want.outcome
                    .as_ref()
                    .is_none_or(|o| o.parse::<Outcome>() == Ok(got.outcome))
                    && want.player.as_ref().is_none_or(|p| *p == got.player)
                    && want.dealer.as_ref().is_none_or(|d| *d == got.dealer)
                    && want.player_total.is_none_or(|t| t == got.player_total)
                    && want.dealer_total.is_none_or(|t| t == got.dealer_total)
            }
            _ => false,
        }
    }
}

impl std::fmt::Display for Written {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Written::Exact(answer) => write!(f, "{answer}"),
            Written::State(state) => write!(f, "{state}"),
            Written::Round(round) => write!(f, "{round:?}"),
        }
    }
}

/// Everything the grader runs: the groups of every spec loaded.
#[derive(Debug)]
pub struct Suite {
    pub groups: Vec<Group>,
    /// The longest build time any of its spec files allows, if one sets it.
    pub build_timeout: Option<Duration>,
    /// The crates any of its spec files lets a submission depend on.
    pub allowed_dependencies: Vec<String>,
}

impl Suite {
    /// Every test with its group, in order.
    pub fn tests(&self) -> impl Iterator<Item = (&Group, &TestCase)> {
        self.groups
            .iter()
            .flat_map(|g| g.tests.iter().map(move |t| (g, t)))
    }

    /// The groups of the assignments `keep` accepts.
    pub fn only(self, keep: impl Fn(Assignment) -> bool) -> Suite {
        Suite {
            groups: self
                .groups
                .into_iter()
                .filter(|g| keep(g.assignment))
                .collect(),
            build_timeout: self.build_timeout,
            allowed_dependencies: self.allowed_dependencies,
        }
    }
}

#[derive(Debug)]
pub struct Group {
    pub assignment: Assignment,
    pub name: String,
    pub points: f64,
    pub visibility: Visibility,
    pub hint: Option<String>,
    pub timeout: Duration,
    pub tests: Vec<TestCase>,
}

/// One test: one request, reported as one line.
#[derive(Debug)]
pub struct TestCase {
    /// `assignment::group::case`, as filters match it.
    pub id: String,
    pub name: String,
    pub request: Request,
    /// A generated or exhaustive group, graded as a stream and reported as one test.
    pub bulk: bool,
    /// What the spec wrote, with the index of the answer it is about.
    pub written: WrittenAnswers,
    pub location: Option<(usize, usize)>,
}

/// Loads the given spec files, or the built-in specs when none are given.
pub fn load(paths: &[PathBuf], timeout_override: Option<Duration>) -> Result<Suite, SpecError> {
    let mut groups = Vec::new();
    let mut build_timeout = None;
    let mut allowed_dependencies: Vec<String> = Vec::new();
    let mut add = |file: Suite| {
        groups.extend(file.groups);
        build_timeout = build_timeout.max(file.build_timeout);
        for name in file.allowed_dependencies {
            if !allowed_dependencies.contains(&name) {
                allowed_dependencies.push(name);
            }
        }
    };
    if paths.is_empty() {
        for (name, text) in BUILT_IN {
            add(parse(name, text, timeout_override)?);
        }
    }
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|error| SpecError {
            file: path.display().to_string(),
            location: None,
            message: format!("cannot read the spec: {error}"),
        })?;
        add(parse(&path.display().to_string(), &text, timeout_override)?);
    }
    let mut seen = HashSet::new();
    for group in &groups {
        for test in &group.tests {
            if !seen.insert(test.id.clone()) {
                return Err(SpecError {
                    file: "specs".into(),
                    location: test.location,
                    message: format!(
                        "two tests are named `{}`; give one of them another name",
                        test.id
                    ),
                });
            }
        }
    }
    Ok(Suite {
        groups,
        build_timeout,
        allowed_dependencies,
    })
}

/// Builds spec errors for one file.
struct Errors<'a> {
    file: &'a str,
    text: &'a str,
    /// Where the group being read starts (0-based line), so a case is found in its group.
    group_line: std::cell::Cell<usize>,
}

impl Errors<'_> {
    fn at(&self, location: Option<(usize, usize)>, message: String) -> SpecError {
        SpecError {
            file: self.file.to_string(),
            location,
            message,
        }
    }

    /// An error at the `name:` line of `name`, searched from the current group on.
    fn near(&self, name: &str, message: String) -> SpecError {
        self.at(locate(self.text, name, self.group_line.get()), message)
    }
}

/// Parses one spec file's text; `file` names it in errors.
pub fn parse(
    file: &str,
    text: &str,
    timeout_override: Option<Duration>,
) -> Result<Suite, SpecError> {
    let errors = Errors {
        file,
        text,
        group_line: std::cell::Cell::new(0),
    };
    let spec: SpecFile = serde_yaml::from_str(text).map_err(|error| {
        let location = error.location().map(|l| (l.line(), l.column()));
        // The parser appends its own "at line N column M"; we print the position up front.
        let message = error.to_string();
        let message = match message.rfind(" at line ") {
            Some(cut) if location.is_some() => message[..cut].to_string(),
            _ => message,
        };
        errors.at(location, message)
    })?;
    let default_timeout = timeout_override
        .or(spec.defaults.timeout_ms.map(Duration::from_millis))
        .unwrap_or(Duration::from_millis(DEFAULT_TIMEOUT_MS));
    let mut groups = Vec::new();
    for group in spec.groups {
        let group_at = locate(text, &group.name, errors.group_line.get());
        if let Some((line, _)) = group_at {
            errors.group_line.set(line - 1);
        }
        let sources = [
            group.cases.is_some(),
            group.generate.is_some(),
            group.exhaustive.is_some(),
            group.strategies.is_some(),
        ];
        if sources.iter().filter(|&&s| s).count() != 1 {
            return Err(errors.at(
                group_at,
                format!(
                    "group `{}` needs exactly one of `cases`, `generate`, `exhaustive` or `strategies`",
                    group.name
                ),
            ));
        }
        if !(group.points.is_finite() && group.points >= 0.0) {
            return Err(errors.at(
                group_at,
                format!("group `{}`: points must be 0 or more", group.name),
            ));
        }
        let group_rules = group.rules.unwrap_or_default();
        let rules = Rules {
            dealer_hits_soft_17: group_rules
                .dealer_hits_soft_17
                .or(spec.rules.dealer_hits_soft_17)
                .unwrap_or(false),
        };
        let poker_rules = PokerRules {
            ties: match group_rules.ties.or(spec.rules.ties) {
                Some(TiesSpec::Draw1572) => Ties::Draw1572,
                _ => Ties::Standard,
            },
            ace_low_straight: group_rules
                .ace_low_straight
                .or(spec.rules.ace_low_straight)
                .unwrap_or(true),
        };
        let prefix = format!("{}::{}", spec.assignment, slug(&group.name));
        let context = GroupContext {
            assignment: spec.assignment,
            name: &group.name,
            rules,
            poker_rules,
            check: group.check.as_deref(),
            errors: &errors,
        };
        let mut tests = Vec::new();
        if let Some(cases) = group.cases {
            if cases.is_empty() {
                return Err(errors.at(group_at, format!("group `{}` lists no cases", group.name)));
            }
            for case in cases {
                let location = locate(text, &case.name, errors.group_line.get() + 1);
                let (request, written) = context.case(&case)?;
                tests.push(TestCase {
                    id: format!("{prefix}::{}", slug(&case.name)),
                    name: case.name,
                    request,
                    bulk: false,
                    written,
                    location,
                });
            }
        } else if let Some(strategies) = group.strategies {
            if spec.assignment != Assignment::CrazyEights {
                return Err(errors.at(
                    group_at,
                    format!("group `{}`: only crazy_eights has `strategies`", group.name),
                ));
            }
            let opponents: Vec<Harness> = strategies
                .opponents
                .iter()
                .map(|o| o.parse())
                .collect::<Result<_, String>>()
                .map_err(|e| errors.at(group_at, format!("group `{}`: {e}", group.name)))?;
            if opponents.len() != crazy8::PLAYERS - 1 {
                return Err(errors.at(
                    group_at,
                    format!(
                        "group `{}`: `opponents` lists the other 3 players",
                        group.name
                    ),
                ));
            }
            tests.push(TestCase {
                id: prefix.clone(),
                name: group.name.clone(),
                request: Request::Crazy8Strategies(StrategyTrial {
                    games: strategies.games,
                    seed: strategies.seed,
                    opponents,
                    require: strategies.require,
                }),
                bulk: false,
                written: Vec::new(),
                location: group_at,
            });
        } else {
            let request = context.bulk(group.generate, group.exhaustive, group.checks)?;
            tests.push(TestCase {
                id: prefix.clone(),
                name: group.name.clone(),
                request,
                bulk: true,
                written: Vec::new(),
                location: group_at,
            });
        }
        groups.push(Group {
            assignment: spec.assignment,
            name: group.name,
            points: group.points,
            visibility: group.visibility,
            hint: group.hint,
            timeout: group
                .timeout_ms
                .map(Duration::from_millis)
                .unwrap_or(default_timeout),
            tests,
        });
    }
    Ok(Suite {
        groups,
        build_timeout: spec.defaults.build_timeout_s.map(Duration::from_secs),
        allowed_dependencies: spec.defaults.allow_dependencies,
    })
}

/// What every case of a group shares.
struct GroupContext<'a> {
    assignment: Assignment,
    name: &'a str,
    rules: Rules,
    poker_rules: PokerRules,
    check: Option<&'a str>,
    errors: &'a Errors<'a>,
}

impl GroupContext<'_> {
    fn case(&self, case: &CaseSpec) -> Result<(Request, WrittenAnswers), SpecError> {
        let fail = |message: String| {
            self.errors
                .near(&case.name, format!("case `{}`: {message}", case.name))
        };
        let check_name = case.check.as_deref().or(self.check);
        let allowed: &[&str] = match self.assignment {
            Assignment::PlaisanteHand => &["hand", "check", "expect"],
            Assignment::Tableau => &["deck", "steps"],
            Assignment::Blackjack if case.hand.is_some() => &["hand", "check", "expect"],
            Assignment::Blackjack => &["deck", "seed", "player", "rounds", "expect"],
            Assignment::Poker if case.versus.is_some() => &["hand", "versus", "expect"],
            Assignment::Poker => &["hand", "check", "expect"],
            Assignment::DrawPoker if case.discard.is_some() => {
                &["hand", "discard", "deck", "expect"]
            }
            Assignment::DrawPoker => &["deck", "seed", "discards"],
            Assignment::CrazyEights => &["deck", "seed", "players", "target"],
        };
        if let Some(stray) = case
            .fields()
            .into_iter()
            .find(|field| !allowed.contains(field))
        {
            return Err(fail(format!(
                "`{stray}` has no meaning here; this case takes {}",
                allowed.join(", ")
            )));
        }
        match self.assignment {
            Assignment::PlaisanteHand => {
                let hand = case
                    .hand
                    .clone()
                    .ok_or_else(|| fail("needs `hand:`, the cards of the hand".into()))?;
                let check: plaisante::Check = parse_check(check_name).map_err(fail)?;
                let written = case
                    .expect
                    .as_ref()
                    .map(|value| plaisante_expectation(check, value).map(|w| vec![(0, w)]))
                    .transpose()
                    .map_err(fail)?
                    .unwrap_or_default();
                let request = Request::PlaisanteHands {
                    source: HandSource::Listed(vec![hand]),
                    checks: vec![check],
                };
                Ok((request, written))
            }
            Assignment::Tableau => {
                let deck = case
                    .deck
                    .clone()
                    .ok_or_else(|| fail("needs `deck:`, the cards dealt from, top first".into()))?;
                let steps = case
                    .steps
                    .as_ref()
                    .ok_or_else(|| fail("needs `steps:`".into()))?;
                let (steps, written) = tableau_steps(steps).map_err(fail)?;
                let request = Request::Tableau {
                    source: ScriptSource::Listed(vec![Script { deck, steps }]),
                };
                Ok((request, written))
            }
            Assignment::Blackjack if case.hand.is_some() => {
                let hand = case.hand.clone().unwrap_or_default();
                let check: blackjack::Check = parse_check(check_name).map_err(fail)?;
                let written = case
                    .expect
                    .as_ref()
                    .map(|value| blackjack_hand_expectation(check, value).map(|w| vec![(0, w)]))
                    .transpose()
                    .map_err(fail)?
                    .unwrap_or_default();
                let request = Request::BlackjackHands {
                    source: HandSource::Listed(vec![hand]),
                    checks: vec![check],
                };
                Ok((request, written))
            }
            Assignment::Poker => {
                let hand = case
                    .hand
                    .clone()
                    .ok_or_else(|| fail("needs `hand:`, five cards".into()))?;
                for cards in std::iter::once(&hand).chain(case.versus.as_ref()) {
                    five_distinct(cards).map_err(fail)?;
                }
                let rules = self.poker_rules;
                if let Some(versus) = &case.versus {
                    let written = case
                        .expect
                        .as_ref()
                        .map(|value| ordering_expectation(value).map(|w| vec![(0, w)]))
                        .transpose()
                        .map_err(fail)?
                        .unwrap_or_default();
                    let matchup = Matchup {
                        first: hand,
                        second: versus.clone(),
                    };
                    let request = Request::PokerMatchups {
                        source: MatchupSource::Listed(vec![matchup]),
                        rules,
                    };
                    return Ok((request, written));
                }
                let check: poker::Check = parse_check(check_name).map_err(fail)?;
                let written = case
                    .expect
                    .as_ref()
                    .map(|value| poker_expectation(check, value).map(|w| vec![(0, w)]))
                    .transpose()
                    .map_err(fail)?
                    .unwrap_or_default();
                let request = Request::PokerHands {
                    source: HandSource::Listed(vec![hand]),
                    checks: vec![check],
                    rules,
                };
                Ok((request, written))
            }
            Assignment::DrawPoker if case.discard.is_some() => {
                let hand = case
                    .hand
                    .clone()
                    .ok_or_else(|| fail("needs `hand:`, the five cards".into()))?;
                let discard = Discard {
                    hand,
                    positions: case.discard.clone().unwrap_or_default(),
                    deck: case.deck.clone().unwrap_or_default(),
                };
                let written = case
                    .expect
                    .as_ref()
                    .map(|value| discard_expectation(value).map(|w| vec![(0, w)]))
                    .transpose()
                    .map_err(fail)?
                    .unwrap_or_default();
                Ok((
                    Request::DrawDiscards {
                        discards: vec![discard],
                    },
                    written,
                ))
            }
            Assignment::DrawPoker => {
                let player = case.discards.clone().ok_or_else(|| {
                    fail("needs `discard:` (with `hand:`) to try a discard, or `discards:` to play hands from `deck:`".into())
                })?;
                if player.is_empty() {
                    return Err(fail("`discards:` lists no hands".into()));
                }
                if case.expect.is_some() {
                    return Err(fail(
                        "whole hands are answered by the reference: remove `expect`".into(),
                    ));
                }
                let table = DrawTable {
                    deck: case.deck.clone().unwrap_or_default(),
                    seed: case.seed.unwrap_or(0),
                    player,
                    dealer: None,
                };
                Ok((
                    Request::DrawTables {
                        tables: vec![table],
                    },
                    Vec::new(),
                ))
            }
            Assignment::CrazyEights => {
                if case.expect.is_some() {
                    return Err(fail(
                        "games are answered by the reference: remove `expect`".into(),
                    ));
                }
                let setup = Setup {
                    deck: case.deck.clone().unwrap_or_default(),
                    seed: case.seed.unwrap_or(0),
                    players: harness_players(case.players.as_deref()).map_err(fail)?,
                    target: case.target.unwrap_or(0),
                };
                Ok((
                    Request::Crazy8Engine {
                        source: SetupSource::Listed(vec![setup]),
                    },
                    Vec::new(),
                ))
            }
            Assignment::Blackjack => {
                if case.deck.is_none() && case.seed.is_none() {
                    return Err(fail(
                        "needs `hand:` (to check a hand) or `deck:`/`seed:` (to play a round)"
                            .into(),
                    ));
                }
                let policy = player_policy(case.player.as_ref()).map_err(fail)?;
                let rounds = case.rounds.unwrap_or(0);
                let table = Table {
                    deck: case.deck.clone().unwrap_or_default(),
                    seed: case.seed.unwrap_or(0),
                    policy,
                    rounds,
                };
                let written = case
                    .expect
                    .as_ref()
                    .map(|value| table_expectation(rounds, value).map(|w| vec![(0, w)]))
                    .transpose()
                    .map_err(fail)?
                    .unwrap_or_default();
                let request = Request::BlackjackTables {
                    source: TableSource::Listed(vec![table]),
                    rules: self.rules,
                };
                Ok((request, written))
            }
        }
    }

    fn bulk(
        &self,
        generate: Option<GenerateSpec>,
        exhaustive: Option<ExhaustiveSpec>,
        checks: Option<Vec<String>>,
    ) -> Result<Request, SpecError> {
        let fail = |message: String| {
            self.errors
                .near(self.name, format!("group `{}`: {message}", self.name))
        };
        let checks = checks.unwrap_or_default();
        let no_checks = || fail("needs `checks:`, the methods to ask of every hand".into());
        let hand_source = match (&generate, &exhaustive) {
            (Some(g), _) => HandSource::Generated {
                count: g.count,
                seed: g.seed,
                hand_size: g.hand_size,
            },
            (_, Some(e)) => HandSource::Exhaustive {
                hand_size: e.hand_size,
            },
            (None, None) => unreachable!("checked by the caller: one source per group"),
        };
        if let Some(g) = &generate
            && g.count > MOST_GENERATED
        {
            return Err(fail(format!(
                "count {} is more than the {MOST_GENERATED} a group may generate",
                g.count
            )));
        }
        if self.assignment == Assignment::Poker
            && let HandSource::Generated { hand_size, .. } | HandSource::Exhaustive { hand_size } =
                hand_source
            && hand_size != 5
            && !generate.as_ref().is_some_and(|g| g.pairs)
        {
            return Err(fail(format!(
                "poker hands have 5 cards, not hand_size {hand_size}"
            )));
        }
        match self.assignment {
            Assignment::PlaisanteHand => {
                let (HandSource::Generated { hand_size, .. }
                | HandSource::Exhaustive { hand_size }) = hand_source
                else {
                    unreachable!("built just above")
                };
                if !(1..=5).contains(&hand_size) {
                    return Err(fail(format!("hand_size must be 1 to 5, not {hand_size}")));
                }
                Ok(Request::PlaisanteHands {
                    source: hand_source,
                    checks: parse_checks(&checks).map_err(fail)?.ok_or_else(no_checks)?,
                })
            }
            Assignment::Poker => match generate {
                Some(g) if g.pairs => Ok(Request::PokerMatchups {
                    source: MatchupSource::Generated {
                        count: g.count,
                        seed: g.seed,
                    },
                    rules: self.poker_rules,
                }),
                _ => Ok(Request::PokerHands {
                    source: hand_source,
                    checks: parse_checks(&checks).map_err(fail)?.ok_or_else(no_checks)?,
                    rules: self.poker_rules,
                }),
            },
            _ if exhaustive.is_some() => Err(fail(format!(
                "{} has no exhaustive groups; use `generate`",
                self.assignment
            ))),
            Assignment::DrawPoker => {
                if checks.iter().any(|c| c != "dealer_discards") || checks.is_empty() {
                    return Err(fail(
                        "a generated draw_poker group takes `checks: [dealer_discards]`".into(),
                    ));
                }
                Ok(Request::DealerDiscards {
                    source: hand_source,
                })
            }
            Assignment::CrazyEights => {
                let g = generate.expect("not exhaustive, so generated");
                Ok(Request::Crazy8Engine {
                    source: SetupSource::Generated {
                        count: g.count,
                        seed: g.seed,
                        players: harness_players(g.players.as_deref()).map_err(fail)?,
                    },
                })
            }
            Assignment::Tableau => {
                let g = generate.expect("not exhaustive, so generated");
                Ok(Request::Tableau {
                    source: ScriptSource::Generated {
                        count: g.count,
                        seed: g.seed,
                    },
                })
            }
            Assignment::Blackjack => {
                let g = generate.expect("not exhaustive, so generated");
                match g.player {
                    Some(player) => Ok(Request::BlackjackTables {
                        source: TableSource::Generated {
                            count: g.count,
                            seed: g.seed,
                            policy: player_policy(Some(&player)).map_err(fail)?,
                        },
                        rules: self.rules,
                    }),
                    None => Ok(Request::BlackjackHands {
                        source: hand_source,
                        checks: parse_checks(&checks).map_err(fail)?.ok_or_else(no_checks)?,
                    }),
                }
            }
        }
    }
}

/// The checks named, or `None` when none are.
fn parse_checks<C: std::str::FromStr<Err = String>>(
    names: &[String],
) -> Result<Option<Vec<C>>, String> {
    if names.is_empty() {
        return Ok(None);
    }
    names
        .iter()
        .map(|n| n.parse())
        .collect::<Result<_, _>>()
        .map(Some)
}

/// A poker hand: five cards, none twice.
fn five_distinct(cards: &[Card]) -> Result<(), String> {
    let distinct: HashSet<&Card> = cards.iter().collect();
    if cards.len() != 5 || distinct.len() != 5 {
        return Err(format!(
            "a poker hand is five different cards, not {}",
            grader_api::format_cards(cards)
        ));
    }
    Ok(())
}

/// Counts beyond this would keep the in-process reference busy for hours.
const MOST_GENERATED: u32 = 1_000_000;

fn parse_check<C: std::str::FromStr<Err = String>>(name: Option<&str>) -> Result<C, String> {
    name.ok_or_else(|| "names no check: give it `check:` or give its group one".to_string())?
        .parse()
}

fn plaisante_expectation(
    check: plaisante::Check,
    value: &serde_yaml::Value,
) -> Result<Written, String> {
    use plaisante::Check as C;
    let mismatch = |what: &str| format!("`expect` does not fit {check}: it returns {what}");
    let answer = match check {
        C::CountValues => Answer::Cells(
            serde_yaml::from_value(value.clone()).map_err(|_| mismatch("a list of 15 counts"))?,
        ),
        C::Evaluate => {
            let text: String = serde_yaml::from_value(value.clone())
                .map_err(|_| mismatch("a hand name such as \"Pair\""))?;
            Answer::Hand(text.parse::<HandName>()?)
        }
        C::TotalValue | C::BaseMult | C::Score => {
            Answer::Number(serde_yaml::from_value(value.clone()).map_err(|_| mismatch("a number"))?)
        }
        _ => Answer::Bool(
            serde_yaml::from_value(value.clone()).map_err(|_| mismatch("true or false"))?,
        ),
    };
    Ok(Written::Exact(answer))
}

fn blackjack_hand_expectation(
    check: blackjack::Check,
    value: &serde_yaml::Value,
) -> Result<Written, String> {
    let mismatch = |what: &str| format!("`expect` does not fit {check}: it returns {what}");
    let answer = match check {
        blackjack::Check::Value => {
            Answer::Number(serde_yaml::from_value(value.clone()).map_err(|_| mismatch("a number"))?)
        }
        blackjack::Check::IsSoft => Answer::Bool(
            serde_yaml::from_value(value.clone()).map_err(|_| mismatch("true or false"))?,
        ),
    };
    Ok(Written::Exact(answer))
}

fn table_expectation(rounds: u32, value: &serde_yaml::Value) -> Result<Written, String> {
    if rounds == 0 {
        let round: RoundSpec = serde_yaml::from_value(value.clone())
            .map_err(|e| format!("`expect` of a round: {e}"))?;
        if let Some(outcome) = &round.outcome {
            outcome.parse::<Outcome>()?;
        }
        Ok(Written::Round(round))
    } else {
        let tally: TallySpec = serde_yaml::from_value(value.clone())
            .map_err(|e| format!("`expect` of a session: {e}"))?;
        Ok(Written::Exact(Answer::Tally(blackjack::Tally {
            won: tally.won,
            tied: tally.tied,
            lost: tally.lost,
        })))
    }
}

fn poker_expectation(check: poker::Check, value: &serde_yaml::Value) -> Result<Written, String> {
    let mismatch = |what: &str| format!("`expect` does not fit {check}: it returns {what}");
    let answer = match check {
        poker::Check::Category => {
            let text: String = serde_yaml::from_value(value.clone())
                .map_err(|_| mismatch("a category such as `full house`"))?;
            Answer::Category(text.parse()?)
        }
        poker::Check::Tiebreak => Answer::Cells(
            serde_yaml::from_value(value.clone()).map_err(|_| mismatch("a list of numbers"))?,
        ),
    };
    Ok(Written::Exact(answer))
}

fn ordering_expectation(value: &serde_yaml::Value) -> Result<Written, String> {
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
    Ok(Written::Exact(Answer::Ordering(ordering)))
}

fn discard_expectation(value: &serde_yaml::Value) -> Result<Written, String> {
    if value.as_str().is_some_and(|text| text.trim() == "refused") {
        return Ok(Written::Exact(Answer::Refused));
    }
    let cards: Vec<Card> = serde_yaml::from_value(value.clone())
        .map_err(|e| format!("`expect` of a discard is the hand after it, or `refused`: {e}"))?;
    Ok(Written::Exact(Answer::Cards(cards)))
}

/// Four harness players from the spec's words.
fn harness_players(words: Option<&[String]>) -> Result<Vec<Harness>, String> {
    let words = words.ok_or("needs `players:`, four harness players such as `first legal`")?;
    if words.len() != crazy8::PLAYERS {
        return Err(format!(
            "`players:` lists {} players; a game has {}",
            words.len(),
            crazy8::PLAYERS
        ));
    }
    words.iter().map(|w| w.parse()).collect()
}

fn player_policy(player: Option<&PlayerSpec>) -> Result<Policy, String> {
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

/// Expands the spec's steps (a toggle may list several cards) into single steps, with the
/// expectations attached to the last step of each.
fn tableau_steps(specs: &[StepSpec]) -> Result<(Vec<Step>, WrittenAnswers), String> {
    let mut steps = Vec::new();
    let mut written = Vec::new();
    for spec in specs {
        let expect = match spec {
            StepSpec::Word(word) => {
                steps.push(match word.trim() {
                    "deal" => Step::Deal,
                    "play" => Step::Play,
                    other => {
                        return Err(format!(
                            "`{other}` is not a step: write deal, play, or {{ toggle: KH }}"
                        ));
                    }
                });
                None
            }
            StepSpec::Action(action) => {
                let chosen = [action.toggle.is_some(), action.deal, action.play];
                if chosen.iter().filter(|&&c| c).count() != 1 {
                    return Err("a step is one of deal, play or { toggle: ... }".into());
                }
                match &action.toggle {
                    Some(OneOrMany::One(card)) => steps.push(Step::Toggle(*card)),
                    Some(OneOrMany::Many(cards)) => {
                        steps.extend(cards.iter().map(|c| Step::Toggle(*c)))
                    }
                    None if action.deal => steps.push(Step::Deal),
                    None => steps.push(Step::Play),
                }
                action.expect.clone()
            }
        };
        if let Some(state) = expect {
            written.push((steps.len() - 1, Written::State(state)));
        }
    }
    if steps.is_empty() {
        return Err("has no steps".into());
    }
    Ok((steps, written))
}

/// Line and column (1-based) of the first `name: <name>` in the text, for errors about
/// things the YAML parser accepted but we refuse.
fn locate(text: &str, name: &str, from_line: usize) -> Option<(usize, usize)> {
    text.lines()
        .enumerate()
        .skip(from_line)
        .find_map(|(index, line)| {
            let column = line.find("name:")?;
            let value = line[column + 5..].trim_start();
            let value = value.trim_start_matches(['"', '\'']);
            let rest = value.strip_prefix(name)?.trim_start();
            // The whole name, not a longer one that starts the same.
            let whole = rest.is_empty() || rest.starts_with([',', '}', '"', '\'', '#']);
            whole.then_some((index + 1, column + 1))
        })
}

/// A test-name segment: lowercase words joined by `_`.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    // "the seed's" reads as one word: `the_seeds`, not `the_seed_s`.
    for c in name.chars().filter(|c| !matches!(c, '\'' | '’')) {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_string()
}

impl std::fmt::Display for StateSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lists = [
            ("held", &self.held),
            ("selected", &self.selected),
            ("play_area", &self.play_area),
        ];
        let given: Vec<String> = lists
            .iter()
            .filter_map(|(name, cards)| {
                cards
                    .as_ref()
                    .map(|c| format!("{name} {}", grader_api::format_cards(c)))
            })
            .collect();
        f.write_str(&given.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_err(text: &str) -> String {
        parse("t.yaml", text, None).unwrap_err().to_string()
    }

    #[test]
    fn defaults_set_the_build_timeout_and_the_allowed_dependencies() {
        let suite = parse(
            "t.yaml",
            "assignment: plaisante_hand\ndefaults: { build_timeout_s: 42, allow_dependencies: [libc, itoa] }\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH, KD] }\n",
            None,
        )
        .unwrap();
        assert_eq!(suite.build_timeout, Some(Duration::from_secs(42)));
        assert_eq!(suite.allowed_dependencies, ["libc", "itoa"]);
        let plain = parse(
            "t.yaml",
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH, KD] }\n",
            None,
        )
        .unwrap();
        assert_eq!(plain.build_timeout, None);
        assert!(plain.allowed_dependencies.is_empty());
    }

    #[test]
    fn a_bad_card_names_file_line_and_what_a_card_looks_like() {
        let err = parse_err(
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH, 1X] }\n",
        );
        assert!(err.starts_with("t.yaml:6:"), "{err}");
        assert!(err.contains("`1X` is not a card"), "{err}");
    }

    #[test]
    fn an_unknown_check_lists_the_known_ones() {
        let err = parse_err(
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pairs\n    cases:\n      - { name: c, hand: [KH] }\n",
        );
        // A group's check is read for each case, so the error points at the case using it.
        assert!(err.starts_with("t.yaml:6:"), "{err}");
        assert!(err.contains("case `c`"), "{err}");
        assert!(err.contains("has_pair, has_two_pair"), "{err}");
    }

    #[test]
    fn a_case_without_a_check_is_refused_at_its_line() {
        let err = parse_err(
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    cases:\n      - { name: lonely, hand: [KH] }\n",
        );
        assert!(err.starts_with("t.yaml:5:"), "{err}");
        assert!(err.contains("names no check"), "{err}");
    }

    #[test]
    fn an_expectation_of_the_wrong_type_is_refused() {
        let err = parse_err(
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: evaluate\n    cases:\n      - { name: c, hand: [KH], expect: true }\n",
        );
        assert!(err.contains("hand name"), "{err}");
    }

    #[test]
    fn the_built_in_specs_load() {
        let suite = load(&[], None).unwrap();
        assert!(suite.groups.iter().any(|g| g.tests.iter().any(|t| t.bulk)));
    }

    #[test]
    fn errors_point_at_the_case_named_not_one_that_starts_the_same() {
        let text = "groups:\n  - name: pair\n    cases:\n      - { name: pair of kings, hand: [KH] }\n      - { name: pair, hand: [KH] }\n";
        assert_eq!(locate(text, "pair of kings", 0), Some((4, 11)));
        assert_eq!(locate(text, "pair", 0), Some((2, 5)));
        assert_eq!(locate(text, "pair", 2), Some((5, 11)));
    }

    #[test]
    fn a_field_of_another_assignment_is_refused() {
        let err = parse_err(
            "assignment: blackjack\ngroups:\n  - name: g\n    check: value\n    cases:\n      - { name: c, hand: [KH], deck: [2C] }\n",
        );
        assert!(err.starts_with("t.yaml:6:"), "{err}");
        assert!(err.contains("`deck` has no meaning here"), "{err}");
    }

    #[test]
    fn slugs_are_filter_friendly() {
        assert_eq!(slug("the seed's walk-through"), "the_seeds_walk_through");
        assert_eq!(
            slug("Three kings is NOT a pair!"),
            "three_kings_is_not_a_pair"
        );
        assert_eq!(slug("A-2-3-4-5"), "a_2_3_4_5");
    }
}
