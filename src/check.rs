//! `grader check`: build the submission's runner, run every test, report and score.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use colored::Colorize;
use grader_api::ASSIGNMENTS;

use crate::compile::{self, BuildError};
use crate::exit::{self, Stop};
use crate::reporter::libtest::Libtest;
use crate::reporter::written::{Github, ResultsFile, ResultsOnStdout};
use crate::reporter::{Event, Reporter, Reporters};
use crate::results::Results;
use crate::sandbox::{Mode, Sandbox};
use crate::spec::{self, Group, SpecErrors, Suite};
use crate::student_tests::StudentTestsRun;
use crate::student_text::StudentText;
use crate::verdict::Verdict;
use libtest_mimic::{Arguments, FormatSetting, Trial};

pub(crate) mod args;
pub(crate) mod expected;
mod session;

use args::PAST_BUDGET;
pub use args::{CheckArgs, ColorChoice, DEFAULT_BUDGET, Format, budget};
pub(crate) use args::{assignment_name, assignments_of};
pub(crate) use expected::expectations;
pub(crate) use session::grade_built;
use session::{Session, View, handshake, run_tests, test_threads};

/// Grades once; `--watch` is `watch::run`'s, which grades by this again at each save.
pub fn run(args: CheckArgs) -> ExitCode {
    let github = args.format == Format::Github;
    if github && let Err(error) = crate::reporter::github_log::start() {
        eprintln!("error: cannot render the job's log: {error}");
        return ExitCode::from(exit::USAGE);
    }
    let code = graded_or_stopped(args);
    if github {
        crate::reporter::github_log::finish();
    }
    code
}

fn graded_or_stopped(args: CheckArgs) -> ExitCode {
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
    // Its folder's name is the student's.
    let submission = StudentText::from(root.display().to_string());
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
                    stop.to_string().into(),
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
            submission.package.on_terminal()
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
        // The compiler's colours would come mixed with whatever escapes a student's
        // messages hold, which are printed made visible: colours are the grader's only.
        color: false,
        timeout: compile::build_timeout(args.build_timeout, suite.build_timeout),
        allowed: &allowed,
        shared: shared.as_deref(),
        // Only a student's own report is built again at the next save.
        incremental: !args.format.is_staff(),
    };
    let student_tests = Arc::new(StudentTestsRun::new(
        submission.root.clone(),
        sandbox.clone(),
        &build,
        started + args.submission_budget,
    ));
    let ahead: Vec<&Group> = suite
        .groups
        .iter()
        .filter(|group| group.student_tests.is_some() && !args.list)
        .filter(|group| group.tests.iter().any(|test| selects(&filters, &test.id)))
        .collect();
    student_tests.grade_ahead(&ahead);
    // However this check ends, runs of the students' tests not started by then never are.
    let _abandon = Abandon(Arc::clone(&student_tests));
    let built = compile::build(&submission, &sandbox, &build);
    let build_time = build_started.elapsed();
    let ready = built.and_then(|built| handshake(sandbox, &built));
    let (pool, first_runner) = match ready {
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
    let policy = match (&suite.policy, &args.submission_metadata, &args.submitted_at) {
        (Some(policy), Some(metadata), _) => crate::policy::apply(policy, metadata),
        (Some(policy), None, Some(time)) => crate::policy::apply_at(policy, time),
        _ => crate::policy::Applied::default(),
    };
    let session = Session {
        deadline: Some(started + args.submission_budget),
        student_tests: Some(student_tests),
        policy,
        ..Session::new(
            (&suite, &reference, &expected),
            (pool, first_runner),
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
    session.pool.clear();
    let results = session.results((started, build_time));
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

/// Every test fails for a build that failed: the reporters say why, and write the results.
fn build_failed(
    reporters: &mut Reporters,
    suite: &Suite,
    error: &BuildError,
    started: Instant,
) -> Result<ExitCode, Stop> {
    // The compiler's messages quote the submission's code.
    let (error, summary) = (StudentText::from(error.to_string()), error.summary());
    let results = Results::nothing_graded(suite, summary, error.clone(), started.elapsed());
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

/// Abandons the students' tests' grading when dropped.
struct Abandon(Arc<StudentTestsRun>);

impl Drop for Abandon {
    fn drop(&mut self) {
        self.0.abandon();
    }
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
    // Said here, where a student asks for tests of an assignment left out, and not at the
    // end of every report, where a crate made for one assignment would be told of the others.
    if !not_graded.is_empty() {
        let them = match not_graded.len() {
            1 => "it",
            _ => "them",
        };
        what.push_str(&format!(
            "\n  not graded: {} (your submission() does not register {them}; --assignment NAME grades one anyway)",
            not_graded.join(", ")
        ));
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
