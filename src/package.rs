//! `grader gradescope package`: a Gradescope autograder zip. Its `setup.sh` installs the
//! pinned Rust toolchain and checks, offline, that grader-api builds from the vendored
//! sources the zip carries; its `run_autograder` grades `/autograder/submission` wherever
//! the crate sits in it (or in a zip the student uploaded), with builds taking crates only
//! from those sources, always writes `/autograder/results/results.json`, and always exits 0.
//! `grader gradescope unzip` is how it unpacks an upload.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::answers::Store;
use crate::cache;
use crate::compile::{API_FILES, API_MANIFEST, PINNED_LOCK, VENDOR_DIR_ENV};
use crate::exit;
use crate::glibc;
use crate::spec::{self, BUILT_IN_SPECS};
use crate::zip::{Entry, UPLOAD_LIMITS, archive};

#[derive(Debug, clap::Args)]
pub struct PackageArgs {
    /// Spec files or folders to grade with [default: the built-in specs].
    #[arg(long = "spec", value_name = "PATH")]
    pub specs: Vec<PathBuf>,
    /// Grade only this assignment (repeatable); the maximum is the specs', whatever a
    /// submission registers.
    #[arg(long = "assignment", value_name = "NAME")]
    pub assignments: Vec<String>,
    /// The zip to write.
    #[arg(long, value_name = "FILE", default_value = "autograder.zip")]
    pub out: PathBuf,
}

#[derive(Debug, clap::Args)]
pub struct UnzipArgs {
    /// The zip a student uploaded.
    pub zip: PathBuf,
    /// The folder to unpack it in, which must not exist yet.
    #[arg(long, value_name = "DIR")]
    pub into: PathBuf,
}

/// The Rust toolchain the grader is built and tested with (a unit test fails when another
/// builds it), and the one setup.sh installs on Gradescope: written here and nowhere else.
pub const PINNED_TOOLCHAIN: &str = "1.95.0";

/// The newest glibc of Gradescope's images, Ubuntu 22.04's (24.04's is newer): the
/// packaged grader may need no newer.
pub const GRADESCOPE_GLIBC: glibc::Version = (2, 35);

/// What `setup.sh` runs offline, once the toolchain is installed, is after this line; a
/// test runs that part alone, without a network.
pub const SETUP_OFFLINE_MARK: &str = "# Offline from here on.";

const SETUP: &str = r#"#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image.
set -euo pipefail
SOURCE="$(cd "$(dirname "$0")" && pwd)"
apt-get update -q
apt-get install -y -q curl ca-certificates build-essential
# Where every user can read it: builds run as unprivileged users, never as root.
export CARGO_HOME=/opt/cargo RUSTUP_HOME=/opt/rustup
# The toolchain the grader was tested with, not whatever is stable today.
curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal --default-toolchain TOOLCHAIN
chmod -R a+rX /opt/cargo /opt/rustup
. /opt/cargo/env
OFFLINE_MARK
chmod -R a+rX "$SOURCE"
chmod +x "$SOURCE/grader" "$SOURCE/run_autograder"
# Submissions build offline from the vendored sources alone: grader-api must build from
# them at its locked versions, or this image is refused now rather than on a submission.
CHECK_TARGET="$(mktemp -d)"
cargo build --offline --locked --quiet --manifest-path "$SOURCE/api/Cargo.toml" \
  --target-dir "$CHECK_TARGET" \
  --config 'source.crates-io.replace-with="cardgrade-vendored"' \
  --config "source.cardgrade-vendored.directory=\"$SOURCE/vendor\""
rm -rf "$CHECK_TARGET"
"#;

const RUN: &str = r#"#!/usr/bin/env bash
# Gradescope runs this for each submission. It always leaves results.json and exits 0.
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
RESULTS="$ROOT/results/results.json"
mkdir -p "$ROOT/results"
# A score of 0 and why, when nothing could be graded (the message made JSON-safe).
give_up() {
  local message="${1//\\/\\\\}"
  message="${message//\"/\\\"}"
  message="$(printf '%s' "$message" | tr -d '\000-\037')"
  # Shown as plain text: the message may quote the names of the zip's entries.
  printf '{"score": 0, "output": "%s", "output_format": "text", "tests": []}\n' "$message" > "$RESULTS"
}
# setup.sh installs the toolchain under /opt, where the unprivileged build users read it.
if [ -f /opt/cargo/env ]; then
  export CARGO_HOME=/opt/cargo RUSTUP_HOME=/opt/rustup
  . /opt/cargo/env
