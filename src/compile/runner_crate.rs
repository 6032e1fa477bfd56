//! The runner crate the grader writes around a submission: its manifest (the profile a
//! build is made with) and its files, written so that cargo rebuilds nothing unchanged and
//! no link a build left is followed.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::sandbox::{self};
use crate::student_text::StudentText;
use serde::Serialize;

use super::embedded::PINNED_LOCK;
use super::layout::{Builder, Layout};

#[derive(Serialize)]
pub(super) struct RunnerManifest {
    package: RunnerPackage,
    bin: Vec<RunnerBin>,
    dependencies: BTreeMap<String, PathDependency>,
    /// An empty table: the runner is a workspace of its own, whatever surrounds it.
    workspace: BTreeMap<String, String>,
    profile: BTreeMap<String, RunnerProfile>,
}

#[derive(Serialize)]
pub(super) struct RunnerPackage {
    name: String,
    version: String,
    edition: String,
    publish: bool,
}

#[derive(Serialize)]
pub(super) struct RunnerBin {
    name: String,
    path: String,
}

#[derive(Serialize)]
pub(super) struct PathDependency {
    pub(super) path: PathBuf,
    /// The submission's own name, where it is the dependency: TOML's escaping renders it.
    pub(super) package: StudentText,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) features: Vec<String>,
}

#[derive(Serialize)]
pub(super) struct RunnerProfile {
    debug: bool,
    incremental: bool,
    #[serde(rename = "codegen-units")]
    codegen_units: u32,
}

/// Writes the runner crate of `layout`: its crate root `main`, and as its dependencies
/// grader-api with the runner's allocator, and the `submission`'s crate if there is one.
/// Every runner, harness and the cache of grader-api take it with the same features, so
/// that grader-api is compiled once for all of them. Returns the manifest written.
pub(super) fn write_runner_crate(
    layout: &Layout,
    submission: Option<(String, PathDependency)>,
    main: &str,
    (builder, incremental): (Builder, bool),
) -> std::io::Result<String> {
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
        dependencies: BTreeMap::from_iter(submission.into_iter().chain([(
            "grader-api".to_string(),
            PathDependency {
                path: layout.api.clone(),
                package: "grader-api".into(),
                features: vec!["allocator".into()],
            },
        )])),
        workspace: BTreeMap::new(),
        profile: BTreeMap::from([(
            "release".to_string(),
            RunnerProfile {
                debug: false,
                incremental,
                // One unit, so the whole runner is optimized together: the all-hands group
                // graded from kept answers took 0.72x the runner's CPU it took with 16
                // (760 against 1,050 ms, two runs each side by side). Its cost is the
                // submission's rebuild: 0.21 s against 0.19 s for a crate of one
                // assignment, 2.5 s against 1.8 s for the reference's six (issue 39).
                codegen_units: 1,
            },
        )]),
    };
    let toml = toml::to_string(&manifest).map_err(std::io::Error::other)?;
    for (name, text) in [
        ("Cargo.toml", toml.as_str()),
        ("main.rs", main),
        ("Cargo.lock", PINNED_LOCK),
    ] {
        write_in_builds_folder(&layout.runner.join(name), text, builder)?;
    }
    Ok(toml)
}

/// Writes a file of a folder the build writes too: what a build left at `path` (a link
/// among them) is replaced, never followed.
pub(super) fn write_in_builds_folder(
    path: &Path,
    contents: &str,
    builder: Builder,
) -> std::io::Result<()> {
    let no_follow = nix::fcntl::OFlag::O_NOFOLLOW.bits();
    let mut existing = String::new();
    let same = std::fs::File::options()
        .read(true)
        .custom_flags(no_follow)
        .open(path)
        .and_then(|mut file| file.read_to_string(&mut existing))
        .is_ok_and(|_| existing == contents);
    let owned = std::fs::symlink_metadata(path)
        .is_ok_and(|m| builder.owner().is_none_or(|uid| m.uid() == uid));
    if same && owned {
        // Rewriting an unchanged file would make cargo rebuild the runner for nothing.
        return Ok(());
    }
    if std::fs::symlink_metadata(path).is_ok() {
        std::fs::remove_file(path)?;
    }
    let mut file = std::fs::File::options()
        .write(true)
        .create_new(true)
        .custom_flags(no_follow)
        .open(path)?;
    file.write_all(contents.as_bytes())?;
    if let Some(uid) = builder.owner() {
        std::os::unix::fs::fchown(&file, Some(uid), Some(sandbox::NOBODY))?;
    }
    Ok(())
}

/// Rewriting an unchanged file would make cargo rebuild the runner for nothing.
pub(crate) fn write_if_changed(path: &Path, contents: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|existing| existing == contents) {
        return Ok(());
    }
    std::fs::write(path, contents)
}
