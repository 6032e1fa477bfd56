//! A grading session: what the tests share while they run on the runner's threads, and
//! how each test is run.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use grader_api::Submission;
use grader_api::protocol;
use grader_api::spec::{Diagnose, Grading};

use super::args::CheckArgs;
use crate::answers::Store;
use crate::compile::{self, BuildError};
use crate::diagnosis::{self, WrongAnswers, diagnose_group};
use crate::grade;
use crate::reporter::{Event, Reporters};
use crate::results::{Caught, Results, TestResult};
use crate::runner::pool::Pool;
use crate::runner::{Launcher, Runner};
use crate::sandbox::Sandbox;
use crate::spec::{HIDDEN_GROUP, Suite, Visibility};
use crate::student_tests::{StudentTestsRun, Told};
use crate::student_text::StudentText;
use crate::verdict::{Credit, Failure, Tone, Verdict};

/// Whose report this is: a student's withholds what the spec does not let them see.
#[derive(Clone, Copy)]
pub(crate) struct View {
    pub(crate) student: bool,
    /// The due date has come.
    pub(crate) due_passed: bool,
}

impl View {
    /// Course staff's: every test in full.
    pub(crate) const STAFF: View = View {
        student: false,
        due_passed: true,
    };

    pub(crate) fn of(args: &CheckArgs, spec_due: Option<u64>) -> View {
        // Not CI: a CI job's log is the student's to read.
        let student = args.student_view || (!args.staff_view && args.format.student_reads());
        let today = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_secs() / 86_400);
        View {
            student,
            due_passed: args.due.or(spec_due).is_some_and(|due| today >= due),
        }
    }

    /// `suite` with each group this view withholds named [`HIDDEN_GROUP`] and its tests by
    /// their place among the assignment's hidden tests: a group's name says what it checks,
    /// and a case's what it asks, as plainly as their inputs do.
    pub(crate) fn name_tests(self, mut suite: Suite) -> Suite {
        let mut hidden_so_far: HashMap<&str, usize> = HashMap::new();
        for group in &mut suite.groups {
            if self.withholds(group.visibility) {
                let assignment = group.assignment.name();
                group.withheld = true;
                group.name = HIDDEN_GROUP.to_string();
                let number = hidden_so_far.entry(assignment).or_default();
                for test in &mut group.tests {
                    *number += 1;
                    test.name = format!("hidden {number}");
                    test.id = format!("{assignment}::hidden_{number}");
                }
            }
        }
        suite
    }

    pub(crate) fn withholds(self, visibility: Visibility) -> bool {
        self.student
            && match visibility {
                Visibility::Visible => false,
                Visibility::AfterDueDate => !self.due_passed,
                Visibility::Hidden | Visibility::AfterPublished => true,
            }
    }
}

/// Everything the tests share while they run on the runner's threads.
pub(crate) struct Session<'a> {
    pub(crate) suite: &'a Suite,
    pub(crate) reference: &'a Submission,
    /// Where bulk groups' answers are kept, when there is a builds folder to keep them by.
    pub(crate) answers: Option<Store>,
    /// Expected answers of every listed test, by test index; empty for bulk tests.
    pub(crate) expected: &'a [grade::Expected],
    /// The names of the assignments the submission registers.
    pub(crate) registered: Vec<String>,
    pub(crate) view: View,
    pub(crate) pool: Pool,
    /// Tests run at once, and the runners a large bulk group is split across.
    pub(crate) test_threads: usize,
    /// Taken for writing by a test split across runners, which has the cores to itself,
    /// and for reading by every other test.
    pub(crate) turns: RwLock<()>,
    /// Lines for the report beyond pass and fail, such as strategies' win rates.
    pub(crate) notes: Mutex<Vec<StudentText>>,
    /// The bugs the student's tests caught, by the index of the bug's test.
    pub(crate) caught: Mutex<BTreeMap<usize, Caught>>,
    pub(crate) results: Mutex<Vec<TestResult>>,
    /// When the submission's time is up: no test starts after it.
    pub(crate) deadline: Option<Instant>,
    /// How the student's own tests are graded, for a submission that has them to grade.
    pub(crate) student_tests: Option<Arc<StudentTestsRun>>,
    /// Whether every bulk group's wrong answers are held, as the audit keeps them for the
    /// library's bugs; else only where known mistakes are kept to diagnose them by, so that
    /// a grading with nothing to diagnose pays nothing for it.
    pub(crate) holds_every_wrong_answer: bool,
    /// The course's policy as applied to this submission: its late penalty, what a student
    /// is told.
    pub(crate) policy: crate::policy::Applied,
}

