//! Idle runners of one submission, which its tests share.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{Launcher, Runner, StartError};
use crate::verdict::{Failure, Verdict};

/// Idle runners; a test takes one, or starts one, and gives it back if it survived.
pub(crate) struct Pool {
    launcher: Launcher,
    idle: Mutex<Vec<Runner>>,
    /// Runners started, and the time their starts took together.
    starts: Mutex<(usize, Duration)>,
}

impl Pool {
    /// Starts the first runner; gives it back in the pool with what its start took.
    pub(crate) fn started(launcher: Launcher) -> Result<(Pool, Runner), StartError> {
        let pool = Pool {
            launcher,
            idle: Mutex::new(Vec::new()),
            starts: Mutex::new((0, Duration::ZERO)),
        };
        let first = pool.start()?;
        Ok((pool, first))
    }

    /// Runners started so far, and the time their starts took together.
    pub(crate) fn starts(&self) -> (usize, Duration) {
        self.starts
            .lock()
            .map_or((0, Duration::ZERO), |starts| *starts)
    }

    /// Stops every idle runner.
    pub(crate) fn clear(&self) {
        drop(self.idle.lock().map(|mut idle| idle.clear()));
    }

    pub(crate) fn take(&self) -> Result<Runner, StartError> {
        let idle = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        match idle {
            Some(runner) => Ok(runner),
            None => self.start(),
        }
    }

    pub(crate) fn start(&self) -> Result<Runner, StartError> {
        let started = Instant::now();
        let runner = self.launcher.start();
        if let Ok(mut starts) = self.starts.lock() {
            *starts = (starts.0 + 1, starts.1 + started.elapsed());
        }
        runner
    }

    pub(crate) fn give_back(&self, runner: Runner) {
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(runner);
        }
    }

    /// Takes back a runner that survived its test, unless the test left something running
    /// or hit a limit of the runner's tree: then the test fails saying so, and the runner
    /// goes, with everything it started.
    pub(crate) fn settle(&self, mut runner: Runner, verdict: Verdict) -> Verdict {
        let Some(note) = runner.after_test() else {
            self.give_back(runner);
            return verdict;
        };
        drop(runner);
        match verdict {
            Verdict::Passed => Verdict::Failed(Failure::line(note)),
            Verdict::Failed(failure) => Verdict::Failed(failure.then(Failure::line(note))),
        }
    }
}
