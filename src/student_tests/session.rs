//! The student's tests in a `grader check` session: graded once per group, when its first
//! test runs, and each of the group's tests read from that.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::grade::grade;
use super::grading::{Graded, Grading};
use super::suite;
use super::verdicts::Told;
use reference::bugs::{Bug, Library};

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
    /// Set once no grading is wanted any more (the submission did not build): runs not
    /// started by then are not started.
    abandoned: AtomicBool,
}

/// What one group of student tests is graded against, and for how long.
struct Plan {
    id: String,
    library: &'static Library,
    bugs: Vec<Bug>,
    timeout: Duration,
    budget: Duration,
}

impl Plan {
    /// The plan of `group`; why it has none, when it is not a group of student tests of an
    /// assignment with a library of bugs.
    fn of(group: &Group) -> Result<Plan, String> {
        let Some(setting) = &group.student_tests else {
            return Err("not a group of student tests".into());
        };
        let assignment = group.assignment.name();
        let bugs = suite::bugs(assignment, setting)?;
        let library = suite::library(assignment).ok_or("no library of bugs")?;
        Ok(Plan {
            id: group.id.clone(),
            library,
            bugs,
            timeout: group.timeout,
            budget: Duration::from_secs(u64::from(setting.budget_s)),
        })
    }
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
            abandoned: AtomicBool::new(false),
        }
    }

    /// Starts grading `groups` on a thread of its own, ahead of their first test: while the
    /// submission builds and its runner starts, which the students' tests need neither of.
    /// Their tests' verdicts then wait for it, as for a grading begun by the first of them.
    pub fn grade_ahead(self: &Arc<Self>, groups: &[&Group]) {
        let plans: Vec<Plan> = groups
            .iter()
            .filter_map(|group| Plan::of(group).ok())
            .collect();
        if plans.is_empty() {
            return;
        }
        let run = Arc::clone(self);
        std::thread::spawn(move || {
            for plan in &plans {
                run.graded(plan);
            }
        });
    }

    /// No grading is wanted any more: runs not started yet are not started.
    pub fn abandon(&self) {
        self.abandoned.store(true, Ordering::Relaxed);
    }

    /// What `test` of `group`, a group of student tests, tells.
    pub fn verdict(&self, group: &Group, test: &TestCase) -> Told {
        let failed = |why: String| Told::from((Verdict::Failed(Failure::line(why)), None));
        let plan = match Plan::of(group) {
            Ok(plan) => plan,
            Err(why) => return failed(why),
        };
        // By its place in the group: a student's view renames hidden tests.
        let Some(index) = group.tests.iter().position(|t| std::ptr::eq(t, test)) else {
            return failed("a test of another group".into());
        };
        let bugs = &plan.bugs;
        let which = match index {
            0 => Which::ValidOnTheReference,
            n if n > bugs.len() => Which::PassOnYourCode,
            n => Which::Bug {
                name: &bugs[n - 1].name,
                description: &bugs[n - 1].description,
            },
        };
        match self.graded(&plan) {
            Some(graded) => graded.verdict(which),
            None => failed("the student tests' grading was lost".into()),
        }
    }

    /// The group `plan` is of, graded once: the first to ask grades it, and the others wait.
    fn graded(&self, plan: &Plan) -> Option<Arc<Graded>> {
        let mut all = self.graded.lock().ok()?;
        let graded = all.entry(plan.id.clone()).or_insert_with(|| {
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
                    library: plan.library,
                    bugs: &plan.bugs,
                    sandbox: &self.sandbox,
                    build: &build,
                    timeout: plan.timeout,
                    budget: plan
                        .budget
                        .min(self.deadline.saturating_duration_since(Instant::now())),
                    abandoned: &self.abandoned,
                },
            ))
        });
        Some(Arc::clone(graded))
    }
}
