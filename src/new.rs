//! `grader new PATH`: a student's crate from the template embedded in the grader, with a
//! copy of grader-api inside it, so that it builds (and an editor reads it) wherever the
//! grader was installed, away from this repository.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::compile::write_api;
use crate::controls::visible_controls;
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
    /// The assignment the crate is for (repeatable): its module and registration, and the
    /// modules it uses. Without it (or --all), asked for on a terminal.
    #[arg(long = "assignment", value_name = "NAME")]
    pub assignments: Vec<String>,
    /// Every assignment's module, each registered: `grader check` then grades them all.
    #[arg(long, conflicts_with = "assignments")]
    pub all: bool,
}

pub fn run(args: NewArgs) -> ExitCode {
    let written = free_folder(&args.path)
        .and_then(|()| chosen(&args))
        .and_then(|assignments| write_crate(&args.path, &assignments));
    if written.is_ok() {
        println!(
            "wrote a submission crate to {}: `cd {}` and run `grader check`",
            args.path.display(),
            args.path.display()
        );
    }
    done_or_usage(written)
}

/// The assignments the crate registers: those named, every one with `--all`, else the one
/// a student at a terminal picks. A student starts with one assignment, so that their first
/// `grader check` grades that one alone and totals its points, not the course's.
fn chosen(args: &NewArgs) -> Result<Vec<String>, String> {
    let every = || assignment_names().map(str::to_string).collect();
    if args.all {
        return Ok(every());
    }
    if !args.assignments.is_empty() {
        return Ok(args.assignments.clone());
    }
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Err(format!(
            "name the assignment the crate is for with --assignment NAME, one of: {} (or --all for every one)",
            assignment_names().collect::<Vec<_>>().join(", ")
        ));
    }
    ask(&mut stdin.lock(), &mut std::io::stderr()).map(|name| vec![name.to_string()])
}

/// Lists the assignments on `prompt` and reads a number or a name from `answers` until one
/// names an assignment; an answer of nothing at all (end of input) chooses none.
fn ask(answers: &mut impl BufRead, prompt: &mut impl Write) -> Result<&'static str, String> {
    let names: Vec<&'static str> = assignment_names().collect();
    let mut menu = String::from(
        "Which assignment is this crate for? (next time, say it with --assignment NAME)\n",
    );
    for (number, name) in names.iter().enumerate() {
        menu.push_str(&format!("  {}. {name}\n", number + 1));
    }
    let said = |error: std::io::Error| format!("cannot ask for the assignment: {error}");
    write!(prompt, "{menu}").map_err(said)?;
    loop {
        write!(prompt, "number or name: ").map_err(said)?;
        prompt.flush().map_err(said)?;
        let mut answer = String::new();
        if answers.read_line(&mut answer).map_err(said)? == 0 {
            return Err("no assignment chosen: name it with --assignment NAME".into());
        }
        let answer = answer.trim();
        let picked = match answer.parse::<usize>() {
            Ok(number) => number.checked_sub(1).and_then(|at| names.get(at)),
            Err(_) => names.iter().find(|name| **name == answer),
        };
        match picked {
            Some(name) => return Ok(name),
            None => writeln!(
                prompt,
                "{} is none of them: a number from 1 to {}, or a name as listed",
                visible_controls(answer),
                names.len()
            )
            .map_err(said)?,
        }
    }
}

fn assignment_names() -> impl Iterator<Item = &'static str> {
    grader_api::ASSIGNMENTS.iter().map(|unit| unit.name())
}

/// Refuses a folder that holds something, before anything is asked or written.
fn free_folder(path: &Path) -> Result<(), String> {
    let occupied = std::fs::read_dir(path).is_ok_and(|mut entries| entries.next().is_some());
    match occupied || path.is_file() {
        true => Err(format!(
            "{} already holds something: `grader new` writes into a new or empty folder",
            path.display()
        )),
        false => Ok(()),
    }
}

/// Writes the crate for `assignments` (at least one) into `path`, new or empty.
pub(crate) fn write_crate(path: &Path, assignments: &[String]) -> Result<(), String> {
    for name in assignments {
        if grader_api::assignment(name).is_none() {
            return Err(format!(
                "--assignment {}: not an assignment; expected one of: {}",
                visible_controls(name),
                assignment_names().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    let registered: Vec<&str> = assignments.iter().map(String::as_str).collect();
    let modules = modules_for(&registered);
    let library = library_of(&registered, &modules);
    free_folder(path)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(answers: &str) -> (Result<&'static str, String>, String) {
        let mut prompt = Vec::new();
        let picked = ask(&mut answers.as_bytes(), &mut prompt);
        (picked, String::from_utf8(prompt).unwrap())
    }

    #[test]
    fn a_student_picks_an_assignment_by_its_number_or_its_name() {
        let (picked, prompt) = asked("2\n");
        assert_eq!(picked, Ok(grader_api::ASSIGNMENTS[1].name()));
        for (number, unit) in grader_api::ASSIGNMENTS.iter().enumerate() {
            assert!(
                prompt.contains(&format!("  {}. {}\n", number + 1, unit.name())),
                "{prompt}"
            );
        }
        let last = grader_api::ASSIGNMENTS[grader_api::ASSIGNMENTS.len() - 1].name();
        assert_eq!(asked(&format!(" {last} \n")).0, Ok(last));
    }

    #[test]
    fn an_answer_that_names_none_is_asked_again_and_no_answer_chooses_none() {
        let (picked, prompt) = asked("0\nsolitaire\x1b[2J\n1\n");
        assert_eq!(picked, Ok(grader_api::ASSIGNMENTS[0].name()));
        assert!(
            prompt.contains("0 is none of them")
                && prompt.contains("solitaire␛[2J is none of them"),
            "{prompt}"
        );
        let (picked, _) = asked("99\n");
        assert_eq!(
            picked,
            Err("no assignment chosen: name it with --assignment NAME".to_string())
        );
    }
}
