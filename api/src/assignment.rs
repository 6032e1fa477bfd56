//! What an assignment is: [`Assignment`], implemented once beside each contract, and the
//! helpers its contract answers and describes with. The object-safe face the grader's
//! core and the runner see it through is [`crate::unit::Unit`].

use std::cell::RefCell;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::protocol::{Panic, Reply};
use crate::source::Window;
pub use crate::text::shorten;
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

    /// Answers the inputs of the request inside the window, handing each input and its
    /// replies on in order with [`Answering::answer`]; stops when that returns `false`.
    /// Panics in the submission become replies. A request of one input may take the window
    /// as whole.
    fn respond(answering: Answering<'_, Self>);

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

/// What [`Assignment::respond`] answers: the request, the window of its inputs, with
/// what (the submission's builders, `None` where it did not register the assignment, and
/// the runner's session), and where each input goes with its replies. The runner hands
/// them on together, and an assignment that asks another's questions hands them on in turn.
pub struct Answering<'a, A: Assignment> {
    pub registered: Option<&'a A::Registered>,
    pub session: &'a mut A::Session,
    pub request: &'a A::Request,
    pub window: Window,
    pub on_input: &'a mut dyn FnMut(A::Input, Vec<Reply<A::Answer>>) -> bool,
}

impl<A: Assignment> Answering<'_, A> {
    /// Hands `input` and its replies on; `false` when no more are wanted.
    pub fn answer(&mut self, input: A::Input, replies: Vec<Reply<A::Answer>>) -> bool {
        (self.on_input)(input, replies)
    }
}

/// An answer laid out for a line diff.
pub enum Lines {
    /// The cells of a list of numbers, one per line: a difference in length is said first.
    Cells(Vec<String>),
    /// Text of several lines.
    Text(String),
}

thread_local! {
    static PANIC_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Where the last panic on this thread happened, if the runner's hook saw it.
pub(crate) fn take_panic_location() -> Option<String> {
    PANIC_LOCATION.with(|slot| slot.borrow_mut().take())
}

/// Keeps where a panic happened for [`guarded`] to report: the runner's panic hook calls it.
pub(crate) fn record_panic_location(location: Option<String>) {
    PANIC_LOCATION.with(|slot| *slot.borrow_mut() = location);
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
            location: take_panic_location(),
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

/// What reply `index` to a request of `checks` answers: its check's method, `value()`.
pub(crate) fn check_question(checks: &[impl fmt::Display], index: usize) -> String {
    checks
        .get(index)
        .map(|check| format!("{check}()"))
        .unwrap_or_default()
}

/// The checks a request asks of every input, as its description lists them.
pub(crate) fn check_names(checks: &[impl fmt::Display]) -> String {
    let names: Vec<String> = checks.iter().map(ToString::to_string).collect();
    names.join(", ")
}

/// A list of numbers as a report shows it: `[0, 1, 2]`.
pub(crate) fn cells_text(cells: &[i64]) -> String {
    let cells: Vec<String> = cells.iter().map(i64::to_string).collect();
    format!("[{}]", cells.join(", "))
}

/// A list of numbers laid out for a diff, one cell per line.
pub(crate) fn cell_lines(cells: &[i64]) -> Lines {
    Lines::Cells(
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