elif [ -f "$HOME/.cargo/env" ]; then
  . "$HOME/.cargo/env"
fi
# The shallowest folder under $1 holding a Cargo.toml (not in a target folder).
shallowest_crate() {
  local found
  found="$(find "$1" -name Cargo.toml -printf '%d %P\n' 2>/dev/null | grep -v -E '(^[0-9]+ |/)target/' | sort -n | head -n 1 | cut -d' ' -f2-)"
  if [ -n "$found" ]; then printf '%s\n' "$1/$(dirname "$found")"; fi
}
SUBMISSION="$ROOT/submission"
CRATE="$(shallowest_crate "$SUBMISSION")"
# No crate, but a zip: the student uploaded their crate zipped. It is unpacked outside the
# submission, refused whole if any entry reaches outside, is a link, or is too large.
UPLOAD="$(find "$SUBMISSION" -maxdepth 2 -type f -iname '*.zip' 2>/dev/null | sort | head -n 1)"
if [ -z "$CRATE" ] && [ -n "$UPLOAD" ]; then
  UNPACKED="$(mktemp -d)/upload"
  if ! REFUSED="$("$SOURCE/grader" gradescope unzip "$UPLOAD" --into "$UNPACKED" 2>&1)"; then
    give_up "Your zip could not be unpacked, so nothing was graded: ${REFUSED#error: }"
    exit 0
  fi
  CRATE="$(shallowest_crate "$UNPACKED")"
  SUBMISSION="$UNPACKED"
fi
# Builds take crates.io's crates from the sources vendored in this package, and no other.
export VENDOR_ENV="$SOURCE/vendor"
# The reference's answers to bulk groups were computed when this was packaged.
export CARDGRADE_ANSWERS_DIR="$SOURCE/answers"
# When it came and the student's earlier submissions, for the specs' `policy:`.
"$SOURCE/grader" check "${CRATE:-$SUBMISSION}" --format gradescope --output "$RESULTS" --spec "$SOURCE/specs" --color never --submission-metadata "$ROOT/submission_metadata.json" ASSIGNMENTS
if [ ! -s "$RESULTS" ]; then
  give_up "The autograder could not grade this submission; please tell the course staff."
fi
exit 0
"#;

pub fn run(args: PackageArgs) -> ExitCode {
    exit::done_or_usage(package(&args).map(|line| println!("{line}")))
}

/// `grader gradescope unzip`: what `run_autograder` unpacks a student's zip with.
pub fn unzip(args: UnzipArgs) -> ExitCode {
    exit::done_or_usage(
        crate::zip::unpack(&args.zip, &args.into, UPLOAD_LIMITS)
            .map(|_| ())
            .map_err(|error| error.to_string()),
    )
}

