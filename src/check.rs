//! `grader check`: build the submission's runner, run every test, report and score.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Mutex, RwLock};
use std::time::{Duration, Instant};

use colored::Colorize;
use grader_api::protocol;
use grader_api::spec::Grading;
use grader_api::{ASSIGNMENTS, Submission};

use crate::answers::Store;
use crate::compile::{self, BuildError};
use crate::exit::{self, Stop};
use crate::grade;
use crate::reporter::{Event, Github, Libtest, Reporter, Reporters, ResultsFile, ResultsOnStdout};
use crate::results::{self, Results, TestResult};
use crate::runner::{Launcher, Runner, StartError};
use crate::sandbox::{Mode, Sandbox};
use crate::spec::{self, SpecError, SpecErrors, Suite, Visibility};
use crate::verdict::{Failure, Verdict};
use libtest_mimic::{Arguments, FormatSetting, Trial};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One line per test, then failures and the score.
    Pretty,
    /// One character per test, then failures and the score.
    Terse,
    /// Gradescope's results.json.
    Gradescope,
    /// cardgrade's own results schema (see README).
    Json,
    /// JUnit XML, for CI test viewers.
    Junit,
    /// The pretty report, then GitHub annotations for failures; appends a Markdown summary
    /// to $GITHUB_STEP_SUMMARY and GitHub Classroom's `result` to $GITHUB_OUTPUT.
    Github,
}

impl Format {
    /// Results for a machine, which stdout carries alone unless `--output` names a file.
    fn is_machine(self) -> bool {
        matches!(self, Format::Gradescope | Format::Json | Format::Junit)
    }

    /// Results for course staff: every assignment of the specs is graded, so every
    /// submission of a class has the same maximum.
    pub(crate) fn is_staff(self) -> bool {
        !matches!(self, Format::Pretty | Format::Terse)
    }

    /// A report the student reads: in a terminal, or in the log, annotations, job summary
    /// and Classroom result of a GitHub Actions job, all of which the student can open.
    fn student_reads(self) -> bool {
        matches!(self, Format::Pretty | Format::Terse | Format::Github)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Debug, clap::Args)]
