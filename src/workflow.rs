//! `grader github-workflow`: the GitHub Classroom workflow that grades with cardgrade. It
//! installs the pinned Rust toolchain and the grader at one commit of the course's
//! repository, built there once or prebuilt and checked by its digest (then both from the
//! Actions cache, with the cargo registry that offline builds need), and grades each push
//! of the named assignments in the student's view, as root where the runner gives
//! passwordless sudo. `--release-workflow` prints the course repository's workflow that
//! builds the prebuilt grader.

use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use crate::check::{assignment_name, assignments_of};
use crate::exit;
use crate::package::PINNED_TOOLCHAIN;
use crate::results::Points;
use crate::spec;

/// The commit this grader was built from, empty when it was not built in a git checkout.
const BUILT_FROM: &str = env!("CARDGRADE_GIT_REV");

#[derive(Debug, clap::Args)]
pub struct WorkflowArgs {
    /// The course's cardgrade repository (its git URL), which the workflow installs the
    /// grader from.
    #[arg(long, value_name = "URL", required_unless_present = "release_workflow")]
    pub repo: Option<String>,
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
    /// Take the course's prebuilt grader from this URL (the release asset the workflow of
    /// --release-workflow uploads), so that no student's job compiles it; with --sha256.
    /// Without it, the workflow builds the grader with `cargo install`.
    #[arg(long, value_name = "URL", requires = "sha256")]
    pub binary_url: Option<String>,
    /// The SHA-256 of the grader at --binary-url (64 hex digits: the first word of the
    /// release's .sha256 asset); the workflow runs no other file.
    #[arg(long, value_name = "SUM", requires = "binary_url", value_parser = sha256)]
    pub sha256: Option<String>,
    /// Grade with `--sandbox strict`: a job on a runner without every sandbox layer (one
    /// without passwordless sudo) grades nothing, rather than grading with fewer.
    #[arg(long)]
    pub strict_sandbox: bool,
    /// Print instead the workflow of the course's cardgrade repository that builds the
    /// grader for each release published there and uploads it, with its .sha256, as the
    /// release's assets: what --binary-url and --sha256 name.
    #[arg(
        long,
        conflicts_with_all = [
            "repo", "assignments", "all", "specs", "added_specs", "rev", "tag",
            "binary_url", "sha256", "strict_sandbox",
        ]
    )]
    pub release_workflow: bool,
}

/// The name of the prebuilt grader the release workflow uploads.
const RELEASE_ASSET: &str = "grader-x86_64-unknown-linux-gnu";

pub fn run(args: WorkflowArgs) -> ExitCode {
    let printed = match args.release_workflow {
        true => Ok(release_workflow()),
        false => workflow(&args),
    };
    exit::done_or_usage(printed.map(|(text, told)| {
        print!("{text}");
        eprintln!("{told}");
    }))
}

/// The workflow, and a line for staff saying what it grades and installs.
fn workflow(args: &WorkflowArgs) -> Result<(String, String), String> {
    let repo = args
        .repo
        .as_deref()
        .ok_or("name the course's cardgrade repository with --repo URL")?;
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
    quotable_url(repo, "--repo")?;
    let names: Vec<&str> = match args.all {
        true => held,
        false => args.assignments.iter().map(String::as_str).collect(),
    };
    let mut grade = vec!["grader check . --format github --student-view".to_string()];
    if args.strict_sandbox {
        grade.push("--sandbox strict".into());
    }
    grade.extend(names.iter().map(|name| format!("--assignment {name}")));
    for (flag, paths) in [("--spec", &args.specs), ("--add-spec", &args.added_specs)] {
        grade.extend(
            paths
                .iter()
                .map(|path| format!("{flag} {}", path.display())),
        );
    }
    let (install, binary_env, built) = match (&args.binary_url, &args.sha256) {
        (Some(url), Some(sum)) => {
            quotable_url(url, "--binary-url")?;
            // A shallow fetch names a commit by its full hash only.
            if pin == "--rev" && !hex_digits(&pinned, 40) {
                return Err(format!(
                    "--rev {pinned}: with --binary-url the workflow fetches the crates of that commit by its full hash; give all 40 hex digits, or --tag TAG"
                ));
            }
            let env = format!(
                "  # The course's prebuilt grader, of {pin} {pinned}, and its SHA-256: no other file runs.\n  CARDGRADE_BINARY_URL: \"{url}\"\n  CARDGRADE_BINARY_SHA256: \"{sum}\"\n"
            );
            (DOWNLOAD, env, format!("prebuilt-{sum}"))
        }
        // clap requires both or neither.
        _ => (CARGO_INSTALL, String::new(), "built".to_string()),
    };
    let without_root = match args.strict_sandbox {
        true => {
            "::error title=cardgrade sandbox::no passwordless sudo on this runner, so the sandbox lacks the layers only root gives, and --sandbox strict grades nothing without them"
        }
        false => {
            "::warning title=cardgrade sandbox::no passwordless sudo on this runner: grading without the sandbox layers only root gives"
        }
    };
    let text = TEMPLATE
        .replace("{install}", install)
        .replace("{binary_env}", &binary_env)
        .replace("{built}", &built)
        .replace("{without_root}", without_root)
        .replace("{toolchain}", PINNED_TOOLCHAIN)
        .replace("{version}", env!("CARGO_PKG_VERSION"))
        .replace("{repo}", repo)
        .replace("{pin}", &format!("{pin} {pinned}"))
        .replace("{pinned}", &pinned)
        .replace("{grade}", &grade.join(" "));
    let how = match &args.binary_url {
        Some(url) => format!("the prebuilt grader at {url}, of {repo} at {pin} {pinned}"),
        None => format!("the grader of {repo} at {pin} {pinned}"),
    };
    let told = format!(
        "the workflow grades {} out of {points} points, with {how}",
        names.join(", "),
    );
    Ok((text, told))
}

