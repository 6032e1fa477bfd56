//! [`Unit`], the object-safe face of an [`Assignment`] that the grader's core and the
//! runner work with, and [`Asked`], one decoded request, made once per test, that answers,
//! describes and explains. A unit sees requests, inputs and answers only as bytes. It sits
//! above both the contract ([`crate::assignment`]) and its spec side ([`crate::spec`]),
//! which know nothing of it.

use std::any::Any;
use std::collections::HashMap;
use std::io;
use std::marker::PhantomData;

use crate::assignment::{Answering, Assignment, Lines, guarded};
use crate::protocol::{Reply, decode_reply, put_reply};
use crate::source::Window;
#[cfg(feature = "spec")]
use crate::spec::{
    Agrees, Common, Defaults, Grading, Grouped, Label, Problem, Problems, exactly_one,
};
use crate::submission::Submission;
use crate::text::shorten;
use crate::wire::Wire;

/// What the core asks of every assignment: [`Assignment`] on the way in, and the spec
/// side too when the `spec` feature is on.
#[cfg(feature = "spec")]
pub trait Graded: Assignment + crate::spec::Spec {}
#[cfg(feature = "spec")]
impl<A: Assignment + crate::spec::Spec> Graded for A {}
#[cfg(not(feature = "spec"))]
pub trait Graded: Assignment {}
#[cfg(not(feature = "spec"))]
impl<A: Assignment> Graded for A {}

/// An assignment as the core and the runner see it.
pub trait Unit: Send + Sync {
    fn name(&self) -> &'static str;
    fn registration(&self) -> &'static str;
    fn is_registered(&self, submission: &Submission) -> bool;
    /// The request in `payload`, decoded.
    fn request(&self, payload: Vec<u8>) -> io::Result<Box<dyn Asked>>;
    /// The runner's dispatch: answers the inputs inside the window of the request
    /// `serving` holds, emitting each input's reply frames, laid end to end; stops when its
    /// `emit` returns `false`.
    fn serve(&self, serving: Serving<'_>) -> io::Result<()>;
    /// Reads a spec file of this assignment.
    #[cfg(feature = "spec")]
    fn parse(&self, text: &str) -> Result<ParsedFile, crate::spec::Problem>;
    /// The JSON Schema of a spec file of this assignment, made from the types [`Unit::parse`]
    /// reads it with; the schemas it refers to are left in `generator`'s definitions.
    #[cfg(feature = "spec")]
    fn schema(&self, generator: &mut schemars::SchemaGenerator) -> schemars::Schema;
    /// The largest replies a runner may send, as frames: every shape of the answer at its
    /// largest, and the largest panic. The grader must read each within its caps.
    #[cfg(feature = "spec")]
    fn largest_replies(&self) -> Vec<Vec<u8>>;
}

/// What the runner's dispatch is handed for one request: the submission and its sessions,
/// the request's bytes, the window of its inputs to answer, and where each input's reply
/// frames go (`emit` returns `false` to stop).
pub struct Serving<'a> {
    pub submission: &'a Submission,
    pub sessions: &'a mut Sessions,
    pub payload: &'a [u8],
    pub window: Window,
    pub emit: &'a mut dyn FnMut(&[u8]) -> bool,
}

/// One reply to compare: reply `position` to `input`, `expected` of it (by the
/// `reference`, which explains it) and `actual`ly given, if any.
pub struct Compared<'a> {
    pub reference: &'a Submission,
    pub input: &'a [u8],
    pub position: usize,
    pub expected: &'a [u8],
    pub actual: Option<&'a [u8]>,
}

