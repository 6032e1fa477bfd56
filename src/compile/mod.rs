//! Builds a submission into a runner, trybuild-style, in the sandbox: the submission is
//! copied into a build folder of the grader's own with its manifests checked and pointed at
//! the grader's own grader-api, a generated crate whose `main` serves the submission's
//! registry is built offline against a lockfile the grader controls, and the build folder
//! is kept between runs so a re-run recompiles only the student's crate.

mod artifact;
mod cache;
mod cargo;
mod copy;
mod inherit;
mod layout;

pub use cargo::GeneratedError;
pub use copy::{FOLDER_BYTES, open_regular};
pub use layout::{builds_folder, own_builds_in, shared_builds, stable_hash};
mod manifest;
mod runner_crate;

pub(crate) use runner_crate::write_if_changed;
use runner_crate::{PathDependency, write_runner_crate};

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::sandbox::{self, Sandbox};
use crate::student_text::StudentText;
use copy::{Caps, Tree, UNCAPPED, copy_tree};
use layout::{Builder, Layout, shared_api};

include!(concat!(env!("OUT_DIR"), "/embedded_api.rs"));

/// The grader's own lockfile: the runner resolves grader-api's dependencies to the very
/// versions the grader was built and tested with.
pub(crate) const PINNED_LOCK: &str = include_str!("../../Cargo.lock");

/// The end of a runner's or a harness's crate root: the allocator they are linked with
/// (see grader-api's `allocator` feature), which is a submission's too. Last, so that the
/// lines above keep their numbers.
const RUNNER_ALLOCATOR: &str = "\n#[global_allocator]\nstatic ALLOCATOR: grader_api::RunnerAllocator = grader_api::RunnerAllocator;\n";

/// What names a global allocator in Rust source.
const NAMES_AN_ALLOCATOR: &str = "global_allocator";

/// `main` as the crate root of a runner or a harness: ending with the runner's allocator,
/// unless it or the submission it is built around (`submission_names_one`) names one of
/// its own, as a crate has one global allocator.
fn with_runner_allocator(main: &str, submission_names_one: bool) -> String {
    match submission_names_one || main.contains(NAMES_AN_ALLOCATOR) {
        true => main.to_string(),
        false => format!("{main}{RUNNER_ALLOCATOR}"),
    }
}

/// Whether a Rust file of the copied submission at `dir` names a global allocator: read as
/// any file a build could have touched is, opened without following a link.
fn declares_an_allocator(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => declares_an_allocator(&path),
            Ok(kind) if kind.is_file() && path.extension().is_some_and(|e| e == "rs") => {
                let mut text = String::new();
                open_regular(&path)
                    .and_then(|mut file| file.read_to_string(&mut text))
                    .is_ok_and(|_| text.contains(NAMES_AN_ALLOCATOR))
            }
            _ => false,
        }
    })
}

/// Makes the builds of many submissions happen outside them, each in a folder of its own,
/// sharing grader-api compiled once in a cache no build can write.
pub const TARGET_DIR_ENV: &str = "CARDGRADE_TARGET_DIR";

/// Names a folder of vendored sources (`cargo vendor` of grader-api's dependencies at
/// [`PINNED_LOCK`]'s versions) that builds take crates.io's crates from, as the Gradescope
/// package's `run_autograder` sets it, so that builds need nothing the toolchain fetched.
pub const VENDOR_DIR_ENV: &str = "CARDGRADE_VENDOR_DIR";

/// The folder [`VENDOR_DIR_ENV`] names, if it is set, made absolute.
fn vendored_sources() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os(VENDOR_DIR_ENV)?);
    Some(std::fs::canonicalize(&dir).unwrap_or(dir))
}

/// How long a build may take unless `--build-timeout` says otherwise.
pub const DEFAULT_BUILD_TIMEOUT: Duration = Duration::from_secs(300);

/// The most of a submission the grader copies to build it.
const SUBMISSION_CAPS: Caps = Caps {
    files: 2_000,
    bytes: 50_000_000,
};

/// The student's crate, as its manifest describes it.
#[derive(Debug, Clone)]
pub struct SubmissionCrate {
    pub root: PathBuf,
    pub package: StudentText,
    pub lib_name: String,
}

