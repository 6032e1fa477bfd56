//! Builds a submission into a runner, trybuild-style: a generated crate under the
//! submission's `target/grader/` whose `main` serves the submission's registry, built in
//! release with a target dir kept between runs so a re-run recompiles only the student's
//! crate.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

/// Overrides where runners are built, so many submissions can share compiled dependencies.
pub const TARGET_DIR_ENV: &str = "CARDGRADE_TARGET_DIR";

/// The student's crate, as its manifest describes it.
#[derive(Debug, Clone)]
pub struct SubmissionCrate {
    pub root: PathBuf,
    pub package: String,
    pub lib_name: String,
}

/// Why there is no runner to grade.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(
        "{0} is not a Rust crate (no Cargo.toml there): run `grader check` inside your submission, or pass its folder"
    )]
    NotACrate(PathBuf),
    #[error("{path} cannot be read as a Cargo manifest: {reason}")]
    BadManifest { path: PathBuf, reason: String },
    #[error(
        "{0} has no library: cardgrade grades a library crate with `pub fn submission()` in src/lib.rs (copy student_template to start)"
    )]
    NoLibrary(PathBuf),
    #[error(
        "your crate has no usable `pub fn submission() -> grader_api::Submission` in src/lib.rs: add one that registers your types, as student_template does (the compiler says: {0})"
    )]
    NoSubmissionFn(String),
    #[error("your crate does not compile; the compiler says:\n{0}")]
    Compile(String),
    #[error("cargo could not build the runner:\n{0}")]
    Cargo(String),
    #[error("{0}")]
    ApiMismatch(String),
    #[error("{0}")]
    RunnerStart(String),
}

#[derive(Deserialize)]
struct StudentManifest {
    package: Option<StudentPackage>,
    lib: Option<StudentLib>,
}

#[derive(Deserialize)]
struct StudentPackage {
    name: String,
}

#[derive(Deserialize)]
struct StudentLib {
    name: Option<String>,
    path: Option<String>,
}

/// Reads the crate at `path`.
pub fn locate(path: &Path) -> Result<SubmissionCrate, BuildError> {
    let root =
        std::fs::canonicalize(path).map_err(|_| BuildError::NotACrate(path.to_path_buf()))?;
    let manifest_path = root.join("Cargo.toml");
    let text =
        std::fs::read_to_string(&manifest_path).map_err(|_| BuildError::NotACrate(root.clone()))?;
    let manifest: StudentManifest =
        toml::from_str(&text).map_err(|error| BuildError::BadManifest {
            path: manifest_path.clone(),
            reason: error.to_string(),
        })?;
    let package = manifest
        .package
        .ok_or_else(|| BuildError::BadManifest {
            path: manifest_path.clone(),
            reason: "it has no [package] section (a workspace root is not a submission; pass the member's folder)"
                .into(),
        })?
        .name;
    let lib_path = manifest
        .lib
        .as_ref()
        .and_then(|lib| lib.path.clone())
        .unwrap_or_else(|| "src/lib.rs".into());
    if !root.join(&lib_path).is_file() {
        return Err(BuildError::NoLibrary(root));
    }
    let lib_name = manifest
        .lib
        .and_then(|lib| lib.name)
        .unwrap_or_else(|| package.replace('-', "_"));
    Ok(SubmissionCrate {
        root,
        package,
        lib_name,
    })
}

#[derive(Serialize)]
struct RunnerManifest {
    package: RunnerPackage,
    bin: Vec<RunnerBin>,
    dependencies: BTreeMap<String, PathDependency>,
    /// An empty table: the runner is a workspace of its own, whatever surrounds it.
    workspace: BTreeMap<String, String>,
    profile: BTreeMap<String, RunnerProfile>,
}

#[derive(Serialize)]
struct RunnerPackage {
    name: String,
    version: String,
    edition: String,
    publish: bool,
}

#[derive(Serialize)]
struct RunnerBin {
    name: String,
    path: String,
}

#[derive(Serialize)]
struct PathDependency {
    path: PathBuf,
    package: String,
}

#[derive(Serialize)]
struct RunnerProfile {
    debug: bool,
    incremental: bool,
    #[serde(rename = "codegen-units")]
    codegen_units: u32,
}

/// Where the runner of `submission` is generated and built.
pub struct RunnerLayout {
    pub crate_dir: PathBuf,
    pub target_dir: PathBuf,
    pub bin_name: String,
}

impl RunnerLayout {
    pub fn for_submission(submission: &SubmissionCrate) -> RunnerLayout {
        let crate_dir = submission.root.join("target").join("grader");
        let target_dir = std::env::var_os(TARGET_DIR_ENV)
            .map(PathBuf::from)
            .unwrap_or_else(|| crate_dir.join("target"));
        RunnerLayout {
            bin_name: format!("cardgrade-runner-{}", submission.package),
            crate_dir,
            target_dir,
        }
    }
}