/// A wrong or missing reply as a failure shows it.
pub struct Difference {
    /// What the input is (`hand`, `deck`, ...) and the input, its replies up to this one in view.
    pub input: (&'static str, String),
    pub question: String,
    pub expected: String,
    /// `None` where no reply came.
    pub actual: Option<String>,
    /// The two answers in lines, where they span several (lists, states, rounds).
    pub lines: Option<(Lines, Lines)>,
    /// Where the two answers part, named by the assignment.
    pub detail: Option<(&'static str, String)>,
    /// What the reference makes of the input, where the assignment says more than the
    /// answers do.
    pub explanation: Option<String>,
}

/// One request, decoded once: what the core grades a test with.
pub trait Asked: Send + Sync {
    /// The assignment's name.
    fn assignment(&self) -> &'static str;
    /// The request as it crosses the pipe.
    fn payload(&self) -> &[u8];
    fn input_count(&self) -> u64;
    fn question(&self, index: usize) -> String;
    fn question_kind(&self, index: usize) -> String;
    fn scored_checks(&self) -> usize;
    fn describe_inputs(&self) -> String;
    /// Answers with `submission`, calling `on_input` with each input answered.
    fn respond(&self, submission: &Submission, on_input: &mut dyn FnMut(Answered) -> bool) {
        self.respond_within(submission, Window::ALL, on_input);
    }
    /// Answers the inputs inside `window` only, as [`Asked::respond`] does all of them.
    fn respond_within(
        &self,
        submission: &Submission,
        window: Window,
        on_input: &mut dyn FnMut(Answered) -> bool,
    );
    /// An input as a report shows it, its replies up to `through` in view.
    fn describe_input(&self, input: &[u8], through: usize) -> String;
    /// The reply `compared` names, as a failure shows it: every field, each reply decoded
    /// once.
    fn difference(&self, compared: Compared<'_>) -> Difference;
    /// A reply as a report shows it.
    fn show(&self, reply: &[u8]) -> String;
    /// The request with the submission's own choices (in its `replies`) fixed.
    fn pinned(&self, replies: &[Vec<u8>]) -> Option<Box<dyn Asked>>;
    /// The question, expected and actual of a wrong reply, as a breakdown groups them.
    fn breakdown(&self, index: usize, expected: &[u8], actual: &[u8]) -> (String, String, String);
    /// Grades a test that the assignment drives itself, asking the runner through
    /// `transport`.
    #[cfg(feature = "spec")]
    fn drive(
        &self,
        reference: &Submission,
        transport: std::rc::Rc<dyn crate::spec::Transport>,
    ) -> crate::spec::Driven;
    /// The `expect` that says `reply`, as the spec would write it, if one does.
    #[cfg(feature = "spec")]
    fn expect_text(&self, reply: &[u8]) -> Option<String>;
}

/// One input as a submission answered it: the input's bytes (empty where they were not
/// asked for), its reply frames laid end to end, and how many frames those are, counted as
/// they were written so that no one walks them again to count.
#[derive(Clone, Copy, Debug)]
pub struct Answered<'a> {
    pub input: &'a [u8],
    pub frames: &'a [u8],
    pub replies: u64,
}

/// The runner's state for each assignment, kept from one request to the next.
#[derive(Default)]
pub struct Sessions(HashMap<&'static str, Box<dyn Any>>);

impl Sessions {
    fn of<A: Assignment>(&mut self) -> &mut A::Session {
        self.0
            .entry(A::NAME)
            .or_insert_with(|| Box::new(A::Session::default()))
            .downcast_mut()
            .expect("each session is stored under its own assignment's name")
    }
}

/// `A` as a [`Unit`].
pub struct Of<A>(PhantomData<fn() -> A>);

impl<A> Of<A> {
    pub const UNIT: Of<A> = Of(PhantomData);
}

/// Encodes each input (when `with_inputs`) and its replies for `on_input`.
fn encoding<A: Assignment>(
    with_inputs: bool,
    on_input: &mut dyn FnMut(Answered) -> bool,
) -> impl FnMut(A::Input, Vec<Reply<A::Answer>>) -> bool {
    let mut input_bytes = Vec::new();
    let mut frames = Vec::new();
    move |input, replies| {
        input_bytes.clear();
        if with_inputs {
            input
                .put(&mut input_bytes)
                .expect("writing to memory cannot fail");
        }
        frames.clear();
        for reply in &replies {
            put_reply(&mut frames, reply);
        }
        on_input(Answered {
            input: &input_bytes,
            frames: &frames,
            replies: replies.len() as u64,
        })
    }
}

fn decode<T: Wire>(mut bytes: &[u8]) -> io::Result<T> {
    let value = T::take(&mut bytes)?;
    if bytes.is_empty() {
        Ok(value)
    } else {
        Err(crate::wire::invalid("bytes left over"))
    }
}

impl<A: Graded> Unit for Of<A> {
    fn name(&self) -> &'static str {
        A::NAME
    }

    fn registration(&self) -> &'static str {
        A::REGISTRATION
    }

    fn is_registered(&self, submission: &Submission) -> bool {
        submission.registered::<A>().is_some()
    }

    fn request(&self, payload: Vec<u8>) -> io::Result<Box<dyn Asked>> {
        let request = decode(&payload)?;
        Ok(Box::new(AskedOf::<A> { request, payload }))
    }

    fn serve(&self, serving: Serving<'_>) -> io::Result<()> {
        let Serving {
            submission,
            sessions,
            payload,
            window,
            emit,
        } = serving;
        let request = decode(payload)?;
        A::respond(Answering {
            registered: submission.registered::<A>(),
            session: sessions.of::<A>(),
            request: &request,
            window,
            on_input: &mut encoding::<A>(false, &mut |answered| emit(answered.frames)),
        });
        Ok(())
    }

    #[cfg(feature = "spec")]
    fn parse(&self, text: &str) -> Result<ParsedFile, crate::spec::Problem> {
        parse_file::<A>(text)
    }

    #[cfg(feature = "spec")]
    fn schema(&self, generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        crate::spec::schema::file_schema::<A>(generator)
    }

    #[cfg(feature = "spec")]
    fn largest_replies(&self) -> Vec<Vec<u8>> {
        // A frame's tag and length take at most 11 bytes of its limit.
        let budget = crate::protocol::MOST_REPLY_BYTES as usize - 11;
        let answers = A::Answer::largest(budget).into_iter().map(Reply::Answer);
        let panics = crate::protocol::Panic::largest(budget)
            .into_iter()
            .map(Reply::Panicked);
        answers
            .chain(panics)
            .map(|reply: Reply<A::Answer>| {
                let mut frame = Vec::new();
                put_reply(&mut frame, &reply);
                frame
            })
            .collect()
    }
}

/// A decoded request of `A`.
pub(crate) struct AskedOf<A: Assignment> {
    pub(crate) request: A::Request,
    payload: Vec<u8>,
}

impl<A: Graded> AskedOf<A> {
    pub(crate) fn boxed(request: A::Request) -> Box<dyn Asked> {
        let mut payload = Vec::new();
        request
            .put(&mut payload)
            .expect("writing to memory cannot fail");
        Box::new(AskedOf::<A> { request, payload })
    }
}

fn show_reply<A: Assignment>(reply: &io::Result<Reply<A::Answer>>) -> String {
    match reply {
        Ok(Reply::Answer(answer)) => answer.to_string(),
        Ok(Reply::Panicked(panic)) => panic.to_string(),
        Ok(Reply::NotRegistered) => {
            format!("not registered: submission() does not list {}", A::NAME)
        }
        Err(error) => format!("an answer the grader could not read ({error})"),
    }
}

/// The answer a decoded reply holds, if it holds one.
fn answer<A: Assignment>(reply: &io::Result<Reply<A::Answer>>) -> Option<&A::Answer> {
    match reply {
        Ok(Reply::Answer(answer)) => Some(answer),
        _ => None,
    }
}

/// A reply as a breakdown lists it: by what can be compared with the other side where that
/// is of another kind (`15 cells` against a panic, `a round`), a panic by its message and
/// line, or else as it is.
fn breakdown_entry<A: Assignment>(
    reply: &io::Result<Reply<A::Answer>>,
    other: &io::Result<Reply<A::Answer>>,
) -> String {
    let kind_of = |reply| answer::<A>(reply).and_then(A::kind);
    match (reply, kind_of(reply)) {
        (Ok(Reply::Answer(answer)), Some(kind)) if kind_of(other) != Some(kind) => {
            match A::lines(answer) {
                Some(Lines::Cells(cells)) => format!("{} cells", cells.len()),
                _ => format!("a {kind}"),
            }
        }
        (Ok(Reply::Panicked(panic)), _) => panic.briefly(),
        _ => shorten(&show_reply::<A>(reply), 200),
    }
}

/// Two answers of one kind, which would be too many to list one per value (cells, rounds,
/// games), as a breakdown names them: by the first line in which they part, or by their
/// lengths where one is the other cut short.
fn first_line_apart<A: Assignment>(
    expected: &A::Answer,
    actual: &A::Answer,
) -> Option<(String, String)> {
    A::kind(expected).filter(|&kind| A::kind(actual) == Some(kind))?;
    let lines = |answer: &A::Answer| -> Vec<String> {
        match A::lines(answer) {
            Some(Lines::Cells(items)) => items,
            Some(Lines::Text(text)) => text.lines().map(str::to_string).collect(),
            None => answer.to_string().lines().map(str::to_string).collect(),
        }
    };
    let (want, got) = (lines(expected), lines(actual));
    let apart = want.iter().zip(&got).find(|(w, g)| w != g);
    Some(match apart {
        Some((w, g)) => {
            // Lines aligned in columns for a report read as one phrase in a breakdown.
            let phrase =
                |line: &str| shorten(&line.split_whitespace().collect::<Vec<_>>().join(" "), 200);
            (phrase(w), phrase(g))
        }
        None => {
            let unit = match A::lines(expected) {
                Some(Lines::Cells(_)) => "cells",
                _ => "lines",
            };
            (
                format!("{} {unit}", want.len()),
                format!("{} {unit}", got.len()),
            )
        }
    })
    .filter(|(w, g)| w != g)
}

impl<A: Graded> Asked for AskedOf<A> {
    fn assignment(&self) -> &'static str {
        A::NAME
    }

