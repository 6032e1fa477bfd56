//! The students' own tests as a student's report tells them: for each group, how many of
//! the known mistakes their tests catch, which, and what to write a test for next. A bug
//! missed is not a test of theirs that failed, so it is no `FAILED` line; the machine
//! formats keep a test per bug, as graders and scripts count them.

use std::fmt::Write as _;

use colored::Colorize;

use super::{Caught, Results};
use reference::bugs::Bug;

use crate::spec::Group;
use crate::student_tests::suite;
use crate::student_text::{StudentText, visible_controls};
use crate::verdict::Verdict;

/// A bug of a group, as its block tells it.
enum Mistake<'a> {
    /// By the student's test that caught it, which a withheld group does not keep.
    Caught(&'a Bug, Option<&'a Caught>),
    Missed(&'a Bug),
    NotRun,
}

impl Results<'_> {
    /// Every note, staff's: each bug caught and by what, then the rest.
    pub fn all_notes(&self) -> Vec<StudentText> {
        let caught = self.caught.values().map(|caught| caught.note.clone());
        caught.chain(self.notes.iter().cloned()).collect()
    }

    /// A block for each group of student tests, for the student's report.
    pub fn your_tests(&self) -> String {
        self.blocks()
            .map(|(head, rest)| format!("\n{}\n{rest}", head.bold()))
            .collect()
    }

    /// Each group of student tests' block: its first line, how many known mistakes its
    /// tests catch, and the rest.
    fn blocks(&self) -> impl Iterator<Item = (String, String)> {
        let firsts = self.suite.groups.iter().scan(0, |next, group| {
            let first = *next;
            *next += group.tests.len();
            Some((group, first))
        });
        firsts.filter_map(|(group, first)| self.block(group, first))
    }

    /// The block of `group`, whose first test is test `first` of the suite; none where it
    /// is no group of student tests, or none of its bugs was graded.
    fn block(&self, group: &Group, first: usize) -> Option<(String, String)> {
        let setting = group.student_tests.as_ref()?;
        let bugs = suite::bugs(group.assignment.name(), setting).ok()?;
        let mistakes: Vec<Mistake> = suite::bug_tests(group)
            .zip(&bugs)
            .map(|(at, bug)| match &self.tests[first + at].verdict {
                Some(Verdict::Passed) => Mistake::Caught(bug, self.caught.get(&(first + at))),
                Some(Verdict::Failed(_)) => Mistake::Missed(bug),
                None => Mistake::NotRun,
            })
            .collect();
        let count = |keep: fn(&Mistake) -> bool| mistakes.iter().filter(|m| keep(m)).count();
        let caught = count(|m| matches!(m, Mistake::Caught(..)));
        let not_run = count(|m| matches!(m, Mistake::NotRun));
        if not_run == mistakes.len() {
            return None;
        }
        let graded = mistakes.len() - not_run;
        let assignment = group.assignment.name();
        let mut out = String::new();
        let head = match group.withheld {
            // A hidden group names none of its bugs, nor itself: only how many are caught.
            true => format!(
                "{} ({assignment}): the tests you wrote catch {caught} of {graded} known mistakes; which ones stays hidden",
                group.name
            ),
            false => format!(
                "{} ({assignment}): your tests catch {caught} of {graded} known mistakes",
                visible_controls(&group.name)
            ),
        };
        if not_run > 0 {
            let line = format!("({not_run} more not graded: filtered out, or out of time)");
            let _ = writeln!(out, "  {}", line.dimmed());
        }
        if group.withheld {
            return Some((head, out));
        }
        for mistake in &mistakes {
            if let Mistake::Caught(bug, by) = mistake {
                let _ = writeln!(
                    out,
                    "  {} {} ({})",
                    "caught".green(),
                    visible_controls(&bug.name),
                    visible_controls(&bug.description).trim_end_matches('.')
                );
                if let Some(Caught { by, said, .. }) = by {
                    let by = format!("by {}: {}", by.on_terminal(), said.on_terminal());
                    let _ = writeln!(out, "    {}", by.dimmed());
                }
            }
        }
        if caught < graded {
            let _ = writeln!(
                out,
                "  {} a solution with one of these mistakes passes all your tests; write a test it fails:",
                "not caught yet:".yellow()
            );
            for mistake in &mistakes {
                if let Mistake::Missed(bug) = mistake {
                    let _ = writeln!(out, "    - {}", visible_controls(&bug.description));
                }
            }
        }
        Some((head, out))
    }
}