/// How to build.
pub struct Build<'a> {
    pub color: bool,
    pub timeout: Duration,
    /// Crates the course lets submissions depend on, by name.
    pub allowed: &'a [String],
    /// The folder of builds that share grader-api compiled once, if builds share one.
    pub shared: Option<&'a Path>,
    /// Whether the build keeps incremental data for the next build of its folder: a
    /// student's own check is built again at each save, but a grading for the record (a
    /// machine format, GitHub's, a class, the audit) is built once, and incremental code
    /// runs about a fifth slower on the bulk groups (issue 25).
    pub incremental: bool,
}

/// A runner, built.
#[derive(Debug)]
pub struct Built {
    /// The runner's executable, open: checked as the build's own regular file.
    pub runner: std::fs::File,
    /// Held until the executable is copied: another grading of the same submission
    /// waits for it before building there again.
    _folder_lock: std::fs::File,
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
    // A link could make the grader read, and quote in an error, a file of anyone's; a FIFO
    // or a device could hold it forever before any time limit applies.
    let text = read_manifest(&manifest_path).map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound => BuildError::NotACrate(root.clone()),
        _ if std::fs::symlink_metadata(&manifest_path).is_ok_and(|m| m.is_symlink()) => {
            BuildError::Copy(copy::CopyError::Link("Cargo.toml".into()).to_string())
        }
        _ => BuildError::BadManifest {
            path: manifest_path.clone(),
            reason: error.to_string(),
        },
    })?;
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
        package: package.into(),
        lib_name,
    })
}

/// The most of a manifest the grader reads: none is anywhere near as long.
const MANIFEST_CAP: u64 = 1 << 20;

/// The text of the manifest at `path`, a regular file of at most [`MANIFEST_CAP`] bytes.
fn read_manifest(path: &Path) -> std::io::Result<String> {
    let file = copy::open_regular(path)?;
    let mut text = String::new();
    file.take(MANIFEST_CAP + 1).read_to_string(&mut text)?;
    if text.len() as u64 > MANIFEST_CAP {
        return Err(std::io::Error::other(format!(
            "it is longer than {} KiB",
            MANIFEST_CAP >> 10
        )));
    }
    Ok(text)
}

/// Writes the runner crate and builds it in the sandbox; returns the runner's executable.
pub fn build(
    submission: &SubmissionCrate,
    sandbox: &Sandbox,
    build: &Build,
) -> Result<Built, BuildError> {
    let (layout, shared) = Layout::for_submission(submission, build.shared)
        .map_err(|error| BuildError::Cargo(format!("cannot make a build folder: {error}")))?;
    let io = |error| unwritable(&layout, error);
    let folder_lock = lock_beside(&layout.folder).map_err(io)?;
    let builder = prepare_folder(&layout, sandbox)?;
    snapshot(submission, &layout, build.allowed)?;
    let dependency = (
        submission.lib_name.clone(),
        PathDependency {
            path: layout.submission.clone(),
            package: submission.package.clone(),
            features: Vec::new(),
        },
    );
    let main = format!(
        "// Generated by cardgrade: serves your submission to the grader.\nfn main() {{\n    {}::submission().serve_relative_to({:?})\n}}\n",
        submission.lib_name,
        layout.submission.display().to_string()
    );
    // A class's builds share a folder, and each crate in it is built once: incremental data
    // would be written for nothing (it costs about 5% of a build).
    let incremental = build.incremental && build.shared.is_none();
    let main = with_runner_allocator(&main, declares_an_allocator(&layout.submission));
    write_runner_crate(&layout, Some(dependency), &main, (builder, incremental)).map_err(io)?;
    build_generated(&layout, shared.as_deref(), builder, sandbox, build)?;
    Ok(Built {
        runner: artifact::take(&layout, builder)?,
        _folder_lock: folder_lock,
    })
}

/// What a generated crate is built as.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Generated {
    /// libtest's harness of its `#[test]`s (`cargo rustc -- --test`).
    TestHarness,
    /// A program of its own `main`.
    Program,
}