    fn payload(&self) -> &[u8] {
        &self.payload
    }

    fn input_count(&self) -> u64 {
        A::input_count(&self.request)
    }

    fn question(&self, index: usize) -> String {
        A::question(&self.request, index)
    }

    fn question_kind(&self, index: usize) -> String {
        A::question_kind(&self.request, index)
    }

    fn scored_checks(&self) -> usize {
        A::scored_checks(&self.request)
    }

    fn describe_inputs(&self) -> String {
        A::describe_inputs(&self.request)
    }

    fn respond_within(
        &self,
        submission: &Submission,
        window: Window,
        on_input: &mut dyn FnMut(Answered) -> bool,
    ) {
        A::respond(Answering {
            registered: submission.registered::<A>(),
            session: &mut A::Session::default(),
            request: &self.request,
            window,
            on_input: &mut encoding::<A>(true, on_input),
        });
    }

    fn describe_input(&self, input: &[u8], through: usize) -> String {
        match decode::<A::Input>(input) {
            Ok(input) => A::describe_input(&input, through),
            Err(error) => format!("an input the grader could not read ({error})"),
        }
    }

    fn difference(&self, compared: Compared<'_>) -> Difference {
        let Compared {
            reference,
            input,
            position,
            expected,
            actual,
        } = compared;
        let decoded_input = decode::<A::Input>(input);
        let want = decode_reply::<A::Answer>(expected);
        let got = actual.map(decode_reply::<A::Answer>);
        let (want_answer, got_answer) = (answer::<A>(&want), got.as_ref().and_then(answer::<A>));
        let both = want_answer.zip(got_answer);
        let explanation = decoded_input
            .as_ref()
            .ok()
            .zip(want_answer)
            .and_then(|(input, want)| {
                let registered = reference.registered::<A>()?;
                guarded(|| A::explain(registered, &self.request, input, want, got_answer))
                    .ok()
                    .flatten()
            });
        Difference {
            input: match &decoded_input {
                Ok(input) => (A::input_label(input), A::describe_input(input, position)),
                Err(error) => (
                    "input",
                    format!("an input the grader could not read ({error})"),
                ),
            },
            question: A::question(&self.request, position),
            expected: show_reply::<A>(&want),
            actual: got.as_ref().map(show_reply::<A>),
            lines: both.and_then(|(want, got)| Some((A::lines(want)?, A::lines(got)?))),
            detail: both.and_then(|(want, got)| A::detail(want, got)),
            explanation,
        }
    }

