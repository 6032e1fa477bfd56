//! `grader batch`: a class graded submission by submission, each by its own `grader check`
//! child (the same sandbox, the same results), a few at a time, sharing one dependency
//! dir; each result written as soon as it is done, so a killed batch resumes where it was.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::check;
use crate::exit;
use crate::student_text::StudentText;

mod class_report;
mod export;
mod folder;
mod gradebook;
mod intake;
mod k8s_job;
mod late;
mod manifest;
mod merge;
mod misconceptions;
mod shard;

pub use export::ExportArgs;
use folder::{
    MANIFEST, Submission, append_log, graded, results_file, results_of, results_path,
    write_atomically,
};
use gradebook::gradebook;
pub use k8s_job::K8sJobArgs;
pub use manifest::GradedWith;
use manifest::{Manifest, check_args};
pub use merge::MergeArgs;
use shard::{Shard, ShardArg};

/// Set for each `grader check` a batch starts: the batch's pid, so the check dies with it.
pub const BATCH_PARENT_ENV: &str = "CARDGRADE_BATCH_PARENT";

/// How long past its budget a `grader check` may take to write its results before the
/// batch kills it and writes them itself: the check cuts its own tests 10 s past it.
const BACKSTOP: Duration = Duration::from_secs(60);

/// `grader batch DIR --out RESULTS`, or `grader batch merge SHARDS --out RESULTS`.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct BatchCommand {
    #[command(subcommand)]
    pub merge: Option<Merge>,
    #[command(flatten)]
    pub args: BatchArgs,
}

#[derive(Debug, clap::Subcommand)]
pub enum Merge {
    /// Join the results of a batch's shards into one folder, gradebook and report.
    Merge(MergeArgs),
    /// Write a batch's scores as a gradebook CSV a Canvas or Moodle course imports.
    Export(ExportArgs),
    /// Print a Kubernetes indexed Job that grades a class in N shards, one a pod, each
    /// `grader batch --shard auto`; then `grader batch merge` their results.
    K8sJob(K8sJobArgs),
}

#[derive(Debug, clap::Args)]
pub struct BatchArgs {
    /// The submissions: a folder of crates (one per subfolder) or of per-student zips, or
    /// one archive as Canvas ("Download Submissions") or Gradescope ("Export
    /// Submissions") gives it.
    #[arg(required = true)]
    pub dir: Option<PathBuf>,
    /// The folder results go to: one `NAME.json` per submission, `gradebook.csv`,
    /// `report.html`, `batch.log` and `batch/manifest.json`.
    #[arg(long, value_name = "DIR", required = true)]
    pub out: Option<PathBuf>,
    /// Submissions graded at once.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub jobs: usize,
    /// Keep the results already in --out and grade only the submissions without one; a
    /// result made under other check options or other specs is graded again.
    #[arg(long)]
    pub resume: bool,
    /// With --resume, keep results made under other check options or specs too.
    #[arg(long, requires = "resume")]
    pub resume_stale: bool,
    /// Each submission's time, build included (`600`, `10m`): past it no test starts and
    /// the rest are "not run: the submission used its time".
    #[arg(long, value_name = "SECS", default_value = check::DEFAULT_BUDGET, value_parser = check::budget)]
    pub submission_budget: Duration,
    /// Grade only shard K of N (1-based): the submissions whose names hash to it, so adding
    /// or removing one moves no other. `auto` reads K and N from the job array running the
    /// batch: Slurm, a Kubernetes indexed Job, AWS Batch, GitLab `parallel:`, or
    /// CARDGRADE_SHARD_INDEX (from 0) and CARDGRADE_SHARDS.
    #[arg(long, value_name = "K/N|auto", value_parser = shard::parse)]
    pub shard: Option<ShardArg>,
    /// A CSV of the class with each student's submission time (RFC 3339), from which the
    /// specs' late penalty is applied: from `late: { after }`, as a line of the score of
    /// its own. A student with no time, or one that cannot be read, is graded with no
    /// penalty, and batch.log says so.
    #[arg(long, value_name = "ROSTER.csv")]
    pub roster: Option<PathBuf>,
    /// The roster's column whose value names a student's submission folder (or, for a
    /// Canvas download's names, the user ID).
    #[arg(
        long,
        value_name = "COLUMN",
        default_value = "submission",
        requires = "roster"
    )]
    pub by: String,
    /// The roster's column of submission times.
    #[arg(long, value_name = "COLUMN", default_value = late::SUBMITTED, requires = "roster")]
    pub submitted_column: String,
    /// Options for each `grader check` (`-- --spec staff/ --assignment NAME`).
    #[arg(last = true, value_name = "CHECK OPTIONS")]
    pub check: Vec<String>,
}