fn package(args: &PackageArgs) -> Result<String, String> {
    // The specs must load here, not first on Gradescope.
    let suite = spec::load(&args.specs, &[], None).map_err(|e| e.to_string())?;
    for name in &args.assignments {
        if !suite.groups.iter().any(|g| g.assignment.name() == name) {
            return Err(format!(
                "--assignment {name}: the specs hold no group of `{name}`"
            ));
        }
    }
    // What run_autograder grades: every assignment of the specs, or those named.
    let suite = if args.assignments.is_empty() {
        suite
    } else {
        suite.only(|name| args.assignments.iter().any(|kept| kept == name))
    };
    let mut specs: Vec<(String, Vec<u8>)> = Vec::new();
    if args.specs.is_empty() {
        for (path, text) in BUILT_IN_SPECS {
            let name = path.rsplit('/').next().unwrap_or(path);
            specs.push((name.to_string(), text.as_bytes().to_vec()));
        }
    } else {
        for file in spec::spec_files(&args.specs)? {
            let bytes =
                std::fs::read(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            let name = file
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            if specs.iter().any(|(seen, _)| *seen == name) {
                return Err(format!("two specs are named {name}; rename one"));
            }
            specs.push((name, bytes));
            // The mutants kept beside it, which its `student_tests` groups may name.
            let kept = spec::kept::beside(&file);
            if let Ok(bytes) = std::fs::read(&kept) {
                let name = kept
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                specs.push((name, bytes));
            }
        }
    }
    let grader = std::env::current_exe()
        .and_then(std::fs::read)
        .map_err(|e| format!("cannot read the grader's own binary: {e}"))?;
    let glibc = glibc::highest_needed(&grader)
        .map_err(|e| format!("cannot read the grader's own binary as an executable: {e}"))?;
    let glibc_said = match glibc {
        Some((major, minor)) if (major, minor) > GRADESCOPE_GLIBC => {
            return Err(format!(
                "this grader needs glibc {major}.{minor}, newer than Gradescope's Ubuntu 22.04 has ({}.{}): build it on a machine whose glibc is no newer, and package with that build",
                GRADESCOPE_GLIBC.0, GRADESCOPE_GLIBC.1
            ));
        }
        Some((major, minor)) => format!("needs glibc {major}.{minor}"),
        None => "needs no glibc".into(),
    };
    let assignments: Vec<String> = args
        .assignments
        .iter()
        .map(|name| format!("--assignment {name}"))
        .collect();
    let file = |path: &str, bytes: Vec<u8>, executable| Entry {
        path: path.to_string(),
        bytes,
        executable,
    };
    let setup = SETUP
        .replace("TOOLCHAIN", PINNED_TOOLCHAIN)
        .replace("OFFLINE_MARK", SETUP_OFFLINE_MARK);
    let run = RUN
        .replace("ASSIGNMENTS", &assignments.join(" "))
        .replace("VENDOR_ENV", VENDOR_DIR_ENV);
    let vendored = Vendored::make()?;
    let mut entries = vec![
        file("setup.sh", setup.into_bytes(), true),
        file("run_autograder", run.into_bytes(), true),
        file("grader", grader, true),
        file("api/Cargo.toml", API_MANIFEST.as_bytes().to_vec(), false),
        file("api/Cargo.lock", vendored.lock.into_bytes(), false),
    ];
    for (path, text) in API_FILES {
        entries.push(file(
            &format!("api/{}", path.trim_start_matches('/')),
            text.as_bytes().to_vec(),
            false,
        ));
    }
    for (path, bytes) in vendored.files {
        entries.push(file(&format!("vendor/{path}"), bytes, false));
    }
    for (name, bytes) in specs {
        entries.push(file(&format!("specs/{name}"), bytes, false));
    }
    // Kept answers, so that no submission waits for the reference's.
    let store = crate::compile::builds_folder()
        .map(|builds| Store::default_for(&builds))
        .map_err(|e| format!("no folder of builds to keep answers in: {e}"))?;
    for path in cache::keep_all(&store, &suite, &args.assignments)? {
        let bytes =
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        entries.push(file(&format!("answers/{name}"), bytes, false));
    }
    // The library's known mistakes, where the audit kept them, so that it diagnoses offline.
    let known: Vec<PathBuf> = suite
        .tests()
        .filter_map(|(_, test)| crate::diagnosis::kept_file(&store, &*test.request))
        .collect();
    let mut files_of_known = known.clone();
    // Tests that ask alike share a file.
    files_of_known.sort_unstable();
    files_of_known.dedup();
    for path in &files_of_known {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        entries.push(file(&format!("answers/{name}"), bytes, false));
    }
    let tests = suite.tests().count();
    let diagnosed = match known.len() {
        all if all == tests => "known mistakes for every test".to_string(),
        some => format!(
            "known mistakes for {some} of {tests} tests: `grader spec audit` of these specs, run first, keeps the rest"
        ),
    };
    let zip = archive(&entries).map_err(|e| format!("cannot make the zip: {e}"))?;
    std::fs::write(&args.out, &zip)
        .map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;
    Ok(format!(
        "wrote {} ({} files, {:.1} MB, {tests} tests, {glibc_said}; {diagnosed}): upload it as the assignment's autograder",
        args.out.display(),
        entries.len(),
        zip.len() as f64 / 1e6,
    ))
}

/// grader-api's dependencies as `cargo vendor` copies them, at the versions of the
/// grader's own lock.
struct Vendored {
    /// grader-api's own lock: the grader's, less what grader-api does not use.
    lock: String,
    /// Each file of the vendored sources, by its path in the vendor folder.
    files: Vec<(String, Vec<u8>)>,
}

impl Vendored {
    fn make() -> Result<Vendored, String> {
        let work = crate::temp::folder("vendor").map_err(|e| {
            format!("cannot make a folder to vendor grader-api's dependencies in: {e}")
        })?;
        Vendored::make_in(work.path())
    }

    fn make_in(work: &Path) -> Result<Vendored, String> {
        let api = work.join("api");
        let vendor = work.join("vendor");
        let failed = |what: &str, e: std::io::Error| {
            format!("cannot {what} to vendor grader-api's dependencies: {e}")
        };
        crate::compile::write_api(&api).map_err(|e| failed("write grader-api", e))?;
        std::fs::write(api.join("Cargo.lock"), PINNED_LOCK)
            .map_err(|e| failed("write its lock", e))?;
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        // Not --locked: cargo drops from the lock what grader-api does not use, and adds
        // nothing, which is checked below.
        let out = std::process::Command::new(&cargo)
            .arg("vendor")
            .arg("--quiet")
            .arg("--manifest-path")
            .arg(api.join("Cargo.toml"))
            .arg(&vendor)
            .current_dir(work)
            .output()
            .map_err(|e| failed("run cargo", e))?;
        if !out.status.success() {
            return Err(format!(
                "`cargo vendor` of grader-api's dependencies failed:\n{}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let lock = std::fs::read_to_string(api.join("Cargo.lock"))
            .map_err(|e| failed("read grader-api's lock", e))?;
        let pinned = locked_packages(PINNED_LOCK)?;
        if let Some((name, version)) = locked_packages(&lock)?
            .into_iter()
            .find(|package| !pinned.contains(package))
        {
            return Err(format!(
                "`cargo vendor` resolved {name} {version}, which the grader's Cargo.lock does not pin"
            ));
        }
        let mut files = Vec::new();
        collect_files(&vendor, &vendor, &mut files)
            .map_err(|e| failed("read the vendored sources", e))?;
        files.sort();
        Ok(Vendored { lock, files })
    }
}

/// The `(name, version)` of each package of a Cargo.lock.
fn locked_packages(lock: &str) -> Result<Vec<(String, String)>, String> {
    let table: toml::Table = lock
        .parse()
        .map_err(|e| format!("a Cargo.lock cannot be read: {e}"))?;
    let field = |package: &toml::Value, key: &str| {
        package
            .get(key)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    Ok(table
        .get("package")
        .and_then(|p| p.as_array())
        .into_iter()
        .flatten()
        .map(|package| (field(package, "name"), field(package, "version")))
        .collect())
}

/// Every regular file below `dir`, by its path from `root`, with its bytes.
fn collect_files(
    root: &Path,
    dir: &Path,
    files: &mut Vec<(String, Vec<u8>)>,
) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            collect_files(root, &entry.path(), files)?;
        } else if kind.is_file() {
            let relative = entry
                .path()
                .strip_prefix(root)
                .map_err(std::io::Error::other)?
                .to_string_lossy()
                .into_owned();
            files.push((relative, std::fs::read(entry.path())?));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pinned_toolchain_is_the_one_that_built_the_grader() {
        // Cargo sets CARGO to its own path when it builds this test.
        let out = std::process::Command::new(env!("CARGO"))
            .arg("--version")
            .output()
            .unwrap();
        let version = String::from_utf8_lossy(&out.stdout);
        assert!(
            version.starts_with(&format!("cargo {PINNED_TOOLCHAIN} ")),
            "the Gradescope package pins Rust {PINNED_TOOLCHAIN} (PINNED_TOOLCHAIN in src/package.rs), but the grader is built and tested with {version}"
        );
    }

    #[test]
    fn a_lock_lists_its_packages_by_name_and_version() {
        let packages = locked_packages(PINNED_LOCK).unwrap();
        assert!(packages.iter().any(|(name, _)| name == "grader-api"));
        assert!(locked_packages("[[package]\n").is_err());
    }
}
