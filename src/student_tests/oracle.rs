//! The implementations a student's tests are graded against, in a program of their own:
//! the oracle. It holds the reference and each bug, is built once per set of them and
//! kept, in a build folder of its own that no build of student code can read. One oracle
//! runs per grading, in the runner's sandbox; each run of a student's test has its stdin
//! linked to it, through the assignment's stand-ins (`grader_api::stand_in`), and a
//! process of its own forked there answers that link with one implementation. Which one is
//! said to the oracle alone, beside the link it is handed: the test has no way to see it.

use std::os::unix::net::UnixStream;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use grader_api::oracle::{Handed, Record, hand_link};
use grader_api::transcript::Report;

use reference::bugs::{Bug, Library};

use super::grading::Grading;
use crate::compile::{self, Generated, stable_hash};
use crate::mutant::module_source;
use crate::runner::Launcher;
use crate::runner::once::Partner;

/// The oracle of one set of implementations, running.
pub struct Oracle {
    /// The grader's end of the socket links are handed over.
    handing: Mutex<UnixStream>,
    /// Before its launcher, whose folder holds the program it runs.
    _running: Partner,
    _launcher: Launcher,
    /// The CPU each link's process may use: a loop of an implementation ends there.
    cpu_seconds: u32,
    /// How many implementations it holds: the reference and the bugs.
    implementations: usize,
}

/// An implementation the oracle answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Implementation {
    Reference,
    /// The bug at this position of the grading's list.
    Bug(usize),
}

impl Oracle {
    /// The oracle of `grading`'s reference and of `bugs`, built or found built, and started.
    pub fn start(library: &Library, bugs: &[Bug], grading: &Grading) -> Result<Oracle, String> {
        let text = crate_text(library, bugs)?;
        let tag = format!("{}-{:016x}", library.assignment, stable_hash(&text));
        let built = compile::build_generated_crate(
            &tag,
            &text,
            Generated::Program,
            grading.sandbox,
            grading.build,
        )
        .map_err(|error| {
            format!("the implementations to grade your tests against could not be built: {error}")
        })?;
        let cannot = |error: std::io::Error| format!("cannot start the implementations: {error}");
        let launcher = Launcher::new(grading.sandbox.clone(), &built.runner).map_err(cannot)?;
        let (handing, oracles_end) = UnixStream::pair().map_err(cannot)?;
        let running = launcher
            .start_partner(&[], oracles_end.into())
            .map_err(cannot)?;
        Ok(Oracle {
            handing: Mutex::new(handing),
            _running: running,
            _launcher: launcher,
            cpu_seconds: cpu_seconds(grading.timeout),
            implementations: bugs.len() + 1,
        })
    }

    /// Hands `link` to the oracle, to be answered with `implementation`, keeping what
    /// `record` asks; the report's socket when it asks for one.
    pub fn answer(
        &self,
        implementation: Implementation,
        link: UnixStream,
        record: Record,
    ) -> std::io::Result<Option<UnixStream>> {
        let handed = Handed {
            implementation: u32::try_from(implementation.place()).unwrap_or(u32::MAX),
            cpu_seconds: self.cpu_seconds,
            record,
        };
        let (report, oracles_report) = match record {
            Record::Nothing => (None, None),
            _ => UnixStream::pair().map(|(ours, theirs)| (Some(ours), Some(theirs)))?,
        };
        let handing = self
            .handing
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        hand_link(&handing, &handed, &link, oracles_report.as_ref())?;
        Ok(report)
    }

    /// The report on `socket` of a run [`Oracle::answer`] recorded, once the run has
    /// ended: each replay may take a run's CPU, and a second more to answer, but none past
    /// `end`, the group's time. None when it is not back by then.
    pub fn report(&self, socket: &UnixStream, end: Instant) -> Option<Report> {
        let patience = report_patience(self.cpu_seconds, self.implementations, end)?;
        Report::read(socket, patience)
    }

    /// Whether `report` says `implementation` answered its run's messages as the reference
    /// did; false without a report, or for a report of no replays.
    pub fn alike(report: Option<&Report>, implementation: Implementation) -> bool {
        report.is_some_and(|report| {
            report
                .alike
                .get(implementation.place())
                .copied()
                .unwrap_or(false)
        })
    }
}

