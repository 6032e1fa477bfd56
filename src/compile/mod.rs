//! Builds a submission into a runner, trybuild-style, in the sandbox: the submission is
//! copied into a build folder with its manifests checked and pointed at the grader's own
//! grader-api, a generated crate whose `main` serves the submission's registry is built
//! offline against a lockfile the grader controls, and the build folder is kept between
//! runs so a re-run recompiles only the student's crate.

mod copy;
mod inherit;
mod manifest;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::sandbox::{self, Jail, Limits, Sandbox};
use copy::{Caps, Tree, copy_tree};

include!(concat!(env!("OUT_DIR"), "/embedded_api.rs"));

/// The grader's own lockfile: the runner resolves grader-api's dependencies to the very
/// versions the grader was built and tested with.
const PINNED_LOCK: &str = include_str!("../../Cargo.lock");

/// Makes the builds of many submissions happen outside them, each in a folder of its own,
/// sharing grader-api compiled once in a cache no build can write.
pub const TARGET_DIR_ENV: &str = "CARDGRADE_TARGET_DIR";

/// How long a build may take unless `--build-timeout` says otherwise.
pub const DEFAULT_BUILD_TIMEOUT: Duration = Duration::from_secs(300);

/// What the build and everything it starts may use.
const BUILD_LIMITS: Limits = Limits {
    cpu_seconds: None,
    address_space: None,
    file_size: Some(1 << 30),
    open_files: Some(4096),
    processes: Some(4096),
    tree_memory: 8 << 30,
    tree_tasks: 1024,
};

/// The most of a submission the grader copies to build it.
const SUBMISSION_CAPS: Caps = Caps {
    files: 2_000,
    bytes: 50_000_000,
};

/// The most of cargo's output kept: messages beyond it are counted, not held.
const OUTPUT_CAP: usize = 256 * 1024;

/// The student's crate, as its manifest describes it.
#[derive(Debug, Clone)]
pub struct SubmissionCrate {
    pub root: PathBuf,
    pub package: String,
    pub lib_name: String,
}

/// How to build.
pub struct Build<'a> {
    pub color: bool,
    pub timeout: Duration,
    /// Crates the course lets submissions depend on, by name.
    pub allowed: &'a [String],
}

/// A runner, built.
#[derive(Debug)]
pub struct Built {
    pub executable: PathBuf,
    /// The copy of the submission the runner was built from: its panics name files there.
    pub source_root: PathBuf,
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
    #[error("cargo could not build the runner:\n{0}")]
    Cargo(String),
    #[error("{0}")]
    ApiMismatch(String),
    #[error("{0}")]
    RunnerStart(String),
}

