//! `grader cache build`: the reference's answers to bulk groups computed and kept now, in
//! the answers store (`answers.rs`), so that no submission waits for them; the Gradescope
//! package keeps them the same way.

use std::path::PathBuf;

use crate::answers::{Blocks, Store};

#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// Spec files or folders [default: the built-in specs].
    #[arg(long = "spec", value_name = "PATH")]
    pub specs: Vec<PathBuf>,
    /// Only this assignment's groups (repeatable).
    #[arg(long = "assignment", value_name = "NAME")]
    pub assignments: Vec<String>,
    /// The folder to keep them in [default: `CARDGRADE_ANSWERS_DIR`, else `answers`
    /// beside the builds, where `grader check` looks].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// `grader cache build`: the reference's answers to every bulk group, computed and kept
/// now, so that no submission waits for them.
pub fn run(args: BuildArgs) -> std::process::ExitCode {
    crate::exit::done_or_usage(build(&args))
}

fn build(args: &BuildArgs) -> Result<(), String> {
    let suite = crate::spec::load(&args.specs, &[], None).map_err(|e| e.to_string())?;
    let store = match &args.out {
        Some(dir) => Store::at(dir),
        None => Store::default_for(
            &crate::compile::builds_folder().map_err(|e| format!("no folder of builds: {e}"))?,
        ),
    };
    let kept = keep_all(&store, &suite, &args.assignments)?;
    println!(
        "the answers of {} bulk groups are kept in {}",
        kept.len(),
        store.dir().display()
    );
    Ok(())
}

/// Computes and keeps the answers of every bulk test of `suite` (of `assignments`, when
/// any is named) that `store` does not hold yet; the entries that hold them.
pub fn keep_all(
    store: &Store,
    suite: &crate::spec::Suite,
    assignments: &[String],
) -> Result<Vec<PathBuf>, String> {
    let reference = reference::submission();
    let mut kept = Vec::new();
    for (group, test) in suite.tests() {
        let wanted = assignments.is_empty()
            || assignments
                .iter()
                .any(|name| name == group.assignment.name());
        if !wanted || test.grading != grader_api::spec::Grading::Bulk {
            continue;
        }
        let request = &*test.request;
        if store.open(request).is_none_or(|kept| !kept.is_whole()) {
            let mut answers = Blocks::default();
            request.respond(&reference, &mut |answered| {
                answers.push(answered);
                true
            });
            store
                .save(request, answers)
                .map_err(|e| format!("cannot keep the answers of {}: {e}", test.id))?;
        }
        kept.push(store.path_of(request));
    }
    Ok(kept)
}
