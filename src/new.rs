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
    let registered: Vec<&str> = match assignments.is_empty() {
        true => grader_api::ASSIGNMENTS
            .iter()
            .map(|unit| unit.name())
            .collect(),
        false => assignments.iter().map(String::as_str).collect(),
    };
    let modules = modules_for(&registered);
    let library = library_of(&registered, &modules);
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
        if let Some(module) = module
            && !modules.iter().any(|kept| kept == module)
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

/// The template's modules of `registered` and of those their code names (`crate::<module>`),
/// in the order they are first needed.
fn modules_for(registered: &[&str]) -> Vec<String> {
    let mut modules: Vec<String> = registered.iter().map(|name| name.to_string()).collect();
    let mut next = 0;
    while let Some(module) = modules.get(next).cloned() {
        next += 1;
        let text = TEMPLATE_FILES
            .iter()
            .find(|(relative, _)| *relative == format!("src/{module}.rs"))
            .map_or("", |(_, text)| text);
        for (at, _) in text.match_indices("crate::") {
            let named: String = text[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !named.is_empty() && !modules.contains(&named) {
                modules.push(named);
            }
        }
    }
    modules
}

/// The crate's `src/lib.rs`: the template's opening comment, a `pub mod` per module and
/// `submission()` registering `registered`, each by its module's `register`, written out
/// for the student to edit.
fn library_of(registered: &[&str], modules: &[String]) -> String {
    let template = TEMPLATE_FILES
        .iter()
        .find(|(relative, _)| *relative == "src/lib.rs")
        .map_or("", |(_, text)| text);
    let mut library: String = template
        .lines()
        .take_while(|line| line.starts_with("//!"))
        .map(|line| format!("{line}\n"))
        .collect();
    library.push_str("\nuse grader_api::Submission;\n\n");
    let mut sorted = modules.to_vec();
    sorted.sort();
    for module in &sorted {
        library.push_str(&format!("pub mod {module};\n"));
    }
    library.push_str("\npub fn submission() -> Submission {\n    Submission::new()");
    for name in registered {
        library.push_str(&format!("\n        .with({name}::register)"));
    }
    library.push_str("\n}\n");
    library
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
