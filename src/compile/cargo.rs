//! `cargo build` of a build folder's runner crate, in the sandbox, within the time limit,
//! its output read with caps.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::error::{BuildError, GeneratedError};
use super::layout::{Builder, Layout};
use super::settings::Build;
use crate::deadline;
use crate::sandbox::{self, Jail, Limits, Sandbox};

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

/// The most a build may write, build scripts and proc macros included, in the folders it
/// writes; the compiled dependencies a build folder starts with are not counted.
const DISK_CAP: u64 = 2 << 30;
/// How often what a build wrote is measured.
const DISK_MEASURE_EVERY: Duration = Duration::from_millis(500);

/// The most of cargo's stderr, and of its error messages, kept; the rest is read and dropped.
const OUTPUT_CAP: usize = 256 * 1024;
/// Longer lines of cargo's JSON output are skipped: no message of cargo's own is this long.
const LINE_CAP: usize = 4 << 20;
/// What of the system a build reads: programs and libraries, and of `/etc` only what the
/// loader and the linker's alternatives need, not the machine's accounts or secrets.
const SYSTEM_READ: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib64",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
];
/// What of CARGO_HOME a build reads: not its credentials.
const CARGO_HOME_READ: &[&str] = &["bin", "registry", "git", "config.toml", "config"];

/// One home of the toolchain: where it is, and where the build sees it.
struct Home {
    real: PathBuf,
    seen: PathBuf,
    variable: &'static str,
}

impl Home {
    /// What a build reads of this home, under `base` (where it is, or where the build sees it).
    fn readable(&self, base: &Path) -> Vec<PathBuf> {
        match self.variable {
            "CARGO_HOME" => CARGO_HOME_READ.iter().map(|part| base.join(part)).collect(),
            _ => vec![base.to_path_buf()],
        }
    }
}

/// Where the toolchain is, and where the build sees it.
struct Toolchain {
    homes: Vec<Home>,
    /// The cargo to run, where the build sees it.
    cargo: PathBuf,
    /// The same cargo where it is on this machine.
    real_cargo: PathBuf,
}

/// Where cargo's and rustup's homes are, each with its variable and its mount point.
fn homes() -> Vec<(&'static str, PathBuf, &'static str)> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    [
        ("CARGO_HOME", home.join(".cargo"), "cargo"),
        ("RUSTUP_HOME", home.join(".rustup"), "rustup"),
    ]
    .into_iter()
    .map(|(variable, default, mount_point)| {
        let real = std::env::var_os(variable).map_or(default, PathBuf::from);
        (variable, real, mount_point)
    })
    .filter(|(_, real, _)| real.is_dir())
    .map(|(variable, real, mount_point)| {
        let real = std::fs::canonicalize(&real).unwrap_or(real);
        (variable, real, mount_point)
    })
    .collect()
}

/// Where the toolchain is on this machine.
pub fn toolchain_homes() -> Vec<PathBuf> {
    homes().into_iter().map(|(_, real, _)| real).collect()
}