/// A `grader check` started by a batch ends when the batch does, killed or not: a resumed
/// batch then grades what it was grading again, never twice at once.
pub fn die_with_batch() {
    let Some(parent) = std::env::var(BATCH_PARENT_ENV)
        .ok()
        .and_then(|pid| pid.parse::<i32>().ok())
    else {
        return;
    };
    let _ = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL);
    // The batch may have died before the line above took effect.
    if nix::unistd::getppid().as_raw() != parent {
        std::process::exit(i32::from(exit::USAGE));
    }
}

pub fn run(command: BatchCommand) -> ExitCode {
    exit::done_or_usage(match command.merge {
        Some(Merge::Merge(args)) => merge::merged(&args).map(|line| eprintln!("{line}")),
        Some(Merge::Export(args)) => export::export(&args).map(|line| eprintln!("{line}")),
        Some(Merge::K8sJob(args)) => k8s_job::print(&args),
        None => batch(&command.args),
    })
}

fn batch(args: &BatchArgs) -> Result<(), String> {
    let (Some(dir), Some(out)) = (&args.dir, &args.out) else {
        return Err("grader batch needs DIR and --out RESULTS".into());
    };
    let mut check_options = args.check.clone();
    check_options.extend([
        "--submission-budget".to_string(),
        args.submission_budget.as_secs_f64().to_string(),
    ]);
    let graded_with = GradedWith::of(&check_options)?;
    let shard = match &args.shard {
        None => None,
        Some(ShardArg::Given { number, count }) => Some(Shard::given(*number, *count)),
        Some(ShardArg::Auto) => {
            let shard = shard::from_engine(&shard::engine_variables())?;
            let read: Vec<String> = shard
                .variables
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect();
            eprintln!(
                "grading shard {}/{}, as {} say",
                shard.number,
                shard.count,
                read.join(", ")
            );
            Some(shard)
        }
    };
    if args.roster.is_some() {
        roster_usable(&check_options)?;
    }
    std::fs::create_dir_all(out).map_err(|e| format!("cannot make {}: {e}", out.display()))?;
    let mut submissions = intake::submissions(dir, out)?;
    let class: Vec<StudentText> = submissions.iter().map(|s| s.name.clone()).collect();
    let times: HashMap<StudentText, late::Time> = match &args.roster {
        None => HashMap::new(),
        Some(roster) => {
            let times = late::submission_times(roster, (&args.by, &args.submitted_column), &class)?;
            class.iter().cloned().zip(times).collect()
        }
    };
    // How each submission is graded: the batch's options, and its own time.
    let graded_at = |submission: &Submission| {
        let time = times
            .get(&submission.name)
            .and_then(|time| time.as_ref().ok());
        graded_with.at(time.map(String::as_str))
    };
    if let Some(shard) = &shard {
        submissions.retain(|submission| shard.holds(submission.name.raw_for_comparison()));
    }
    let manifest = Manifest {
        shard,
        class,
        submissions: submissions.iter().map(|s| s.name.clone()).collect(),
        graded_with: graded_with.clone(),
        submission_times: args.roster.as_ref().map(|_| {
            times
                .iter()
                .map(|(name, time)| (name.clone(), time.as_ref().ok().cloned()))
                .collect()
        }),
    };
    write_atomically(
        out,
        MANIFEST,
        &(serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n"),
    )?;
    let done: Vec<&Submission> = submissions
        .iter()
        .filter(|s| results_of(out, s).is_some())
        .collect();
    if !done.is_empty() && !args.resume {
        return Err(format!(
            "{} already holds results of {} submissions: pass --resume to keep them and grade the rest, or choose another --out",
            out.display(),
            done.len()
        ));
    }
    let stale: Vec<&StudentText> = done
        .iter()
        .filter(|s| {
            results_of(out, s).and_then(|r| GradedWith::of_results(&r)) != Some(graded_at(s))
        })
        .map(|s| &s.name)
        .collect();
    if !stale.is_empty() {
        eprintln!(
            "{} {} results graded under other check options, specs or submission times: {}",
            if args.resume_stale {
                "keeping"
            } else {
                "grading again"
            },
            stale.len(),
            StudentText::joined(stale.iter().copied(), ", ").on_a_line()
        );
    }
    let todo: Vec<&Submission> = submissions
        .iter()
        .filter(|s| {
            results_of(out, s).is_none() || (!args.resume_stale && stale.contains(&&s.name))
        })
        .collect();
    eprintln!(
        "grading {} submissions of {} ({} already graded), {} at a time",
        todo.len(),
        submissions.len(),
        submissions.len() - todo.len(),
        args.jobs.max(1)
    );
    for submission in &todo {
        if let Some(Err(why)) = times.get(&submission.name) {
            let warning = late::untimed(&submission.name, why);
            eprintln!("{warning}");
            append_log(out, &format!("{warning}\n"));
        }
    }
    let jobs = args.jobs.clamp(1, todo.len().max(1));
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = (cores / jobs).max(1).to_string();
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let log = Mutex::new(());
    let started = Instant::now();
    // A bar on a terminal; plain lines for a log.
    let progress = std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::new(todo.len() as u64);
        if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {wide_msg} ETA {eta}")
        {
            bar.set_style(style);
        }
        bar
    });
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                while let Some(submission) = todo.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if let Some(bar) = &progress {
                        bar.set_message(format!("grading {}", submission.name.on_a_line()));
                    }
                    let line = grade(
                        out,
                        (&graded_at(submission), args.submission_budget),
                        submission,
                        &threads,
                    );
                    let count = finished.fetch_add(1, Ordering::Relaxed) + 1;
                    let _held = log.lock();
                    match &progress {
                        Some(bar) => {
                            bar.println(&line);
                            bar.inc(1);
                        }
                        None => eprintln!("[{count}/{}] {line}", todo.len()),
                    }
                    append_log(out, &format!("{line}\n"));
                }
            });
        }
    });
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    let class = graded(out, &manifest.submissions);
    let gradebook = gradebook(out, &class)?;
    let report = class_report::write(out, &class)?;
    eprintln!(
        "graded in {:.1}s; {} and {}",
        started.elapsed().as_secs_f64(),
        gradebook.display(),
        report.display()
    );
    Ok(())
}

