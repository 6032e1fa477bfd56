//! grader-api and its dependencies compiled once for every submission built under one
//! [`super::layout::TARGET_DIR_ENV`], by the first grader to need them; owned by the grader, so no
//! build writes there.

use std::path::{Path, PathBuf};

use super::cargo;
use super::copy::{Tree, UNCAPPED, copy_tree};
use super::error::BuildError;
use super::folder::{lock_beside, make_dir, prepare_folder};
use super::layout::{Builder, Layout, shared_api};
use super::runner_crate::write_runner_crate;
use super::settings::Build;
use crate::sandbox::Sandbox;

/// The compiled cache under `shared`, built first if no grader has.
pub fn warm(shared: &Path, sandbox: &Sandbox, build: &Build) -> Result<PathBuf, BuildError> {
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
    let builder = prepare_folder(&layout, sandbox)?;
    write_runner_crate(&layout, None, "fn main() {}\n", (builder, false)).map_err(io)?;
    make_dir(&layout.target, builder).map_err(io)?;
    let quiet = Build {
        color: false,
        ..*build
    };
    let toolchain = cargo::usable_toolchain(&layout, sandbox)?;
    cargo::run(&layout, sandbox, &quiet, (builder, &toolchain))?;
    let tree = Tree {
        // Files cargo rewrites on every build stay out: each build makes its own.
        skip: &|path| {
            path.starts_with("release/incremental")
                || path.starts_with("release/cardgrade-cache")
                || path.file_name().is_some_and(|name| name == ".cargo-lock")
                || path == Path::new(".rustc_info.json")
        },
        caps: UNCAPPED,
        // The grader's from now on, so not even a build without landlock can change it.
        owner: (builder != Builder::Grader).then_some(0),
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
