//! What the test runner tells its reporters, and the reporters: the runner and the
//! reporters are joined only by [`Event`], as in cargo-nextest, so every format runs its
//! tests the same way, in parallel, and every result leaves the grader through a reporter.

use crate::results::Results;
use crate::spec::Suite;
use crate::student_text::StudentText;
use crate::verdict::Verdict;

pub mod github_log;
// The reporters use `Event` and `Reporter` from here, so they are named by their own paths
// (`reporter::libtest::Libtest`), not re-exported: this file sits beneath them.
pub mod libtest;
pub mod written;

/// What happened in a run, in order.
#[derive(Clone, Copy)]
pub enum Event<'a> {
    /// The tests of `suite` that the filters select are about to run.
    RunStarted { suite: &'a Suite },
    TestFinished {
        /// Its place in the suite, counting every test.
        index: usize,
        id: &'a str,
        /// The id of the test's group, `assignment::group`, as a filter selects it.
        group: &'a str,
        verdict: &'a Verdict,
    },
    /// The submission did not build, or its runner did not start: `error` in full, and
    /// `summary` in a few words, which every test's failure gives.
    BuildFailed {
        error: &'a StudentText,
        summary: &'a str,
    },
    /// Grading stopped before any test could run (a spec that does not load, a path that is
    /// not a crate, a bad flag): `why`, which a promised results file says.
    Stopped { why: &'a str },
    /// The run is over, graded or not: what it found, every test of the suite in it.
    RunFinished { results: &'a Results<'a> },
}

pub trait Reporter: Send {
    /// Takes in an event; an error is a result that could not be written.
    fn report(&mut self, event: Event<'_>) -> Result<(), String>;
}

/// Every reporter of a run, told each event in turn.
#[derive(Default)]
pub struct Reporters(pub Vec<Box<dyn Reporter>>);

impl Reporters {
    /// Tells every reporter, even after one fails; gives the first failure.
    pub fn report(&mut self, event: Event<'_>) -> Result<(), String> {
        let mut first_error = None;
        for reporter in &mut self.0 {
            let told = reporter.report(event);
            if let Err(error) = told {
                first_error.get_or_insert(error);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}
