//! Embeds grader-api in the grader (the grader writes it out for every submission it
//! builds, so what a submission's Cargo.toml points at never matters) and the specs of
//! `specs/`, the ones it grades with when given none.

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
    let mut files = Vec::new();
    collect(Path::new("api/src"), &mut files);
    files.sort();
    let root = std::env::current_dir().expect("the build runs in the package folder");
    let mut out = String::from(
        "/// grader-api's source files, by path within its crate.\npub const API_FILES: &[(&str, &str)] = &[\n",
    );
    for file in &files {
        let relative = file.strip_prefix("api").expect("collected under api");
        let _ = writeln!(
            out,
            "    ({:?}, include_str!({:?})),",
            relative.display().to_string(),
            root.join(file).display().to_string()
        );
    }
    out.push_str("];\n");
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
}

/// The student template's manifest and sources: what `grader new` writes.
fn template(root: &Path) -> String {
    let mut files = vec![PathBuf::from("student_template/Cargo.toml")];
    let mut sources: Vec<PathBuf> = std::fs::read_dir("student_template/src")
        .expect("student_template/src is readable")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .collect();
    sources.sort();
    files.extend(sources);
    let mut out = String::from(
        "/// The student template's files, by path within the crate.\npub const TEMPLATE_FILES: &[(&str, &str)] = &[\n",
    );
    for file in &files {
        let relative = file
            .strip_prefix("student_template")
            .expect("collected under student_template");
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

/// Every spec file of `specs/`, embedded: the specs the grader uses without `--spec`.
fn built_in_specs(root: &Path) -> String {
    let mut specs: Vec<PathBuf> = std::fs::read_dir("specs")
        .expect("specs is readable")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    specs.sort();
    let mut out = String::from(
        "/// The specs shipped with the grader, by path.\npub const BUILT_IN_SPECS: &[(&str, &str)] = &[\n",
    );
    for spec in &specs {
        let _ = writeln!(
            out,
            "    ({:?}, include_str!({:?})),",
            spec.display().to_string(),
            root.join(spec).display().to_string()
        );
    }
    out.push_str("];\n");
    out
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir)
        .expect("api/src is readable")
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