    fn show(&self, reply: &[u8]) -> String {
        show_reply::<A>(&decode_reply(reply))
    }

    fn pinned(&self, replies: &[Vec<u8>]) -> Option<Box<dyn Asked>> {
        let replies: Vec<Reply<A::Answer>> = replies
            .iter()
            .map(|frame| decode_reply(frame))
            .collect::<io::Result<_>>()
            .ok()?;
        A::pinned(&self.request, &replies).map(AskedOf::<A>::boxed)
    }

    fn breakdown(&self, index: usize, expected: &[u8], actual: &[u8]) -> (String, String, String) {
        let question = A::question_kind(&self.request, index);
        let want = decode_reply::<A::Answer>(expected);
        let got = decode_reply::<A::Answer>(actual);
        if let (Ok(Reply::Answer(w)), Ok(Reply::Answer(g))) = (&want, &got)
            && let Some((w, g)) = A::breakdown(w, g).or_else(|| first_line_apart::<A>(w, g))
        {
            return (question, w, g);
        }
        (
            question,
            breakdown_entry::<A>(&want, &got),
            breakdown_entry::<A>(&got, &want),
        )
    }

    #[cfg(feature = "spec")]
    fn drive(
        &self,
        reference: &Submission,
        transport: std::rc::Rc<dyn crate::spec::Transport>,
    ) -> crate::spec::Driven {
        A::drive(reference.registered::<A>(), &self.request, transport)
    }