pub struct CheckArgs {
    /// The submission crate to grade. A plain name that is not a folder is taken as FILTER.
    #[arg(default_value = ".")]
    pub path: PathBuf,
    /// Run only tests whose names contain FILTER (like `cargo test FILTER`).
    pub filter: Option<String>,
    /// Match FILTER against whole test names.
    #[arg(long)]
    pub exact: bool,
    /// Skip tests whose names contain this (repeatable).
    #[arg(long, value_name = "FILTER")]
    pub skip: Vec<String>,
    /// List the tests that would run and exit. For a student's own report this builds the
    /// crate first, to list only the assignments its submission() registers; with
    /// --spec, --assignment or a staff format it lists every test of the specs unbuilt.
    #[arg(long)]
    pub list: bool,
    /// Grade, then grade again each time a file of the crate is saved (Ctrl-C stops).
    #[arg(long)]
    pub watch: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    pub format: Format,
    /// Write the gradescope, json, junit or (github) Classroom results to FILE, even when
    /// grading stops early; the human report still goes to the terminal.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Tests run at once, each with its own runner process [default: the number of cores].
    #[arg(long, value_name = "N")]
    pub test_threads: Option<usize>,
    /// Color the report.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Spec files, or folders of them, to grade against (repeatable) [default: the
    /// built-in specs].
    #[arg(long = "spec", value_name = "PATH")]
    pub specs: Vec<PathBuf>,
    /// Spec files, or folders of them, to grade with on top of the built-in specs (or of
    /// --spec): a group named as one already loaded, of the same assignment, replaces it
    /// (repeatable).
    #[arg(long = "add-spec", value_name = "PATH")]
    pub added_specs: Vec<PathBuf>,
    /// Per-test timeout in milliseconds, replacing each spec's default.
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// Grade only this assignment (repeatable) [default: those the submission registers;
    /// with --format gradescope or json, every assignment of the specs].
    #[arg(long = "assignment", value_name = "NAME", value_parser = assignment_name)]
    pub assignments: Vec<String>,
    /// `strict` refuses to grade unless every sandbox layer is present (`grader doctor` lists them).
    #[arg(long, value_enum, default_value_t = Mode::Auto)]
    pub sandbox: Mode,
    /// Stop a build (cargo, build scripts, proc macros) that takes longer than this
    /// [default: the specs' `defaults: { build_timeout_s }`, else 300].
    #[arg(long, value_name = "SECS")]
    pub build_timeout: Option<u64>,
    /// Let the submission depend on this crate too (repeatable), as a spec's
    /// `defaults: { allow_dependencies }` does; it must be in the local cargo cache, since
    /// builds are offline.
    #[arg(long = "allow-dependency", value_name = "NAME")]
    pub allowed_dependencies: Vec<String>,
    /// Grade as a student sees it: tests of hidden groups (and of after_due_date groups
    /// before --due) run and count, but their input, expected answer and your output are
    /// not shown, nor their names. The default of every report a student reads: pretty,
    /// terse and github, in CI as anywhere.
    #[arg(long, conflicts_with = "staff_view")]
    pub student_view: bool,
    /// Show every test in full, hidden ones included (the default of the gradescope, json
    /// and junit results, which are staff's; Gradescope's keep each test's visibility).
    #[arg(long)]
    pub staff_view: bool,
    /// The due date (YYYY-MM-DD, UTC): from that day on, a student's view shows
    /// after_due_date groups in full [default: the specs' `defaults: { due }`].
    #[arg(long, value_name = "DATE", value_parser = spec::due_date)]
    pub due: Option<u64>,
    /// The submission's time, build included (`90`, `1.5`, `10m`): past it no test
    /// starts, and the rest are "not run: the submission used its time"; a test still
    /// running a little after it is cut, and the results are written [default: none].
    #[arg(long, value_name = "SECS", value_parser = budget)]
    pub submission_budget: Option<Duration>,
}

/// How long a test may run past the submission's budget before the results are written
/// without it: tests have timeouts of their own, so this only cuts a long bulk group.
const PAST_BUDGET: Duration = Duration::from_secs(10);

/// A time budget as `--submission-budget` takes it: seconds, or minutes with `m`.
pub fn budget(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.strip_suffix('m') {
        Some(minutes) => (minutes, 60.0),
        None => (text.strip_suffix('s').unwrap_or(text), 1.0),
    };
    number
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite() && *n > 0.0)
        .and_then(|n| Duration::try_from_secs_f64(n * unit).ok())
        .ok_or_else(|| {
            format!("`{text}` is not a time budget: write seconds (90, 1.5) or minutes (10m)")
        })
}

/// Whose report this is: a student's withholds what the spec does not let them see.
#[derive(Clone, Copy)]
struct View {
    student: bool,
    /// The due date has come.
    due_passed: bool,
}

impl View {
    /// Course staff's: every test in full.
    const STAFF: View = View {
        student: false,
        due_passed: true,
    };

    fn of(args: &CheckArgs, spec_due: Option<u64>) -> View {
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

    /// `suite` with each test this view withholds named by its place in its group: a case's
    /// name says what it asks as plainly as its input does.
    fn name_tests(self, mut suite: Suite) -> Suite {
        for group in &mut suite.groups {
            if self.withholds(group.visibility) {
                for (number, test) in (1..).zip(&mut group.tests) {
                    test.name = format!("hidden {number}");
                    test.id = format!("{}::hidden_{number}", group.id);
                }
            }
        }
        suite
    }

    fn withholds(self, visibility: Visibility) -> bool {
        self.student
            && match visibility {
                Visibility::Visible => false,
                Visibility::AfterDueDate => !self.due_passed,
                Visibility::Hidden | Visibility::AfterPublished => true,
            }
    }
}

/// The assignments `suite` grades, in order; an error naming one of those `asked` for
/// (by `--assignment`) that it does not grade.
pub(crate) fn assignments_of<'s>(
    suite: &'s Suite,
    asked: &[String],
) -> Result<Vec<&'s str>, String> {
    let mut held: Vec<&str> = suite.groups.iter().map(|g| g.assignment.name()).collect();
    held.dedup();
    match asked.iter().find(|name| !held.contains(&name.as_str())) {
        Some(missing) => Err(format!(
            "--assignment {missing}: no spec grades it; the specs hold {}",
            held.join(", ")
        )),
        None => Ok(held),
    }
}