impl Toolchain {
    fn find(layout: &Layout, mounted: bool) -> Toolchain {
        let homes: Vec<Home> = homes()
            .into_iter()
            .map(|(variable, real, mount_point)| {
                let seen = if mounted {
                    layout.toolchain.join(mount_point)
                } else {
                    real.clone()
                };
                Home {
                    real,
                    seen,
                    variable,
                }
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
        let seen = homes
            .iter()
            .find_map(|home| {
                cargo
                    .strip_prefix(&home.real)
                    .ok()
                    .map(|rest| home.seen.join(rest))
            })
            .unwrap_or_else(|| cargo.clone());
        Toolchain {
            homes,
            cargo: seen,
            real_cargo: cargo,
        }
    }

    /// What a build may read of the toolchain.
    fn readable(&self) -> Vec<PathBuf> {
        self.homes
            .iter()
            .flat_map(|home| home.readable(&home.seen))
            .collect()
    }

    /// Refuses a cargo that a build whose reads are fenced (by landlock or by what a mount
    /// namespace holds) cannot see: one outside the system's folders and what the build
    /// reads of the toolchain's homes, or a link to such a place. Said with the fix, since
    /// running it would only say "No such file or directory" of a file that is there.
    fn in_view(&self) -> Result<(), BuildError> {
        let reaches = |path: &Path| {
            SYSTEM_READ
                .iter()
                .map(PathBuf::from)
                .chain(self.homes.iter().flat_map(|home| home.readable(&home.real)))
                .any(|readable| path.starts_with(readable))
        };
        let target = std::fs::canonicalize(&self.real_cargo).unwrap_or(self.real_cargo.clone());
        if reaches(&self.real_cargo) && reaches(&target) {
            return Ok(());
        }
        // rustup's proxies are links beside rustup: only a link elsewhere is worth saying.
        let cargo = match target.parent() == self.real_cargo.parent() {
            true => self.real_cargo.display().to_string(),
            false => format!(
                "{} (a link to {})",
                self.real_cargo.display(),
                target.display()
            ),
        };
        let homes: Vec<String> = self
            .homes
            .iter()
            .map(|home| format!("{}={}", home.variable, home.real.display()))
            .collect();
        let homes = match homes.is_empty() {
            true => "no toolchain home (neither CARGO_HOME nor RUSTUP_HOME, nor ~/.cargo or ~/.rustup, is a folder)".to_string(),
            false => homes.join(" and "),
        };
        // rustup and the standalone installers put cargo in `<home>/bin`.
        let its_home = target
            .parent()
            .filter(|bin| bin.ends_with("bin"))
            .and_then(Path::parent)
            // Not a home builds see already, nor a toolchain inside one (rustup's).
            .filter(|home| !self.homes.iter().any(|seen| home.starts_with(&seen.real)))
            .map(|home| format!(" (here CARGO_HOME={})", home.display()))
            .unwrap_or_default();
        Err(BuildError::ToolchainOutOfView(format!(
            "the Rust toolchain's cargo, {cargo}, is outside what builds can see: a build sees the system's folders ({} …) and the toolchain's homes, here {homes}. Run the grader with CARGO_HOME and RUSTUP_HOME set to the homes of the toolchain that cargo belongs to{its_home}, or put a cargo of the homes above first on PATH (or name it with CARGO=PATH)",
            SYSTEM_READ[..3].join(", ")
        )))
    }
}

fn find_in_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
}

/// Runs `cargo build` of the layout's runner crate in the sandbox, within the time limit,
/// until cargo says it linked the runner.
pub fn run(
    layout: &Layout,
    sandbox: &Sandbox,
    build: &Build,
    builder: Builder,
) -> Result<(), BuildError> {
    let mounted = sandbox.layers().mount_namespace;
    let toolchain = Toolchain::find(layout, mounted);
    if mounted || sandbox.layers().landlock.is_some() {
        toolchain.in_view()?;
    }
    // From `/`: cargo reads configuration from the folders above where it starts.
    let mut jail = Jail::new(
        &toolchain.cargo,
        builder.uid(),
        "/",
        layout.folder.join("status"),
    );
    jail.limits = BUILD_LIMITS;
    let message_format = if build.color {
        "json-diagnostic-rendered-ansi"
    } else {
        "json"
    };
    let color = if build.color { "always" } else { "never" };
    // A harness is the runner crate built as libtest's harness of its `#[test]`s.
    let subcommand = if layout.harness { "rustc" } else { "build" };
    jail.args = [
        subcommand,
        "--release",
        "--offline",
        "--message-format",
        message_format,
        "--color",
        color,
        "--manifest-path",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        layout.runner.join("Cargo.toml").display().to_string(),
        "--target-dir".into(),
        layout.target.display().to_string(),
    ])
    .collect();
    let vendored = vendored_sources();
    if let Some(vendor) = &vendored {
        // The only source of crates.io's crates: the versions vendored at the grader's
        // own lock, whatever the toolchain's registry holds.
        jail.args.extend([
            "--config".into(),
            "source.crates-io.replace-with=\"cardgrade-vendored\"".into(),
            "--config".into(),
            format!(
                "source.cardgrade-vendored.directory={:?}",
                vendor.display().to_string()
            ),
        ]);
    }
    if layout.harness {
        jail.args.extend(
            ["--bin", &layout.bin_name, "--", "--test"]
                .iter()
                .map(|s| s.to_string()),
        );
    }
    let mut path = String::new();
    for home in &toolchain.homes {
        jail.env
            .push((home.variable.to_string(), home.seen.display().to_string()));
        if home.variable == "CARGO_HOME" {
            path = format!("{}:", home.seen.join("bin").display());
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
            .map(|home| (home.real.clone(), home.seen.clone()))
            .collect();
    }
    jail.read = SYSTEM_READ
        .iter()
        .map(PathBuf::from)
        .chain(toolchain.readable())
        .chain([layout.submission.clone(), layout.api.clone()])
        .chain(vendored)
        .collect();
    jail.write = vec![
        layout.runner.clone(),
        layout.target.clone(),
        layout.tmp.clone(),
    ];
    jail.grant_devices(sandbox.layers());
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
            for_each_line(stdout, |line| outcome.absorb(line, &bin_name));
        }
        let _ = sender.send(outcome);
    });
    let (stderr_sender, stderr_text) = std::sync::mpsc::channel();
    let stderr = child.stderr.take();
    std::thread::spawn(move || {
        let _ = stderr_sender.send(stderr.map(read_capped).unwrap_or_default());
    });
    let deadline = deadline::after(build.timeout);
    let written = [&layout.runner, &layout.target, &layout.tmp];
    let mut next_measure = Instant::now();
    let stopped = loop {
        let now = Instant::now();
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) if now >= deadline => break Err(BuildError::TimedOut(build.timeout)),
            Ok(None) if now >= next_measure => {
                if bytes_written(&written, builder.owner()) > DISK_CAP {
                    break Err(BuildError::TooMuchDisk(DISK_CAP));
                }
                next_measure = now + DISK_MEASURE_EVERY;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(error) => break Err(BuildError::Cargo(format!("lost cargo: {error}"))),
        }
    };
    let status = match stopped {
        Ok(status) => status,
        Err(error) => {
            sandbox::kill_tree(&mut child);
            drop(cgroup);
            if matches!(error, BuildError::TooMuchDisk(_)) {
                // Nothing of a refused build is kept to fill the disk.
                for folder in [&layout.target, &layout.tmp] {
                    let _ = std::fs::remove_dir_all(folder);
                }
            }
            return Err(error);
        }
    };
    drop(cgroup);
    let patience = Duration::from_secs(5);
    let outcome = outcome.recv_timeout(patience).unwrap_or_default();
    let cargo_stderr = stderr_text.recv_timeout(patience).unwrap_or_default();
    let shown = |text: String| text.replace(&format!("{}/", layout.submission.display()), "");
    match (status.success(), outcome.linked) {
        (true, true) => Ok(()),
        _ if !outcome.errors.is_empty() => {
            Err(BuildError::Compile(shown(outcome.errors.join("\n"))))
        }
        _ if !outcome.runner_errors.is_empty() && layout.harness => {
            Err(BuildError::Harness(outcome.runner_errors))
        }
        _ if !outcome.runner_errors.is_empty() => Err(BuildError::NoSubmissionFn(
            outcome
                .runner_errors
                .into_iter()
                .map(|error| error.message)
                .collect::<Vec<_>>()
                .join("; "),
        )),
        _ if cargo_stderr.trim().is_empty() => Err(BuildError::Cargo(format!(
            "cargo ended with {status} and said nothing"
        ))),
        _ => Err(BuildError::Cargo(shown(cargo_stderr.trim().to_string()))),
    }
}

