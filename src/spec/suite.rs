//! What loading specs makes: the `Suite` of groups and their tests, which every part of the
//! grader reads, and the check that no two of its tests share an id.

use std::collections::HashMap;
use std::time::Duration;

use grader_api::Unit;
use grader_api::spec::{Grading, Policy, Visibility};
use grader_api::unit::{Asked, ParsedWritten};

pub use grader_api::spec::Scoring;

use super::errors::SpecError;
use super::places::place_in;

/// Everything the grader runs: the groups of every spec loaded.
#[derive(Default)]
pub struct Suite {
    pub groups: Vec<Group>,
    /// The longest build time any of its spec files allows, if one sets it.
    pub build_timeout: Option<Duration>,
    /// The crates any of its spec files lets a submission depend on.
    pub allowed_dependencies: Vec<String>,
    /// The latest due date its spec files give, in days since 1970-01-01.
    pub due: Option<u64>,
    /// What a late submission loses and what a student sees past a daily limit, as the
    /// one spec file that gives a policy says.
    pub policy: Option<Policy>,
    /// What loads but is likely wrong, in file order.
    pub warnings: Vec<SpecError>,
}

impl Suite {
    /// Every test with its group, in order.
    pub fn tests(&self) -> impl Iterator<Item = (&Group, &TestCase)> {
        self.groups
            .iter()
            .flat_map(|g| g.tests.iter().map(move |t| (g, t)))
    }

    /// The groups of the assignments `keep` accepts, by name.
    pub fn only(self, keep: impl Fn(&str) -> bool) -> Suite {
        Suite {
            groups: self
                .groups
                .into_iter()
                .filter(|g| keep(g.assignment.name()))
                .collect(),
            build_timeout: self.build_timeout,
            allowed_dependencies: self.allowed_dependencies,
            due: self.due,
            policy: self.policy,
            warnings: self.warnings,
        }
    }
}

/// What a report calls the groups it withholds, together: their names say what they check
/// as plainly as their cases do.
pub const HIDDEN_GROUP: &str = "hidden tests";

pub struct Group {
    pub assignment: &'static dyn Unit,
    /// `assignment::group`, as filters match it.
    pub id: String,
    pub name: String,
    pub points: f64,
    pub visibility: Visibility,
    /// The report's view withholds the group: it goes by [`HIDDEN_GROUP`], its tests by
    /// their place among the assignment's hidden tests, and its tally is not shown.
    pub withheld: bool,
    pub hint: Option<String>,
    /// Who is told the known mistakes behind its wrong answers.
    pub diagnose: grader_api::spec::Diagnose,
    pub timeout: Duration,
    /// How long a runner may go without answering one more input before it is taken as
    /// stuck (at least; see `grade::patience`).
    pub stall: Duration,
    /// How its one test earns points when some answers are wrong; a group of cases is
    /// always all or nothing per case.
    pub scoring: Scoring,
    pub tests: Vec<TestCase>,
    /// Set for a group of the student's own tests.
    pub student_tests: Option<grader_api::spec::StudentTests>,
    /// The spec file it comes from, and where its `name:` is.
    pub file: String,
    pub location: Option<(usize, usize)>,
}

/// One test: one request, reported as one line.
pub struct TestCase {
    /// `assignment::group::case`, as filters match it.
    pub id: String,
    pub name: String,
    /// Its share of the group's points against the other tests' weights.
    pub weight: u32,
    pub request: Box<dyn Asked>,
    pub grading: Grading,
    /// What the spec wrote, with the index of the answer it is about.
    pub written: Vec<ParsedWritten>,
    /// The spec file it comes from, and where in it.
    pub file: String,
    pub location: Option<(usize, usize)>,
}

/// Tests whose ids are the same: ids are slugs of names, so `Pair!` and `pair` collide,
/// and both places are said.
pub fn colliding_ids(groups: &[Group]) -> Vec<SpecError> {
    let mut seen: HashMap<&str, &TestCase> = HashMap::new();
    let mut collisions = Vec::new();
    for test in groups.iter().flat_map(|group| &group.tests) {
        let Some(first) = seen.insert(&test.id, test) else {
            continue;
        };
        collisions.push(SpecError {
            file: test.file.clone(),
            location: test.location,
            message: format!(
                "this test's id is `{}`, as is the test `{}` at {}; give one of them another name",
                test.id,
                first.name,
                place_in(&first.file, first.location)
            ),
        });
    }
    collisions
}
