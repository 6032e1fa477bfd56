//! The one crate every implementation's tests are built in: a module per implementation
//! (the reference's, each bug's, the student's own), each holding that implementation and
//! the student's test modules. Modules are named by a keyed hash that only the grader
//! knows, so a test cannot tell from its own path (`module_path!`, a type's name, a line
//! number, its command line) which implementation it runs on.

use std::collections::BTreeSet;
use std::path::Path;

use reference::bugs::Bug;

use super::{Grading, StudentFile, source};
use crate::compile::{self, GeneratedError, stable_hash};
use crate::mutant::module_source;

/// The opaque module names of the implementations.
pub struct Names {
    key: u64,
    yours: bool,
}

/// What an implementation's module is called before its name is hidden.
const REFERENCE: &str = "reference";
const YOURS: &str = "yours";

impl Names {
    fn hidden(&self, label: &str) -> String {
        format!("m{:016x}", stable_hash(&(self.key, label)))
    }

    pub fn reference(&self) -> String {
        self.hidden(REFERENCE)
    }

    pub fn of_bug(&self, bug: &str) -> String {
        self.hidden(&format!("bug {bug}"))
    }

    /// The student's own module, unless it was left out of the build.
    pub fn yours(&self) -> Option<String> {
        self.yours.then(|| self.hidden(YOURS))
    }
}

/// The harness, built.
pub struct Built {
    pub executable: compile::Built,
    pub names: Names,
    /// Tests left out because they do not compile against the contract, each with why.
    pub left_out: Vec<(String, String)>,
    /// Why the student's own module was left out, if it was.
    pub yours_left_out: Option<String>,
}

/// What the harness leaves out of the student's text.
#[derive(Default, Clone)]
struct Excluded {
    /// Tests, by module and test index.
    tests: BTreeSet<(usize, usize)>,
    /// Whole modules, by index.
    modules: BTreeSet<usize>,
    /// The student's own module.
    yours: bool,
}

/// Where a line of the generated crate comes from.
enum Region {
    /// Test module `module` of the student's file, its first line at `first`.
    Tests {
        module: usize,
        first: usize,
    },
    Yours,
}

/// Builds the harness of `file`'s tests for `grading`'s reference and `bugs`; a test that
/// does not compile against the contract is left out and the harness built once more.
pub fn build(
    root: &Path,
    file: &StudentFile,
    grading: &Grading,
    bugs: &[Bug],
) -> Result<Built, String> {
    let library = grading.library;
    let names = Names {
        key: key()?,
        yours: true,
    };
    let mut implementations = vec![(
        names.reference(),
        module_source::<&str, &str>(library, &[])?,
    )];
    for bug in bugs {
        implementations.push((names.of_bug(&bug.name), module_source(library, &bug.edits)?));
    }
    // In the order of their hidden names: where a module lies says nothing either.
    implementations.sort();
    let tag = format!(
        "{}-{:016x}",
        library.assignment,
        stable_hash(&root.display().to_string())
    );
    let mut excluded = Excluded::default();
    let mut left_out = Vec::new();
    let mut yours_left_out = None;
    for attempt in 0..2 {
        let (text, regions) = crate_text(file, &implementations, &names, &excluded);
        let errors = match compile::build_harness(&tag, &text, grading.sandbox, grading.build) {
            Ok(executable) => {
                return Ok(Built {
                    executable,
                    names: Names {
                        yours: !excluded.yours,
                        ..names
                    },
                    left_out,
                    yours_left_out,
                });
            }
            Err(compile::BuildError::Harness(errors)) if attempt == 0 => errors,
            Err(error) => return Err(format!("your tests could not be built: {error}")),
        };
        for error in &errors {
            let Some((region, line)) = error.line.and_then(|line| {
                regions
                    .iter()
                    .find(|(lines, _)| lines.contains(&line))
                    .map(|(lines, region)| (region, line - lines.start))
            }) else {
                return Err(format!("your tests could not be built: {}", error.message));
            };
            match *region {
                Region::Yours => {
                    excluded.yours = true;
                    yours_left_out.get_or_insert_with(|| {
                        format!(
                            "{} does not build on its own, apart from the rest of your crate ({}); `cargo test` runs your tests",
                            file.shown, error.message
                        )
                    });
                }
                Region::Tests { module, first } => {
                    let at = first + line;
                    let tests = &file.modules[module].tests;
                    let hit: Vec<usize> = match tests.iter().position(|t| t.lines.contains(&at)) {
                        Some(test) => vec![test],
                        // Outside any test (an import, a helper): the whole module.
                        None => {
                            excluded.modules.insert(module);
                            (0..tests.len()).collect()
                        }
                    };
                    for test in hit {
                        if excluded.tests.insert((module, test)) {
                            left_out.push((
                                format!("{}::{}", file.modules[module].name, tests[test].name),
                                why_left_out(error),
                            ));
                        }
                    }
                }
            }
        }
    }
    Err("your tests could not be built".to_string())
}