/// Builds `main`, the crate root of a generated crate that depends on grader-api alone, in
/// the sandbox, as a submission's runner is built, as `kind`; the executable lies at the
/// one path a runner would have. `tag` names its build folder, which a later build of the
/// same tag reuses.
pub fn build_generated_crate(
    tag: &str,
    main: &str,
    kind: Generated,
    sandbox: &Sandbox,
    build: &Build,
) -> Result<Built, BuildError> {
    let bin_name = match kind {
        Generated::TestHarness => format!("cardgrade-tests-{tag}"),
        Generated::Program => format!("cardgrade-program-{tag}"),
    };
    let folder = builds_folder()
        .map_err(|e| BuildError::Cargo(format!("cannot make a build folder: {e}")))?
        .join(&bin_name);
    let shared = build.shared;
    let layout = Layout {
        harness: kind == Generated::TestHarness,
        ..Layout::new(folder, shared, bin_name)
    };
    let io = |error| unwritable(&layout, error);
    let folder_lock = lock_beside(&layout.folder).map_err(io)?;
    let builder = prepare_folder(&layout, sandbox)?;
    // The harness of this very text, built before, needs no cargo: the stamp is the
    // grader's, in its own folder, written once the build was taken.
    let stamp = layout.folder.join("harness.made-from");
    let made_from = format!("{:016x}\n", stable_hash(main));
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(made_from.as_str())
        && let Ok(runner) = artifact::take(&layout, builder)
    {
        return Ok(Built {
            runner,
            _folder_lock: folder_lock,
        });
    }
    // Read by the build's sandbox as a runner build's is; a harness has no submission.
    std::fs::create_dir_all(&layout.submission).map_err(io)?;
    let incremental = build.incremental && build.shared.is_none();
    let main = with_runner_allocator(main, false);
    write_runner_crate(&layout, None, &main, (builder, incremental)).map_err(io)?;
    let _ = std::fs::remove_file(&stamp);
    build_generated(&layout, shared, builder, sandbox, build)?;
    let runner = artifact::take(&layout, builder)?;
    std::fs::write(&stamp, made_from).map_err(io)?;
    Ok(Built {
        runner,
        _folder_lock: folder_lock,
    })
}

/// Builds the generated crate of `layout`, its target seeded from the shared cache when
/// builds share one.
fn build_generated(
    layout: &Layout,
    shared: Option<&Path>,
    builder: Builder,
    sandbox: &Sandbox,
    build: &Build,
) -> Result<(), BuildError> {
    let io = |error| unwritable(layout, error);
    if !layout.target.exists() {
        match &shared {
            Some(shared) => {
                let cache = cache::warm(shared, sandbox, build)?;
                let seed = Tree {
                    skip: &|_| false,
                    caps: UNCAPPED,
                    owner: builder.owner(),
                    // The cache's files belong to root: only a build that is not root may
                    // share them rather than get copies.
                    link_files: matches!(builder, Builder::Unprivileged(_)),
                };
                copy_tree(&cache, &layout.target, &seed)
                    .map_err(|e| BuildError::Cargo(format!("cannot copy the shared cache: {e}")))?;
            }
            None => make_dir(&layout.target, builder).map_err(io)?,
        }
    }
    cargo::run(layout, sandbox, build, builder)
}

/// Why the build folder of `layout` could not be written.
fn unwritable(layout: &Layout, error: std::io::Error) -> BuildError {
    BuildError::Cargo(format!(
        "cannot write the build folder {}: {error}",
        layout.folder.display()
    ))
}

/// Who builds submissions on this machine, as `grader doctor` says it, or why no build
/// can run here.
pub fn who_builds(sandbox: &Sandbox) -> Result<String, String> {
    let folder = builds_folder().map_err(|error| format!("no folder of builds: {error}"))?;
    let layout = Layout::new(folder.clone(), shared_builds().as_deref(), String::new());
    Ok(
        match Builder::for_layout(sandbox, &layout, &cargo::toolchain_homes())? {
            Builder::Unprivileged(_) => format!(
                "as unprivileged uids of their own, one per build folder, under {}",
                folder.display()
            ),
            Builder::Grader => format!("as the grader's own user, under {}", folder.display()),
        },
    )
}

/// An exclusive lock on a file beside `folder`, held while the returned file is open.
fn lock_beside(folder: &Path) -> std::io::Result<std::fs::File> {
    let mut name = folder.as_os_str().to_owned();
    name.push(".lock");
    if let Some(parent) = folder.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let lock = std::fs::File::create(name)?;
    lock.lock()?;
    Ok(lock)
}