/// An assignment's name as `--assignment` takes it: one of the assignments there are.
pub(crate) fn assignment_name(text: &str) -> Result<String, String> {
    match grader_api::assignment(text.trim()) {
        Some(unit) => Ok(unit.name().to_string()),
        None => {
            let names: Vec<&str> = ASSIGNMENTS.iter().map(|unit| unit.name()).collect();
            Err(format!(
                "`{text}` is not an assignment; expected one of: {}",
                names.join(", ")
            ))
        }
    }
}

/// Everything the tests share while they run on the runner's threads.
struct Session<'a> {
    suite: &'a Suite,
    reference: &'a Submission,
    /// Where bulk groups' answers are kept, when there is a builds folder to keep them by.
    answers: Option<Store>,
    /// Expected answers of every listed test, by test index; empty for bulk tests.
    expected: &'a [grade::Expected],
    /// The names of the assignments the submission registers.
    registered: Vec<String>,
    view: View,
    pool: Pool,
    /// Tests run at once, and the runners a large bulk group is split across.
    test_threads: usize,
    /// Taken for writing by a test split across runners, which has the cores to itself,
    /// and for reading by every other test.
    turns: RwLock<()>,
    /// Lines for the report beyond pass and fail, such as strategies' win rates.
    notes: Mutex<Vec<String>>,
    results: Mutex<Vec<TestResult>>,
    /// When the submission's time is up: no test starts after it.
    deadline: Option<Instant>,
}

impl<'a> Session<'a> {
    /// A session of `suite`'s tests, graded on `first_runner` and as many more runners as
    /// they need from `launcher`.
    fn new(
        (suite, reference, expected): (&'a Suite, &'a Submission, &'a [grade::Expected]),
        (launcher, first_runner): (Launcher, Runner),
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
            pool: Pool {
                launcher,
                idle: Mutex::new(vec![first_runner]),
            },
            results: Mutex::new(vec![TestResult::default(); suite.tests().count()]),
            test_threads: threads,
            turns: RwLock::new(()),
            deadline: None,
        }
    }

    /// Each test's result, by test index: none for a test that did not run.
    fn test_results(&self) -> Vec<TestResult> {
        self.results
            .lock()
            .map(|results| results.clone())
            .unwrap_or_default()
    }

    /// What the session found so far, every test of the suite in it: a test that did not
    /// run has no verdict. The one place a graded run's results are made.
    fn results(&self, (started, build_time): (Instant, Duration)) -> Results<'a> {
        Results {
            suite: self.suite,
            tests: self.test_results(),
            build_failure: None,
            elapsed: started.elapsed(),
            build_time,
            notes: self.notes.lock().map(|n| n.clone()).unwrap_or_default(),
            not_graded: Vec::new(),
        }
    }

    /// Records that test `index` did not run: the submission had used its time.
    fn out_of_time(&self, index: usize) {
        if let Ok(mut results) = self.results.lock()
            && let Some(result) = results.get_mut(index)
            && result.verdict.is_none()
        {
            result.out_of_time = true;
        }
    }
}

/// Idle runners; a test takes one, or starts one, and gives it back if it survived.
struct Pool {
    launcher: Launcher,
    idle: Mutex<Vec<Runner>>,
}