/// Writes the runner crate and builds it; returns the runner's executable.
pub fn build(submission: &SubmissionCrate, color: bool) -> Result<PathBuf, BuildError> {
    let layout = RunnerLayout::for_submission(submission);
    write_runner_crate(submission, &layout).map_err(|e| BuildError::Cargo(e.to_string()))?;
    let message_format = if color {
        "json-diagnostic-rendered-ansi"
    } else {
        "json"
    };
    let mut child = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .arg("build")
        .arg("--release")
        .arg("--message-format")
        .arg(message_format)
        .arg("--manifest-path")
        .arg(layout.crate_dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&layout.target_dir)
        .arg("--color")
        .arg(if color { "always" } else { "never" })
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| BuildError::Cargo(format!("cannot start cargo: {error}")))?;
    let stderr = child.stderr.take();
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut stderr) = stderr {
            let _ = stderr.read_to_string(&mut text);
        }
        text
    });
    let mut outcome = BuildOutcome::default();
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            outcome.absorb(&line, &layout.bin_name);
        }
    }
    let status = child
        .wait()
        .map_err(|error| BuildError::Cargo(format!("cargo did not finish: {error}")))?;
    let cargo_stderr = stderr_reader.join().unwrap_or_default();
    match (status.success(), outcome.executable) {
        (true, Some(executable)) => Ok(executable),
        _ if !outcome.errors.is_empty() => Err(BuildError::Compile(outcome.errors.join("\n"))),
        _ if !outcome.runner_errors.is_empty() => {
            Err(BuildError::NoSubmissionFn(outcome.runner_errors.join("; ")))
        }
        _ => Err(BuildError::Cargo(cargo_stderr.trim().to_string())),
    }
}

fn write_runner_crate(submission: &SubmissionCrate, layout: &RunnerLayout) -> std::io::Result<()> {
    std::fs::create_dir_all(&layout.crate_dir)?;
    let manifest = RunnerManifest {
        package: RunnerPackage {
            name: layout.bin_name.clone(),
            version: "0.0.0".into(),
            edition: "2024".into(),
            publish: false,
        },
        bin: vec![RunnerBin {
            name: layout.bin_name.clone(),
            path: "main.rs".into(),
        }],
        dependencies: BTreeMap::from([(
            submission.lib_name.clone(),
            PathDependency {
                path: submission.root.clone(),
                package: submission.package.clone(),
            },
        )]),
        workspace: BTreeMap::new(),
        profile: BTreeMap::from([(
            "release".to_string(),
            RunnerProfile {
                debug: false,
                incremental: true,
                codegen_units: 16,
            },
        )]),
    };
    let toml = toml::to_string(&manifest).map_err(std::io::Error::other)?;
    write_if_changed(&layout.crate_dir.join("Cargo.toml"), &toml)?;
    let main = format!(
        "// Generated by cardgrade: serves your submission to the grader.\nfn main() {{\n    {}::submission().serve()\n}}\n",
        submission.lib_name
    );
    write_if_changed(&layout.crate_dir.join("main.rs"), &main)
}

/// Rewriting an unchanged file would make cargo rebuild the runner for nothing.
fn write_if_changed(path: &Path, contents: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|existing| existing == contents) {
        return Ok(());
    }
    std::fs::write(path, contents)
}

#[derive(Default)]
struct BuildOutcome {
    executable: Option<PathBuf>,
    /// Rendered errors of the student's crate (or anything else that is not the runner).
    errors: Vec<String>,
    /// Errors in the generated main.rs: the contract is missing, not the student's logic.
    runner_errors: Vec<String>,
}

#[derive(Deserialize)]
struct CargoMessage {
    reason: String,
    target: Option<CargoTarget>,
    executable: Option<PathBuf>,
    message: Option<CompilerMessage>,
}

#[derive(Deserialize)]
struct CargoTarget {
    name: String,
}

#[derive(Deserialize)]
struct CompilerMessage {
    level: String,
    rendered: Option<String>,
    message: String,
}

impl BuildOutcome {
    fn absorb(&mut self, line: &str, runner_bin: &str) {
        let Ok(message) = serde_json::from_str::<CargoMessage>(line) else {
            return;
        };
        match message.reason.as_str() {
            "compiler-artifact"
                if message
                    .target
                    .as_ref()
                    .is_some_and(|t| t.name == runner_bin) =>
            {
                self.executable = message.executable.or(self.executable.take());
            }
            "compiler-message" => {
                let (Some(diagnostic), Some(target)) = (message.message, message.target) else {
                    return;
                };
                if diagnostic.level != "error" {
                    return;
                }
                if target.name == runner_bin {
                    self.runner_errors.push(diagnostic.message);
                } else {
                    self.errors
                        .push(diagnostic.rendered.unwrap_or(diagnostic.message));
                }
            }
            _ => {}
        }
    }
}
