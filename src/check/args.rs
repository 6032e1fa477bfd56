//! `grader check`'s arguments, and what checks them.

use std::path::PathBuf;
use std::time::Duration;

use grader_api::ASSIGNMENTS;

use crate::sandbox::Mode;
use crate::spec::{self, Suite};

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
    pub(crate) fn is_machine(self) -> bool {
        matches!(self, Format::Gradescope | Format::Json | Format::Junit)
    }

    /// Results for course staff: every assignment of the specs is graded, so every
    /// submission of a class has the same maximum.
    pub(crate) fn is_staff(self) -> bool {
        !matches!(self, Format::Pretty | Format::Terse)
    }

    /// A report the student reads: in a terminal, or in the log, annotations, job summary
    /// and Classroom result of a GitHub Actions job, all of which the student can open.
    pub(crate) fn student_reads(self) -> bool {
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
    /// Gradescope's `submission_metadata.json`: the specs' `policy:` is applied from it
    /// (a late penalty by its submission time and due dates, a daily limit by its earlier
    /// submissions); a file that cannot be read grades with no policy, and says so.
    #[arg(long, value_name = "FILE")]
    pub submission_metadata: Option<std::path::PathBuf>,
    /// When the submission was made (RFC 3339, `2026-12-03T14:22:32-07:00`), where no
    /// platform's metadata says: the specs' late penalty is applied from it and their
    /// `late: { after }` date, as `grader batch --roster` does for each student; a time
    /// that cannot be read grades with no penalty, and says so.
    #[arg(long, value_name = "TIME", conflicts_with = "submission_metadata")]
    pub submitted_at: Option<String>,
    /// The submission's time, build included (`90`, `1.5`, `10m`): past it no test
    /// starts, and the rest are "not run: the submission used its time"; a test still
    /// running a little after it is cut, and the results are written.
    #[arg(long, value_name = "SECS", default_value = DEFAULT_BUDGET, value_parser = budget)]
    pub submission_budget: Duration,
}

/// A submission's time when `--submission-budget` is not given: Gradescope's default.
pub const DEFAULT_BUDGET: &str = "10m";

/// How long a test may run past the submission's budget before the results are written
/// without it: tests have timeouts of their own, so this only cuts a long bulk group.
pub(crate) const PAST_BUDGET: Duration = Duration::from_secs(10);

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
