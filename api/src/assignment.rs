//! What an assignment is: [`Assignment`], implemented once beside each contract, and
//! [`Unit`], the object-safe face the grader's core and the runner work with. A unit sees
//! requests, inputs and answers only as bytes; an [`Asked`] is one decoded request, made
//! once per test, that answers, describes and explains.

use std::any::Any;
use std::collections::HashMap;
use std::fmt;
use std::io;
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::protocol::{Panic, Reply, decode_reply, put_reply};
use crate::source::Window;
use crate::submission::Submission;
use crate::wire::Wire;

/// One assignment: its contract's request, input and answer types, the one dispatch that
/// answers a request with a submission (the reference's in the grader, the student's in
/// the runner), and how its inputs, questions and differences are described.
pub trait Assignment: Sized + 'static {
    /// The name specs use in their `assignment:` field.
    const NAME: &'static str;
    /// The builder call that registers it, for messages that tell a student what to add.
    const REGISTRATION: &'static str;
    /// What a submission registers for it: its builders.
    type Registered: Send + Sync + 'static;
    /// What the runner keeps from one request to the next.
    type Session: Default + 'static;
    type Request: Wire + Send + Sync + 'static;
    /// One input of a request, as a report shows it beside a wrong answer.
    type Input: Wire + 'static;
    type Answer: Wire + PartialEq + fmt::Display + Send + Sync + 'static;

    /// Answers the inputs of `request` inside `window`, calling `on_input` with each input
    /// and its replies in order; stops when `on_input` returns `false`. Panics in the
    /// submission become replies. A request of one input may take the window as whole.
    fn respond(
        registered: Option<&Self::Registered>,
        session: &mut Self::Session,
        request: &Self::Request,
        window: Window,
        on_input: impl FnMut(Self::Input, Vec<Reply<Self::Answer>>) -> bool,
    );

    /// How many inputs `request` holds.
    fn input_count(request: &Self::Request) -> u64;

    /// What reply `index` of an input answers, such as `has_pair()`.
    fn question(request: &Self::Request, index: usize) -> String;

    /// A short name for the question, for a breakdown of wrong answers by kind.
    fn question_kind(request: &Self::Request, index: usize) -> String {
        Self::question(request, index)
    }

    /// How many checks a bulk request asks of every input, reply `i` answering check `i`,
    /// each earning its share of the test's points on its own; 1 for a request judged as
    /// a whole.
    fn scored_checks(_request: &Self::Request) -> usize {
        1
    }

    /// Where the inputs come from and what is asked of them, for a bulk group's report.
    fn describe_inputs(request: &Self::Request) -> String;

    /// What the input is, as a report's field name.
    fn input_label(input: &Self::Input) -> &'static str;

    /// The input as a student reads it, through the question of reply `through`.
    fn describe_input(input: &Self::Input, through: usize) -> String;

    /// For a request whose answers follow the submission's own choices, the request with
    /// those choices fixed, for the reference to answer.
    fn pinned(_request: &Self::Request, _replies: &[Reply<Self::Answer>]) -> Option<Self::Request> {
        None
    }

    /// What the reference makes of `input` beyond its answer, where `expected` and
    /// `actual` part.
    fn explain(
        _reference: &Self::Registered,
        _request: &Self::Request,
        _input: &Self::Input,
        _expected: &Self::Answer,
        _actual: Option<&Self::Answer>,
    ) -> Option<String> {
        None
    }

    /// A report field beyond expected and actual that shows where two long answers part.
    fn detail(_expected: &Self::Answer, _actual: &Self::Answer) -> Option<(&'static str, String)> {
        None
    }

    /// The answer as lines for a line diff, when it spans several.
    fn lines(_answer: &Self::Answer) -> Option<Lines> {
        None
    }

    /// The kind of answer, for answers that a breakdown would otherwise list one per
    /// value (numbers, states, games); `None` lists the answer as it is.
    fn kind(_answer: &Self::Answer) -> Option<&'static str> {
        None
    }

    /// How a breakdown names a wrong answer of this kind, where the kinds say too little.
    fn breakdown(_expected: &Self::Answer, _actual: &Self::Answer) -> Option<(String, String)> {
        None
    }
}

