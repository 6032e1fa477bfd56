//! The spec side of an assignment, behind the `spec` feature (the grader's, never the
//! runner's): [`Spec`] reads an assignment's own typed groups and cases, each refusing a
//! field it does not take, into tests; the core reads a file through [`Unit::parse`].
//!
//! [`Unit::parse`]: crate::assignment::Unit::parse

use serde::Deserialize;
use serde::de::DeserializeOwned;

use std::ops::RangeInclusive;

use crate::assignment::Assignment;

mod student_tests;
pub use student_tests::{Bugs, Every, KeptEdit, KeptMutant, StudentTests};

pub(crate) mod hands;
mod policy;
pub(crate) mod schema;
mod values;

pub use policy::{Late, PastLimit, Percent, Policy};

pub use values::{
    BuildTimeoutS, Defaults, Diagnose, DueDate, Games, Generated, Points, Ranged, Rounds, Scoring,
    Target, TimeoutMs, Visibility, Weight,
};

/// The fields every group has, whatever its assignment.
#[derive(Debug, Clone)]
pub struct Common {
    pub name: String,
    /// None when the group does not say: it is worth nothing, which lint warns of.
    pub points: Option<f64>,
    pub visibility: Visibility,
    pub hint: Option<String>,
    /// Who is told the known mistakes behind its wrong answers; by its visibility unless given.
    pub diagnose: Diagnose,
    pub timeout_ms: Option<u64>,
    pub stall_ms: Option<u64>,
    /// None when the group does not say; only a bulk group may say.
    pub scoring: Option<Scoring>,
    /// Set for a group of the student's own tests.
    pub student_tests: Option<StudentTests>,
}