/// Refuses a roster of submission times for specs whose policy has no late penalty from a
/// date of its own (a batch has no platform to give one, and every student would be
/// graded with no penalty), and beside check options that give a time of their own, which
/// each check would refuse with the roster's.
fn roster_usable(check_options: &[String]) -> Result<(), String> {
    let check = check_args(check_options)?;
    if check.submitted_at.is_some() || check.submission_metadata.is_some() {
        return Err("--roster gives each student's submission time: leave --submitted-at and --submission-metadata out of the check options".into());
    }
    let suite = crate::spec::load(&check.specs, &check.added_specs, None)
        .map_err(|error| error.to_string())?;
    match suite.policy.and_then(|policy| policy.late) {
        Some(late) if late.after.is_some() => Ok(()),
        Some(_) => Err("--roster gives submission times for the specs' late penalty, but their `late:` names no `after:` date to be late from: add one (`late: { after: 2026-12-01, ... }`)".into()),
        None => Err("--roster gives submission times for a late penalty, but the specs' `policy:` has no `late:`".into()),
    }
}

/// Grades one submission in a `grader check` of its own, killed `BACKSTOP` past its
/// budget; records how it was graded in its results. Says how it went, in a line.
fn grade(
    out: &Path,
    (graded_with, budget): (&GradedWith, Duration),
    submission: &Submission,
    threads: &str,
) -> String {
    let started = Instant::now();
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("grader"));
    let mut command = Command::new(exe);
    command
        .arg("check")
        .arg(&submission.path)
        .args([
            "--format",
            "json",
            "--color",
            "never",
            "--test-threads",
            threads,
        ])
        .arg("--output")
        .arg(results_path(out, &submission.name))
        .args(&graded_with.check_options)
        .args(
            graded_with
                .submitted_at
                .iter()
                .flat_map(|time| ["--submitted-at", time]),
        )
        .env(BATCH_PARENT_ENV, std::process::id().to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if std::env::var_os("CARDGRADE_TARGET_DIR").is_none() {
        command.env("CARDGRADE_TARGET_DIR", out.join(".targets"));
    }
    // A result left from an earlier grading must not pass for this one's.
    let _ = std::fs::remove_file(results_path(out, &submission.name));
    let status = command
        .spawn()
        .and_then(|child| wait_or_kill(child, started + budget + BACKSTOP));
    let seconds = started.elapsed().as_secs_f64();
    let results = match (&status, results_of(out, submission)) {
        (Ok(None), None) => Some(killed(submission, budget, started.elapsed())),
        (_, results) => results,
    };
    let results = results.map(|mut results| {
        results["graded_with"] = serde_json::to_value(graded_with).unwrap_or_default();
        let text = serde_json::to_string_pretty(&results).unwrap_or_default() + "\n";
        if let Err(error) = write_atomically(out, &results_file(&submission.name), &text) {
            eprintln!("warning: {error}");
        }
        results
    });
    match (status, results) {
        (_, Some(results)) => format!(
            "{}: {} / {} ({}{}, {seconds:.1}s)",
            submission.name.on_a_line(),
            results["score"],
            results["max_score"],
            results["outcome"].as_str().unwrap_or(""),
            results["penalty"]["points"]
                .as_f64()
                .map_or(String::new(), |points| format!(", late penalty -{points}"))
        ),
        (Ok(status), None) => format!(
            "{}: not graded: grader check ended with {} and wrote no results",
            submission.name.on_a_line(),
            status.map_or_else(|| "a kill".to_string(), |s| s.to_string())
        ),
        (Err(error), None) => format!(
            "{}: not graded: {}",
            submission.name.on_a_line(),
            StudentText::from(error.to_string()).on_a_line()
        ),
    }
}

