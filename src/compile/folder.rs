//! A build folder made ready: locked, made with grader-api and the toolchain's mount
//! points, cleared of what another grader-api, mode or user built there, with the places
//! the build writes owned by who builds. Both a submission's build and the shared cache's
//! make their folders so.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::embedded::{API_FILES, API_MANIFEST};
use super::error::BuildError;
use super::layout::{Builder, Layout, shared_api};
use super::runner_crate::write_if_changed;
use super::toolchain;
use crate::sandbox::{self, Sandbox};

/// Why the build folder of `layout` could not be written.
pub fn unwritable(layout: &Layout, error: std::io::Error) -> BuildError {
    BuildError::Cargo(format!(
        "cannot write the build folder {}: {error}",
        layout.folder.display()
    ))
}

/// An exclusive lock on a file beside `folder`, held while the returned file is open.
pub fn lock_beside(folder: &Path) -> std::io::Result<std::fs::File> {
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
pub fn prepare_folder(layout: &Layout, sandbox: &Sandbox) -> Result<Builder, BuildError> {
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
        &toolchain::toolchain_homes(),
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
pub fn make_dir(path: &Path, builder: Builder) -> std::io::Result<()> {
    std::fs::create_dir_all(path)?;
    if let Some(uid) = builder.owner() {
        std::os::unix::fs::chown(path, Some(uid), Some(sandbox::NOBODY))?;
    }
    Ok(())
}

/// Writes grader-api, as embedded, into `api`; a file already as it is is left untouched.
pub fn write_api(api: &Path) -> std::io::Result<()> {
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
