//! Deadlines from waits a spec or a flag gives. The build and the runners both keep them,
//! and the build is beneath the runner (it makes what the runner runs), so the deadline is
//! a floor of its own below both.

use std::time::{Duration, Instant};

/// Now plus `wait`, or a year from now when a spec asks for longer than an Instant holds.
pub fn after(wait: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(wait)
        .unwrap_or_else(|| now + Duration::from_secs(365 * 24 * 3600))
}
