//! `grader batch`: a class graded submission by submission, each by its own `grader check`
//! child (the same sandbox, the same results), a few at a time, sharing one dependency
//! dir; each result written as soon as it is done, so a killed batch resumes where it was.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};

use crate::exit;

mod class_report;

/// Set for each `grader check` a batch starts: the batch's pid, so the check dies with it.
pub const BATCH_PARENT_ENV: &str = "CARDGRADE_BATCH_PARENT";

/// Where the results of a batch are kept beside the submissions' own files.
const GRADEBOOK: &str = "gradebook.csv";
const REPORT: &str = "report.html";
const LOG: &str = "batch.log";

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
}

#[derive(Debug, clap::Args)]
pub struct BatchArgs {
    /// The folder of submissions: one crate per subfolder.
    #[arg(required = true)]
    pub dir: Option<PathBuf>,
    /// The folder results go to: one `NAME.json` per submission, `gradebook.csv`,
    /// `report.html` and `batch.log`.
    #[arg(long, value_name = "DIR", required = true)]
    pub out: Option<PathBuf>,
    /// Submissions graded at once.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub jobs: usize,
    /// Keep the results already in --out and grade only the submissions without one.
    #[arg(long)]
    pub resume: bool,
    /// Grade only shard K of N (1-based): every Nth submission in name order, from the Kth.
    #[arg(long, value_name = "K/N", value_parser = shard)]
    pub shard: Option<(usize, usize)>,
    /// Options for each `grader check` (`-- --spec staff/ --assignment NAME`).
    #[arg(last = true, value_name = "CHECK OPTIONS")]
    pub check: Vec<String>,
}

fn shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("`{text}` is not a shard: write K/N, such as 2/5, with K from 1 to N");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (usize, usize) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if n == 0 || k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
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
        Some(Merge::Merge(args)) => merged(&args).map(|line| eprintln!("{line}")),
        None => batch(&command.args),
    })
}

fn batch(args: &BatchArgs) -> Result<(), String> {
    let (Some(dir), Some(out)) = (&args.dir, &args.out) else {
        return Err("grader batch needs DIR and --out RESULTS".into());
    };
    let mut submissions = submissions(dir)?;
    if let Some((k, n)) = args.shard {
        submissions = submissions
            .into_iter()
            .enumerate()
            .filter(|(index, _)| index % n == k - 1)
            .map(|(_, submission)| submission)
            .collect();
    }
    std::fs::create_dir_all(out).map_err(|e| format!("cannot make {}: {e}", out.display()))?;
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
    let todo: Vec<&Submission> = submissions
        .iter()
        .filter(|s| results_of(out, s).is_none())
        .collect();
    eprintln!(
        "grading {} submissions of {} ({} already graded), {} at a time",
        todo.len(),
        submissions.len(),
        submissions.len() - todo.len(),
        args.jobs.max(1)
    );
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
                        bar.set_message(format!("grading {}", submission.name));
                    }
                    let line = grade(out, &args.check, submission, &threads);
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
    let class = graded(out, &submissions);
    let gradebook = gradebook(out, &class)?;
    let report = class_report(out, &class)?;
    eprintln!(
        "graded in {:.1}s; {} and {}",
        started.elapsed().as_secs_f64(),
        gradebook.display(),
        report.display()
    );
    Ok(())
}

/// A submission of the class: its name and its folder.
struct Submission {
    name: String,
    path: PathBuf,
}

/// Every subfolder of `dir`, in name order.
fn submissions(dir: &Path) -> Result<Vec<Submission>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut found: Vec<Submission> = entries
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            (!name.starts_with('.')).then(|| Submission {
                name,
                path: entry.path(),
            })
        })
        .collect();
    if found.is_empty() {
        return Err(format!(
            "{} holds no submission: put each student's crate in a folder of its own",
            dir.display()
        ));
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(found)
}

fn results_path(out: &Path, submission: &Submission) -> PathBuf {
    out.join(format!("{}.json", submission.name))
}

/// A submission's results, when a complete file of them is there.
fn results_of(out: &Path, submission: &Submission) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(results_path(out, submission)).ok()?;
    let results: serde_json::Value = serde_json::from_str(&text).ok()?;
    (results["schema"] == "cardgrade.results.v1").then_some(results)
}

/// Grades one submission in a `grader check` of its own; says how it went, in a line.
fn grade(out: &Path, check: &[String], submission: &Submission, threads: &str) -> String {
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
        .arg(results_path(out, submission))
        .args(check)
        .env(BATCH_PARENT_ENV, std::process::id().to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if std::env::var_os("CARDGRADE_TARGET_DIR").is_none() {
        command.env("CARDGRADE_TARGET_DIR", out.join(".targets"));
    }
    let status = command.status();
    let seconds = started.elapsed().as_secs_f64();
    match (status, results_of(out, submission)) {
        (_, Some(results)) => format!(
            "{}: {} / {} ({}, {seconds:.1}s)",
            submission.name,
            results["score"],
            results["max_score"],
            results["outcome"].as_str().unwrap_or("")
        ),
        (Ok(status), None) => format!(
            "{}: not graded: grader check ended with {status} and wrote no results",
            submission.name
        ),
        (Err(error), None) => format!("{}: not graded: {error}", submission.name),
    }
}

fn append_log(out: &Path, line: &str) {
    use std::io::Write;
    let appended = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out.join(LOG))
        .and_then(|mut file| file.write_all(line.as_bytes()));
    if let Err(error) = appended {
        eprintln!("warning: cannot append to {LOG}: {error}");
    }
}

