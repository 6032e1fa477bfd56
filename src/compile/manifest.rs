//! The submission's manifests: the crate a student's `Cargo.toml` describes (`locate`),
//! and what a submission may depend on: grader-api (always the grader's own copy), crates
//! inside the submission, and crates the course allows by name. Everything else is refused
//! before anything is built.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;
use toml::{Table, Value};

use super::error::BuildError;
use super::{copy, inherit};
use crate::student_text::StudentText;

/// The tables of a manifest that list dependencies, besides those under `[target.*]`,
/// in both the spellings cargo reads.
const DEPENDENCY_TABLES: &[&str] = &[
    "dependencies",
    "dev-dependencies",
    "dev_dependencies",
    "build-dependencies",
    "build_dependencies",
];

/// The tables of a manifest that name source files of the crate's targets.
const TARGET_TABLES: &[&str] = &["lib", "bin", "test", "bench", "example"];

/// A crate of the submission's copy, which holds no symbolic link.
pub struct CrateDir<'a> {
    /// Its folder, relative to the submission's root.
    pub relative: &'a Path,
    /// Its manifest where the student has it, for messages.
    pub shown: &'a Path,
}

/// Checks the manifest of a crate inside the submission and rewrites it to build against
/// the grader's grader-api. Returns the new text and the folders of the path dependencies
/// it names (relative to the submission's root), which must be checked too.
pub fn vet(
    text: &str,
    crate_dir: &CrateDir,
    api: &Path,
    allowed: &[String],
) -> Result<(String, Vec<PathBuf>), BuildError> {
    let shown = crate_dir.shown.to_path_buf();
    let refuse = |reason: String| BuildError::Refused {
        manifest: shown.clone(),
        reason,
    };
    let mut manifest: Table =
        text.parse()
            .map_err(|error: toml::de::Error| BuildError::BadManifest {
                path: shown.clone(),
                reason: error.to_string(),
            })?;
    if let Some(workspace_package) = crate_dir
        .shown
        .parent()
        .and_then(enclosing_workspace_package)
    {
        inherit::inherit_package(&mut manifest, &workspace_package);
    }
    for path in source_paths(&manifest) {
        if inside(&crate_dir.relative.join(&path)).is_none() || Path::new(&path).is_absolute() {
            return Err(refuse(format!(
                "it names {path}, outside your crate: every file of a submission lies in its folder"
            )));
        }
    }
    for section in ["patch", "replace"] {
        if manifest.contains_key(section) {
            return Err(refuse(format!(
                "it has a [{section}] section, which would swap what the grader builds against: remove it"
            )));
        }
    }
    if let Some(links) = manifest
        .get("package")
        .and_then(|p| p.get("links"))
        .and_then(Value::as_str)
    {
        return Err(refuse(format!(
            "it declares `links = \"{links}\"`, which links native code: remove it"
        )));
    }
    let mut inner = Vec::new();
    let mut tables: Vec<&mut Table> = Vec::new();
    let (top, targets): (Vec<_>, Vec<_>) = manifest
        .iter_mut()
        .partition(|(key, _)| key.as_str() != "target");
    for (key, value) in top {
        if DEPENDENCY_TABLES.contains(&key.as_str())
            && let Some(table) = value.as_table_mut()
        {
            tables.push(table);
        }
    }
    for (_, value) in targets {
        for (_, platform) in value.as_table_mut().into_iter().flatten() {
            for (key, value) in platform.as_table_mut().into_iter().flatten() {
                if DEPENDENCY_TABLES.contains(&key.as_str())
                    && let Some(table) = value.as_table_mut()
                {
                    tables.push(table);
                }
            }
        }
    }
    for table in tables {
        for (name, spec) in table.iter_mut() {
            let package = spec
                .get("package")
                .and_then(Value::as_str)
                .unwrap_or(name)
                .to_string();
            if spec.get("workspace").and_then(Value::as_bool) == Some(true) {
                return Err(refuse(format!(
                    "`{name}` is inherited from a workspace (`workspace = true`): write its path or version here instead"
                )));
            }
            if package == "grader-api" {
                let mut ours = Table::new();
                ours.insert("path".into(), Value::String(api.display().to_string()));
                if package != *name {
                    ours.insert("package".into(), Value::String(package));
                }
                *spec = Value::Table(ours);
                continue;
            }
            if let Some(path) = spec.get("path").and_then(Value::as_str) {
                let within = inside(&crate_dir.relative.join(path))
                    .filter(|_| !Path::new(path).is_absolute())
                    .ok_or_else(|| {
                        refuse(format!(
                            "`{name}` is a path dependency at {path}, outside your crate: a submission may depend only on grader-api and crates inside its own folder"
                        ))
                    })?;
                inner.push(within);
                continue;
            }
            let from_git = spec.get("git").is_some();
            if from_git || !allowed.contains(&package) {
                let allow = if allowed.is_empty() {
                    String::new()
                } else {
                    format!(" (the course allows: {})", allowed.join(", "))
                };
                return Err(refuse(format!(
                    "it depends on `{package}`: a submission may depend only on grader-api and crates inside its own folder{allow}; remove `{name}`"
                )));
            }
        }
    }
    if crate_dir.relative.as_os_str().is_empty() {
        // A workspace of its own: cargo looks no further up, where the grader's files are.
        manifest
            .entry("workspace")
            .or_insert_with(|| Value::Table(Table::new()));
    }
    let text = toml::to_string(&manifest).map_err(|error| BuildError::BadManifest {
        path: shown.clone(),
        reason: error.to_string(),
    })?;
    Ok((text, inner))
}

