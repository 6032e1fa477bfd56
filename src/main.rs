use std::process::ExitCode;

use clap::{Parser, Subcommand};
use grader::audit::{self, AuditArgs};
use grader::batch::{self, BatchCommand};
use grader::cache::{self, BuildArgs};
use grader::check::{self, CheckArgs};
use grader::doctor;
use grader::exit;
use grader::fill::{self, FillArgs};
use grader::lint::{self, LintArgs};
use grader::new::{self, NewArgs};
use grader::package::{self, PackageArgs, UnzipArgs};
use grader::play::{self, PlayArgs};
use grader::sandbox;
use grader::schema;
use grader::show::{self, ShowArgs};
use grader::split::{self, SplitArgs};
use grader::watch;
use grader::workflow::{self, WorkflowArgs};

const EXIT_CODES: &str = "\
Exit codes:
  0  every test passed
  1  some test failed
  2  usage or spec error (a bad flag, a path that is not a crate or does not exist, a malformed spec)
  3  the submission did not build (compiler errors, no submission(), a dependency refused,
     the build timed out, or the runner did not start)
  4  no test to run: FILTER, --exact and --skip select none";

/// cardgrade: an autograder for card-game programming assignments.
#[derive(Parser)]
#[command(name = "grader", version, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build a submission crate, run it in isolation against the specs, report and score.
    #[command(after_help = EXIT_CODES)]
    Check(CheckArgs),
    /// Grade every submission of a folder, a few at a time, with a gradebook; resumable.
    Batch(BatchCommand),
    /// Play a reference implementation in the terminal.
    Play(PlayArgs),
    /// Write a new submission crate from the student template, ready for `grader check`.
    New(NewArgs),
    /// Package the grader for Gradescope.
    #[command(subcommand)]
    Gradescope(GradescopeCommand),
    /// Print a GitHub Classroom workflow that grades the named assignments with this
    /// grader's version, in the student's view.
    GithubWorkflow(WorkflowArgs),
    /// Tools for spec files.
    #[command(subcommand)]
    Spec(SpecCommand),
    /// The reference's answers to bulk groups, kept on disk.
    #[command(subcommand)]
    Cache(CacheCommand),
    /// Print the JSON Schema of spec files, for an editor to check and complete them.
    Schema,
    /// Print the sandbox layers this machine gives builds and runners, one per line;
    /// exits 1 when one is missing (what `check --sandbox strict` refuses).
    Doctor,
}

#[derive(Subcommand)]
enum GradescopeCommand {
    /// Write an autograder zip: setup.sh, run_autograder, the grader, the specs and the api.
    Package(PackageArgs),
    /// Unpack a student's uploaded zip into a new folder, as run_autograder does: refused
    /// whole if an entry would land outside it, is a link, or there is too much.
    Unzip(UnzipArgs),
}

#[derive(Subcommand)]
enum CacheCommand {
    /// Compute and keep the answers of every bulk group now, so no submission waits for
    /// them (`grader gradescope package` puts them in the zip).
    Build(BuildArgs),
}

#[derive(Subcommand)]
enum SpecCommand {
    /// Write the student's copy of staff specs, without the groups students may not see
    /// (hidden, after_due_date, after_published); grade with the full ones (`--spec`).
    Split(SplitArgs),
    /// Print what the reference answers for each listed case: what an `expect` must say.
    Show(ShowArgs),
    /// Report every mistake of spec files, at file:line:column, then a count; exits 2 on
    /// any error (warnings are what loads but is likely wrong).
    Lint(LintArgs),
    /// Write the reference's answer into every listed case without an `expect`, keeping
    /// the file's comments, order and layout; `--check` only tells, and exits 1.
    Fill(FillArgs),
    /// Grade the library of bugs students write (every bug DOMAIN.md lists, made of the
    /// reference) against spec files, the built-in ones when none is given: a table of
    /// which bugs each assignment's tests catch and by which tests, then "N of M bugs
    /// caught"; exits 1 when a bug is missed (no test fails), 2 on a spec error. With
    /// --mutants, cargo-mutants' mutants of the reference instead: exits 1 when one
    /// survives, 2 when cargo-mutants is not installed, 4 when --re selects none.
    Audit(AuditArgs),
}

// The reference answers bulk groups on threads of the grader, allocating for every hand;
// glibc's malloc slows down in a process with threads, mimalloc much less: the bench's
// first grading of the all-hands group takes 1.2 s with it, 1.7 s without. Built without
// transparent huge pages (`no_thp`): each thread's first allocations touched a fresh 2 MiB
// page, zeroed whole, and on a virtual machine a fifth of the grader's time for a first
// grading went to zeroing them (82 huge pages); without, its CPU for it is 0.85x and its
// peak memory 0.65x (farm-bench, 10 pairs).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let mut arguments = std::env::args();
    if arguments.nth(1).as_deref() == Some(sandbox::CONTAIN_COMMAND) {
        sandbox::run_stage(&arguments.next().unwrap_or_default());
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() {
                exit::USAGE
            } else {
                exit::PASSED
            });
        }
    };
    match cli.command {
        Command::Check(args) => {
            batch::die_with_batch();
            match args.watch {
                true => watch::run(args),
                false => check::run(args),
            }
        }
        Command::Batch(command) => batch::run(command),
        Command::Play(args) => play::run(args),
        Command::New(args) => new::run(args),
        Command::Spec(command) => {
            exit::end_quietly_when_the_reader_goes();
            match command {
                SpecCommand::Split(args) => split::run(args),
                SpecCommand::Show(args) => show::run(args),
                SpecCommand::Lint(args) => lint::run(args),
                SpecCommand::Fill(args) => fill::run(args),
                SpecCommand::Audit(args) => audit::run(args),
            }
        }
        Command::Gradescope(GradescopeCommand::Package(args)) => package::run(args),
        Command::Gradescope(GradescopeCommand::Unzip(args)) => package::unzip(args),
        Command::GithubWorkflow(args) => workflow::run(args),
        Command::Cache(CacheCommand::Build(args)) => cache::run(args),
        Command::Schema => {
            exit::end_quietly_when_the_reader_goes();
            println!("{:#}", schema::spec_schema());
            ExitCode::from(exit::PASSED)
        }
        Command::Doctor => doctor::run(),
    }
}