impl Pool {
    fn take(&self) -> Result<Runner, StartError> {
        let idle = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        match idle {
            Some(runner) => Ok(runner),
            None => self.start(),
        }
    }

    fn start(&self) -> Result<Runner, StartError> {
        self.launcher.start()
    }

    fn give_back(&self, runner: Runner) {
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(runner);
        }
    }

    /// Takes back a runner that survived its test, unless the test left something running
    /// or hit a limit of the runner's tree: then the test fails saying so, and the runner
    /// goes, with everything it started.
    fn settle(&self, mut runner: Runner, verdict: Verdict) -> Verdict {
        let Some(note) = runner.after_test() else {
            self.give_back(runner);
            return verdict;
        };
        drop(runner);
        match verdict {
            Verdict::Passed => Verdict::Failed(Failure::line(note)),
            Verdict::Failed(failure) => Verdict::Failed(failure.then(Failure::line(note))),
        }
    }
}

pub fn run(args: CheckArgs) -> ExitCode {
    if args.watch {
        return crate::watch::run(args);
    }
    let mut promised = written_reporters(&args, &args.path);
    grade(args).unwrap_or_else(|stop| {
        // A results file is promised whatever happens (Gradescope reads one).
        if !stop.results_written()
            && let Err(error) = promised.report(Event::Stopped {
                why: &stop.to_string(),
            })
        {
            eprintln!("error: {error}");
        }
        stop.report()
    })
}

/// The reporters that write results for machines and CI, as `args` ask: a results file,
/// results on stdout, GitHub's files.
fn written_reporters(args: &CheckArgs, root: &Path) -> Reporters {
    let submission = root.display().to_string();
    let mut reporters: Vec<Box<dyn Reporter>> = Vec::new();
    if args.format == Format::Github {
        reporters.push(Box::new(Github));
    }
    match &args.output {
        Some(path) => reporters.push(Box::new(ResultsFile {
            format: args.format,
            path: path.clone(),
            submission,
        })),
        None if args.format.is_machine() => reporters.push(Box::new(ResultsOnStdout {
            format: args.format,
            submission,
        })),
        None => {}
    }
    Reporters(reporters)
}

