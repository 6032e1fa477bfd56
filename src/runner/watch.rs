//! A runner answering a request, looked at while it sends nothing: a stall, or a flood.

use std::time::{Duration, Instant};

use super::ending::{Ending, FLOOD_BYTES};

/// What a look at a runner sees: whether it still moves (its count of inputs answered,
/// where it shares one, and the reply frames read) and how much it has printed. Taken by
/// the runner and handed here, so that the watch needs nothing of the runner's.
pub(super) struct Seen {
    pub(super) marker: (Option<u64>, u64),
    pub(super) printed: u64,
}

/// A runner answering a request, looked at while it sends nothing: whether it still moves
/// (its count of inputs answered, or the replies it sends) and how much it has printed.
pub(super) struct Watch {
    pub(super) marker: (Option<u64>, u64),
    pub(super) moved: Instant,
    pub(super) printed_before: u64,
}

impl Watch {
    pub(super) fn new(seen: Seen) -> Watch {
        Watch {
            marker: seen.marker,
            moved: Instant::now(),
            printed_before: seen.printed,
        }
    }

    /// How the request ends, if the runner, having printed `printed` bytes in all, has
    /// printed more than a request may.
    pub(super) fn flooded(&self, printed: u64) -> Option<Ending> {
        let printed = printed.saturating_sub(self.printed_before);
        (printed > FLOOD_BYTES).then_some(Ending::Flooded(printed))
    }

    /// How the request ends, if the runner is flooding its output or has stalled.
    pub(super) fn look(
        &mut self,
        seen: Seen,
        patience: &mut dyn FnMut(u64) -> Duration,
    ) -> Option<Ending> {
        if let Some(flooded) = self.flooded(seen.printed) {
            return Some(flooded);
        }
        let marker = seen.marker;
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