/// A group of some assignment, which has the common fields.
pub trait Grouped {
    fn common(&self) -> Common;
    /// The fields its tests may come from, each with whether it is given: one must be.
    fn sources(&self) -> Vec<(&'static str, bool)>;
}

/// Declares an assignment's group: the common fields and its own, every other refused, and
/// the `sources`, exactly one of which a group must give. A group `with rules` has rules of
/// its own too, of its module's `RulesSpec`, before its other fields.
macro_rules! spec_group {
    ($name:ident with rules { $($fields:tt)* }, sources: [$($source:ident),+]) => {
        spec_group!($name {
            /// Rules for this group alone.
            rules: Option<RulesSpec>,
            $($fields)*
        }, sources: [$($source),+]);
    };
    ($name:ident { $($(#[$field_meta:meta])* $field:ident : $type:ty),* $(,)? },
     sources: [$($source:ident),+]) => {
        #[derive(serde::Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// The group's name, as reports show it.
            name: String,
            /// What the group is worth, shared by its cases' weights; nothing unless given.
            points: Option<$crate::spec::Points>,
            /// Who may see the group's results.
            #[serde(default)]
            visibility: $crate::spec::Visibility,
            /// Shown to a student who fails a test of the group.
            hint: Option<String>,
            /// Who is told the known mistakes (the reference's library of bugs) that
            /// explain the group's wrong answers: everyone, staff or no (everyone for a
            /// visible group, staff for the others, unless given).
            diagnose: Option<$crate::spec::Diagnose>,
            /// How long each test of the group may take, in milliseconds.
            timeout_ms: Option<$crate::spec::TimeoutMs>,
            /// How long a runner may go without answering one more input before it is
            /// stopped as stuck, in milliseconds (at least a hundred times what the
            /// reference takes on that input).
            stall_ms: Option<$crate::spec::TimeoutMs>,
            /// How a group graded as one test earns its points when some answers are wrong
            /// (all_or_nothing unless given).
            scoring: Option<$crate::spec::Scoring>,
            /// Grades the student's own tests instead: the group holds nothing else.
            student_tests: Option<$crate::spec::StudentTests>,
            $($(#[$field_meta])* $field: $type),*
        }

        impl $crate::spec::Grouped for $name {
            fn common(&self) -> $crate::spec::Common {
                $crate::spec::Common {
                    name: self.name.clone(),
                    points: self.points.map(|points| points.0),
                    visibility: self.visibility,
                    hint: self.hint.clone(),
                    diagnose: self
                        .diagnose
                        .unwrap_or($crate::spec::Diagnose::default_for(self.visibility)),
                    timeout_ms: self.timeout_ms.map(|timeout| timeout.0),
                    stall_ms: self.stall_ms.map(|stall| stall.0),
                    scoring: self.scoring,
                    student_tests: self.student_tests.clone(),
                }
            }

            fn sources(&self) -> Vec<(&'static str, bool)> {
                vec![$((stringify!($source), self.$source.is_some())),+]
            }
        }
    };
}

/// What names a case and what it is worth: the fields every case has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub name: String,
    /// The case's id in test names instead of its name's slug, so that renaming a case
    /// keeps its results' id.
    pub id: Option<String>,
    /// Its share of the group's points against the other cases' weights.
    pub weight: u32,
}

impl Label {
    /// A test of weight 1 named `name`, with no id of its own.
    pub fn named(name: impl Into<String>) -> Label {
        Label {
            name: name.into(),
            id: None,
            weight: 1,
        }
    }
}

/// A case of some assignment, which has the common fields.
pub trait Labelled {
    fn label(&self) -> Label;
}

/// Declares an assignment's case: the common fields (`name`, `id`, `weight`) and its own,
/// every other refused.
macro_rules! spec_case {
    ($name:ident { $($(#[$field_meta:meta])* $field_vis:vis $field:ident : $type:ty),* $(,)? }) => {
        #[derive(serde::Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// The case's name, as reports show it.
            pub(crate) name: String,
            /// The case's id in test names instead of its name's slug, so that renaming the
            /// case keeps its results' id.
            pub(crate) id: Option<String>,
            /// Its share of the group's points against the other cases' weights; 1 unless given.
            pub(crate) weight: Option<$crate::spec::Weight>,
            $($(#[$field_meta])* $field_vis $field: $type),*
        }

        impl $crate::spec::Labelled for $name {
            fn label(&self) -> $crate::spec::Label {
                $crate::spec::Label {
                    name: self.name.clone(),
                    id: self.id.clone(),
                    weight: self.weight.map_or(1, |weight| weight.0),
                }
            }
        }
    };
}

/// The spec side of an assignment: its rules and groups, and how they become tests.
pub trait Spec: Assignment {
    /// `rules:` of a file (a group may have its own); the reference obeys them.
    type Rules: DeserializeOwned + Default + schemars::JsonSchema;
    type Group: DeserializeOwned + Grouped + schemars::JsonSchema;

    /// The tests of `group`, under the file's `rules`, or every problem found in it.
    fn tests(rules: &Self::Rules, group: Self::Group) -> Result<Vec<SpecTest<Self>>, Problems>;

    /// The `expect` that says `answer`, in the spec's own syntax: what `grader spec show`
    /// prints and `grader spec fill` writes. None for an answer that no `expect` says.
    fn expect_text(_answer: &Self::Answer) -> Option<String> {
        None
    }

    /// Grades a test of [`Grading::Driven`]: the assignment asks the runner itself.
    fn drive(
        _reference: Option<&Self::Registered>,
        _request: &Self::Request,
        _transport: std::rc::Rc<dyn Transport>,
    ) -> Driven {
        Driven {
            passed: false,
            fields: vec![Field::problem(
                "problem",
                format!("{} drives no test", Self::NAME),
            )],
            notes: Vec::new(),
        }
    }
}

/// Rules of an assignment that has none: any field is refused.
#[derive(Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoRules {}

/// How a test is graded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grading {
    /// One input written in the spec, its replies compared with the reference's.
    Listed,
    /// Generated or exhaustive inputs, streamed and compared as they arrive.
    Bulk,
    /// The assignment asks the runner itself ([`Spec::drive`]).
    Driven,
    /// The student's own tests, run by the grader ([`StudentTests`]).
    StudentTests,
}

/// One test of a group: a case (`case` names it) or the whole group.
pub struct SpecTest<A: Assignment> {
    pub case: Option<Label>,
    pub request: A::Request,
    pub grading: Grading,
    pub written: Vec<Written<A>>,
}

impl<A: Assignment> SpecTest<A> {
    /// The one test of a whole group, which writes no expectation: graded in bulk or
    /// driven.
    pub fn whole(request: A::Request, grading: Grading) -> SpecTest<A> {
        SpecTest {
            case: None,
            request,
            grading,
            written: Vec::new(),
        }
    }
}

/// Whether an answer is what a spec wrote.
pub type Agrees<T> = Box<dyn Fn(&T) -> bool + Send + Sync>;

/// What a spec wrote about reply `index`, checked against the reference's.
pub struct Written<A: Assignment> {
    pub index: usize,
    pub text: String,
    pub agrees: Agrees<A::Answer>,
}

impl<A: Assignment> Written<A> {
    /// An expectation that the answer is `answer`.
    pub fn exact(index: usize, answer: A::Answer) -> Written<A> {
        Written {
            index,
            text: answer.to_string(),
            agrees: Box::new(move |got| *got == answer),
        }
    }
}

/// A spec that cannot be used, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub at: Place,
    pub message: String,
}

/// What is wrong with a group: one problem or, in a group of cases, one per case.
pub type Problems = Vec<Problem>;

impl From<Problem> for Problems {
    fn from(problem: Problem) -> Problems {
        vec![problem]
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A line and column (1-based), where the YAML parser could tell.
    At(usize, usize),
    /// The `name:` of a group.
    Group(String),
    /// The `name:` of a case in a group.
    Case { group: String, case: String },
    /// Nowhere in particular.
    File,
}

impl Problem {
    pub fn group(group: &str, message: impl std::fmt::Display) -> Problem {
        Problem {
            at: Place::Group(group.to_string()),
            message: format!("group `{group}`: {message}"),
        }
    }

    pub fn case(group: &str, case: &str, message: impl std::fmt::Display) -> Problem {
        Problem {
            at: Place::Case {
                group: group.to_string(),
                case: case.to_string(),
            },
            message: format!("case `{case}`: {message}"),
        }
    }

    /// A YAML parser's error, its position moved from the end of its message to `at`.
    pub fn from_yaml(error: serde_yaml::Error) -> Problem {
        let location = error.location().map(|l| (l.line(), l.column()));
        let message = error.to_string();
        let message = match message.rfind(" at line ") {
            Some(cut) if location.is_some() => message[..cut].to_string(),
            _ => message,
        };
        Problem {
            at: location.map_or(Place::File, |(line, column)| Place::At(line, column)),
            message,
        }
    }
}

/// What the core asks the runner with, in a driven test: one request, one reply frame.
/// Shared (`Rc`), since a driven test may hand it to objects that outlive a borrow.
pub trait Transport {
    fn ask(&self, payload: Vec<u8>) -> Result<Vec<u8>, String>;
}

/// A driven test's outcome.
pub struct Driven {
    pub passed: bool,
    /// What a failure report shows.
    pub fields: Vec<Field>,
    /// Lines for the report beyond pass and fail, such as a strategy's win rate.
    pub notes: Vec<String>,
}

/// A field of a report, by name.
pub struct Field {
    pub name: &'static str,
    pub text: String,
    pub tone: Tone,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Plain,
    /// What went wrong.
    Problem,
}

impl Field {
    pub fn plain(name: &'static str, text: impl Into<String>) -> Field {
        Field {
            name,
            text: text.into(),
            tone: Tone::Plain,
        }
    }

    pub fn problem(name: &'static str, text: impl Into<String>) -> Field {
        Field {
            name,
            text: text.into(),
            tone: Tone::Problem,
        }
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "R: DeserializeOwned + Default, G: DeserializeOwned")
)]
#[schemars(bound = "R: schemars::JsonSchema + Default, G: schemars::JsonSchema")]
pub(crate) struct SpecFile<R, G> {
    /// The assignment the file grades.
    #[serde(rename = "assignment")]
    _assignment: String,
    /// The rules the reference plays by; a group may have its own.
    #[serde(default)]
    pub(crate) rules: R,
    #[serde(default)]
    pub(crate) defaults: Defaults,
    /// What a late submission loses, and what a student sees past a daily limit.
    pub(crate) policy: Option<Policy>,
    /// The groups of tests, each with its points, in the order reports list them.
    pub(crate) groups: Vec<G>,
}

/// The `assignment:` of a spec file.
pub fn assignment_of(text: &str) -> Result<String, Problem> {
    #[derive(Deserialize)]
    struct Head {
        assignment: String,
    }
    serde_yaml::from_str::<Head>(text)
        .map(|head| head.assignment)
        .map_err(Problem::from_yaml)
}

/// Refuses a group that gives other than exactly one of the sources named in `given`.
pub(crate) fn exactly_one(group: &str, given: &[(&str, bool)]) -> Result<(), Problem> {
    if given.iter().filter(|(_, present)| *present).count() == 1 {
        return Ok(());
    }
    let names: Vec<String> = given.iter().map(|(name, _)| format!("`{name}`")).collect();
    let listed = match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    Err(Problem::group(
        group,
        format!("needs exactly one of {listed}"),
    ))
}

/// Refuses a group of cases that lists none.
fn some_cases<T>(group: &str, cases: &[T]) -> Result<(), Problem> {
    if cases.is_empty() {
        return Err(Problem::group(group, "lists no cases"));
    }
    Ok(())
}

/// The checks a bulk group asks of every hand: at least one.
pub(crate) fn bulk_checks<C>(group: &str, checks: Option<Vec<C>>) -> Result<Vec<C>, Problem> {
    checks
        .filter(|checks| !checks.is_empty())
        .ok_or_else(|| Problem::group(group, "needs `checks:`, the methods to ask of every hand"))
}

/// An `expect` read as `T`, or a message saying what `check` returns.
pub(crate) fn expected<T: DeserializeOwned>(
    value: &serde_yaml::Value,
    check: impl std::fmt::Display,
    returns: &str,
) -> Result<T, String> {
    serde_yaml::from_value(value.clone()).map_err(|_| {
        let takes = |value| serde_yaml::from_value::<T>(value).is_ok();
        let read_as_string = value.as_str().and_then(|text| {
            read_as_string(
                text,
                takes(serde_yaml::Value::Bool(true)),
                takes(serde_yaml::Value::from(1)),
            )
        });
        match read_as_string {
            Some(why) => format!("`expect`: {why}"),
            None => format!("`expect` does not fit {check}: it returns {returns}"),
        }
    })
}

/// Why `text`, which YAML read as a string, is not the `true` or `false` (when `bool`) or
/// the number (when `number`) that was wanted: a quoted `"true"` or `"90"`, or a word
/// older YAML read as true or false (`yes`, `on`). None when it is no such slip.
pub fn read_as_string(text: &str, bool: bool, number: bool) -> Option<String> {
    let unquoted = match serde_yaml::from_str::<serde_yaml::Value>(text) {
        Ok(serde_yaml::Value::Bool(_)) => bool,
        Ok(serde_yaml::Value::Number(_)) => number,
        _ => false,
    };
    let older_yaml_bool = matches!(
        text.to_ascii_lowercase().as_str(),
        "yes" | "no" | "on" | "off" | "y" | "n"
    );
    match (unquoted, older_yaml_bool && bool) {
        (true, _) => Some(format!(
            "`{text}` was read as a string, since it is quoted; write {text} without quotes"
        )),
        (_, true) => Some(format!(
            "`{text}` was read as a string; write true or false"
        )),
        _ => None,
    }
}

/// Refuses cards that one deck does not deal: fewer or more than `sizes`, or a card twice.
pub(crate) fn dealt(
    what: &str,
    cards: &[crate::card::Card],
    sizes: RangeInclusive<usize>,
) -> Result<(), String> {
    if !sizes.contains(&cards.len()) {
        let holds = match sizes.start() == sizes.end() {
            true => format!("{}", sizes.start()),
            false => format!("{} to {}", sizes.start(), sizes.end()),
        };
        return Err(format!(
            "{what} holds {holds} cards, not {} ({})",
            cards.len(),
            crate::card::format_cards(cards)
        ));
    }
    let mut seen = std::collections::HashSet::new();
    match cards.iter().find(|card| !seen.insert(**card)) {
        Some(twice) => Err(format!(
            "{twice} is in {what} twice; one deck deals each card once"
        )),
        None => Ok(()),
    }
}

/// Cards as an `expect` lists them: `[KH, 10D]`, as a spec writes them.
pub(crate) fn cards_expect(cards: &[crate::card::Card]) -> String {
    let cards: Vec<String> = cards
        .iter()
        .map(|card| {
            let suit = card.suit().name().chars().next().unwrap_or('?');
            format!("{}{}", card.rank_label(), suit.to_ascii_uppercase())
        })
        .collect();
    format!("[{}]", cards.join(", "))
}

/// The tests of a group that lists cases or generates its inputs, one of the two: the one
/// bulk test of what `generated` makes of `generate:`, or a test per case, made by
/// `case` as [`case_tests`] does.
pub(crate) fn listed_or_generated<A: Assignment, C: Labelled, G>(
    group: &str,
    cases: Option<Vec<C>>,
    generate: Option<G>,
    generated: impl FnOnce(G) -> Result<A::Request, Problem>,
    case: impl FnMut(C) -> Result<(A::Request, Vec<Written<A>>), String>,
) -> Result<Vec<SpecTest<A>>, Problems> {
    match generate {
        Some(generate) => Ok(vec![SpecTest::whole(generated(generate)?, Grading::Bulk)]),
        None => case_tests(group, cases.unwrap_or_default(), case),
    }
}

/// Refuses a field that a group of this shape does not use, though the assignment's
/// other groups do.
pub(crate) fn unused(group: &str, given: &[(&str, bool)], shape: &str) -> Result<(), Problem> {
    match given.iter().find(|(_, present)| *present) {
        Some((field, _)) => Err(Problem::group(
            group,
            format!("`{field}` has no meaning in {shape}"),
        )),
        None => Ok(()),
    }
}

/// Refuses a field a case of this shape does not take, naming those it does.
pub(crate) fn only_fields(given: &[(&str, bool)], allowed: &[&str]) -> Result<(), String> {
    match given
        .iter()
        .find(|(field, present)| *present && !allowed.contains(field))
    {
        Some((stray, _)) => Err(format!(
            "`{stray}` has no meaning here; this case takes {}",
            allowed.join(", ")
        )),
        None => Ok(()),
    }
}

/// The tests of a group of cases, one per case: `test` makes a case's request and written
/// expectations, or says what is wrong with it; every case's problem is kept.
pub(crate) fn case_tests<A: Assignment, C: Labelled>(
    group: &str,
    cases: Vec<C>,
    mut test: impl FnMut(C) -> Result<(A::Request, Vec<Written<A>>), String>,
) -> Result<Vec<SpecTest<A>>, Problems> {
    some_cases(group, &cases)?;
    let (tests, problems): (Vec<_>, Vec<_>) = cases
        .into_iter()
        .map(|case| {
            let label = case.label();
            let refused = |message| Problem::case(group, &label.name, message);
            if label.id.as_deref().is_some_and(|id| id.trim().is_empty()) {
                return Err(refused("`id` is empty; give a short name, or none".into()));
            }
            let (request, written) = test(case).map_err(refused)?;
            Ok(SpecTest {
                case: Some(label),
                request,
                grading: Grading::Listed,
                written,
            })
        })
        .partition(Result::is_ok);
    match problems.is_empty() {
        true => Ok(tests.into_iter().flatten().collect()),
        false => Err(problems.into_iter().filter_map(Result::err).collect()),
    }
}
