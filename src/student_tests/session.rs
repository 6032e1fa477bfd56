//! The student's tests in a `grader check` session: graded once per group, when its first
//! test runs, and each of the group's tests read from that.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::grade::grade;
use super::grading::{Graded, Grading};
use super::suite;
use super::verdicts::Told;
use crate::compile::Build;
use crate::sandbox::Sandbox;
use crate::spec::student_tests::Which;
use crate::spec::{Group, TestCase};
use crate::verdict::{Failure, Verdict};

/// What grading the student's tests needs, and each group's outcome once graded.
pub struct StudentTestsRun {
    pub root: PathBuf,
    pub sandbox: Sandbox,
    pub build_timeout: Duration,
    pub shared: Option<PathBuf>,
    /// As the submission's own build: see [`Build::incremental`].
    pub incremental: bool,
    /// When the submission's time ends: a group's runs end by then too.
    pub deadline: Instant,
    graded: Mutex<HashMap<String, Arc<Graded>>>,
}

impl StudentTestsRun {
    /// The student's tests of the crate at `root`, built as `build` builds the submission.
    pub fn new(
        root: PathBuf,
        sandbox: Sandbox,
        build: &Build,
        deadline: Instant,
    ) -> StudentTestsRun {
        StudentTestsRun {
            root,
            sandbox,
            build_timeout: build.timeout,
            shared: build.shared.map(PathBuf::from),
            incremental: build.incremental,
            deadline,
            graded: Mutex::new(HashMap::new()),
        }
    }

    /// What `test` of `group`, a group of student tests, tells.
    pub fn verdict(&self, group: &Group, test: &TestCase) -> Told {
        let failed = |why: String| Told::from((Verdict::Failed(Failure::line(why)), None));
        let Some(setting) = &group.student_tests else {
            return failed("not a group of student tests".into());
        };
        let (library, bugs) = match (
            suite::library(group.assignment.name()),
            suite::bugs(group.assignment.name(), setting),
        ) {
            (Some(library), Ok(bugs)) => (library, bugs),
            (_, Err(why)) => return failed(why),
            (None, _) => return failed("no library of bugs".into()),
        };
        // By its place in the group: a student's view renames hidden tests.
        let Some(index) = group.tests.iter().position(|t| std::ptr::eq(t, test)) else {
            return failed("a test of another group".into());
        };
        let which = match index {
            0 => Which::ValidOnTheReference,
            n if n > bugs.len() => Which::PassOnYourCode,
            n => Which::Bug {
                name: &bugs[n - 1].name,
                description: &bugs[n - 1].description,
            },
        };
        let graded = {
            let Ok(mut all) = self.graded.lock() else {
                return failed("the student tests' grading was lost".into());
            };
            let graded = all.entry(group.id.clone()).or_insert_with(|| {
                let build = Build {
                    color: false,
                    timeout: self.build_timeout,
                    allowed: &[],
                    shared: self.shared.as_deref(),
                    incremental: self.incremental,
                };
                Arc::new(grade(
                    &self.root,
                    &Grading {
                        library,
                        bugs: &bugs,
                        sandbox: &self.sandbox,
                        build: &build,
                        timeout: group.timeout,
                        budget: Duration::from_secs(u64::from(setting.budget_s))
                            .min(self.deadline.saturating_duration_since(Instant::now())),
                    },
                ))
            });
            Arc::clone(graded)
        };
        graded.verdict(which)
    }
}