fn grade(mut args: CheckArgs) -> Result<ExitCode, Stop> {
    let started = Instant::now();
    let color = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    };
    colored::control::set_override(color);
    if !args.path.exists() {
        let path = args.path.display().to_string();
        // `grader check has_pair` filters, as `cargo test has_pair` does; `./my-crate` is a path.
        if args.filter.is_some() || path.contains('/') || path.starts_with('.') {
            return Err(Stop::Usage(format!(
                "{path} does not exist: pass the folder of your crate"
            )));
        }
        args.filter = Some(path);
        args.path = PathBuf::from(".");
    }
    let machine_only = args.format.is_machine() && args.output.is_none();

    let suite = spec::load(
        &args.specs,
        &args.added_specs,
        args.timeout_ms.map(Duration::from_millis),
    )
    .map_err(|error| Stop::Spec(error.to_string()))?;
    let suite = if args.assignments.is_empty() {
        suite
    } else {
        assignments_of(&suite, &args.assignments).map_err(Stop::Usage)?;
        suite.only(|assignment| args.assignments.iter().any(|name| name == assignment))
    };
    let reference = reference::submission();
    let (expected, contradicted) = expectations(&suite, &reference);
    if !contradicted.is_empty() {
        return Err(Stop::Spec(SpecErrors(contradicted).to_string()));
    }
    let view = View::of(&args, suite.due);
    // Specs given to staff are being written: what lint would warn of is said (the
    // built-in ones lint clean). Not to a student, whom it would tell of hidden cases.
    if !view.student && (!args.specs.is_empty() || !args.added_specs.is_empty()) {
        for warning in crate::lint::warnings(&suite, &expected, args.due.is_some()) {
            eprintln!("{warning}");
        }
    }
    let suite = view.name_tests(suite);
    let filters = Arguments {
        filter: args.filter.clone(),
        exact: args.exact,
        skip: args.skip.clone(),
        format: Some(match args.format {
            Format::Terse => FormatSetting::Terse,
            _ => FormatSetting::Pretty,
        }),
        ..Arguments::default()
    };
    refuse_if_none_selected(&args, &filters, &suite, &[])?;
    // Staff results, given specs and named assignments grade every test of the specs; a
    // student's own report grades only what the submission registers, known once built.
    let graded_as_registered =
        !args.format.is_staff() && args.specs.is_empty() && args.assignments.is_empty();
    if args.list && !graded_as_registered {
        list(&filters, &suite);
        return Ok(ExitCode::from(exit::PASSED));
    }

    let submission = match compile::locate(&args.path) {
        Ok(submission) => submission,
        Err(error) => {
            let stop = Stop::NotACrate(error.to_string());
            if args.output.is_some() {
                let results = Results::nothing_graded(
                    &suite,
                    "not a crate",
                    &stop.to_string(),
                    started.elapsed(),
                );
                written_reporters(&args, &args.path)
                    .report(Event::RunFinished { results: &results })
                    .map_err(Stop::Usage)?;
            }
            return Err(stop);
        }
    };
    let sandbox = sandbox_for(args.sandbox).map_err(Stop::Usage)?;
    if !machine_only {
        eprintln!(
            "{:>12} runner for {} (release)",
            "Building".green().bold(),
            submission.package
        );
    }
    let mut reporters = written_reporters(&args, &submission.root);
    if !machine_only {
        reporters
            .0
            .insert(0, Box::new(Libtest::new(&filters, color)));
    }
    let build_started = Instant::now();
    let shared = compile::shared_builds();
    let allowed: Vec<String> = args
        .allowed_dependencies
        .iter()
        .chain(&suite.allowed_dependencies)
        .cloned()
        .collect();
    let build = compile::Build {
        color,
        timeout: args
            .build_timeout
            .map(Duration::from_secs)
            .or(suite.build_timeout)
            .unwrap_or(compile::DEFAULT_BUILD_TIMEOUT),
        allowed: &allowed,
        shared: shared.as_deref(),
    };
    let built = compile::build(&submission, &sandbox, &build);
    let build_time = build_started.elapsed();
    let ready = built.and_then(|built| handshake(sandbox, &built));
    let (launcher, first_runner) = match ready {
        Ok(ready) => ready,
        Err(error) => return build_failed(&mut reporters, &suite, &error, started),
    };
    if !machine_only {
        eprintln!(
            "{:>12} in {:.2}s",
            "Built".green().bold(),
            build_time.as_secs_f64()
        );
    }
    let registered = first_runner.hello().assignments.clone();
    let is_registered = |name: &str| registered.iter().any(|r| r == name);
    // Staff results keep every assignment, so every submission of a class has the same
    // maximum; a student's own report grades what the submission implements.
    let mut not_graded: Vec<&str> = Vec::new();
    if graded_as_registered {
        for group in &suite.groups {
            let name = group.assignment.name();
            if !is_registered(name) && !not_graded.contains(&name) {
                not_graded.push(name);
            }
        }
    }
    let (suite, expected) = if !not_graded.is_empty() {
        let kept: Vec<bool> = suite
            .tests()
            .map(|(group, _)| is_registered(group.assignment.name()))
            .collect();
        let expected = expected
            .into_iter()
            .zip(&kept)
            .filter(|(_, keep)| **keep)
            .map(|(e, _)| e)
            .collect();
        (suite.only(is_registered), expected)
    } else {
        (suite, expected)
    };
    if suite.groups.is_empty() {
        let names: Vec<&str> = ASSIGNMENTS.iter().map(|a| a.registration()).collect();
        return Err(Stop::NothingRegistered(format!(
            "your submission() registers no assignment to grade: add one of {}",
            names.join(", ")
        )));
    }
    refuse_if_none_selected(&args, &filters, &suite, &not_graded)?;
    if args.list {
        list(&filters, &suite);
        return Ok(ExitCode::from(exit::PASSED));
    }
    let session = Session {
        deadline: args.submission_budget.map(|budget| started + budget),
        ..Session::new(
            (&suite, &reference, &expected),
            (launcher, first_runner),
            view,
            test_threads(args.test_threads),
        )
    };

    let selected: Vec<usize> = (0..)
        .zip(session.suite.tests())
        .filter(|(_, (_, test))| selects(&filters, &test.id))
        .map(|(index, _)| index)
        .collect();
    let (run_ended, ended) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        if let Some(deadline) = session.deadline {
            let (session, selected, args) = (&session, &selected, &args);
            let root = &submission.root;
            scope.spawn(move || {
                let cut = (deadline + PAST_BUDGET).saturating_duration_since(Instant::now());
                if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = ended.recv_timeout(cut) {
                    write_cut_short(session, selected, args, root, (started, build_time));
                }
            });
        }
        run_tests(&session, &selected, &mut reporters);
        drop(run_ended);
    });
    drop(session.pool.idle.lock().map(|mut idle| idle.clear()));
    let results = Results {
        not_graded,
        ..session.results((started, build_time))
    };
    reporters
        .report(Event::RunFinished { results: &results })
        .map_err(Stop::Usage)?;
    let all_passed = results
        .tests
        .iter()
        .all(|r| !matches!(r.verdict, Some(Verdict::Failed(_))));
    Ok(ExitCode::from(
        if all_passed && results.out_of_time() == 0 {
            exit::PASSED
        } else {
            exit::FAILED
        },
    ))
}

