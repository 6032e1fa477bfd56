//! The one crate the student's tests are built in, with nothing of the reference or of a
//! bug in it: their test modules in a module of the assignment's stand-ins
//! (`grader_api::<assignment>::stand_in`), whose every call the oracle answers with the
//! implementation under test, and again in a module of the student's own file, for their
//! run on the student's code.

use std::collections::BTreeSet;
use std::path::Path;

use super::file::StudentFile;
use super::grading::Grading;
use super::source;
use crate::compile::{self, Generated, GeneratedError, stable_hash};

/// The module of the stand-ins, where the graded copies of the tests are.
pub const UNDER_TEST: &str = "under_test";
/// The module of the student's own file, where their tests run on their code.
pub const YOURS: &str = "yours";

/// The harness, built.
pub struct Built {
    pub executable: compile::Built,
    /// Whether the student's own module was built.
    pub yours: bool,
    /// Tests left out because they do not compile against the contract, each by its shown
    /// name with why.
    pub left_out: Vec<(String, String)>,
    /// Integration tests that do not compile against the student's own file, each with why.
    pub not_run_on_yours: Vec<(String, String)>,
    /// Why the student's own module was left out, if it was.
    pub yours_left_out: Option<String>,
}

/// Tests left out of the copies of the student's tests, by file, module and test index.
#[derive(Default, Clone)]
struct Blanked {
    tests: BTreeSet<(usize, usize, usize)>,
    /// Whole modules, by file and module index.
    modules: BTreeSet<(usize, usize)>,
}

/// What the harness leaves out of the student's text.
#[derive(Default, Clone)]
struct Excluded {
    /// From the copies graded against the reference and the bugs.
    graded: Blanked,
    /// From the integration tests' copies on the student's own file.
    on_yours: Blanked,
    /// The student's own module.
    yours: bool,
}

/// Where a line of the generated crate comes from.
enum Region {
    /// Test module `module` of the student's file `file`, its first line at `first`; in
    /// the student's own module or an implementation's.
    Tests {
        file: usize,
        module: usize,
        first: usize,
        on_yours: bool,
    },
    Yours,
}

