//! `grader gradescope package`: a Gradescope autograder zip. Its `setup.sh` installs a Rust
//! toolchain and fetches grader-api's dependencies (builds are offline); its
//! `run_autograder` grades `/autograder/submission` wherever the crate sits in it, always
//! writes `/autograder/results/results.json`, and always exits 0.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::answers::{self, Store};
use crate::compile::{API_FILES, API_MANIFEST, PINNED_LOCK};
use crate::exit;
use crate::spec::{self, BUILT_IN_SPECS};
use crate::zip::{Entry, archive};

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

const SETUP: &str = r#"#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image.
set -euo pipefail
SOURCE="$(cd "$(dirname "$0")" && pwd)"
apt-get update -q
apt-get install -y -q curl ca-certificates build-essential
# Where every user can read it: builds run as unprivileged users, never as root.
export CARGO_HOME=/opt/cargo RUSTUP_HOME=/opt/rustup
curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal --default-toolchain stable
chmod -R a+rX /opt/cargo /opt/rustup
. /opt/cargo/env
# Submissions are built offline: grader-api's dependencies are fetched now, once.
cargo fetch --manifest-path "$SOURCE/api/Cargo.toml"
chmod +x "$SOURCE/grader" "$SOURCE/run_autograder"
"#;

const RUN: &str = r#"#!/usr/bin/env bash
# Gradescope runs this for each submission. It always leaves results.json and exits 0.
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
RESULTS="$ROOT/results/results.json"
mkdir -p "$ROOT/results"
# setup.sh installs the toolchain under /opt, where the unprivileged build users read it.
if [ -f /opt/cargo/env ]; then
  export CARGO_HOME=/opt/cargo RUSTUP_HOME=/opt/rustup
  . /opt/cargo/env
elif [ -f "$HOME/.cargo/env" ]; then
  . "$HOME/.cargo/env"
fi
# The crate is the shallowest folder holding a Cargo.toml, wherever the student put it.
FOUND="$(find "$ROOT/submission" -name Cargo.toml -printf '%d %P\n' 2>/dev/null | grep -v -E '(^[0-9]+ |/)target/' | sort -n | head -n 1 | cut -d' ' -f2-)"
CRATE="$ROOT/submission"
if [ -n "$FOUND" ]; then CRATE="$ROOT/submission/$(dirname "$FOUND")"; fi
# The reference's answers to bulk groups were computed when this was packaged.
export CARDGRADE_ANSWERS_DIR="$SOURCE/answers"
"$SOURCE/grader" check "$CRATE" --format gradescope --output "$RESULTS" --spec "$SOURCE/specs" --color never ASSIGNMENTS
if [ ! -s "$RESULTS" ]; then
  printf '{"score": 0, "output": "The autograder could not grade this submission; please tell the course staff.", "tests": []}\n' > "$RESULTS"
fi
exit 0
"#;

pub fn run(args: PackageArgs) -> ExitCode {
    exit::done_or_usage(package(&args).map(|line| println!("{line}")))
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
        }
    }
    let grader = std::env::current_exe()
        .and_then(std::fs::read)
        .map_err(|e| format!("cannot read the grader's own binary: {e}"))?;
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
    let mut entries = vec![
        file("setup.sh", SETUP.as_bytes().to_vec(), true),
        file(
            "run_autograder",
            RUN.replace("ASSIGNMENTS", &assignments.join(" "))
                .into_bytes(),
            true,
        ),
        file("grader", grader, true),
        file("api/Cargo.toml", API_MANIFEST.as_bytes().to_vec(), false),
        file("api/Cargo.lock", PINNED_LOCK.as_bytes().to_vec(), false),
    ];
    for (path, text) in API_FILES {
        entries.push(file(
            &format!("api/{}", path.trim_start_matches('/')),
            text.as_bytes().to_vec(),
            false,
        ));
    }
    for (name, bytes) in specs {
        entries.push(file(&format!("specs/{name}"), bytes, false));
    }
    // Kept answers, so that no submission waits for the reference's.
    let store = crate::compile::builds_folder()
        .map(|builds| Store::default_for(&builds))
        .map_err(|e| format!("no folder of builds to keep answers in: {e}"))?;
    for path in answers::keep_all(&store, &suite, &args.assignments)? {
        let bytes =
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        entries.push(file(&format!("answers/{name}"), bytes, false));
    }
    let zip = archive(&entries);
    std::fs::write(&args.out, &zip)
        .map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;
    Ok(format!(
        "wrote {} ({} files, {} tests): upload it as the assignment's autograder",
        args.out.display(),
        entries.len(),
        suite.tests().count()
    ))
}