/// A test still runs well past the submission's budget: the results are written with what
/// is done, every other test not run for lack of time, and the grader exits, which takes
/// every runner with it.
fn write_cut_short(
    session: &Session,
    selected: &[usize],
    args: &CheckArgs,
    root: &Path,
    (started, build_time): (Instant, Duration),
) -> ! {
    for &index in selected {
        session.out_of_time(index);
    }
    let results = session.results((started, build_time));
    if !args.format.is_machine() || args.output.is_some() {
        eprintln!(
            "the submission used its time ({} tests not run)",
            results.out_of_time()
        );
    }
    let written = written_reporters(args, root).report(Event::RunFinished { results: &results });
    let code = match written {
        Ok(()) => exit::FAILED,
        Err(error) => Stop::Usage(error).exit_code_reported(),
    };
    std::process::exit(i32::from(code))
}

/// The test threads asked for, else one per core.
fn test_threads(asked: Option<usize>) -> usize {
    asked
        .or_else(|| std::thread::available_parallelism().ok().map(usize::from))
        .unwrap_or(1)
        .max(1)
}

/// Runs the tests at `selected` on the session's threads, each with a runner of its own;
/// tells `reporter` of each verdict as it comes.
fn run_tests(session: &Session, selected: &[usize], reporters: &mut Reporters) {
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
        for (index, verdict) in verdicts {
            if let Some((group, test)) = session.suite.tests().nth(index) {
                let _ = reporters.report(Event::TestFinished {
                    index,
                    id: &test.id,
                    group: &group.id,
                    verdict: &verdict,
                });
            }
        }
    });
}

/// A watch on the reference answering tests. A reference answer that takes longer than its
/// group's timeout is a spec error; the trusted reference cannot be stopped, so the grader
/// stops, at the timeout where the reference hangs, or as soon as it answers late.
pub(crate) struct ReferenceWatch(std::sync::mpsc::Sender<Option<(String, Instant, Duration)>>);