impl BuildError {
    /// Why nothing was graded, in a few words for the score line and every test's failure.
    pub fn summary(&self) -> &'static str {
        match self {
            BuildError::RunnerStart(_) | BuildError::ApiMismatch(_) => "the runner did not start",
            BuildError::Refused { .. } => "the submission was refused before building",
            BuildError::TimedOut(_) => "the build took too long",
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

/// A build folder: what the grader writes there, and the three places the build writes.
struct Layout {
    folder: PathBuf,
    /// grader-api as embedded in the grader.
    api: PathBuf,
    /// The copy of the submission that is built.
    submission: PathBuf,
    /// The generated crate (the build writes its Cargo.lock).
    runner: PathBuf,
    target: PathBuf,
    tmp: PathBuf,
    /// Mount points of the toolchain, for a build user who cannot reach it where it is.
    toolchain: PathBuf,
    bin_name: String,
}

impl Layout {
    /// A folder whose grader-api and toolchain mount points are in `shared` (the same for
    /// every build that shares compiled dependencies, since cargo rebuilds what it finds at
    /// another path), or in the folder itself.
    fn new(folder: PathBuf, shared: Option<&Path>, bin_name: String) -> Layout {
        let (api, toolchain) = match shared {
            Some(shared) => (shared_api(shared), shared.join("toolchain")),
            None => (folder.join("api"), folder.join("toolchain")),
        };
        Layout {
            api,
            submission: folder.join("submission"),
            runner: folder.join("runner"),
            target: folder.join("target"),
            tmp: folder.join("tmp"),
            toolchain,
            folder,
            bin_name,
        }
    }

    /// The build folder of `submission`: its own `target/grader`, or a folder of its own
    /// under [`TARGET_DIR_ENV`], beside the shared cache.
    fn for_submission(submission: &SubmissionCrate) -> (Layout, Option<PathBuf>) {
        let tag = format!(
            "{}-{:016x}",
            submission.package,
            stable_hash(&submission.root)
        );
        let bin_name = format!("cardgrade-runner-{tag}");
        let shared = std::env::var_os(TARGET_DIR_ENV).map(|dir| {
            std::path::absolute(PathBuf::from(&dir)).unwrap_or_else(|_| PathBuf::from(dir))
        });
        match shared {
            Some(shared) => (
                Layout::new(shared.join(&tag), Some(&shared), bin_name),
                Some(shared),
            ),
            None => (
                Layout::new(
                    submission.root.join("target").join("grader"),
                    None,
                    bin_name,
                ),
                None,
            ),
        }
    }
}

fn shared_api(shared: &Path) -> PathBuf {
    let mut content = String::from(API_MANIFEST);
    for (path, text) in API_FILES {
        content.push_str(path);
        content.push_str(text);
    }
    shared.join(format!("grader-api-{:016x}", stable_hash(&content)))
}

fn stable_hash(value: &(impl std::hash::Hash + ?Sized)) -> u64 {
    use std::hash::{DefaultHasher, Hasher};
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// Who builds: an unprivileged user when the grader is root, can mount the toolchain where
/// that user reaches it, and the build folder is reachable by others; otherwise the
/// grader's own user, fenced by the other layers.
fn build_uid(sandbox: &Sandbox, layout: &Layout) -> Option<u32> {
    let layers = sandbox.layers();
    let reachable = [&layout.folder, &layout.api].iter().all(|path| {
        path.ancestors()
            .skip(1)
            .all(|dir| std::fs::metadata(dir).is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
    });
    match (layers.root, layers.mount_namespace && reachable) {
        (true, true) => Some(sandbox::NOBODY),
        (true, false) => Some(0),
        (false, _) => None,
    }
}

/// Writes the runner crate and builds it in the sandbox; returns the runner's executable.
pub fn build(
    submission: &SubmissionCrate,
    sandbox: &Sandbox,
    build: &Build,
) -> Result<Built, BuildError> {
    let (layout, shared) = Layout::for_submission(submission);
    let io = |error: std::io::Error| {
        BuildError::Cargo(format!(
            "cannot write the build folder {}: {error}",
            layout.folder.display()
        ))
    };
    let folder_lock = lock_beside(&layout.folder).map_err(io)?;
    let uid = prepare_folder(&layout, sandbox).map_err(io)?;
    snapshot(submission, &layout, build.allowed)?;
    let dependency = (
        submission.lib_name.clone(),
        PathDependency {
            path: layout.submission.clone(),
            package: submission.package.clone(),
        },
    );
    let main = format!(
        "// Generated by cardgrade: serves your submission to the grader.\nfn main() {{\n    {}::submission().serve()\n}}\n",
        submission.lib_name
    );
    write_runner_crate(&layout, dependency, &main, uid).map_err(io)?;
    if !layout.target.exists() {
        match &shared {
            Some(shared) => {
                let cache = warm_cache(shared, sandbox, build)?;
                let seed = Tree {
                    skip: &|_| false,
                    caps: UNCAPPED,
                    owner: uid,
                    // The cache's files belong to root; a build as root gets copies.
                    link_files: uid.is_some_and(|uid| uid != 0),
                };
                copy_tree(&cache, &layout.target, &seed)
                    .map_err(|e| BuildError::Cargo(format!("cannot copy the shared cache: {e}")))?;
            }
            None => make_dir(&layout.target, uid).map_err(io)?,
        }
    }
    let executable = run_cargo(&layout, sandbox, build, uid)?;
    Ok(Built {
        executable,
        source_root: layout.submission,
        _folder_lock: folder_lock,
    })
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

const UNCAPPED: Caps = Caps {
    files: usize::MAX,
    bytes: u64::MAX,
};

/// The folder, grader-api and the toolchain's mount points, owned by the grader; the
/// places the build writes, owned by the build's user, which it returns.
fn prepare_folder(layout: &Layout, sandbox: &Sandbox) -> std::io::Result<Option<u32>> {
    std::fs::create_dir_all(&layout.folder)?;
    std::fs::set_permissions(&layout.folder, std::fs::Permissions::from_mode(0o755))?;
    write_api(&layout.api)?;
    for mount_point in ["cargo", "rustup"] {
        std::fs::create_dir_all(layout.toolchain.join(mount_point))?;
    }
    let uid = build_uid(sandbox, layout);
    // What another user built here (the grader run once as that user) cannot be reused.
    for dir in [&layout.target, &layout.runner] {
        let owner = std::fs::metadata(dir).map(|m| m.uid()).ok();
        if let (Some(owner), Some(uid)) = (owner, uid)
            && owner != uid
        {
            std::fs::remove_dir_all(dir)?;
        }
    }
    if layout.tmp.exists() {
        std::fs::remove_dir_all(&layout.tmp)?;
    }
    make_dir(&layout.tmp, uid)?;
    make_dir(&layout.runner, uid)?;
    Ok(uid)
}

fn make_dir(path: &Path, uid: Option<u32>) -> std::io::Result<()> {
    std::fs::create_dir_all(path)?;
    if let Some(uid) = uid {
        std::os::unix::fs::chown(path, Some(uid), Some(sandbox::NOBODY))?;
    }
    Ok(())
}

fn write_api(api: &Path) -> std::io::Result<()> {
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
    let mut pending = vec![PathBuf::new()];
    let mut vetted = Vec::new();
    while let Some(relative) = pending.pop() {
        if vetted.contains(&relative) {
            continue;
        }
        let original = submission.root.join(&relative);
        let text = std::fs::read_to_string(original.join("Cargo.toml")).map_err(|error| {
            BuildError::BadManifest {
                path: original.join("Cargo.toml"),
                reason: error.to_string(),
            }
        })?;
        let (rewritten, inner) =
            manifest::vet(&text, &original, &submission.root, &layout.api, allowed)?;
        std::fs::write(
            layout.submission.join(&relative).join("Cargo.toml"),
            rewritten,
        )
        .map_err(|e| BuildError::Copy(e.to_string()))?;
        pending.extend(inner);
        vetted.push(relative);
    }
    Ok(())
}

fn write_runner_crate(
    layout: &Layout,
    dependency: (String, PathDependency),
    main: &str,
    uid: Option<u32>,
) -> std::io::Result<()> {
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
        dependencies: BTreeMap::from([dependency]),
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
    for (name, text) in [
        ("Cargo.toml", toml.as_str()),
        ("main.rs", main),
        ("Cargo.lock", PINNED_LOCK),
    ] {
        let path = layout.runner.join(name);
        write_if_changed(&path, text)?;
        if let Some(uid) = uid {
            std::os::unix::fs::chown(&path, Some(uid), Some(sandbox::NOBODY))?;
        }
    }
    Ok(())
}

/// grader-api and its dependencies compiled once for every submission under `shared`, by
/// the first grader to need them; no build writes here afterwards.
fn warm_cache(shared: &Path, sandbox: &Sandbox, build: &Build) -> Result<PathBuf, BuildError> {
    let failed =
        |what: String| BuildError::Cargo(format!("cannot prepare the shared cache: {what}"));
    // One cache per grader-api: a grader of another version builds its own.
    let api = shared_api(shared);
    let folder = shared.join(format!(
        "cache-{}",
        api.file_name().unwrap_or_default().to_string_lossy()
    ));
    let done = folder.join("target");
    let _lock = lock_beside(&folder).map_err(|e| failed(e.to_string()))?;
    if done.exists() {
        return Ok(done);
    }
    let layout = Layout::new(folder.join("build"), Some(shared), "cardgrade-cache".into());
    let io = |e: std::io::Error| failed(e.to_string());
    let uid = prepare_folder(&layout, sandbox).map_err(io)?;
    make_dir(&layout.target, uid).map_err(io)?;
    let dependency = (
        "grader_api".to_string(),
        PathDependency {
            path: layout.api.clone(),
            package: "grader-api".into(),
        },
    );
    write_runner_crate(&layout, dependency, "fn main() {}\n", uid).map_err(io)?;
    let quiet = Build {
        color: false,
        ..*build
    };
    run_cargo(&layout, sandbox, &quiet, uid)?;
    // Owned by the grader from now on, so not even a build without landlock can change it.
    let tree = Tree {
        // Files cargo rewrites on every build stay out: each build makes its own.
        skip: &|path| {
            path.starts_with("release/incremental")
                || path.starts_with("release/cardgrade-cache")
                || path.file_name().is_some_and(|name| name == ".cargo-lock")
                || path == Path::new(".rustc_info.json")
        },
        caps: UNCAPPED,
        owner: Some(0),
        link_files: false,
    };
    // Whole or not at all: a grader stopped halfway leaves no cache that looks done.
    let partial = folder.join("target.partial");
    let _ = std::fs::remove_dir_all(&partial);
    copy_tree(&layout.target, &partial, &tree).map_err(|e| failed(e.to_string()))?;
    std::fs::rename(&partial, &done).map_err(|e| failed(e.to_string()))?;
    let _ = std::fs::remove_dir_all(&layout.folder);
    Ok(done)
}

/// Where the toolchain is, and where the build sees it.
struct Toolchain {
    /// Real folder, then the mount point the build sees it at (the same when not mounted).
    homes: Vec<(PathBuf, PathBuf, &'static str)>,
    cargo: PathBuf,
}

impl Toolchain {
    fn find(layout: &Layout, mounted: bool) -> Toolchain {
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default();
        let env_or = |name: &str, default: PathBuf| {
            std::env::var_os(name).map(PathBuf::from).unwrap_or(default)
        };
        let homes: Vec<(PathBuf, PathBuf, &'static str)> = [
            (
                env_or("CARGO_HOME", home.join(".cargo")),
                "cargo",
                "CARGO_HOME",
            ),
            (
                env_or("RUSTUP_HOME", home.join(".rustup")),
                "rustup",
                "RUSTUP_HOME",
            ),
        ]
        .into_iter()
        .filter(|(real, _, _)| real.is_dir())
        .map(|(real, mount, env)| {
            let real = std::fs::canonicalize(&real).unwrap_or(real);
            let seen = if mounted {
                layout.toolchain.join(mount)
            } else {
                real.clone()
            };
            (real, seen, env)
        })
        .collect();
        let cargo = std::env::var_os("CARGO")
            .map(PathBuf::from)
            .or_else(|| find_in_path("cargo"))
            .unwrap_or_else(|| "cargo".into());
        // Its folder, not the file: rustup's proxies are links that tell by their name what to run.
        let cargo = match (cargo.parent().map(std::fs::canonicalize), cargo.file_name()) {
            (Some(Ok(dir)), Some(name)) => dir.join(name),
            _ => cargo,
        };
        let cargo = homes
            .iter()
            .find_map(|(real, seen, _)| cargo.strip_prefix(real).ok().map(|rest| seen.join(rest)))
            .unwrap_or(cargo);
        Toolchain { homes, cargo }
    }
}

fn find_in_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
}

/// Runs `cargo build` of the layout's runner crate in the sandbox, within the time limit.
fn run_cargo(
    layout: &Layout,
    sandbox: &Sandbox,
    build: &Build,
    uid: Option<u32>,
) -> Result<PathBuf, BuildError> {
    let mounted = sandbox.layers().mount_namespace;
    let toolchain = Toolchain::find(layout, mounted);
    let mut jail = Jail::new(&toolchain.cargo, "/", layout.folder.join("status"));
    jail.uid = uid.unwrap_or(0);
    jail.limits = BUILD_LIMITS;
    let message_format = if build.color {
        "json-diagnostic-rendered-ansi"
    } else {
        "json"
    };
    jail.args = [
        "build",
        "--release",
        "--offline",
        "--message-format",
        message_format,
        "--color",
        if build.color { "always" } else { "never" },
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        "--manifest-path".into(),
        layout.runner.join("Cargo.toml").display().to_string(),
        "--target-dir".into(),
        layout.target.display().to_string(),
    ])
    .collect();
    let mut path = String::new();
    for (_, seen, env) in &toolchain.homes {
        jail.env.push((env.to_string(), seen.display().to_string()));
        if *env == "CARGO_HOME" {
            path = format!("{}:", seen.join("bin").display());
        }
    }
    let tmp = layout.tmp.display().to_string();
    jail.env.extend([
        ("PATH".to_string(), format!("{path}/usr/bin:/bin")),
        ("HOME".into(), tmp.clone()),
        ("TMPDIR".into(), tmp),
        ("CARGO_NET_OFFLINE".into(), "true".into()),
    ]);
    if let Ok(toolchain) = std::env::var("RUSTUP_TOOLCHAIN") {
        jail.env.push(("RUSTUP_TOOLCHAIN".into(), toolchain));
    }
    if mounted {
        jail.binds = toolchain
            .homes
            .iter()
            .map(|(real, seen, _)| (real.clone(), seen.clone()))
            .collect();
    }
    jail.read = [
        "/usr",
        "/bin",
        "/sbin",
        "/lib",
        "/lib64",
        "/etc",
        "/dev/urandom",
    ]
    .iter()
    .map(PathBuf::from)
    .chain(toolchain.homes.iter().map(|(_, seen, _)| seen.clone()))
    .chain([layout.folder.clone(), layout.api.clone()])
    .collect();
    if sandbox.layers().pid_namespace && mounted {
        jail.read.push("/proc".into());
    }
    jail.write = vec![
        layout.runner.clone(),
        layout.target.clone(),
        layout.tmp.clone(),
        "/dev/null".into(),
    ];
    let (mut command, cgroup) = sandbox
        .command(jail)
        .map_err(|error| BuildError::Cargo(format!("cannot contain cargo: {error}")))?;
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|error| BuildError::Cargo(format!("cannot start cargo: {error}")))?;
    let (sender, outcome) = std::sync::mpsc::channel();
    let stdout = child.stdout.take();
    let bin_name = layout.bin_name.clone();
    std::thread::spawn(move || {
        let mut outcome = BuildOutcome::default();
        if let Some(stdout) = stdout {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                outcome.absorb(&line, &bin_name);
            }
        }
        let _ = sender.send(outcome);
    });
    let (stderr_sender, stderr_text) = std::sync::mpsc::channel();
    let stderr = child.stderr.take();
    std::thread::spawn(move || {
        let mut text = Vec::new();
        if let Some(stderr) = stderr {
            let _ = stderr.take(OUTPUT_CAP as u64).read_to_end(&mut text);
        }
        let _ = stderr_sender.send(String::from_utf8_lossy(&text).into_owned());
    });
    let deadline = Instant::now() + build.timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => break None,
        }
    };
    let Some(status) = status else {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(child.id() as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
        let _ = child.wait();
        drop(cgroup);
        return Err(BuildError::TimedOut(build.timeout));
    };
    drop(cgroup);
    let patience = Duration::from_secs(5);
    let outcome = outcome.recv_timeout(patience).unwrap_or_default();
    let cargo_stderr = stderr_text.recv_timeout(patience).unwrap_or_default();
    let shown = |text: String| text.replace(&format!("{}/", layout.submission.display()), "");
    match (status.success(), outcome.executable) {
        (true, Some(executable)) => Ok(executable),
        _ if !outcome.errors.is_empty() => {
            Err(BuildError::Compile(shown(outcome.errors.join("\n"))))
        }
        _ if !outcome.runner_errors.is_empty() => {
            Err(BuildError::NoSubmissionFn(outcome.runner_errors.join("; ")))
        }
        _ if cargo_stderr.trim().is_empty() => Err(BuildError::Cargo(format!(
            "cargo ended with {status} and said nothing"
        ))),
        _ => Err(BuildError::Cargo(shown(cargo_stderr.trim().to_string()))),
    }
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
    /// Bytes of errors kept; beyond [`OUTPUT_CAP`] errors are counted only.
    kept: usize,
    dropped: usize,
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
                let text = if target.name == runner_bin {
                    diagnostic.message
                } else {
                    diagnostic.rendered.unwrap_or(diagnostic.message)
                };
                if self.kept + text.len() > OUTPUT_CAP {
                    self.dropped += 1;
                    if self.dropped == 1 {
                        self.errors.push("(more errors not shown)".into());
                    }
                    return;
                }
                self.kept += text.len();
                if target.name == runner_bin {
                    self.runner_errors.push(text);
                } else {
                    self.errors.push(text);
                }
            }
            _ => {}
        }
    }
}
