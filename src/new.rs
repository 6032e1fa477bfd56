//! `grader new PATH`: a student's crate from the template embedded in the grader, with a
//! copy of grader-api inside it, so that it builds (and an editor reads it) wherever the
//! grader was installed, away from this repository.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::compile::write_api;
use crate::exit::done_or_usage;

include!(concat!(env!("OUT_DIR"), "/embedded_template.rs"));

/// Where the crate's copy of grader-api goes, and what its manifest points at.
const API_FOLDER: &str = "grader-api";
/// The template's own dependency line, which points into this repository.
const TEMPLATE_API: &str = "grader-api = { path = \"../api\" }";

#[derive(Debug, clap::Args)]
pub struct NewArgs {
    /// The folder to create the crate in: new, or empty.
    pub path: PathBuf,
}

pub fn run(args: NewArgs) -> ExitCode {
    let written = write_crate(&args.path);
    if written.is_ok() {
        println!(
            "wrote a submission crate to {}: `cd {}` and run `grader check`",
            args.path.display(),
            args.path.display()
        );
    }
    done_or_usage(written)
}

fn write_crate(path: &Path) -> Result<(), String> {
    let occupied = std::fs::read_dir(path).is_ok_and(|mut entries| entries.next().is_some());
    if occupied || path.is_file() {
        return Err(format!(
            "{} already holds something: `grader new` writes into a new or empty folder",
            path.display()
        ));
    }
    let failed = |error: std::io::Error| format!("cannot write {}: {error}", path.display());
    for (relative, text) in TEMPLATE_FILES {
        let file = path.join(relative);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).map_err(failed)?;
        }
        let text = match *relative {
            "Cargo.toml" => manifest(text),
            _ => text.to_string(),
        };
        std::fs::write(&file, text).map_err(failed)?;
    }
    write_api(&path.join(API_FOLDER)).map_err(failed)
}

/// The template's manifest with grader-api taken from the crate's own copy.
fn manifest(template: &str) -> String {
    template
        .lines()
        .filter(|line| !line.starts_with("# If you copied this crate out"))
        .map(|line| match line {
            TEMPLATE_API => format!("grader-api = {{ path = \"{API_FOLDER}\" }}"),
            // The copy of grader-api is a workspace of its own, not a member of this one.
            "[workspace]" => format!("[workspace]\nexclude = [\"{API_FOLDER}\"]"),
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}
