//! What `build.rs` embeds of the grader's own tree: grader-api's files and manifest, which
//! every build folder and the Gradescope package are given, and the grader's lockfile,
//! which seeds every build. Every build writes them, so they are a floor of their own.

include!(concat!(env!("OUT_DIR"), "/embedded_api.rs"));

/// The grader's own lockfile: the runner resolves grader-api's dependencies to the very
/// versions the grader was built and tested with.
pub const PINNED_LOCK: &str = include_str!("../../Cargo.lock");