/// The release workflow, and a line for staff saying where it goes and what it does.
fn release_workflow() -> (String, String) {
    let text = RELEASE
        .replace("{toolchain}", PINNED_TOOLCHAIN)
        .replace("{version}", env!("CARGO_PKG_VERSION"))
        .replace("{asset}", RELEASE_ASSET);
    let told = format!(
        "the workflow goes in the course's cardgrade repository, as .github/workflows/cardgrade-release.yml: each release published there gets two assets, {RELEASE_ASSET} (the grader, built with Rust {PINNED_TOOLCHAIN}) and {RELEASE_ASSET}.sha256, and the job's summary gives the `grader github-workflow` command that takes them"
    );
    (text, told)
}

/// Refuses `text`, the URL `flag` gives, unless the workflow can quote it as it is: in a
/// YAML string, in the shell (where only its variable is expanded), and in the template,
/// whose placeholders are written in braces.
fn quotable_url(text: &str, flag: &str) -> Result<(), String> {
    if text
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || "\"\\'$`{}".contains(c))
    {
        return Err(format!(
            "{flag} {text}: the workflow takes a URL with no space, quote, backslash, `$`, backquote or brace"
        ));
    }
    Ok(())
}

/// `text` as --sha256 takes it: 64 hex digits, in the lower case `sha256sum` writes.
fn sha256(text: &str) -> Result<String, String> {
    match hex_digits(text, 64) {
        true => Ok(text.to_ascii_lowercase()),
        false => Err(
            "a SHA-256 is 64 hex digits, the first word of the release's .sha256 asset (or of `sha256sum FILE`)".into(),
        ),
    }
}

