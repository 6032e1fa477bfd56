//! A bug of the reference's library as a crate to grade: the reference's source for the
//! bug's assignment, as embedded in the grader, with the bug's edits made and a
//! `submission()` that registers that assignment alone, by its module's `register`. Made from the reference's own
//! text, a bug stays in step with it instead of being a copy; the grader's tests make
//! their fixtures the same way.

use std::path::{Path, PathBuf};

use reference::bugs::{Bug, Library};

use crate::compile::{write_api, write_if_changed};

include!(concat!(env!("OUT_DIR"), "/embedded_reference.rs"));

/// The folder beside a mutant that its manifest takes grader-api from, so that it builds
/// by hand too; the grader builds it against its own copy whatever the manifest says.
const API_FOLDER: &str = "grader-api";

/// Where a module's code ends and what only the grader's side reads begins: its tests, or
/// the modules declared after them.
const GRADERS_SIDE: [&str; 2] = ["#[cfg(test)]", "pub mod bugs;"];

/// A crate made of the reference: its manifest and its `src/lib.rs`.
pub struct Mutant {
    pub manifest: String,
    pub library: String,
}

impl Mutant {
    /// The crate `name` of `library`'s assignment with `edits` made to the reference's
    /// text; its library's first line says what is wrong with it.
    pub fn new<F: AsRef<str>, T: AsRef<str>>(
        library: &Library,
        name: &str,
        description: &str,
        edits: &[(F, T)],
    ) -> Result<Mutant, String> {
        let source = module_source(library, edits).map_err(|error| format!("{name}: {error}"))?;
        Ok(Mutant {
            manifest: format!(
                "[package]\nname = {name:?}\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\ngrader-api = {{ path = \"../{API_FOLDER}\" }}\n\n[workspace]\n"
            ),
            library: format!(
                "//! Bug: {description}\n{source}\npub fn submission() -> grader_api::Submission {{\n    register(grader_api::Submission::new())\n}}\n"
            ),
        })
    }

    /// Writes the crate to `dir`, and beside it the grader-api its manifest names. A file
    /// that is already as it should be is left alone: cargo rebuilds what it sees rewritten.
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir.join("src"))?;
        write_if_changed(&dir.join("Cargo.toml"), &self.manifest)?;
        write_if_changed(&dir.join("src/lib.rs"), &self.library)?;
        write_api(&dir.join("..").join(API_FOLDER))
    }
}

/// Writes `bug`'s crate among the bugs of `target`, a grader's target dir, where every
/// grader that shares the dir finds it already built; returns its folder.
pub fn write_bug(target: &Path, library: &Library, bug: &Bug) -> Result<PathBuf, String> {
    let dir = target.join("bugs").join(&*bug.name);
    Mutant::new(library, &bug.name, &bug.description, &bug.edits)?
        .write(&dir)
        .map_err(|error| format!("cannot write {}: {error}", dir.display()))?;
    Ok(dir)
}

/// The reference's module of `library`'s assignment, and the modules it uses, with `edits`
/// made: what a bug's crate, or a module standing for it, is made of.
pub fn module_source<F: AsRef<str>, T: AsRef<str>>(
    library: &Library,
    edits: &[(F, T)],
) -> Result<String, String> {
    edited(source(library)?, edits)
}

/// `text` with each edit made; each edit's text must occur exactly once.
pub fn edited<F: AsRef<str>, T: AsRef<str>>(
    mut text: String,
    edits: &[(F, T)],
) -> Result<String, String> {
    for (from, to) in edits {
        let from = from.as_ref();
        let found = text.matches(from).count();
        if found != 1 {
            return Err(format!(
                "`{from}` must occur once in what it edits, but occurs {found} times"
            ));
        }
        text = text.replacen(from, to.as_ref(), 1);
    }
    Ok(text)
}

/// What `library`'s bugs are made of: its assignment's module of the reference, then each
/// module it uses as an inline module.
fn source(library: &Library) -> Result<String, String> {
    let mut source = own_code(library.assignment)?.to_string();
    for module in library.uses {
        source.push_str(&format!("\npub mod {module} {{\n{}}}\n", own_code(module)?));
    }
    Ok(source)
}

/// Module `module` of the reference as a student writes it: without its tests and what
/// follows them.
fn own_code(module: &str) -> Result<&'static str, String> {
    own_file(module).map(|(_, code)| code)
}

/// Module `module` of the reference: its file's path under `reference/src`, and its code
/// as a student writes it.
pub fn own_file(module: &str) -> Result<(&'static str, &'static str), String> {
    let files = [format!("{module}.rs"), format!("{module}/mod.rs")];
    REFERENCE_FILES
        .iter()
        .find(|(path, _)| files.iter().any(|file| file == path))
        .map(|(path, text)| (*path, &text[..submission_part_end(text)]))
        .ok_or_else(|| format!("the reference has no module `{module}`"))
}

/// Where a reference module's own code ends: at its tests or its `bugs` module, whichever
/// comes first, along with the doc comments and attributes just above. The `grader play`
/// front end, not part of what a student writes, is declared after the tests.
pub fn submission_part_end(text: &str) -> usize {
    let Some(marker) = GRADERS_SIDE
        .iter()
        .filter_map(|marker| text.find(marker))
        .min()
    else {
        return text.len();
    };
    let mut end = text[..marker].rfind('\n').map_or(0, |n| n + 1);
    while let Some(start) = text[..end.saturating_sub(1)].rfind('\n').map(|n| n + 1) {
        let line = text[start..end].trim();
        if !(line.starts_with("///") || line.starts_with("#[")) {
            break;
        }
        end = start;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutants_are_made_of_the_code_before_the_tests() {
        let code = "use x;\n\npub struct Game;\n";
        for rest in [
            "\n#[cfg(test)]\nmod tests {}\n\n/// Play.\npub mod terminal;\n",
            "\n/// Tests.\n#[allow(dead_code)]\n#[cfg(test)]\nmod tests {}\n",
            "\n/// Bugs.\npub mod bugs;\n",
        ] {
            let text = format!("{code}{rest}");
            assert_eq!(&text[..submission_part_end(&text)], format!("{code}\n"));
        }
        assert_eq!(submission_part_end(code), code.len());
    }

    #[test]
    fn every_bug_of_the_library_is_made_of_the_reference_under_a_name_of_its_own() {
        let mut problems = Vec::new();
        let mut names = Vec::new();
        for library in reference::bugs::LIBRARIES {
            for bug in (library.bugs)() {
                if let Err(error) = Mutant::new(library, &bug.name, &bug.description, &bug.edits) {
                    problems.push(error);
                }
                if names.contains(&bug.name) {
                    problems.push(format!("{}: a second bug of that name", bug.name));
                }
                names.push(bug.name);
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