/// Each submission by name, with its results if it has them.
type Graded = Vec<(String, Option<serde_json::Value>)>;

fn graded(out: &Path, submissions: &[Submission]) -> Graded {
    submissions
        .iter()
        .map(|s| (s.name.clone(), results_of(out, s)))
        .collect()
}

/// Writes the gradebook: a row per submission with its score, maximum, each group's
/// points, the outcome and the time. Returns its path.
fn gradebook(out: &Path, class: &Graded) -> Result<PathBuf, String> {
    let mut columns: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for (name, results) in class {
        let Some(results) = results else {
            rows.push((name.clone(), None, BTreeMap::new()));
            continue;
        };
        let mut groups: BTreeMap<String, f64> = BTreeMap::new();
        for test in results["tests"].as_array().into_iter().flatten() {
            let column = format!(
                "{}::{}",
                test["assignment"].as_str().unwrap_or(""),
                test["group"].as_str().unwrap_or("")
            );
            if !columns.contains(&column) {
                columns.push(column.clone());
            }
            *groups.entry(column).or_default() += test["score"].as_f64().unwrap_or(0.0);
        }
        rows.push((name.clone(), Some(results), groups));
    }
    let mut csv = String::from("submission,score,max_score,outcome,seconds");
    for column in &columns {
        csv.push(',');
        csv.push_str(&csv_field(column));
    }
    csv.push('\n');
    for (name, results, groups) in rows {
        csv.push_str(&csv_field(&name));
        match results {
            None => csv.push_str(",,,not_graded,"),
            Some(results) => {
                let _ = write!(
                    csv,
                    ",{},{},{},{:.1}",
                    results["score"],
                    results["max_score"],
                    results["outcome"].as_str().unwrap_or(""),
                    results["execution_time_ms"].as_f64().unwrap_or(0.0) / 1000.0
                );
            }
        }
        for column in &columns {
            match groups.get(column) {
                Some(points) => {
                    let _ = write!(csv, ",{}", (points * 100.0).round() / 100.0);
                }
                None => csv.push(','),
            }
        }
        csv.push('\n');
    }
    write_atomically(out, GRADEBOOK, &csv)
}

/// Writes the class report of every submission with results. Returns its path.
fn class_report(out: &Path, class: &Graded) -> Result<PathBuf, String> {
    let graded: Vec<class_report::Graded> = class
        .iter()
        .filter_map(|(name, results)| {
            Some(class_report::Graded {
                name,
                results: results.as_ref()?,
            })
        })
        .collect();
    write_atomically(out, REPORT, &class_report::html(&graded))
}

#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The results folders of a batch's shards (`grader batch --shard K/N`).
    #[arg(required = true, value_name = "SHARD")]
    pub shards: Vec<PathBuf>,
    /// The folder that gets every submission's results, the gradebook and the report.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

fn merged(args: &MergeArgs) -> Result<String, String> {
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot make {}: {e}", args.out.display()))?;
    let mut class: Graded = Vec::new();
    for shard in &args.shards {
        let entries = std::fs::read_dir(shard)
            .map_err(|e| format!("cannot read {}: {e}", shard.display()))?;
        let mut names: Vec<String> = entries
            .flatten()
            .filter_map(|entry| entry.file_name().into_string().ok())
            .filter_map(|file| file.strip_suffix(".json").map(String::from))
            .collect();
        names.sort();
        for name in names {
            let submission = Submission {
                name: name.clone(),
                path: PathBuf::new(),
            };
            let Some(results) = results_of(shard, &submission) else {
                continue;
            };
            if class.iter().any(|(seen, _)| *seen == name) {
                return Err(format!(
                    "two shards hold results of {name}: merge each shard once"
                ));
            }
            let text = serde_json::to_string_pretty(&results).unwrap_or_default() + "\n";
            write_atomically(&args.out, &format!("{name}.json"), &text)?;
            class.push((name, Some(results)));
        }
        if let Ok(log) = std::fs::read_to_string(shard.join(LOG)) {
            append_log(&args.out, &log);
        }
    }
    if class.is_empty() {
        return Err("the shards hold no results: pass the --out folders of grader batch".into());
    }
    class.sort_by(|a, b| a.0.cmp(&b.0));
    let gradebook = gradebook(&args.out, &class)?;
    let report = class_report(&args.out, &class)?;
    Ok(format!(
        "merged {} submissions from {} shards into {} and {}",
        class.len(),
        args.shards.len(),
        gradebook.display(),
        report.display()
    ))
}

/// Writes `text` to `out/name` through a partial file, so a reader sees all or nothing.
fn write_atomically(out: &Path, name: &str, text: &str) -> Result<PathBuf, String> {
    let path = out.join(name);
    let partial = out.join(format!(".{name}.partial-{}", std::process::id()));
    std::fs::write(&partial, text)
        .and_then(|()| std::fs::rename(&partial, &path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// A CSV field, quoted where it must be.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_k_of_n() {
        assert_eq!(shard("2/5"), Ok((2, 5)));
        for bad in ["0/3", "4/3", "1/0", "x", "1-2"] {
            assert!(shard(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn csv_fields_are_quoted_where_they_must_be() {
        assert_eq!(csv_field("alice"), "alice");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
