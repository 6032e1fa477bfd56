//! How to build, as the check, the students' tests or the audit ask it.

use std::path::Path;
use std::time::Duration;

/// How long a build may take unless `--build-timeout` says otherwise.
pub const DEFAULT_BUILD_TIMEOUT: Duration = Duration::from_secs(300);

/// How long a build may take: `--build-timeout`'s seconds, else what the specs allow,
/// else [`DEFAULT_BUILD_TIMEOUT`].
pub fn build_timeout(flag_seconds: Option<u64>, specs: Option<Duration>) -> Duration {
    flag_seconds
        .map(Duration::from_secs)
        .or(specs)
        .unwrap_or(DEFAULT_BUILD_TIMEOUT)
}

/// How to build.
pub struct Build<'a> {
    pub color: bool,
    pub timeout: Duration,
    /// Crates the course lets submissions depend on, by name.
    pub allowed: &'a [String],
    /// The folder of builds that share grader-api compiled once, if builds share one.
    pub shared: Option<&'a Path>,
    /// Whether the build keeps incremental data for the next build of its folder: a
    /// student's own check is built again at each save, but a grading for the record (a
    /// machine format, GitHub's, a class, the audit) is built once, and incremental code
    /// runs about a fifth slower on the bulk groups (issue 25).
    pub incremental: bool,
}