/// The bytes on disk of the files in `folders` that belong to `owner` (to anyone when
/// `None`). The build runs while this walks its folders, so each folder is opened from its
/// parent's descriptor without following a link: a folder swapped for a link on the way
/// cannot lead the walk, which runs as root, anywhere else.
fn bytes_written(folders: &[&PathBuf], owner: Option<u32>) -> u64 {
    use nix::fcntl::{OFlag, openat};
    use std::os::fd::{AsRawFd, OwnedFd};
    let folder_flags = OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC | OFlag::O_RDONLY;
    let mut pending: Vec<OwnedFd> = folders
        .iter()
        .filter_map(|folder| {
            std::fs::File::options()
                .read(true)
                .custom_flags(folder_flags.bits())
                .open(folder)
                .ok()
                .map(OwnedFd::from)
        })
        .collect();
    let mut bytes = 0;
    while let Some(folder) = pending.pop() {
        // The folder as this descriptor holds it, whatever its path has become since.
        let listed = std::fs::read_dir(format!("/proc/self/fd/{}", folder.as_raw_fd()));
        for entry in listed.into_iter().flatten().flatten() {
            let Ok(metadata) = entry.metadata() else {
                continue;
            };
            if metadata.is_dir() {
                let inner = openat(
                    &folder,
                    entry.file_name().as_os_str(),
                    folder_flags,
                    nix::sys::stat::Mode::empty(),
                );
                pending.extend(inner.ok());
            } else if owner.is_none_or(|uid| metadata.uid() == uid) {
                bytes += metadata.blocks() * 512;
            }
        }
    }
    bytes
}

