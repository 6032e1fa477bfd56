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
    /// Only this assignment's module and registration, and the modules it uses
    /// (repeatable); every assignment when none is given.
    #[arg(long = "assignment", value_name = "NAME")]
    pub assignments: Vec<String>,
}

pub fn run(args: NewArgs) -> ExitCode {
    let written = write_crate(&args.path, &args.assignments);
    if written.is_ok() {
        println!(
            "wrote a submission crate to {}: `cd {}` and run `grader check`",
            args.path.display(),
            args.path.display()
        );
    }
    done_or_usage(written)
}

pub(crate) fn write_crate(path: &Path, assignments: &[String]) -> Result<(), String> {
    for name in assignments {
        if grader_api::assignment(name).is_none() {
            let names: Vec<&str> = grader_api::ASSIGNMENTS
                .iter()
                .map(|unit| unit.name())
                .collect();
            return Err(format!(
                "--assignment {name}: not an assignment; expected one of: {}",
                names.join(", ")
            ));
        }
    }
    let library = TEMPLATE_FILES
        .iter()
        .find(|(relative, _)| *relative == "src/lib.rs")
        .map_or("", |(_, text)| text);
    let (library, modules) = match assignments.is_empty() {
        true => (library.to_string(), None),
        false => {
            let (library, modules) = library_of(library, assignments);
            (library, Some(modules))
        }
    };
    let occupied = std::fs::read_dir(path).is_ok_and(|mut entries| entries.next().is_some());
    if occupied || path.is_file() {
        return Err(format!(
            "{} already holds something: `grader new` writes into a new or empty folder",
            path.display()
        ));
    }
    let failed = |error: std::io::Error| format!("cannot write {}: {error}", path.display());
    for (relative, text) in TEMPLATE_FILES {
        let module = relative
            .strip_prefix("src/")
            .and_then(|file| file.strip_suffix(".rs"))
            .filter(|&module| module != "lib");
        if let (Some(module), Some(kept)) = (module, &modules)
            && !kept.iter().any(|kept| kept == module)
        {
            continue;
        }
        let file = path.join(relative);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).map_err(failed)?;
        }
        let text = match *relative {
            "Cargo.toml" => manifest(text),
            "src/lib.rs" => library.clone(),
            _ => text.to_string(),
        };
        std::fs::write(&file, text).map_err(failed)?;
    }
    write_api(&path.join(API_FOLDER)).map_err(failed)
}

/// The template's `src/lib.rs` with only the registrations of `assignments` (a method
/// whose name starts with one's: an assignment and its players), the comments before
/// them, and the modules they name; and those modules.
fn library_of(library: &str, assignments: &[String]) -> (String, Vec<String>) {
    let registers = |line: &str| {
        let method = line.trim_start().strip_prefix('.').unwrap_or_default();
        assignments
            .iter()
            .any(|name| method.starts_with(name.as_str()))
    };
    let is_registration = |line: &str| line.trim_start().starts_with('.');
    let kept_registrations: Vec<&str> = library
        .lines()
        .filter(|line| is_registration(line) && registers(line))
        .collect();
    let mut modules: Vec<String> = assignments.to_vec();
    for line in &kept_registrations {
        for (before, _) in line.match_indices("::") {
            let named = line[..before]
                .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or_default();
            if !named.is_empty() && !modules.iter().any(|module| module == named) {
                modules.push(named.to_string());
            }
        }
    }
    let lines: Vec<&str> = library.lines().collect();
    let mut kept = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let module = line
            .strip_prefix("pub mod ")
            .and_then(|rest| rest.strip_suffix(';'));
        let keep = match module {
            Some(module) => modules.iter().any(|kept| kept == module),
            None if is_registration(line) => registers(line),
            // A comment goes with the registration after it.
            None if line.trim_start().starts_with("//") => lines[index + 1..]
                .iter()
                .find(|next| !next.trim_start().starts_with("//"))
                .is_none_or(|next| !is_registration(next) || registers(next)),
            None => true,
        };
        if keep {
            kept.push(*line);
        }
    }
    (kept.join("\n") + "\n", modules)
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
