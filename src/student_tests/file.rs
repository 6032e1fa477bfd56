//! A student's file of tests: the assignment's own file, or an integration test of
//! `tests/` that names the student's module, found and read within caps.

use std::io::Read;
use std::path::Path;

use super::source;
use crate::compile::{self, stable_hash};

/// The most of a student's file read.
const FILE_CAP: u64 = 1 << 20;

/// The most files of `tests/` read.
const TEST_FILES_CAP: usize = 64;

/// A student's file that holds an assignment's tests: the assignment's own file, whose
/// `#[cfg(test)]` modules hold them, or an integration test of `tests/`, a file of tests
/// that names the student's crate.
pub struct StudentFile {
    /// Its path in the crate, as reports show it.
    pub shown: String,
    pub text: String,
    /// Its test modules; an integration test's one module is the whole file.
    pub modules: Vec<source::TestModule>,
    /// An integration test's name for the student's crate (its library's name).
    pub names_crate: Option<String>,
}

/// A student's test, by its path in the harness's module of an implementation and by the
/// name reports show, which says where it came from (`src/<assignment>.rs::tests::pair`,
/// `tests/hands.rs::three_kings`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestName {
    pub in_harness: String,
    pub shown: String,
}

impl StudentFile {
    /// The file of `assignment` in the crate at `root`: `src/<assignment>.rs`, its
    /// `mod.rs`, or else `src/lib.rs`; None when there is none.
    pub fn find(root: &Path, assignment: &str) -> Result<Option<StudentFile>, String> {
        let candidates = [
            format!("src/{assignment}.rs"),
            format!("src/{assignment}/mod.rs"),
            "src/lib.rs".to_string(),
        ];
        let Some(shown) = candidates
            .into_iter()
            .find(|path| std::fs::symlink_metadata(root.join(path)).is_ok())
        else {
            return Ok(None);
        };
        let text = read(root, &shown)?;
        let modules = source::test_modules(&text)
            .ok_or_else(|| format!("{shown}: a `#[cfg(test)]` module's braces do not close"))?;
        Ok(Some(StudentFile {
            shown,
            text,
            modules,
            names_crate: None,
        }))
    }

    /// The integration tests of the crate at `root` that test `assignment`: the files of
    /// `tests/` that name the student's module of it, or every one when the crate is that one file
    /// (`whole_crate`). None is read when the crate's library has no name to call it by.
    pub fn integration(
        root: &Path,
        assignment: &str,
        whole_crate: bool,
    ) -> Result<Vec<StudentFile>, String> {
        let folder = root.join("tests");
        let Some(names_crate) = crate_name(root) else {
            return Ok(Vec::new());
        };
        // Not through a link, which could lead the grader to files outside the crate.
        let folder_itself = std::fs::symlink_metadata(&folder);
        if !folder_itself.is_ok_and(|metadata| metadata.is_dir()) {
            return Ok(Vec::new());
        }
        let Ok(entries) = std::fs::read_dir(&folder) else {
            return Ok(Vec::new());
        };
        let mut paths: Vec<String> = entries
            .filter_map(|entry| {
                let entry = entry.ok()?;
                let name = entry.file_name().into_string().ok()?;
                let regular = entry.file_type().ok()?.is_file();
                (regular && name.ends_with(".rs")).then(|| format!("tests/{name}"))
            })
            .collect();
        paths.sort();
        paths.truncate(TEST_FILES_CAP);
        let mut files = Vec::new();
        for shown in paths {
            // Its modules in other files (`mod common;`) are not in the harness: empty, the
            // tests that use them are left out, not the whole group.
            let text = source::without_file_modules(&read(root, &shown)?);
            if !whole_crate && !source::names_module(&text, assignment) {
                continue;
            }
            let tests = source::file_tests(&text)
                .ok_or_else(|| format!("{shown}: its braces do not close"))?;
            let module = source::TestModule {
                // Like the implementations' names, one no item of the student's can have.
                name: format!("m{:016x}", stable_hash(&shown)),
                bytes: 0..text.len(),
                lines: 1..text.matches('\n').count() + 2,
                tests,
            };
            files.push(StudentFile {
                shown,
                text,
                modules: vec![module],
                names_crate: Some(names_crate.clone()),
            });
        }
        Ok(files)
    }

    /// Test `test` of module `module`, by its names.
    pub fn test_name(&self, module: usize, test: usize) -> TestName {
        let (module, test) = (&self.modules[module], &self.modules[module].tests[test]);
        let in_harness = format!("{}::{}", module.name, test.name);
        let shown = match self.names_crate {
            Some(_) => format!("{}::{}", self.shown, test.name),
            None => format!("{}::{in_harness}", self.shown),
        };
        TestName { in_harness, shown }
    }

    /// Each `#[test]` found, by its names.
    pub fn tests(&self) -> Vec<TestName> {
        (0..self.modules.len())
            .flat_map(|module| {
                (0..self.modules[module].tests.len()).map(move |test| self.test_name(module, test))
            })
            .collect()
    }
}

/// The text of the file `shown` of the crate at `root`, at most [`FILE_CAP`] bytes of it.
fn read(root: &Path, shown: &str) -> Result<String, String> {
    let mut text = String::new();
    compile::open_regular(&root.join(shown))
        .and_then(|file| file.take(FILE_CAP).read_to_string(&mut text))
        .map_err(|error| format!("{shown} cannot be read: {error}"))?;
    Ok(text)
}

/// The name the crate at `root`'s integration tests call it by, when it is an identifier:
/// the name is written into the harness's source.
fn crate_name(root: &Path) -> Option<String> {
    let name = compile::locate(root).ok()?.lib_name;
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    identifier.then_some(name)
}
