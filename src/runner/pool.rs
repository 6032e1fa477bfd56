//! Idle runners of one submission, which its tests share.

use std::sync::Mutex;

use super::{Launcher, Runner, StartError};
use crate::verdict::{Failure, Verdict};

/// Idle runners; a test takes one, or starts one, and gives it back if it survived.
pub(crate) struct Pool {
    pub(crate) launcher: Launcher,
    pub(crate) idle: Mutex<Vec<Runner>>,
}

impl Pool {
    pub(crate) fn take(&self) -> Result<Runner, StartError> {
        let idle = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        match idle {
            Some(runner) => Ok(runner),
            None => self.start(),
        }
    }

    pub(crate) fn start(&self) -> Result<Runner, StartError> {
        self.launcher.start()
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