impl ReferenceWatch {
    pub(crate) fn new() -> ReferenceWatch {
        let (sender, answering) = std::sync::mpsc::channel::<Option<(String, Instant, Duration)>>();
        std::thread::spawn(move || {
            while let Ok(started) = answering.recv() {
                let Some((test, deadline, limit)) = started else {
                    continue;
                };
                // From when the reference started, however late this thread was woken.
                let left = deadline.saturating_duration_since(Instant::now());
                if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                    answering.recv_timeout(left)
                {
                    reference_too_slow(&test, limit);
                }
            }
        });
        ReferenceWatch(sender)
    }

    /// Runs `answer`, the reference answering test `test` of a group whose timeout is `limit`.
    pub(crate) fn answering<T>(
        &self,
        test: &str,
        limit: Duration,
        answer: impl FnOnce() -> T,
    ) -> T {
        let started = Instant::now();
        let _ = self
            .0
            .send(Some((test.to_string(), started + limit, limit)));
        let answered = answer();
        let _ = self.0.send(None);
        if started.elapsed() > limit {
            reference_too_slow(test, limit);
        }
        answered
    }
}

/// Stops the grader: the reference took longer than test `test`'s group allows.
fn reference_too_slow(test: &str, limit: Duration) -> ! {
    let stop = Stop::Spec(format!(
        "test {test}: the reference took more than its group's timeout of {} ms to answer; give the group a larger `timeout_ms`, or the case less to do",
        limit.as_millis()
    ));
    std::process::exit(i32::from(stop.exit_code_reported()))
}

/// Answers the reference gives to every listed test, and every `expect` they contradict.
pub(crate) fn expectations(
    suite: &Suite,
    reference: &Submission,
) -> (Vec<grade::Expected>, Vec<SpecError>) {
    let watch = ReferenceWatch::new();
    let mut all = Vec::new();
    let mut contradicted = Vec::new();
    for (group, test) in suite.tests() {
        if test.grading != Grading::Listed {
            all.push(Vec::new());
            continue;
        }
        let expected = watch.answering(&test.id, group.timeout, || {
            grade::reference_answers(reference, &*test.request)
        });
        for written in &test.written {
            let answer = expected
                .first()
                .and_then(|(_, replies)| replies.get(written.index));
            if answer.is_some_and(|frame| (written.agrees)(frame)) {
                continue;
            }
            contradicted.push(SpecError {
                file: test.file.clone(),
                location: test.location,
                message: format!(
                    "case `{}` expects {}, but the reference answers {}; fix the `expect`, or remove it to let the reference answer",
                    test.name,
                    written.text,
                    answer
                        .map(|frame| test.request.show(frame))
                        .unwrap_or_else(|| "nothing".into())
                        .replace('\n', "; ")
                ),
            });
        }
        all.push(expected);
    }
    (all, contradicted)
}

/// The sandbox of this machine, refused in strict mode when a layer is missing; in auto
/// mode a missing layer is named in one warning line.
pub(crate) fn sandbox_for(mode: Mode) -> Result<Sandbox, String> {
    let sandbox = Sandbox::probe().map_err(|error| format!("cannot probe the sandbox: {error}"))?;
    let missing = sandbox.layers().missing();
    match (mode, sandbox.layers().warning()) {
        (_, None) => {}
        (Mode::Strict, Some(_)) => {
            return Err(format!(
                "--sandbox strict: this machine lacks {}; `grader doctor` lists the layers",
                missing.join(", ")
            ));
        }
        (Mode::Auto, Some(warning)) => eprintln!("{} {warning}", "warning:".yellow().bold()),
    }
    Ok(sandbox)
}

/// Grades `built` on the `selected` tests of `suite` as course staff sees them, on
/// `threads` threads at most, reporting nothing: each test's result, none for a test not
/// selected.
pub(crate) fn grade_built(
    answered: (&Suite, &Submission, &[grade::Expected]),
    sandbox: Sandbox,
    built: &compile::Built,
    selected: &[usize],
    threads: usize,
) -> Result<Vec<TestResult>, BuildError> {
    let session = Session::new(answered, handshake(sandbox, built)?, View::STAFF, threads);
    run_tests(&session, selected, &mut Reporters::default());
    Ok(session.test_results())
}

