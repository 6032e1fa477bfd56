//! Why there is no runner to grade: every step of the build fails with a `BuildError`, so
//! it is a floor beneath them all.

use std::path::PathBuf;
use std::time::Duration;

/// Why there is no runner to grade.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(
        "{0} is not a Rust crate (no Cargo.toml there): run `grader check` inside your submission, or pass its folder"
    )]
    NotACrate(PathBuf),
    #[error("{path} cannot be read as a Cargo manifest: {reason}")]
    BadManifest { path: PathBuf, reason: String },
    #[error("{manifest} is refused: {reason}")]
    Refused { manifest: PathBuf, reason: String },
    #[error("your crate cannot be copied to build it: {0}")]
    Copy(String),
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
    #[error(
        "the build did not finish within {} s and was stopped, with every process it started (build scripts and proc macros included); --build-timeout sets the limit",
        .0.as_secs()
    )]
    TimedOut(Duration),
    #[error(
        "the build wrote more than {} MiB (build scripts and proc macros included) and was stopped, with every process it started; what it wrote was removed",
        .0 >> 20
    )]
    TooMuchDisk(u64),
    #[error("{0}")]
    NoBuildUser(String),
    /// The cargo the grader would run is where a build cannot see it.
    #[error("{0}")]
    ToolchainOutOfView(String),
    #[error("cargo could not build the runner:\n{0}")]
    Cargo(String),
    #[error("{0}")]
    ApiMismatch(String),
    #[error(
        "the runner your build made cannot be trusted, so nothing was graded: {0}. Something your build started (a build script or a proc macro) put it there"
    )]
    RunnerRefused(String),
    #[error("{0}")]
    RunnerStart(String),
    #[error("the generated test harness does not compile: {}", .0.iter().map(|e| e.message.as_str()).collect::<Vec<_>>().join("; "))]
    Harness(Vec<GeneratedError>),
}

impl BuildError {
    /// Why nothing was graded, in a few words for the score line and every test's failure.
    pub fn summary(&self) -> &'static str {
        match self {
            BuildError::RunnerStart(_) | BuildError::ApiMismatch(_) => "the runner did not start",
            BuildError::Refused { .. } => "the submission was refused before building",
            BuildError::RunnerRefused(_) => "the build's runner was refused",
            BuildError::TimedOut(_) => "the build took too long",
            BuildError::TooMuchDisk(_) => "the build wrote too much",
            BuildError::NoBuildUser(_) | BuildError::ToolchainOutOfView(_) => {
                "no build can run here"
            }
            _ => "the submission did not build",
        }
    }
}

/// An error of the generated crate's own file, and the line of it the error points at.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GeneratedError {
    pub message: String,
    pub line: Option<usize>,
}
