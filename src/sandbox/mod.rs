//! The sandbox every process of a submission runs in: the build (cargo, rustc, build
//! scripts, proc macros) and the runner.
//!
//! The grader re-executes itself (`grader __contain`) in three stages, so that each step
//! runs in a process with one thread, where the kernel allows it:
//! 1. outside: joins nothing, unshares the namespaces, starts stage 2, watches the grader,
//!    and ends the way the contained program ended;
//! 2. the first process of the new PID namespace: joins the cgroup, mounts a private
//!    `/proc` and the toolchain, starts stage 3, reaps, records how it ended; when it goes,
//!    the kernel kills everything left in the namespace;
//! 3. the program's own process: drops to an unprivileged uid, limits, no_new_privs,
//!    landlock, then executes the program.
//!
//! Each layer is detected once ([`Sandbox::probe`]), used where present, and named in a
//! warning where absent.

pub mod cgroup;
mod contain;
pub mod ending;
mod fence;
mod filter;
mod forker;
mod jail;
mod kill;
mod layers;
mod machine;
mod root;
mod stage;

pub use contain::Recorded;
pub use forker::{Contained, Forker};
pub use jail::{CONTAIN_COMMAND, Jail, Limits, NOBODY, SETUP_FAILED, SYSTEM_LIBRARIES};
pub use kill::kill_tree;
pub use layers::Layers;
pub use machine::Sandbox;
pub use stage::run_stage;

/// How strictly `grader check` holds to the sandbox.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// Use every layer the kernel gives; warn in one line about those it refuses.
    Auto,
    /// Refuse to grade unless every layer is present (for CI).
    Strict,
}