/// The folder, grader-api and the toolchain's mount points, owned by the grader; the
/// places the build writes, owned by who builds, which it returns.
fn prepare_folder(layout: &Layout, sandbox: &Sandbox) -> Result<Builder, BuildError> {
    let unwritable = |error| unwritable(layout, error);
    let builder = make_folder(layout, sandbox)
        .map_err(unwritable)?
        .map_err(BuildError::NoBuildUser)?;
    clear_folder(layout, builder).map_err(unwritable)?;
    Ok(builder)
}

/// The folder, grader-api and the toolchain's mount points; then who may build there.
fn make_folder(layout: &Layout, sandbox: &Sandbox) -> std::io::Result<Result<Builder, String>> {
    std::fs::create_dir_all(&layout.folder)?;
    std::fs::set_permissions(&layout.folder, std::fs::Permissions::from_mode(0o755))?;
    write_api(&layout.api)?;
    for mount_point in ["cargo", "rustup"] {
        std::fs::create_dir_all(layout.toolchain.join(mount_point))?;
    }
    Ok(Builder::for_layout(
        sandbox,
        layout,
        &cargo::toolchain_homes(),
    ))
}

/// Starts afresh what cannot be reused, and makes the places `builder` writes.
fn clear_folder(layout: &Layout, builder: Builder) -> std::io::Result<()> {
    // What was built here for another grader-api, in another mode or by another user (the
    // grader run once as that user) cannot be reused: its files may be the shared cache's,
    // which belong to root, where this build would have to write.
    let made_for = format!(
        "grader-api {} at {}\nbuilt by {builder:?}\n",
        shared_api(Path::new("")).display(),
        layout.api.display()
    );
    let stamp = layout.folder.join("target.made-for");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(made_for.as_str()) {
        for dir in [&layout.target, &layout.runner] {
            if std::fs::symlink_metadata(dir).is_ok() {
                std::fs::remove_dir_all(dir)?;
            }
        }
        std::fs::write(&stamp, made_for)?;
    }
    if layout.tmp.exists() {
        std::fs::remove_dir_all(&layout.tmp)?;
    }
    make_dir(&layout.tmp, builder)?;
    make_dir(&layout.runner, builder)
}

/// A folder of the build's: its entry lies in a folder of the grader's, so no build can
/// have put a link in its place.
fn make_dir(path: &Path, builder: Builder) -> std::io::Result<()> {
    std::fs::create_dir_all(path)?;
    if let Some(uid) = builder.owner() {
        std::os::unix::fs::chown(path, Some(uid), Some(sandbox::NOBODY))?;
    }
    Ok(())
}

pub(crate) fn write_api(api: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(api)?;
    write_if_changed(&api.join("Cargo.toml"), API_MANIFEST)?;
    for (path, text) in API_FILES {
        let file = api.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)?;
        }
        write_if_changed(&file, text)?;
    }
    Ok(())
}

/// Copies the submission into the build folder, checking and rewriting every manifest of
/// it that the build reads.
fn snapshot(
    submission: &SubmissionCrate,
    layout: &Layout,
    allowed: &[String],
) -> Result<(), BuildError> {
    if layout.submission.exists() {
        std::fs::remove_dir_all(&layout.submission).map_err(|e| BuildError::Copy(e.to_string()))?;
    }
    let tree = Tree {
        skip: &|path| path == Path::new("target") || path == Path::new(".git"),
        caps: SUBMISSION_CAPS,
        owner: None,
        link_files: false,
    };
    copy_tree(&submission.root, &layout.submission, &tree)
        .map_err(|e| BuildError::Copy(e.to_string()))?;
    // The copy is what is built, and holds no link: it is what is checked.
    let mut pending = vec![PathBuf::new()];
    let mut vetted = Vec::new();
    while let Some(relative) = pending.pop() {
        if vetted.contains(&relative) {
            continue;
        }
        let manifest = layout.submission.join(&relative).join("Cargo.toml");
        let shown = submission.root.join(&relative).join("Cargo.toml");
        let text = read_manifest(&manifest).map_err(|error| BuildError::BadManifest {
            path: shown.clone(),
            reason: error.to_string(),
        })?;
        let crate_dir = manifest::CrateDir {
            relative: &relative,
            shown: &shown,
        };
        let (rewritten, inner) = manifest::vet(&text, &crate_dir, &layout.api, allowed)?;
        std::fs::write(&manifest, rewritten).map_err(|e| BuildError::Copy(e.to_string()))?;
        pending.extend(inner);
        vetted.push(relative);
    }
    Ok(())
}