impl Implementation {
    /// Its place in the oracle's list: the reference first, then the bugs in order.
    fn place(self) -> usize {
        match self {
            Implementation::Reference => 0,
            Implementation::Bug(n) => n + 1,
        }
    }
}

/// `source` with each path `crate::{used}` made `crate::{root}::{used}`. A module the
/// assignment uses is inlined in its own (`mutant::module_source`), where a crate of its own
/// finds it at the root as the reference does (`crate::used::Item`); in the oracle that
/// root is the implementation's module, and each implementation has its own copy, since a
/// bug may edit it.
fn rerooted(source: &str, used: &str, root: &str) -> String {
    let path = format!("crate::{used}");
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(at) = rest.find(&path) {
        let after = &rest[at + path.len()..];
        out.push_str(&rest[..at]);
        // `crate::used_more` is another module's path, not this one's.
        match after.chars().next() {
            Some(c) if c.is_alphanumeric() || c == '_' => out.push_str(&path),
            _ => out.push_str(&format!("crate::{root}::{used}")),
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// How long a report of replays on `implementations` may take, each allowed `cpu_seconds`
/// of CPU and a second more, but not past `end`; None once `end` has passed.
fn report_patience(cpu_seconds: u32, implementations: usize, end: Instant) -> Option<Duration> {
    let replays = Duration::from_secs(u64::from(cpu_seconds) + 1)
        * u32::try_from(implementations).unwrap_or(u32::MAX);
    let left = end.saturating_duration_since(Instant::now());
    (!left.is_zero()).then(|| replays.min(left))
}

/// The whole seconds of CPU a run of `timeout` may use, at least one.
fn cpu_seconds(timeout: Duration) -> u32 {
    u32::try_from(timeout.as_secs() + 1).unwrap_or(u32::MAX)
}

/// The oracle's crate root: a module per implementation, and a `main` that answers each
/// link handed to it with the one named beside it.
fn crate_text(library: &Library, bugs: &[Bug]) -> Result<String, String> {
    let mut modules = vec![module_source::<&str, &str>(library, &[])?];
    for bug in bugs {
        modules.push(module_source(library, &bug.edits)?);
    }
    let mut text = String::from(
        "// Generated by cardgrade: the implementations a student's tests are graded against.\n#![allow(warnings)]\n",
    );
    let mut registers = String::new();
    for (n, source) in modules.iter().enumerate() {
        let source = library.uses.iter().fold(source.clone(), |source, used| {
            rerooted(&source, used, &format!("implementation_{n}"))
        });
        text.push_str(&format!("mod implementation_{n} {{\n{source}\n}}\n"));
        registers.push_str(&format!("implementation_{n}::register, "));
    }
    text.push_str(&format!(
        "fn main() {{\n    ::grader_api::oracle::serve_handed_links(&[{registers}], {:?})\n}}\n",
        library.assignment
    ));
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::{report_patience, rerooted};
    use std::time::{Duration, Instant};

    #[test]
    fn a_report_is_awaited_for_its_replays_but_never_past_the_groups_time() {
        let far = Instant::now() + Duration::from_secs(3600);
        assert_eq!(report_patience(10, 18, far), Some(Duration::from_secs(198)));
        let soon = Instant::now() + Duration::from_secs(5);
        assert!(report_patience(10, 18, soon).is_some_and(|wait| wait <= Duration::from_secs(5)));
        assert_eq!(report_patience(10, 18, Instant::now()), None);
    }

    #[test]
    fn a_used_modules_paths_are_found_under_the_implementations_module() {
        assert_eq!(
            rerooted(
                "use crate::shared::Hand;\nfn f() -> crate::shared::Hand {}\nuse crate::shared_rules::X;\nuse crate::shared;",
                "shared",
                "implementation_3"
            ),
            "use crate::implementation_3::shared::Hand;\nfn f() -> crate::implementation_3::shared::Hand {}\nuse crate::shared_rules::X;\nuse crate::implementation_3::shared;"
        );
    }
}