    #[cfg(feature = "spec")]
    fn expect_text(&self, reply: &[u8]) -> Option<String> {
        A::expect_text(answer::<A>(&decode_reply(reply))?)
    }
}

#[cfg(feature = "spec")]
/// A spec file, read: the groups that make tests, and what is wrong with the others.
#[cfg(feature = "spec")]
pub struct ParsedFile {
    pub defaults: Defaults,
    pub policy: Option<crate::spec::Policy>,
    pub groups: Vec<ParsedGroup>,
    pub problems: Problems,
}

#[cfg(feature = "spec")]
pub struct ParsedGroup {
    pub common: Common,
    pub tests: Vec<ParsedTest>,
}

#[cfg(feature = "spec")]
pub struct ParsedTest {
    pub case: Option<Label>,
    pub request: Box<dyn Asked>,
    pub grading: Grading,
    pub written: Vec<ParsedWritten>,
}

/// What a spec wrote about reply `index`; `agrees` reads the reference's reply frame.
#[cfg(feature = "spec")]
pub struct ParsedWritten {
    pub index: usize,
    pub text: String,
    pub agrees: Agrees<[u8]>,
}

#[cfg(feature = "spec")]
pub(crate) fn parse_file<A: Graded>(text: &str) -> Result<ParsedFile, Problem> {
    let file: crate::spec::SpecFile<A::Rules, A::Group> =
        serde_yaml::from_str(text).map_err(Problem::from_yaml)?;
    let mut groups = Vec::new();
    let mut problems = Vec::new();
    for group in file.groups {
        let common = group.common();
        // Its tests are the grader's to make: they ask the assignment nothing.
        if common.student_tests.is_some() {
            groups.push(ParsedGroup {
                common,
                tests: Vec::new(),
            });
            continue;
        }
        if let Err(problem) = exactly_one(&common.name, &group.sources()) {
            problems.push(problem);
            continue;
        }
        let tests = match A::tests(&file.rules, group) {
            Ok(tests) => tests,
            Err(found) => {
                problems.extend(found);
                continue;
            }
        };
        let tests = tests
            .into_iter()
            .map(|test| ParsedTest {
                case: test.case,
                request: AskedOf::<A>::boxed(test.request),
                grading: test.grading,
                written: test
                    .written
                    .into_iter()
                    .map(|written| {
                        let agrees = written.agrees;
                        ParsedWritten {
                            index: written.index,
                            text: written.text,
                            agrees: Box::new(move |frame| {
                                matches!(decode_reply::<A::Answer>(frame), Ok(Reply::Answer(answer)) if agrees(&answer))
                            }),
                        }
                    })
                    .collect(),
            })
            .collect();
        groups.push(ParsedGroup { common, tests });
    }
    Ok(ParsedFile {
        defaults: file.defaults,
        policy: file.policy,
        groups,
        problems,
    })
}