/// Builds the harness of `files`' tests (the assignment's file first, then its
/// integration tests); a test that does not compile against the contract is left out and
/// the harness built once more.
pub fn build(root: &Path, files: &[StudentFile], grading: &Grading) -> Result<Built, String> {
    let library = grading.library;
    let tag = format!(
        "{}-{:016x}",
        library.assignment,
        stable_hash(&root.display().to_string())
    );
    let mut excluded = Excluded::default();
    // Each test left out with the error that left it out, in the graded copies and on yours.
    let mut left_out: Vec<(String, String)> = Vec::new();
    let mut not_run_on_yours: Vec<(String, String)> = Vec::new();
    let mut yours_left_out = None;
    for attempt in 0..2 {
        let (text, regions) = crate_text(files, library.assignment, &excluded);
        let built = compile::build_generated_crate(
            &tag,
            &text,
            Generated::TestHarness,
            grading.sandbox,
            grading.build,
        );
        let errors = match built {
            Ok(executable) => {
                let runs_on_yours = |test: &str| {
                    !excluded.yours && !not_run_on_yours.iter().any(|(shown, _)| shown == test)
                };
                let left_out = left_out
                    .iter()
                    .map(|(test, why)| {
                        let still = if runs_on_yours(test) {
                            "; it still runs on your own code"
                        } else {
                            ""
                        };
                        (test.clone(), format!("{why}{still}"))
                    })
                    .collect();
                return Ok(Built {
                    executable,
                    yours: !excluded.yours,
                    left_out,
                    not_run_on_yours,
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
                            files[0].shown, error.message
                        )
                    });
                }
                Region::Tests {
                    file,
                    module,
                    first,
                    on_yours,
                } => {
                    let (blanked, list, why) = match on_yours {
                        false => (&mut excluded.graded, &mut left_out, why_left_out(error)),
                        true => (
                            &mut excluded.on_yours,
                            &mut not_run_on_yours,
                            format!(
                                "it does not build against {} alone ({})",
                                files[0].shown, error.message
                            ),
                        ),
                    };
                    let at = first + line;
                    let tests = &files[file].modules[module].tests;
                    let hit: Vec<usize> = match tests.iter().position(|t| t.lines.contains(&at)) {
                        Some(test) => vec![test],
                        // Outside any test (an import, a helper): the whole module.
                        None => {
                            blanked.modules.insert((file, module));
                            (0..tests.len()).collect()
                        }
                    };
                    for test in hit {
                        if blanked.tests.insert((file, module, test)) {
                            list.push((files[file].test_name(module, test).shown, why.clone()));
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
        "could not find",
        "no method named",
        "unresolved",
        "not found",
        "private",
    ]
    .iter()
    .any(|words| message.contains(words));
    match message.split('`').nth(1) {
        Some(name) if missing => {
            format!("this test uses `{name}`, which the contract does not have")
        }
        _ => format!("this test does not compile against the contract ({message})"),
    }
}

/// The generated crate's root, and where each of its lines of the student's comes from.
fn crate_text(
    files: &[StudentFile],
    assignment: &str,
    excluded: &Excluded,
) -> (String, Vec<(std::ops::Range<usize>, Region)>) {
    let mut text = String::from(
        "// Generated by cardgrade: the student's tests, on the stand-ins and on their own code.\n#![allow(warnings)]\n",
    );
    let mut regions = Vec::new();
    let uses = source::file_uses(&files[0].text).join("\n");
    let mut paste = Pasting {
        files,
        assignment,
        text: &mut text,
        regions: &mut regions,
    };
    paste.text.push_str(&format!(
        "pub mod {UNDER_TEST} {{\npub use ::grader_api::{assignment}::stand_in::*;\n{uses}\n"
    ));
    paste.tests(
        &format!("::grader_api::{assignment}::stand_in"),
        &excluded.graded,
        false,
    );
    paste.text.push_str("}\n");
    if !excluded.yours {
        paste.text.push_str(&format!("pub mod {YOURS} {{\n"));
        let first = line_count(paste.text);
        paste
            .text
            .push_str(&source::without_file_modules(&files[0].text));
        paste
            .regions
            .push((first..line_count(paste.text) + 1, Region::Yours));
        paste.text.push('\n');
        paste.tests(&format!("crate::{YOURS}"), &excluded.on_yours, true);
        paste.text.push_str("}\n");
    }
    (text, regions)
}

/// The line the end of `text` is on.
fn line_count(text: &str) -> usize {
    text.matches('\n').count() + 1
}

/// The student's test modules being pasted into the harness, with where their lines went.
struct Pasting<'a> {
    files: &'a [StudentFile],
    assignment: &'a str,
    text: &'a mut String,
    regions: &'a mut Vec<(std::ops::Range<usize>, Region)>,
}

impl Pasting<'_> {
    /// Each test module not `blanked` of the files, into the module of the implementation
    /// at `implementation`: an integration test in a module of its own, beside a module
    /// named as the student's crate that re-exports the implementation (as the
    /// assignment's module and at its root) and its `submission()`. The student's own
    /// module holds the assignment's file's test modules already.
    fn tests(&mut self, implementation: &str, blanked: &Blanked, on_yours: bool) {
        let files = self.files.iter().enumerate().skip(usize::from(on_yours));
        for (file_index, file) in files {
            for (module, tests) in file.modules.iter().enumerate() {
                if blanked.modules.contains(&(file_index, module)) {
                    continue;
                }
                if file.names_crate.is_some() {
                    self.text.push_str(&format!("mod {} {{\n", tests.name));
                }
                let first = line_count(self.text);
                self.text
                    .push_str(&without_blanked(file, file_index, module, blanked));
                self.text.push('\n');
                if let Some(names_crate) = &file.names_crate {
                    let assignment = self.assignment;
                    self.text.push_str(&format!(
                        "pub mod {names_crate} {{\npub use {implementation}::*;\npub use {implementation} as {assignment};\npub fn submission() -> ::grader_api::Submission {{\n{implementation}::register(::grader_api::Submission::new())\n}}\n}}\n}}\n"
                    ));
                }
                // An error in the module made for an integration test leaves it out too.
                self.regions.push((
                    first..line_count(self.text),
                    Region::Tests {
                        file: file_index,
                        module,
                        first: tests.lines.start,
                        on_yours,
                    },
                ));
            }
        }
    }
}

/// Test module `module` of `file` (number `file_index`), its blanked tests blanked line for
/// line.
fn without_blanked(
    file: &StudentFile,
    file_index: usize,
    module: usize,
    blanked: &Blanked,
) -> String {
    let tests_module = &file.modules[module];
    let start = tests_module.bytes.start;
    let mut text = file.text[tests_module.bytes.clone()].to_string();
    for (test_index, test) in tests_module.tests.iter().enumerate().rev() {
        if blanked.tests.contains(&(file_index, module, test_index)) {
            let range = test.bytes.start - start..test.bytes.end - start;
            let blank = "\n".repeat(text[range.clone()].matches('\n').count());
            text.replace_range(range, &blank);
        }
    }
    text
}