/// Waits for `child` until `kill_at`, then kills it: its status, or none when killed.
fn wait_or_kill(
    mut child: std::process::Child,
    kill_at: Instant,
) -> std::io::Result<Option<std::process::ExitStatus>> {
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= kill_at {
            // Its runners die with it: the sandbox watches the grader's pid.
            child.kill()?;
            child.wait()?;
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The results of a submission whose `grader check` was killed past its budget: nothing
/// graded, the maximum unknown (the gradebook leaves it blank).
fn killed(submission: &Submission, budget: Duration, took: Duration) -> serde_json::Value {
    serde_json::json!({
        "schema": "cardgrade.results.v1",
        "submission": submission.path.display().to_string(),
        "outcome": "out_of_time",
        "score": 0.0,
        "max_score": null,
        "execution_time_ms": took.as_millis() as u64,
        "build_time_ms": 0,
        "build_output": format!(
            "grader check was killed {:.0} s into a budget of {:.0} s before it wrote results",
            took.as_secs_f64(),
            budget.as_secs_f64()
        ),
        "notes": [],
        "tests": [],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_past_its_backstop_is_killed_and_its_row_says_so() {
        let child = Command::new("sleep").arg("30").spawn().unwrap();
        let started = Instant::now();
        let status = wait_or_kill(child, started + Duration::from_millis(200)).unwrap();
        assert!(status.is_none(), "killed, not ended: {status:?}");
        assert!(started.elapsed() < Duration::from_secs(5));
        let slow = Submission {
            name: "slow".into(),
            path: PathBuf::from("/class/slow"),
        };
        let results = killed(&slow, Duration::from_secs(1), Duration::from_secs(61));
        let out = crate::temp::folder("test-backstop").unwrap();
        let written = gradebook(out.path(), &vec![("slow".into(), Some(results))]).unwrap();
        let text = std::fs::read_to_string(written).unwrap();
        assert_eq!(
            text,
            "submission,score,max_score,outcome,seconds,note\nslow,0.0,,out_of_time,61.0,grader check was killed 61 s into a budget of 1 s before it wrote results\n"
        );
    }

    #[test]
    fn budgets_are_seconds_or_minutes() {
        assert_eq!(
            check::budget(check::DEFAULT_BUDGET),
            Ok(Duration::from_secs(600))
        );
        assert_eq!(check::budget("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(check::budget("90s"), Ok(Duration::from_secs(90)));
        for bad in ["0", "-1", "x", "1h", "", "inf"] {
            assert!(check::budget(bad).is_err(), "{bad}");
        }
    }
}
