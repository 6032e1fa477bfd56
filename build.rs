//! Embeds grader-api in the grader (the grader writes it out for every submission it
//! builds, so what a submission's Cargo.toml points at never matters), the specs of
//! `specs/`, the ones it grades with when given none, and the reference's source, which
//! the bugs of its library are edits of.

#[path = "src/compile/inherit.rs"]
mod inherit;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=api/src");
    println!("cargo:rerun-if-changed=api/Cargo.toml");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed=src/compile/inherit.rs");
    println!("cargo:rerun-if-changed=specs");
    println!("cargo:rerun-if-changed=student_template/src");
    println!("cargo:rerun-if-changed=student_template/Cargo.toml");
    println!("cargo:rerun-if-changed=reference/src");
    println!(
        "cargo:rustc-env=CARDGRADE_ANSWERS_DIGEST={:016x}",
        answers_digest()
    );
    println!(
        "cargo:rustc-env=CARDGRADE_GIT_REV={}",
        git_revision().unwrap_or_default()
    );
    let mut files = Vec::new();
    collect(Path::new("api/src"), &mut files);
    files.sort();
    let root = std::env::current_dir().expect("the build runs in the package folder");
    let mut out = embedded(
        "grader-api's source files, by path within its crate.",
        "API_FILES",
        &files,
        "api",
        &root,
    );
    let _ = writeln!(
        out,
        "/// grader-api's manifest, standing alone (no workspace to inherit from).\npub const API_MANIFEST: &str = {:?};",
        standalone_api_manifest()
    );
    let target = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(target.join("embedded_api.rs"), out).expect("OUT_DIR is writable");
    std::fs::write(target.join("built_in_specs.rs"), built_in_specs(&root))
        .expect("OUT_DIR is writable");
    std::fs::write(target.join("embedded_template.rs"), template(&root))
        .expect("OUT_DIR is writable");
    std::fs::write(target.join("embedded_reference.rs"), reference(&root))
        .expect("OUT_DIR is writable");
}

/// The reference's source files but for its library of bugs, which no bug is made of.
fn reference(root: &Path) -> String {
    let mut files = Vec::new();
    collect(Path::new("reference/src"), &mut files);
    files.retain(|file| file.file_name().is_none_or(|name| name != "bugs.rs"));
    files.sort();
    embedded(
        "The reference's source files, by path within its src folder.",
        "REFERENCE_FILES",
        &files,
        "reference/src",
        root,
    )
}

/// A hash of what the reference's answers come from: its sources, grader-api's and the
/// grader's version. Kept answers made by another are not used.
fn answers_digest() -> u64 {
    use std::hash::{Hash, Hasher};
    let mut files = Vec::new();
    collect(Path::new("reference/src"), &mut files);
    collect(Path::new("api/src"), &mut files);
    // The library of bugs is data about the reference, not what it answers.
    files.retain(|file| !file.ends_with("bugs.rs"));
    files.sort();
    let mut hasher = std::hash::DefaultHasher::new();
    std::env::var("CARGO_PKG_VERSION")
        .unwrap_or_default()
        .hash(&mut hasher);
    for file in &files {
        file.hash(&mut hasher);
        std::fs::read(file)
            .unwrap_or_else(|error| panic!("{} is unreadable: {error}", file.display()))
            .hash(&mut hasher);
    }
    hasher.finish()
}

/// The student template's manifest and sources: what `grader new` writes.
fn template(root: &Path) -> String {
    let mut files = vec![PathBuf::from("student_template/Cargo.toml")];
    files.extend(files_in("student_template/src", "rs"));
    embedded(
        "The student template's files, by path within the crate.",
        "TEMPLATE_FILES",
        &files,
        "student_template",
        root,
    )
}

/// Every spec file of `specs/`, embedded: the specs the grader uses without `--spec`.
fn built_in_specs(root: &Path) -> String {
    embedded(
        "The specs shipped with the grader, by path.",
        "BUILT_IN_SPECS",
        &files_in("specs", "yaml"),
        "",
        root,
    )
}

/// The files of `dir` (not below it) whose names end in `.extension`, in order.
fn files_in(dir: &str, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("{dir} is unreadable: {error}"))
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == extension))
        // Mutants kept beside a spec (src/spec/kept.rs) are no spec of their own.
        .filter(|path| !path.to_string_lossy().ends_with(".mutants.yaml"))
        .collect();
    files.sort();
    files
}

/// Rust source for `pub const NAME: &[(&str, &str)]`: each file's path with `prefix`
/// taken off, and its contents included from under `root`.
fn embedded(doc: &str, name: &str, files: &[PathBuf], prefix: &str, root: &Path) -> String {
    let mut out = format!("/// {doc}\npub const {name}: &[(&str, &str)] = &[\n");
    for file in files {
        let relative = file
            .strip_prefix(prefix)
            .expect("collected under the prefix");
        let _ = writeln!(
            out,
            "    ({:?}, include_str!({:?})),",
            relative.display().to_string(),
            root.join(file).display().to_string()
        );
    }
    out.push_str("];\n");
    out
}

/// The `.rs` files of `dir` and of the folders below it.
fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("{} is unreadable: {error}", dir.display()))
        .flatten()
    {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
}

/// api/Cargo.toml with each `key.workspace = true` replaced by the workspace's value.
fn standalone_api_manifest() -> String {
    let read = |path: &str| -> toml::Table {
        std::fs::read_to_string(path)
            .expect("manifest is readable")
            .parse()
            .expect("manifest is valid TOML")
    };
    let workspace = read("Cargo.toml");
    let inherited = workspace
        .get("workspace")
        .and_then(|w| w.get("package"))
        .and_then(|p| p.as_table())
        .cloned()
        .unwrap_or_default();
    let mut api = read("api/Cargo.toml");
    inherit::inherit_package(&mut api, &inherited);
    // A workspace of its own, so cargo does not look for one in the folders above it.
    api.insert("workspace".into(), toml::Value::Table(toml::Table::new()));
    toml::to_string(&api).expect("a table serializes")
}

/// The commit this checkout is at, which `grader github-workflow` pins the grader it
/// installs to; none outside a git checkout. The build runs again when HEAD moves.
fn git_revision() -> Option<String> {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let branch = git(&["symbolic-ref", "-q", "HEAD"]);
    for moved in ["HEAD", "packed-refs"].into_iter().chain(branch.as_deref()) {
        // A file that is not there would run the build every time.
        if let Some(path) =
            git(&["rev-parse", "--git-path", moved]).filter(|p| Path::new(p).exists())
        {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    git(&["rev-parse", "HEAD"]).filter(|rev| !rev.is_empty())
}