impl<'a> Session<'a> {
    /// A session of `suite`'s tests, graded on `first_runner` and as many more runners as
    /// they need from `launcher`.
    pub(crate) fn new(
        (suite, reference, expected): (&'a Suite, &'a Submission, &'a [grade::Expected]),
        (pool, first_runner): (Pool, Runner),
        view: View,
        threads: usize,
    ) -> Session<'a> {
        Session {
            suite,
            reference,
            answers: compile::builds_folder()
                .ok()
                .map(|builds| Store::default_for(&builds)),
            expected,
            registered: first_runner.hello().assignments.clone(),
            view,
            notes: Mutex::new(Vec::new()),
            caught: Mutex::new(BTreeMap::new()),
            pool: {
                pool.give_back(first_runner);
                pool
            },
            results: Mutex::new(vec![TestResult::default(); suite.tests().count()]),
            test_threads: threads,
            turns: RwLock::new(()),
            deadline: None,
            student_tests: None,
            holds_every_wrong_answer: false,
            policy: crate::policy::Applied::default(),
        }
    }

    /// Each test's result, by test index: none for a test that did not run.
    pub(crate) fn test_results(&self) -> Vec<TestResult> {
        self.results
            .lock()
            .map(|results| results.clone())
            .unwrap_or_default()
    }

    /// What the session found so far, every test of the suite in it: a test that did not
    /// run has no verdict. The one place a graded run's results are made.
    pub(crate) fn results(&self, (started, build_time): (Instant, Duration)) -> Results<'a> {
        Results {
            suite: self.suite,
            tests: self.test_results(),
            build_failure: None,
            elapsed: started.elapsed(),
            build_time,
            notes: (self
                .notes
                .lock()
                .map(|n| n.clone())
                .unwrap_or_default()
                .into_iter())
            // The policy's own notes, among those that quote the submission.
            .chain(self.policy.notes.iter().map(|note| note.as_str().into()))
            .chain(self.policy.told.words().map(StudentText::from))
            .collect(),
            caught: self
                .caught
                .lock()
                .map(|caught| caught.clone())
                .unwrap_or_default(),
            runner_starts: self.pool.starts(),
            policy: self.policy.clone(),
        }
    }

    /// Records that test `index` did not run: the submission had used its time.
    pub(crate) fn out_of_time(&self, index: usize) {
        if let Ok(mut results) = self.results.lock()
            && let Some(result) = results.get_mut(index)
            && result.verdict.is_none()
        {
            result.out_of_time = true;
        }
    }
}

/// The test threads asked for, else one per core.
pub(crate) fn test_threads(asked: Option<usize>) -> usize {
    asked
        .or_else(|| std::thread::available_parallelism().ok().map(usize::from))
        .unwrap_or(1)
        .max(1)
}