/// Starts the first runner and checks it speaks our protocol and api version.
fn handshake(sandbox: Sandbox, built: &compile::Built) -> Result<(Launcher, Runner), BuildError> {
    let launcher = Launcher::new(sandbox, &built.runner)
        .map_err(|e| BuildError::RunnerStart(format!("cannot set the runner up: {e}")))?;
    let runner = launcher
        .start()
        .map_err(|e| BuildError::RunnerStart(e.to_string()))?;
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
    Ok((launcher, runner))
}

/// Every test fails for a build that failed: the reporters say why, and write the results.
fn build_failed(
    reporters: &mut Reporters,
    suite: &Suite,
    error: &BuildError,
    started: Instant,
) -> Result<ExitCode, Stop> {
    let (error, summary) = (error.to_string(), error.summary());
    let results = Results::nothing_graded(suite, summary, &error, started.elapsed());
    reporters
        .report(Event::BuildFailed {
            error: &error,
            summary,
        })
        .and_then(|()| reporters.report(Event::RunFinished { results: &results }))
        .map_err(Stop::Usage)?;
    Ok(ExitCode::from(exit::BUILD))
}

/// Whether `filters` select test `id`, as `cargo test` does: by a part of the name (or
/// the whole name, with `--exact`), less those `--skip` names; libtest-mimic decides, so the
/// tests run are the ones its report prints.
fn selects(filters: &Arguments, id: &str) -> bool {
    !filters.is_filtered_out(&Trial::test(id, || Ok(())))
}

/// Refuses a run whose filters select no test of `suite`, naming them and any assignments
/// left out.
fn refuse_if_none_selected(
    args: &CheckArgs,
    filters: &Arguments,
    suite: &Suite,
    not_graded: &[&str],
) -> Result<(), Stop> {
    if suite.tests().any(|(_, test)| selects(filters, &test.id)) {
        return Ok(());
    }
    let mut what = match &args.filter {
        Some(filter) if args.exact => format!("no test is named `{filter}`"),
        Some(filter) => format!("no test matches `{filter}`"),
        None if args.skip.is_empty() => "the specs hold no test to run".to_string(),
        None => "no test is left".to_string(),
    };
    if !args.skip.is_empty() {
        let skipped: Vec<String> = args.skip.iter().map(|s| format!("`{s}`")).collect();
        what.push_str(&format!(" after --skip {}", skipped.join(", ")));
    }
    if !not_graded.is_empty() {
        what.push_str(" in the assignments your submission() registers");
    }
    what.push_str(": `grader check --list` lists them");
    if let Some(line) = results::not_graded(not_graded) {
        what.push_str(&format!("\n  {line}"));
    }
    Err(Stop::NoTests(what))
}

/// Prints the tests the filters select, as `cargo test -- --list` does.
fn list(filters: &Arguments, suite: &Suite) {
    let trials = suite
        .tests()
        .map(|(_, test)| Trial::test(test.id.clone(), || Ok(())))
        .collect();
    let listing = Arguments {
        list: true,
        ..filters.clone()
    };
    // A closed pipe (`| head`) makes libtest-mimic panic, which just ends the listing.
    let _ = std::thread::spawn(move || libtest_mimic::run(&listing, trials)).join();
}

/// Runs test `index`, records its verdict and returns it.
fn run_test(session: &Session, index: usize) -> Verdict {
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
    let verdict = if !session
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
                let (verdict, survived) = grade::grade_bulk(
                    &mut all,
                    session.reference,
                    session.answers.as_ref(),
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
            // The points it earns stay; only what it found is withheld.
            Verdict::Failed(Failure {
                credit: failure.credit,
                ..Failure::line(format!(
                    "this hidden test failed; its input, expected answer and your output are not shown{until}"
                ))
            })
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
