//! How long a grading waits on a runner that answers nothing more: the listed and the bulk
//! gradings both wait so, and neither is the other's, so it is a module of its own below
//! them.

use std::time::Duration;

/// How many times the reference's own time for an input a runner may take on it before it
/// is taken as stuck, when that is longer than the group's stall limit.
const STALL_REFERENCE_TIMES: u32 = 100;

/// How long a runner may answer no further input: `floor`, the group's stall limit, or a
/// hundred times what the reference takes on the input it is on (timed by
/// `time_reference`, given how many inputs the runner has answered, once per input),
/// whichever is longer.
pub(super) fn patience<'a>(
    floor: Duration,
    time_reference: impl Fn(u64) -> Duration + 'a,
) -> impl FnMut(u64) -> Duration + 'a {
    let mut timed_input: Option<(u64, Duration)> = None;
    move |inputs_done| {
        let took = match timed_input {
            Some((input, took)) if input == inputs_done => took,
            _ => {
                let took = time_reference(inputs_done);
                timed_input = Some((inputs_done, took));
                took
            }
        };
        floor.max(took.saturating_mul(STALL_REFERENCE_TIMES))
    }
}

/// How long `work` takes.
pub(super) fn timed(work: impl FnOnce()) -> Duration {
    let started = std::time::Instant::now();
    work();
    started.elapsed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patience_is_the_stall_limit_or_a_hundred_times_the_references_time_once_timed() {
        let timings = std::cell::Cell::new(0);
        let mut patience = patience(Duration::from_secs(1), |input| {
            timings.set(timings.get() + 1);
            Duration::from_millis([1, 50][input as usize % 2])
        });
        assert_eq!(patience(0), Duration::from_secs(1));
        assert_eq!(patience(0), Duration::from_secs(1));
        assert_eq!(timings.get(), 1, "the reference is timed once per input");
        assert_eq!(patience(1), Duration::from_secs(5));
        assert_eq!(timings.get(), 2);
    }
}