/// Runs the tests at `selected` on the session's threads, each with a runner of its own;
/// tells `reporter` of each verdict as it comes.
pub(crate) fn run_tests(session: &Session, selected: &[usize], reporters: &mut Reporters) {
    let threads = session.test_threads.clamp(1, selected.len().max(1));
    // Only a run's end writes anything that can fail.
    let _ = reporters.report(Event::RunStarted {
        suite: session.suite,
    });
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (finished, verdicts) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let finished = finished.clone();
            let next = &next;
            scope.spawn(move || {
                while let Some(&index) =
                    selected.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    if session.deadline.is_some_and(|end| Instant::now() >= end) {
                        session.out_of_time(index);
                        continue;
                    }
                    let verdict = run_test(session, index);
                    if finished.send((index, verdict)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(finished);
        // A group's verdicts are told once all of its tests are in, so that what its
        // wrong answers have in common with a known mistake is told with them.
        let group_of: Vec<usize> = (0..session.suite.groups.len())
            .flat_map(|group| std::iter::repeat_n(group, session.suite.groups[group].tests.len()))
            .collect();
        let mut selected_in = vec![0; session.suite.groups.len()];
        for &index in selected {
            selected_in[group_of[index]] += 1;
        }
        let mut waiting: Vec<Vec<(usize, Verdict)>> = vec![Vec::new(); selected_in.len()];
        let mut tell = |held: Vec<(usize, Verdict)>| {
            for (index, verdict) in held {
                if let Some((group, test)) = session.suite.tests().nth(index) {
                    let _ = reporters.report(Event::TestFinished {
                        index,
                        id: &test.id,
                        group: &group.id,
                        verdict: &verdict,
                    });
                }
            }
        };
        for (index, verdict) in verdicts {
            let group = group_of[index];
            waiting[group].push((index, verdict));
            if waiting[group].len() == selected_in[group] {
                let mut held = std::mem::take(&mut waiting[group]);
                held.sort_by_key(|(index, _)| *index);
                diagnose_held(session, group, &mut held);
                tell(held);
            }
        }
        // Groups some of whose tests ran out of time: told as they are.
        for held in waiting.into_iter().filter(|held| !held.is_empty()) {
            tell(held);
        }
    });
}

/// The name of a failure's field that names a known mistake.
const KNOWN_MISTAKE: &str = "known mistake";

/// Adds to the failures among `held`, every selected test of group `group` with its
/// verdict, the known mistakes that explain the group's wrong answers, where the group lets
/// this view be told them, and for staff, where none is found, the fingerprints of its wrong
/// answers; the session's results get them too.
fn diagnose_held(session: &Session, group: usize, held: &mut [(usize, Verdict)]) {
    let group_of = &session.suite.groups[group];
    let told = match group_of.diagnose {
        Diagnose::Everyone => true,
        Diagnose::Staff => !session.view.student,
        Diagnose::No => false,
    };
    let (true, Some(store)) = (told, &session.answers) else {
        return;
    };
    if !held
        .iter()
        .any(|(_, verdict)| matches!(verdict, Verdict::Failed(_)))
    {
        return;
    }
    let first = session.suite.groups[..group]
        .iter()
        .map(|g| g.tests.len())
        .sum::<usize>();
    let mut answered = Vec::new();
    for number in 0..group_of.tests.len() {
        answered.push(
            match held.iter().find(|(index, _)| *index == first + number) {
                Some((_, Verdict::Passed)) => None,
                Some((_, Verdict::Failed(failure))) => match &failure.wrong {
                    Some(wrong) => Some(&**wrong),
                    // A failure whose wrong answers are not known: nothing is named.
                    None => return,
                },
                // A test not graded: its answers are not known.
                None => return,
            },
        );
    }
    let checks: BTreeSet<&str> = answered.iter().flatten().flat_map(|w| w.checks()).collect();
    let mut tests = Vec::new();
    for (test, answers) in group_of.tests.iter().zip(answered) {
        let mut wrong: BTreeMap<&str, usize> = checks.iter().map(|check| (*check, 0)).collect();
        wrong.extend(answers.map(WrongAnswers::counts).unwrap_or_default());
        // Without the library's answers, nothing can be said explained or not.
        let Some(known) = diagnosis::kept_for(store, &*test.request, &wrong) else {
            return;
        };
        tests.push((answers, known));
    }
    let found = diagnose_group(&tests);
    for (index, verdict) in held.iter_mut() {
        let Verdict::Failed(failure) = verdict else {
            continue;
        };
        let Some(wrong) = failure.wrong.clone() else {
            continue;
        };
        for diagnosis in found
            .iter()
            .filter(|d| wrong.checks().any(|c| c == d.check))
        {
            failure.text(KNOWN_MISTAKE, Tone::Hint, diagnosis.words());
            failure.diagnosis.push(diagnosis.clone());
        }
        // Where a known mistake is found in the group, what else is wrong may follow from it.
        if !session.view.student && found.is_empty() {
            failure.unexplained = wrong
                .checks()
                .filter(|check| !found.iter().any(|d| d.check == *check))
                .filter_map(|check| wrong.fingerprint(check))
                .collect();
        }
        if let Ok(mut results) = session.results.lock()
            && let Some(result) = results.get_mut(*index)
        {
            result.verdict = Some(verdict.clone());
        }
    }
}

/// Grades `built` on the `selected` tests of `suite` as course staff sees them, on
/// `threads` threads at most, reporting nothing: each test's result, none for a test not
/// selected. A group of student tests is graded by `student_tests`, where given.
pub(crate) fn grade_built(
    answered: (&Suite, &Submission, &[grade::Expected]),
    sandbox: Sandbox,
    built: &compile::Built,
    selected: &[usize],
    (threads, student_tests): (usize, Option<Arc<StudentTestsRun>>),
) -> Result<Vec<TestResult>, BuildError> {
    let mut session = Session::new(answered, handshake(sandbox, built)?, View::STAFF, threads);
    session.holds_every_wrong_answer = true;
    session.student_tests = student_tests;
    run_tests(&session, selected, &mut Reporters::default());
    Ok(session.test_results())
}

/// Starts the first runner and checks it speaks our protocol and api version.
pub(crate) fn handshake(
    sandbox: Sandbox,
    built: &compile::Built,
) -> Result<(Pool, Runner), BuildError> {
    let launcher = Launcher::new(sandbox, &built.runner)
        .map_err(|e| BuildError::RunnerStart(format!("cannot set the runner up: {e}")))?;
    let (pool, runner) =
        Pool::started(launcher).map_err(|e| BuildError::RunnerStart(e.to_string()))?;
    let hello = runner.hello();
    if hello.protocol != protocol::PROTOCOL_VERSION || hello.api_version != protocol::API_VERSION {
        return Err(BuildError::ApiMismatch(format!(
            "your crate was built against grader-api {} (protocol {}), but this grader needs grader-api {} (protocol {}): point the grader-api dependency in your Cargo.toml at this cardgrade's api folder",
            if hello.api_version.is_empty() {
                "of another version"
            } else {
                &hello.api_version
            },
            hello.protocol,
            protocol::API_VERSION,
            protocol::PROTOCOL_VERSION
        )));
    }
    Ok((pool, runner))
}

/// Runs test `index`, records its verdict and returns it.
pub(crate) fn run_test(session: &Session, index: usize) -> Verdict {
    let (group, test) = session
        .suite
        .tests()
        .nth(index)
        .expect("test index from the suite itself");
    let runners = match test.grading {
        Grading::Bulk => grade::runners_for(test, session.test_threads),
        _ => 1,
    };
    let turns = &session.turns;
    let (_shared, _alone) = match runners {
        1 => (Some(turns.read().unwrap_or_else(|e| e.into_inner())), None),
        _ => (None, Some(turns.write().unwrap_or_else(|e| e.into_inner()))),
    };
    // A test's time starts with its turn.
    let started = Instant::now();
    let verdict = if test.grading == Grading::StudentTests {
        let told = match &session.student_tests {
            Some(run) => run.verdict(group, test),
            None => Told::from((
                Verdict::Failed(Failure::line("no submission to take tests from")),
                None,
            )),
        };
        if !session.view.withholds(group.visibility)
            && let Some(note) = told.note
        {
            match told.caught_by {
                Some((by, said)) => {
                    if let Ok(mut caught) = session.caught.lock() {
                        caught.insert(index, Caught { by, said, note });
                    }
                }
                None => {
                    if let Ok(mut all) = session.notes.lock() {
                        all.push(note);
                    }
                }
            }
        }
        told.verdict
    } else if !session
        .registered
        .iter()
        .any(|name| name == group.assignment.name())
    {
        Verdict::Failed(Failure::line(format!(
            "not registered: add `{}` to your submission()",
            group.assignment.registration()
        )))
    } else {
        match session.pool.take() {
            Err(error) => Verdict::Failed(Failure::line(error.to_string())),
            Ok(runner) if test.grading == Grading::Driven => {
                let (verdict, survivor, notes) =
                    grade::grade_driven(runner, session.reference, group, test);
                // A hidden test's notes name what it played against.
                if !session.view.withholds(group.visibility)
                    && let Ok(mut all) = session.notes.lock()
                {
                    all.extend(notes);
                }
                match survivor {
                    Some(runner) => session.pool.settle(runner, verdict),
                    None => verdict,
                }
            }
            Ok(runner) if test.grading == Grading::Bulk => {
                let mut all = vec![runner];
                // Fewer runners than asked for still grade the whole group.
                all.extend((1..runners).map_while(|_| session.pool.take().ok()));
                let holds_wrong = session.holds_every_wrong_answer
                    || session
                        .answers
                        .as_ref()
                        .is_some_and(|store| diagnosis::is_kept(store, &*test.request));
                let (verdict, survived) = grade::grade_bulk(
                    &mut all,
                    session.reference,
                    (session.answers.as_ref(), holds_wrong),
                    group,
                    test,
                );
                all.into_iter()
                    .zip(survived)
                    .fold(verdict, |verdict, (runner, survived)| match survived {
                        true => session.pool.settle(runner, verdict),
                        false => verdict,
                    })
            }
            Ok(mut runner) => {
                let grade = |runner: &mut Runner| {
                    grade::grade_listed(
                        runner,
                        session.reference,
                        group,
                        test,
                        &session.expected[index],
                    )
                };
                let reused = runner.has_answered();
                let (mut verdict, mut survived) = grade(&mut runner);
                // Something an earlier test left running may have killed a reused runner:
                // this test gets a fresh one before it is blamed.
                if !survived
                    && reused
                    && let Ok(mut fresh) = session.pool.start()
                {
                    (verdict, survived) = grade(&mut fresh);
                    runner = fresh;
                }
                if survived {
                    session.pool.settle(runner, verdict)
                } else {
                    verdict
                }
            }
        }
    };
    let verdict = match verdict {
        Verdict::Failed(failure) if session.view.withholds(group.visibility) => {
            let until = match group.visibility {
                Visibility::AfterDueDate => " until the due date",
                _ => "",
            };
            // The points it earns stay; what it found is withheld, its count of wrong
            // answers too.
            let mut withheld = Failure {
                credit: failure.credit.map(|credit| Credit {
                    tally: "wrong answers not shown".into(),
                    ..credit
                }),
                trouble: failure.trouble,
                ..Failure::line(format!(
                    "this hidden test failed; its input, expected answer and your output are not shown{until}"
                ))
            };
            // Kept for a diagnosis, which names a mistake, never an input or an answer.
            withheld.wrong = failure.wrong;
            Verdict::Failed(withheld)
        }
        verdict => verdict,
    };
    if let Ok(mut results) = session.results.lock() {
        results[index] = TestResult {
            verdict: Some(verdict.clone()),
            duration: started.elapsed(),
            out_of_time: false,
        };
    }
    verdict
}