/// An answer laid out for a line diff.
pub enum Lines {
    /// The elements of a list, one per line: a difference in length is said first.
    List(Vec<String>),
    /// Text of several lines.
    Text(String),
}

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
    /// The runner's dispatch: answers the inputs inside `window` of the request in
    /// `payload`, emitting each input's reply frames, laid end to end; stops when `emit`
    /// returns `false`.
    fn serve(
        &self,
        submission: &Submission,
        sessions: &mut Sessions,
        payload: &[u8],
        window: Window,
        emit: &mut dyn FnMut(&[u8]) -> bool,
    ) -> io::Result<()>;
    /// Reads a spec file of this assignment.
    #[cfg(feature = "spec")]
    fn parse(&self, text: &str) -> Result<crate::spec::ParsedFile, crate::spec::Problem>;
    /// The JSON Schema of a spec file of this assignment, made from the types [`Unit::parse`]
    /// reads it with; the schemas it refers to are left in `generator`'s definitions.
    #[cfg(feature = "spec")]
    fn schema(&self, generator: &mut schemars::SchemaGenerator) -> schemars::Schema;
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
    /// Answers with `submission`, calling `on_input` with each input's bytes and its
    /// reply frames laid end to end.
    fn respond(&self, submission: &Submission, on_input: &mut dyn FnMut(&[u8], &[u8]) -> bool) {
        self.respond_within(submission, Window::ALL, on_input);
    }
    /// Answers the inputs inside `window` only, as [`Asked::respond`] does all of them.
    fn respond_within(
        &self,
        submission: &Submission,
        window: Window,
        on_input: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    );
    fn input_label(&self, input: &[u8]) -> &'static str;
    fn describe_input(&self, input: &[u8], through: usize) -> String;
    /// A reply as a report shows it.
    fn show(&self, reply: &[u8]) -> String;
    /// The request with the submission's own choices (in its `replies`) fixed.
    fn pinned(&self, replies: &[Vec<u8>]) -> Option<Box<dyn Asked>>;
    fn explain(
        &self,
        reference: &Submission,
        input: &[u8],
        expected: &[u8],
        actual: Option<&[u8]>,
    ) -> Option<String>;
    fn detail(&self, expected: &[u8], actual: &[u8]) -> Option<(&'static str, String)>;
    fn lines(&self, reply: &[u8]) -> Option<Lines>;
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
    fn expect(&self, reply: &[u8]) -> Option<String>;
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

/// Answers `request`, encoding each input (when `with_inputs`) and its replies.
fn respond_encoded<A: Assignment>(
    registered: Option<&A::Registered>,
    session: &mut A::Session,
    request: &A::Request,
    window: Window,
    with_inputs: bool,
    on_input: &mut dyn FnMut(&[u8], &[u8]) -> bool,
) {
    let mut input_bytes = Vec::new();
    let mut frames = Vec::new();
    A::respond(registered, session, request, window, |input, replies| {
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
        on_input(&input_bytes, &frames)
    });
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

    fn serve(
        &self,
        submission: &Submission,
        sessions: &mut Sessions,
        payload: &[u8],
        window: Window,
        emit: &mut dyn FnMut(&[u8]) -> bool,
    ) -> io::Result<()> {
        let request = decode(payload)?;
        respond_encoded::<A>(
            submission.registered::<A>(),
            sessions.of::<A>(),
            &request,
            window,
            false,
            &mut |_, frames| emit(frames),
        );
        Ok(())
    }

    #[cfg(feature = "spec")]
    fn parse(&self, text: &str) -> Result<crate::spec::ParsedFile, crate::spec::Problem> {
        crate::spec::parse_file::<A>(text)
    }

    #[cfg(feature = "spec")]
    fn schema(&self, generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        crate::spec::schema::file_schema::<A>(generator)
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

fn answer_of<A: Assignment>(frame: &[u8]) -> Option<A::Answer> {
    match decode_reply(frame) {
        Ok(Reply::Answer(answer)) => Some(answer),
        _ => None,
    }
}

/// A reply as a breakdown lists it: by its kind where the other side is of another kind
/// ("a round" against a panic), or else as it is.
fn breakdown_entry<A: Assignment>(
    reply: &io::Result<Reply<A::Answer>>,
    other: &io::Result<Reply<A::Answer>>,
) -> String {
    let kind_of = |reply: &io::Result<Reply<A::Answer>>| match reply {
        Ok(Reply::Answer(answer)) => A::kind(answer),
        _ => None,
    };
    match kind_of(reply) {
        Some(kind) if kind_of(other) != Some(kind) => format!("a {kind}"),
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
            Some(Lines::List(items)) => items,
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
        None => (
            format!("{} lines", want.len()),
            format!("{} lines", got.len()),
        ),
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
        on_input: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) {
        respond_encoded::<A>(
            submission.registered::<A>(),
            &mut A::Session::default(),
            &self.request,
            window,
            true,
            on_input,
        );
    }

    fn input_label(&self, input: &[u8]) -> &'static str {
        decode::<A::Input>(input).map_or("input", |input| A::input_label(&input))
    }

    fn describe_input(&self, input: &[u8], through: usize) -> String {
        match decode::<A::Input>(input) {
            Ok(input) => A::describe_input(&input, through),
            Err(error) => format!("an input the grader could not read ({error})"),
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

    fn explain(
        &self,
        reference: &Submission,
        input: &[u8],
        expected: &[u8],
        actual: Option<&[u8]>,
    ) -> Option<String> {
        let registered = reference.registered::<A>()?;
        let input = decode::<A::Input>(input).ok()?;
        let expected = answer_of::<A>(expected)?;
        let actual = actual.and_then(answer_of::<A>);
        guarded(|| {
            A::explain(
                registered,
                &self.request,
                &input,
                &expected,
                actual.as_ref(),
            )
        })
        .ok()
        .flatten()
    }

    fn detail(&self, expected: &[u8], actual: &[u8]) -> Option<(&'static str, String)> {
        A::detail(&answer_of::<A>(expected)?, &answer_of::<A>(actual)?)
    }

    fn lines(&self, reply: &[u8]) -> Option<Lines> {
        A::lines(&answer_of::<A>(reply)?)
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
    fn expect(&self, reply: &[u8]) -> Option<String> {
        A::expect(&answer_of::<A>(reply)?)
    }
}

/// `text` cut to `limit` characters, saying how much was left out.
pub fn shorten(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        None => text.to_string(),
        Some((cut, _)) => format!(
            "{}… ({} more characters)",
            &text[..cut],
            text[cut..].chars().count()
        ),
    }
}

/// Runs `call`, a panic in it caught and described.
pub fn guarded<T>(call: impl FnOnce() -> T) -> Result<T, Panic> {
    catch_unwind(AssertUnwindSafe(call)).map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic with a non-text payload".to_string());
        Panic {
            message,
            location: crate::runner::take_panic_location(),
        }
    })
}

/// The reply of one call into a submission.
pub(crate) fn ask<A>(call: impl FnOnce() -> A) -> Reply<A> {
    guarded(call).map_or_else(Reply::Panicked, Reply::Answer)
}

/// `count` replies from a submission's object: each asked under a guard, or all the same
/// when the assignment is not registered (`None`) or building the object panicked.
pub(crate) fn each_check<T: ?Sized, A: Clone>(
    built: Option<Result<Box<T>, Panic>>,
    count: usize,
    question: impl Fn(&T, usize) -> A,
) -> Vec<Reply<A>> {
    match built {
        None => vec![Reply::NotRegistered; count],
        Some(Err(panic)) => vec![Reply::Panicked(panic); count],
        Some(Ok(object)) => (0..count).map(|i| ask(|| question(&*object, i))).collect(),
    }
}

/// A list of numbers as a report shows it: `[0, 1, 2]`.
pub(crate) fn cells_text(cells: &[i64]) -> String {
    let cells: Vec<String> = cells.iter().map(i64::to_string).collect();
    format!("[{}]", cells.join(", "))
}

/// A list of numbers laid out for a diff, one cell per line.
pub(crate) fn cell_lines(cells: &[i64]) -> Lines {
    Lines::List(
        cells
            .iter()
            .enumerate()
            .map(|(index, count)| format!("cell {index:>2} = {count}"))
            .collect(),
    )
}

/// A hand as a report shows it: its cards and how many.
pub(crate) fn describe_hand(cards: &[crate::card::Card]) -> String {
    if cards.is_empty() {
        "(no cards)".into()
    } else {
        let count = match cards.len() {
            1 => "1 card".to_string(),
            n => format!("{n} cards"),
        };
        format!("{}   ({count})", crate::card::format_cards(cards))
    }
}
