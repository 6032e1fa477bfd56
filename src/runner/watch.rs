//! A runner answering a request, looked at while it sends nothing: a stall, or a flood.

use std::time::{Duration, Instant};

use super::{Ending, FLOOD_BYTES, Runner};

/// A runner answering a request, looked at while it sends nothing: whether it still moves
/// (its count of inputs answered, or the replies it sends) and how much it has printed.
pub(super) struct Watch {
    pub(super) marker: (Option<u64>, u64),
    pub(super) moved: Instant,
    pub(super) printed_before: u64,
}

impl Watch {
    pub(super) fn new(runner: &Runner) -> Watch {
        Watch {
            marker: (runner.inputs_done(), runner.replies_read),
            moved: Instant::now(),
            printed_before: runner.printed(),
        }
    }

    /// How the request ends, if the runner has printed more than a request may.
    pub(super) fn flooded(&self, runner: &Runner) -> Option<Ending> {
        let printed = runner.printed().saturating_sub(self.printed_before);
        (printed > FLOOD_BYTES).then_some(Ending::Flooded(printed))
    }

    /// How the request ends, if the runner is flooding its output or has stalled.
    pub(super) fn look(
        &mut self,
        runner: &Runner,
        patience: &mut dyn FnMut(u64) -> Duration,
    ) -> Option<Ending> {
        if let Some(flooded) = self.flooded(runner) {
            return Some(flooded);
        }
        let marker = (runner.inputs_done(), runner.replies_read);
        if marker != self.marker {
            self.marker = marker;
            self.moved = Instant::now();
            return None;
        }
        let inputs_done = marker.0.unwrap_or(marker.1);
        let quiet = self.moved.elapsed();
        let limit = patience(inputs_done);
        (quiet >= limit).then_some(Ending::Stalled {
            quiet: limit,
            inputs_done,
        })
    }
}
