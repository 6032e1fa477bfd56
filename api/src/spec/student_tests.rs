//! `student_tests:`, a group that grades the students' own tests instead of their code,
//! whatever the assignment.

use serde::Deserialize;

/// A group's `student_tests:`: the student's `#[test]`s run on the reference, on bugs of
/// the assignment's library, and on the student's own code.
#[derive(Deserialize, Debug, Clone, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StudentTests {
    /// The library's bugs a test of the student's should catch: `all`, or a list of
    /// their names (`grader spec audit` lists them).
    pub bugs: Bugs,
    /// Whether `pass_on_your_code` earns a share of the group's points (no unless given).
    #[serde(default)]
    pub grade_your_code: bool,
    /// The most seconds all of the group's runs may take together, every test on every
    /// implementation (60 unless given): the runs not started by then are named as not run.
    #[serde(default = "default_budget_s")]
    #[schemars(range(min = 1, max = 3600))]
    pub budget_s: u32,
    /// The mutants staff kept beside the spec (`grader spec audit --mutants --keep`), bugs
    /// the group may name beside the library's: read from that file, never written here.
    #[serde(skip)]
    #[schemars(skip)]
    pub kept: Vec<KeptMutant>,
}

fn default_budget_s() -> u32 {
    60
}

/// A mutant of the reference kept as a bug, as its file beside the spec holds it.
#[derive(Deserialize, serde::Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct KeptMutant {
    /// The bug's name, as `bugs:` names it.
    pub name: String,
    /// What it changes, and where.
    pub description: String,
    /// Text of the reference's module and what replaces it; each must occur exactly once.
    pub edits: Vec<KeptEdit>,
}

/// One edit of a kept mutant.
#[derive(Deserialize, serde::Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct KeptEdit {
    pub from: String,
    pub to: String,
}

/// Which bugs of the library a group grades.
#[derive(Deserialize, Debug, Clone, PartialEq, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Bugs {
    /// `all`: every bug of the assignment's library.
    All(Every),
    /// The bugs by name.
    Named(Vec<String>),
}

/// The word `all`.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Every {
    All,
}

impl Bugs {
    /// The bugs named, or None for all of them.
    pub fn named(&self) -> Option<&[String]> {
        match self {
            Bugs::All(Every::All) => None,
            Bugs::Named(names) => Some(names),
        }
    }
}
