//! `cargo build` of a build folder's runner crate, in the sandbox, within the time limit,
//! its output read with caps.

use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use super::error::BuildError;
use super::layout::{Builder, Layout};
use super::output::{BuildOutcome, for_each_line, read_capped};
use super::settings::Build;
use super::toolchain::{SYSTEM_READ, Toolchain};
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

/// The toolchain a build in `layout` runs, or why a build there could not see it.
pub(super) fn usable_toolchain(
    layout: &Layout,
    sandbox: &Sandbox,
) -> Result<Toolchain, BuildError> {
    let mounted = sandbox.layers().mount_namespace;
    let toolchain = Toolchain::find(layout, mounted);
    if mounted || sandbox.layers().landlock.is_some() {
        toolchain.in_view()?;
    }
    Ok(toolchain)
}

/// Runs `cargo build` of the layout's runner crate in the sandbox, within the time limit,
/// until cargo says it linked the runner; `toolchain` is what [`usable_toolchain`] found
/// for `layout`.
pub fn run(
    layout: &Layout,
    sandbox: &Sandbox,
    build: &Build,
    (builder, toolchain): (Builder, &Toolchain),
) -> Result<(), BuildError> {
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
    if sandbox.layers().mount_namespace {
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
}
