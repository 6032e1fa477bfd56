//! `grader spec audit`'s flags.

use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct AuditArgs {
    /// Spec files, or folders of them, to grade the bugs against [default: the built-in
    /// specs].
    #[arg(value_name = "SPEC")]
    pub specs: Vec<PathBuf>,
    /// Bugs built and graded at once.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub jobs: usize,
    /// Stop a bug's build that takes longer than this [default: the specs' `defaults: {
    /// build_timeout_s }`, else 300].
    #[arg(long, value_name = "SECS")]
    pub build_timeout: Option<u64>,
    /// Print one Markdown table per assignment instead: each bug, the tests its library
    /// names as its catchers (marked where one does not fail), and the tests that fail on it.
    #[arg(long, conflicts_with = "mutants")]
    pub markdown: bool,
    /// Grade the mutants cargo-mutants makes of the reference instead of the library's bugs,
    /// and list those no test catches (install it first: `cargo install --locked
    /// cargo-mutants`).
    #[arg(long)]
    pub mutants: bool,
    /// With --mutants: this assignment's alone [default: every assignment the specs grade].
    #[arg(long, value_name = "NAME", requires = "mutants")]
    pub assignment: Option<String>,
    /// With --mutants: only the mutants whose cargo-mutants name (`src/lib.rs:31:9: replace
    /// count_values -> Vec<u32> with vec![]`) this regular expression matches.
    #[arg(long, value_name = "REGEX", requires = "mutants")]
    pub re: Option<String>,
    /// With --mutants: keep this mutant, by number or name, as a bug a `student_tests`
    /// group can name (repeatable); kept mutants are written beside the assignment's spec
    /// file, in `<spec>.mutants.yaml`.
    #[arg(long, value_name = "MUTANT", requires = "mutants")]
    pub keep: Vec<String>,
}