/// All of `stream`, read to its end so the writer never blocks, the first [`OUTPUT_CAP`]
/// bytes kept.
fn read_capped(stream: impl Read) -> String {
    let mut kept = Vec::new();
    let mut reader = BufReader::new(stream);
    loop {
        let chunk = match reader.fill_buf() {
            Ok([]) | Err(_) => break,
            Ok(chunk) => chunk,
        };
        let room = OUTPUT_CAP.saturating_sub(kept.len()).min(chunk.len());
        kept.extend_from_slice(&chunk[..room]);
        let read = chunk.len();
        reader.consume(read);
    }
    String::from_utf8_lossy(&kept).into_owned()
}

/// Calls `each` with every line of `stream` up to [`LINE_CAP`] bytes; longer ones are
/// read past, not held.
fn for_each_line(stream: impl Read, mut each: impl FnMut(&str)) {
    let mut reader = BufReader::new(stream);
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let chunk = match reader.fill_buf() {
            Ok([]) | Err(_) => break,
            Ok(chunk) => chunk,
        };
        let (part, ended) = match chunk.iter().position(|&b| b == b'\n') {
            Some(end) => (&chunk[..end], Some(end + 1)),
            None => (chunk, None),
        };
        if line.len() + part.len() > LINE_CAP {
            too_long = true;
            line.clear();
        } else if !too_long {
            line.extend_from_slice(part);
        }
        let used = ended.unwrap_or(chunk.len());
        reader.consume(used);
        if ended.is_some() {
            if !too_long {
                each(&String::from_utf8_lossy(&line));
            }
            line.clear();
            too_long = false;
        }
    }
}

#[derive(Default)]
struct BuildOutcome {
    /// Cargo said it linked the runner; where it said it put it is not trusted, since the
    /// build's own processes could write to cargo's output.
    linked: bool,
    /// Rendered errors of the student's crate (or anything else that is not the runner).
    errors: Vec<String>,
    /// Errors in the generated main.rs: the contract is missing, not the student's logic.
    runner_errors: Vec<GeneratedError>,
    /// Bytes of errors kept; beyond [`OUTPUT_CAP`] errors are counted only.
    kept: usize,
    dropped: usize,
}

#[derive(Deserialize)]
struct CargoMessage {
    reason: String,
    target: Option<CargoTarget>,
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
    #[serde(default)]
    spans: Vec<CompilerSpan>,
}

