//! `grader github-workflow`: the GitHub Classroom workflow that grades with cardgrade. It
//! installs the grader at one commit of the course's repository, once (then from the
//! Actions cache, with the cargo registry that offline builds need), and grades each push
//! of the named assignments in the student's view.

use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use crate::check::{assignment_name, assignments_of};
use crate::exit;
use crate::results::Points;
use crate::spec;

/// The commit this grader was built from, empty when it was not built in a git checkout.
const BUILT_FROM: &str = env!("CARDGRADE_GIT_REV");

#[derive(Debug, clap::Args)]
pub struct WorkflowArgs {
    /// The course's cardgrade repository (its git URL), which the workflow installs the
    /// grader from.
    #[arg(long, value_name = "URL")]
    pub repo: String,
    /// Grade this assignment (repeatable): a student is graded out of its points.
    #[arg(long = "assignment", value_name = "NAME", value_parser = assignment_name)]
    pub assignments: Vec<String>,
    /// Grade every assignment of the specs: a student is graded out of all of their points.
    #[arg(long, conflicts_with = "assignments")]
    pub all: bool,
    /// Spec files or folders to grade with instead of the built-in ones, as `grader check
    /// --spec` takes them (repeatable): paths in the template repository, from its root,
    /// which the workflow reads in the student's checkout.
    #[arg(long = "spec", value_name = "PATH")]
    pub specs: Vec<PathBuf>,
    /// Spec files or folders to grade with on top of the built-in ones (or of --spec), as
    /// `grader check --add-spec` takes them (repeatable); paths as for --spec.
    #[arg(long = "add-spec", value_name = "PATH")]
    pub added_specs: Vec<PathBuf>,
    /// Install the grader at this commit of --repo [default: the commit this grader was
    /// built from].
    #[arg(long, value_name = "COMMIT", conflicts_with = "tag")]
    pub rev: Option<String>,
    /// Install the grader at this tag of --repo instead of a commit.
    #[arg(long, value_name = "TAG")]
    pub tag: Option<String>,
}

pub fn run(args: WorkflowArgs) -> ExitCode {
    exit::done_or_usage(workflow(&args).map(|(text, told)| {
        print!("{text}");
        eprintln!("{told}");
    }))
}

/// The workflow, and a line for staff saying what it grades and installs.
fn workflow(args: &WorkflowArgs) -> Result<(String, String), String> {
    for path in args.specs.iter().chain(&args.added_specs) {
        in_checkout(path)?;
    }
    // The specs must load here, not first in every student's job.
    let suite = spec::load(&args.specs, &args.added_specs, None).map_err(|e| e.to_string())?;
    let held = assignments_of(&suite, &args.assignments)?;
    let points_of = |graded: &dyn Fn(&str) -> bool| -> Points {
        suite
            .groups
            .iter()
            .filter(|group| graded(group.assignment.name()))
            .map(|group| Points::from_f64(group.points))
            .sum()
    };
    if !args.all && args.assignments.is_empty() {
        return Err(format!(
            "name the assignment the template is for with --assignment NAME (repeatable): without it a student is graded out of every assignment of the specs ({} of them, {} points); pass --all if that is what you mean",
            held.len(),
            points_of(&|_| true)
        ));
    }
    let points = points_of(&|name| args.all || args.assignments.iter().any(|a| a == name));
    let (pin, pinned) = match (&args.tag, &args.rev) {
        (Some(tag), _) => ("--tag", word(tag, "--tag")?),
        (None, Some(rev)) => ("--rev", word(rev, "--rev")?),
        (None, None) if !BUILT_FROM.is_empty() => ("--rev", BUILT_FROM.to_string()),
        (None, None) => {
            return Err(
                "this grader was not built in a git checkout, so it cannot tell which commit to install: name one with --rev COMMIT or --tag TAG".into(),
            );
        }
    };
    if args
        .repo
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || "\"\\'$`".contains(c))
    {
        return Err(format!(
            "--repo {}: a git URL holds no space, quote, backslash, `$` or backquote",
            args.repo
        ));
    }
    let names: Vec<&str> = match args.all {
        true => held,
        false => args.assignments.iter().map(String::as_str).collect(),
    };
    let mut grade = vec!["grader check . --format github --student-view".to_string()];
    grade.extend(names.iter().map(|name| format!("--assignment {name}")));
    for (flag, paths) in [("--spec", &args.specs), ("--add-spec", &args.added_specs)] {
        grade.extend(
            paths
                .iter()
                .map(|path| format!("{flag} {}", path.display())),
        );
    }
    let text = TEMPLATE
        .replace("{version}", env!("CARGO_PKG_VERSION"))
        .replace("{repo}", &args.repo)
        .replace("{pin}", &format!("{pin} {pinned}"))
        .replace("{pinned}", &pinned)
        .replace("{grade}", &grade.join(" "));
    let told = format!(
        "the workflow grades {} out of {points} points, with the grader of {} at {pin} {pinned}",
        names.join(", "),
        args.repo
    );
    Ok((text, told))
}

/// Refuses a spec path the student's checkout cannot hold, or a shell would read as more
/// than a path.
fn in_checkout(path: &Path) -> Result<(), String> {
    let shown = path.display().to_string();
    if !path
        .components()
        .all(|part| matches!(part, Component::Normal(_) | Component::CurDir))
    {
        return Err(format!(
            "{shown}: the workflow reads specs in the student's checkout; give their path from the template repository's root, with no `..`"
        ));
    }
    word(&shown, "a spec path").map(|_| ())
}

/// `text` if a shell and YAML read it as one plain word.
fn word(text: &str, what: &str) -> Result<String, String> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "._-/".contains(c);
    if text.is_empty() || !text.chars().all(plain) || text.starts_with('-') {
        return Err(format!(
            "{what}: `{text}` must be letters, digits, `.`, `_`, `-` and `/`, so the workflow's shell reads it as it is"
        ));
    }
    Ok(text.to_string())
}

/// The workflow: `{grade}` is the check command, `{pin}` cargo's flag and value.
const TEMPLATE: &str = r#"# .github/workflows/classroom.yml: GitHub Classroom grades each push with cardgrade.
# Printed by `grader github-workflow` (cardgrade {version}).
name: Autograding Tests
on: [push, repository_dispatch]
permissions:
  checks: write
  actions: read
  contents: read
env:
  # The course's cardgrade, installed at {pinned}: the grader that printed this workflow.
  CARDGRADE_REPO: "{repo}"
jobs:
  run-autograding-tests:
    # A fixed image: the cached grader was built on it.
    runs-on: ubuntu-24.04
    if: github.actor != 'github-classroom[bot]'
    steps:
      - uses: actions/checkout@v4
      - uses: dtolnay/rust-toolchain@stable
      # Submissions build offline, from the crates installing the grader fetched.
      - name: Cache cardgrade and the cargo registry
        id: cache
        uses: actions/cache@v4
        with:
          path: |
            ~/.cargo/bin/grader
            ~/.cargo/registry/index/
            ~/.cargo/registry/cache/
            ~/.cargo/git/db/
          key: cardgrade-${{ runner.os }}-${{ runner.arch }}-{pinned}
      - name: Install cardgrade
        if: steps.cache.outputs.cache-hit != 'true'
        run: cargo install --locked --git "$CARDGRADE_REPO" {pin} grader
      - name: cardgrade
        id: cardgrade
        # The student's view: hidden tests count, but their cases and what they found do not show.
        run: {grade}
        continue-on-error: true
      - name: Autograding Reporter
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
          CARDGRADE_RESULTS: "${{ steps.cardgrade.outputs.result }}"
        with:
          runners: cardgrade
"#;
