//! The untouched template, for `grader spec audit`: written as a student gets it, and its
//! example tests graded as a student's would be, by which bugs of their assignment's
//! library they catch.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use reference::bugs::Library;

use super::grade::grade;
use super::grading::Grading;
use crate::compile::{self, Build};
use crate::sandbox::Sandbox;

/// How long an example test may take on one implementation.
const TIMEOUT: Duration = Duration::from_secs(30);
/// How long they may take together on every implementation.
const BUDGET: Duration = Duration::from_secs(600);

/// Writes the untouched template of `assignment`, as `grader new --assignment` does, into a
/// folder of the grader's builds, afresh: its path.
pub fn template_crate(assignment: &str) -> Result<PathBuf, String> {
    let folder = compile::builds_folder()
        .map_err(|error| format!("no folder of builds: {error}"))?
        .join("template-examples")
        .join(assignment);
    if folder.exists() {
        std::fs::remove_dir_all(&folder)
            .map_err(|error| format!("cannot clear {}: {error}", folder.display()))?;
    }
    crate::new::write_crate(&folder, &[assignment.to_string()])?;
    Ok(folder)
}

/// For each bug of `library`, the example test of the template at `folder` that catches it,
/// if one does; or why they could not be graded.
pub fn caught_by_examples(
    library: &Library,
    folder: &Path,
    sandbox: &Sandbox,
    build: &Build,
) -> Result<BTreeMap<String, Option<String>>, String> {
    let graded = grade(
        folder,
        &Grading {
            library,
            bugs: &(library.bugs)(),
            sandbox,
            build,
            timeout: TIMEOUT,
            budget: BUDGET,
            // The audit waits for them, whatever else it finds.
            abandoned: &std::sync::atomic::AtomicBool::new(false),
        },
    );
    // The template's tests are the grader's own, but graded as a student's are; the audit
    // prints what they say.
    if let Some(why) = graded.stopped {
        return Err(why.on_terminal());
    }
    if let Some((test, said)) = graded.invalid.first() {
        return Err(format!(
            "the example test {} fails on the reference: {}",
            test.on_terminal(),
            said.on_terminal()
        ));
    }
    Ok(graded
        .caught
        .into_iter()
        .map(|(bug, caught)| (bug, caught.map(|(test, _)| test.on_terminal())))
        .collect())
}