#[derive(Deserialize)]
struct CompilerSpan {
    line_start: usize,
    is_primary: bool,
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
                self.linked = true;
            }
            "compiler-message" => {
                let (Some(diagnostic), Some(target)) = (message.message, message.target) else {
                    return;
                };
                if diagnostic.level != "error" {
                    return;
                }
                let line = diagnostic
                    .spans
                    .iter()
                    .find(|span| span.is_primary)
                    .map(|span| span.line_start);
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
                    self.runner_errors.push(GeneratedError {
                        message: text,
                        line,
                    });
                } else {
                    self.errors.push(text);
                }
            }
            _ => {}
        }
    }
}

/// Names a folder of vendored sources (`cargo vendor` of grader-api's dependencies at
/// [`super::embedded::PINNED_LOCK`]'s versions) that builds take crates.io's crates from, as
/// the Gradescope package's `run_autograder` sets it, so that builds need nothing the
/// toolchain fetched.
pub const VENDOR_DIR_ENV: &str = "CARDGRADE_VENDOR_DIR";

/// The folder [`VENDOR_DIR_ENV`] names, if it is set, made absolute.
fn vendored_sources() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os(VENDOR_DIR_ENV)?);
    Some(std::fs::canonicalize(&dir).unwrap_or(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_build_wrote_is_counted_through_its_folders_but_not_through_links() {
        let root = crate::temp::folder("test-written").unwrap();
        let written = root.path().join("target");
        std::fs::create_dir_all(written.join("deep/er")).unwrap();
        std::fs::write(written.join("deep/er/file"), vec![7u8; 1 << 20]).unwrap();
        let elsewhere = root.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("big"), vec![7u8; 4 << 20]).unwrap();
        std::os::unix::fs::symlink(&elsewhere, written.join("link")).unwrap();
        let counted = bytes_written(&[&written], None);
        assert!((1 << 20..2 << 20).contains(&counted), "{counted}");
    }

    #[test]
    fn lines_past_the_cap_are_skipped_and_the_rest_kept() {
        let long = "x".repeat(LINE_CAP + 1);
        let text = format!("first\n{long}\nlast\nunfinished");
        let mut lines = Vec::new();
        for_each_line(text.as_bytes(), |line| lines.push(line.to_string()));
        assert_eq!(lines, ["first", "last"]);
    }

    #[test]
    fn a_stream_is_read_to_its_end_and_cut_at_the_cap() {
        let text = "y".repeat(OUTPUT_CAP * 3);
        assert_eq!(read_capped(text.as_bytes()).len(), OUTPUT_CAP);
    }

    /// A toolchain with a cargo home at `/cardgrade-test/cargo-home` and `cargo` where it is.
    fn with_cargo(cargo: &str) -> Toolchain {
        let home = PathBuf::from("/cardgrade-test/cargo-home");
        Toolchain {
            homes: vec![Home {
                real: home.clone(),
                seen: home,
                variable: "CARGO_HOME",
            }],
            cargo: cargo.into(),
            real_cargo: cargo.into(),
        }
    }

    #[test]
    fn a_cargo_in_a_home_or_the_systems_folders_is_in_view() {
        for cargo in ["/cardgrade-test/cargo-home/bin/cargo", "/usr/bin/cargo"] {
            assert!(with_cargo(cargo).in_view().is_ok(), "{cargo}");
        }
    }

    #[test]
    fn a_cargo_of_another_home_is_named_with_that_home() {
        let refused = with_cargo("/cardgrade-test/elsewhere/bin/cargo")
            .in_view()
            .unwrap_err()
            .to_string();
        assert!(
            refused.starts_with("the Rust toolchain's cargo, /cardgrade-test/elsewhere/bin/cargo, is outside what builds can see: a build sees the system's folders (/usr, /bin, /sbin …) and the toolchain's homes, here CARGO_HOME=/cardgrade-test/cargo-home. Run the grader with CARGO_HOME and RUSTUP_HOME set to the homes of the toolchain that cargo belongs to (here CARGO_HOME=/cardgrade-test/elsewhere), or put"),
            "{refused}"
        );
    }
}