/// The `[workspace.package]` of the workspace `crate_dir` belongs to, if any: a crate
/// built alone keeps the edition and version it inherits.
fn enclosing_workspace_package(crate_dir: &Path) -> Option<Table> {
    crate_dir.ancestors().find_map(|dir| {
        let manifest: Table = read_manifest(&dir.join("Cargo.toml")).ok()?.parse().ok()?;
        let workspace = manifest.get("workspace")?.as_table()?;
        Some(
            workspace
                .get("package")
                .and_then(Value::as_table)
                .cloned()
                .unwrap_or_default(),
        )
    })
}

/// The paths a manifest names besides dependencies: its targets' sources, its build
/// script, its workspace.
fn source_paths(manifest: &Table) -> Vec<String> {
    let mut paths = Vec::new();
    for key in TARGET_TABLES {
        let targets = match manifest.get(*key) {
            Some(Value::Table(one)) => vec![one],
            Some(Value::Array(many)) => many.iter().filter_map(Value::as_table).collect(),
            _ => Vec::new(),
        };
        for target in targets {
            if let Some(path) = target.get("path").and_then(Value::as_str) {
                paths.push(path.to_string());
            }
        }
    }
    if let Some(package) = manifest.get("package").and_then(Value::as_table) {
        for key in ["build", "workspace", "readme"] {
            if let Some(path) = package.get(key).and_then(Value::as_str) {
                paths.push(path.to_string());
            }
        }
    }
    paths
}

/// `path` (relative to the submission's root) with `..` resolved as written, if it stays
/// inside: the copy holds no link, so as written is where it leads.
fn inside(path: &Path) -> Option<PathBuf> {
    let mut resolved = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                if !resolved.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            Component::Normal(part) => resolved.push(part),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(resolved)
}

/// The student's crate, as its manifest describes it.
#[derive(Debug, Clone)]
pub struct SubmissionCrate {
    pub root: PathBuf,
    pub package: StudentText,
    pub lib_name: String,
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
pub fn read_manifest(path: &Path) -> std::io::Result<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn vet_text(text: &str, allowed: &[&str]) -> Result<(String, Vec<PathBuf>), String> {
        let allowed: Vec<String> = allowed.iter().map(|s| s.to_string()).collect();
        let crate_dir = CrateDir {
            relative: Path::new(""),
            shown: Path::new("/nowhere/sub/Cargo.toml"),
        };
        vet(text, &crate_dir, Path::new("/grader/api"), &allowed).map_err(|e| e.to_string())
    }

    const PACKAGE: &str = "[package]\nname = \"s\"\nversion = \"0.1.0\"\n";

    #[test]
    fn grader_api_is_pointed_at_the_graders_own_copy() {
        let (text, inner) = vet_text(
            &format!("{PACKAGE}[dependencies]\ngrader-api = {{ path = \"../elsewhere\", features = [\"spec\"] }}\n"),
            &[],
        )
        .unwrap();
        assert!(text.contains("path = \"/grader/api\""), "{text}");
        assert!(!text.contains("spec"), "{text}");
        assert!(inner.is_empty());
    }

    #[test]
    fn a_path_dependency_inside_is_kept_and_outside_is_refused() {
        let (_, inner) = vet_text(
            &format!("{PACKAGE}[dependencies]\nmacros = {{ path = \"macros\" }}\n"),
            &[],
        )
        .unwrap();
        assert_eq!(inner, vec![PathBuf::from("macros")]);
        let error = vet_text(
            &format!("{PACKAGE}[dependencies]\nreference = {{ path = \"../reference\" }}\n"),
            &[],
        )
        .unwrap_err();
        assert!(error.contains("outside your crate"), "{error}");
    }

    #[test]
    fn registry_git_patch_and_links_are_refused_unless_allowed() {
        for (text, says) in [
            ("[dependencies]\nrand = \"0.8\"\n", "depends on `rand`"),
            (
                "[dependencies]\nr = { package = \"cardgrade-reference\", git = \"https://x\" }\n",
                "depends on `cardgrade-reference`",
            ),
            (
                "[target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"\n",
                "depends on `libc`",
            ),
            ("[patch.crates-io]\nx = { path = \"x\" }\n", "[patch]"),
            ("[replace]\n\"x:1.0.0\" = { path = \"x\" }\n", "[replace]"),
        ] {
            let error = vet_text(&format!("{PACKAGE}{text}"), &[]).unwrap_err();
            assert!(error.contains(says), "{text}: {error}");
        }
        for (text, says) in [
            (
                "[build_dependencies]\nr = { path = \"/work/reference\" }\n",
                "outside your crate",
            ),
            ("[dev_dependencies]\nrand = \"0.8\"\n", "depends on `rand`"),
            (
                "[lib]\npath = \"/work/reference/src/lib.rs\"\n",
                "outside your crate",
            ),
            (
                "[[bin]]\nname = \"b\"\npath = \"../x.rs\"\n",
                "outside your crate",
            ),
        ] {
            let error = vet_text(&format!("{PACKAGE}{text}"), &[]).unwrap_err();
            assert!(error.contains(says), "{text}: {error}");
        }
        let build = vet_text("[package]\nname = \"s\"\nbuild = \"../../b.rs\"\n", &[]).unwrap_err();
        assert!(build.contains("outside your crate"), "{build}");
        let links = vet_text("[package]\nname = \"s\"\nlinks = \"z\"\n", &[]).unwrap_err();
        assert!(links.contains("links"), "{links}");
        assert!(
            vet_text(
                &format!("{PACKAGE}[dependencies]\nrand = \"0.8\"\n"),
                &["rand"]
            )
            .is_ok()
        );
    }
}
