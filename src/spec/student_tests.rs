//! A `student_tests` group's tests as loading a spec makes them: one that the student's
//! tests are valid on the reference, one per bug (the library's, or mutants kept beside the
//! spec), one that they pass on the student's own code. They ask the runner nothing
//! ([`NoRequest`]): the grader runs the student's tests itself. Here, beneath the loading
//! that makes them, not with the grading of student tests above it.

use grader_api::source::Window;
use std::borrow::Cow;

use grader_api::spec::{KeptMutant, StudentTests};
use grader_api::unit::{Answered, Asked, Compared, Difference};
use grader_api::{Submission, nearest};
use reference::bugs::{Bug, LIBRARIES, Library};

/// A test of a `student_tests` group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which<'a> {
    ValidOnTheReference,
    /// A bug of the library, by name, with its description.
    Bug {
        name: &'a str,
        description: &'a str,
    },
    PassOnYourCode,
}

impl Which<'_> {
    /// The test's id within its group.
    pub fn id(&self) -> String {
        match self {
            Which::ValidOnTheReference => "valid_on_the_reference".into(),
            Which::Bug { name, .. } => name.replace('-', "_"),
            Which::PassOnYourCode => "pass_on_your_code".into(),
        }
    }
}

/// The library of bugs of `assignment`.
pub fn library(assignment: &str) -> Option<&'static Library> {
    LIBRARIES
        .iter()
        .find(|library| library.assignment == assignment)
}

/// The bugs `setting` names among `assignment`'s library and the mutants kept beside its
/// spec (all of both for `all`), or what is wrong with its names.
pub fn bugs(assignment: &str, setting: &StudentTests) -> Result<Vec<Bug>, String> {
    let Some(library) = library(assignment) else {
        return Err(format!(
            "{assignment} has no library of bugs to grade tests against"
        ));
    };
    let mut all = (library.bugs)();
    all.extend(setting.kept.iter().map(kept_bug));
    let Some(named) = setting.bugs.named() else {
        return Ok(all);
    };
    let known: Vec<&str> = all.iter().map(|bug| &*bug.name).collect();
    for name in named {
        if !known.contains(&name.as_str()) {
            return Err(match nearest(name, &known) {
                Some(near) => format!(
                    "`student_tests` names the bug `{name}`, which {assignment}'s library does not have; did you mean `{near}`?"
                ),
                None => format!(
                    "`student_tests` names the bug `{name}`, which {assignment}'s library does not have, nor the mutants kept beside the spec; `grader spec audit` lists its bugs"
                ),
            });
        }
    }
    Ok(all
        .into_iter()
        .filter(|bug| named.iter().any(|name| *name == bug.name))
        .collect())
}

/// A mutant kept beside the spec, as a bug of the library.
pub fn kept_bug(kept: &KeptMutant) -> Bug {
    Bug {
        name: Cow::Owned(kept.name.clone()),
        description: Cow::Owned(kept.description.clone()),
        edits: kept
            .edits
            .iter()
            .map(|edit| (Cow::Owned(edit.from.clone()), edit.to.clone()))
            .collect(),
        caught: Vec::new(),
    }
}

/// The group's tests as (id within the group, name, weight), in report order.
pub fn tests(bugs: &[Bug], setting: &StudentTests) -> Vec<(String, String, u32)> {
    let mut tests = vec![(
        Which::ValidOnTheReference.id(),
        "valid on the reference".to_string(),
        1,
    )];
    for bug in bugs {
        let which = Which::Bug {
            name: &bug.name,
            description: &bug.description,
        };
        tests.push((which.id(), bug.name.to_string(), 1));
    }
    tests.push((
        Which::PassOnYourCode.id(),
        "pass on your code".to_string(),
        u32::from(setting.grade_your_code),
    ));
    tests
}

/// The request of a test that asks the runner nothing.
pub struct NoRequest(pub &'static str);

impl Asked for NoRequest {
    fn assignment(&self) -> &'static str {
        self.0
    }
    fn payload(&self) -> &[u8] {
        &[]
    }
    fn input_count(&self) -> u64 {
        0
    }
    fn question(&self, _: usize) -> String {
        "your tests".into()
    }
    fn question_kind(&self, _: usize) -> String {
        "your tests".into()
    }
    fn scored_checks(&self) -> usize {
        0
    }
    fn describe_inputs(&self) -> String {
        "your own tests".into()
    }
    fn respond_within(&self, _: &Submission, _: Window, _: &mut dyn FnMut(Answered) -> bool) {}
    fn describe_input(&self, _: &[u8], _: usize) -> String {
        String::new()
    }
    fn difference(&self, _: Compared<'_>) -> Difference {
        Difference {
            input: ("tests", String::new()),
            question: "your tests".into(),
            expected: String::new(),
            actual: None,
            lines: None,
            detail: None,
            explanation: None,
        }
    }
    fn show(&self, _: &[u8]) -> String {
        String::new()
    }
    fn pinned(&self, _: &[Vec<u8>]) -> Option<Box<dyn Asked>> {
        None
    }
    fn breakdown(&self, _: usize, _: &[u8], _: &[u8]) -> (String, String, String) {
        Default::default()
    }
    fn drive(
        &self,
        _: &Submission,
        _: std::rc::Rc<dyn grader_api::spec::Transport>,
    ) -> grader_api::spec::Driven {
        grader_api::spec::Driven {
            passed: false,
            fields: Vec::new(),
            notes: Vec::new(),
        }
    }
    fn expect_text(&self, _: &[u8]) -> Option<String> {
        None
    }
}