/// Why a test that does not compile against the contract is left out.
fn why_left_out(error: &GeneratedError) -> String {
    let message = &error.message;
    let missing = [
        "cannot find",
        "no method named",
        "unresolved",
        "not found",
        "private",
    ]
    .iter()
    .any(|words| message.contains(words));
    match message.split('`').nth(1) {
        Some(name) if missing => format!(
            "this test uses `{name}`, which the contract does not have; it still runs on your own code"
        ),
        _ => format!(
            "this test does not compile against the contract ({message}); it still runs on your own code"
        ),
    }
}

/// The generated crate's root, and where each of its lines of the student's comes from.
fn crate_text(
    file: &StudentFile,
    implementations: &[(String, String)],
    names: &Names,
    excluded: &Excluded,
) -> (String, Vec<(std::ops::Range<usize>, Region)>) {
    let mut text = String::from(
        "// Generated by cardgrade: the student's tests, once per implementation.\n#![allow(warnings)]\n",
    );
    let mut regions = Vec::new();
    let line = |text: &str| text.matches('\n').count() + 1;
    let uses = source::file_uses(&file.text).join("\n");
    for (module, implementation) in implementations {
        text.push_str(&format!(
            "pub mod {module} {{\nmod implementation {{\n{implementation}\n}}\npub use implementation::*;\n{uses}\n"
        ));
        for (index, tests) in file.modules.iter().enumerate() {
            if excluded.modules.contains(&index) {
                continue;
            }
            let first = line(&text);
            text.push_str(&without_excluded(file, index, excluded));
            regions.push((
                first..line(&text) + 1,
                Region::Tests {
                    module: index,
                    first: tests.lines.start,
                },
            ));
            text.push('\n');
        }
        text.push_str("}\n");
    }
    if let Some(yours) = names.yours().filter(|_| !excluded.yours) {
        text.push_str(&format!("pub mod {yours} {{\n"));
        let first = line(&text);
        text.push_str(&source::without_file_modules(&file.text));
        regions.push((first..line(&text) + 1, Region::Yours));
        text.push_str("\n}\n");
    }
    (text, regions)
}

/// Test module `index` of `file`, its excluded tests blanked line for line.
fn without_excluded(file: &StudentFile, index: usize, excluded: &Excluded) -> String {
    let module = &file.modules[index];
    let mut text = file.text[module.bytes.clone()].to_string();
    for (test_index, test) in module.tests.iter().enumerate().rev() {
        if excluded.tests.contains(&(index, test_index)) {
            let range = test.bytes.start - module.bytes.start..test.bytes.end - module.bytes.start;
            let blank = "\n".repeat(text[range.clone()].matches('\n').count());
            text.replace_range(range, &blank);
        }
    }
    text
}

/// The key that hides the implementations' names: made once per folder of builds, where
/// no build or test can read it.
fn key() -> Result<u64, String> {
    let path = compile::builds_folder()
        .map_err(|error| format!("no folder of builds: {error}"))?
        .join("student-tests.key");
    if let Ok(text) = std::fs::read_to_string(&path)
        && let Ok(key) = u64::from_str_radix(text.trim(), 16)
    {
        return Ok(key);
    }
    use std::hash::BuildHasher;
    let key = std::collections::hash_map::RandomState::new().hash_one(std::time::SystemTime::now());
    use std::os::unix::fs::OpenOptionsExt;
    let written = std::fs::File::options()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&path)
        .and_then(|mut file| {
            std::io::Write::write_all(&mut file, format!("{key:016x}\n").as_bytes())
        });
    written.map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    Ok(key)
}