/// Whether `text` is `count` hex digits.
fn hex_digits(text: &str, count: usize) -> bool {
    text.len() == count && text.chars().all(|c| c.is_ascii_hexdigit())
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

/// The workflow: `{grade}` is the check command, `{pin}` cargo's flag and value, `{install}`
/// [`CARGO_INSTALL`] or [`DOWNLOAD`], `{built}` how the cached grader was made.
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
{binary_env}jobs:
  run-autograding-tests:
    # A fixed image: the cached grader was built on it.
    runs-on: ubuntu-24.04
    if: github.actor != 'github-classroom[bot]'
    defaults:
      run:
        shell: bash
    steps:
      - uses: actions/checkout@v4
      # The toolchain the grader is tested with, and the Gradescope package installs.
      - name: Install Rust {toolchain}
        run: rustup toolchain install {toolchain} --profile minimal --no-self-update && rustup default {toolchain}
      # Submissions build offline, from the crates installing the grader fetched and
      # unpacked: builds read the registry and cannot unpack into it.
      - name: Cache cardgrade and the cargo registry
        id: cache
        uses: actions/cache@v4
        with:
          path: |
            ~/.cargo/bin/grader
            ~/.cargo/registry/index/
            ~/.cargo/registry/cache/
            ~/.cargo/registry/src/
            ~/.cargo/git/db/
          key: cardgrade-${{ runner.os }}-${{ runner.arch }}-rust-{toolchain}-{pinned}-{built}
{install}      - name: cardgrade
        id: cardgrade
        # The student's view: hidden tests count, but their cases and what they found do not
        # show. As root (hosted runners give passwordless sudo) the sandbox has every layer;
        # the toolchain stays the one installed above.
        run: |
          as_root=()
          if sudo -n true 2>/dev/null; then
            as_root=(sudo -E env "PATH=$PATH" "CARGO_HOME=${CARGO_HOME:-$HOME/.cargo}" "RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}")
          else
            echo "{without_root}"
          fi
          "${as_root[@]}" {grade}
        continue-on-error: true
      - name: Autograding Reporter
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
          CARDGRADE_RESULTS: "${{ steps.cardgrade.outputs.result }}"
        with:
          runners: cardgrade
"#;

/// The workflow's steps that build the grader, when no prebuilt one is named.
const CARGO_INSTALL: &str = r#"      - name: Install cardgrade
        if: steps.cache.outputs.cache-hit != 'true'
        run: cargo install --locked --git "$CARDGRADE_REPO" {pin} grader
"#;

/// The workflow's steps that take the prebuilt grader, and the crates submissions build
/// with, which `cargo install` would have fetched.
const DOWNLOAD: &str = r#"      - name: Download cardgrade
        if: steps.cache.outputs.cache-hit != 'true'
        run: |
          mkdir -p ~/.cargo/bin
          download=~/.cargo/bin/grader.download
          curl --fail --silent --show-error --location --retry 3 --output "$download" "$CARDGRADE_BINARY_URL"
          if ! printf '%s  %s\n' "$CARDGRADE_BINARY_SHA256" "$download" | sha256sum --check --quiet; then
            got="$(sha256sum "$download" | cut -d' ' -f1)"
            rm -f "$download"
            echo "::error title=cardgrade download::the file at $CARDGRADE_BINARY_URL has SHA-256 $got, not $CARDGRADE_BINARY_SHA256 as this workflow names, so it is not run: print the workflow again with the release's .sha256"
            exit 1
          fi
          chmod +x "$download"
          mv "$download" ~/.cargo/bin/grader
      - name: Fetch the crates submissions build with
        if: steps.cache.outputs.cache-hit != 'true'
        run: |
          source="$RUNNER_TEMP/cardgrade"
          git init --quiet "$source"
          git -C "$source" fetch --quiet --depth 1 "$CARDGRADE_REPO" {pinned}
          git -C "$source" checkout --quiet FETCH_HEAD
          cargo fetch --locked --target x86_64-unknown-linux-gnu --manifest-path "$source/Cargo.toml"
"#;

/// The course's cardgrade repository's workflow that uploads the grader, for `{asset}`.
const RELEASE: &str = r#"# .github/workflows/cardgrade-release.yml in the course's cardgrade repository: each release
# gets the grader as an asset, with its SHA-256, for `grader github-workflow --binary-url`.
# Printed by `grader github-workflow --release-workflow` (cardgrade {version}).
name: cardgrade release
on:
  release:
    types: [published]
permissions:
  contents: write
jobs:
  grader:
    # The image the Classroom workflow grades on: the grader needs no newer glibc.
    runs-on: ubuntu-24.04
    defaults:
      run:
        shell: bash
    steps:
      - uses: actions/checkout@v4
      # The toolchain the grader is tested with.
      - name: Install Rust {toolchain}
        run: rustup toolchain install {toolchain} --profile minimal --no-self-update && rustup default {toolchain}
      - name: Build the grader
        run: cargo build --release --locked --target x86_64-unknown-linux-gnu --bin grader
      - name: Upload the grader and its SHA-256
        env:
          GH_TOKEN: ${{ github.token }}
          GH_REPO: ${{ github.repository }}
          REPOSITORY: ${{ github.server_url }}/${{ github.repository }}
          TAG: ${{ github.event.release.tag_name }}
        run: |
          cp target/x86_64-unknown-linux-gnu/release/grader {asset}
          sha256sum {asset} > {asset}.sha256
          gh release upload "$TAG" {asset} {asset}.sha256 --clobber
          sum="$(cut -d' ' -f1 {asset}.sha256)"
          {
            echo "Print the Classroom workflow that takes this grader with:"
            echo
            echo "    grader github-workflow --repo $REPOSITORY --tag $TAG --binary-url $REPOSITORY/releases/download/$TAG/{asset} --sha256 $sum --assignment NAME"
          } >> "$GITHUB_STEP_SUMMARY"
"#;
