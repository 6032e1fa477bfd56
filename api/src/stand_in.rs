//! Stand-ins: an assignment's types whose methods are answered by an implementation in
//! another process. A student's tests are built once against the stand-ins, never beside
//! the reference or a bug; each run of them is linked over its stdin to a process (the
//! grader's oracle) that answers every call with the one implementation under test. Two
//! runs differ only in the answers, so a test cannot tell which implementation it runs on.
//!
//! Calls go both ways: an implementation given one of the test's own objects (a blackjack
//! player, a Crazy Eights strategy) calls it back over the same link while the first call
//! waits. A panic on one side is a reply that panics again, with its message, on the other.

use std::cell::Cell;
use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::{Mutex, OnceLock};

use crate::submission::Submission;
use crate::wire::{Wire, put_varint, take_tag, take_varint};

use crate::transcript::{Said, Transcript};

/// The longest message either side sends or reads: more is a broken or hostile peer.
const MESSAGE_CAP: u64 = 64 << 20;

/// The object a call names when it makes a new one: an assignment's constructors.
pub const CONSTRUCTORS: u64 = u64::MAX;

/// One call for an [`Answerer`]: `method` of `object`, its arguments still to be read from
/// `args`, what it returns to be written to `out`, and the `link` it came over, on which
/// the answerer may call the other side back while this call waits.
pub struct Call<'a> {
    pub link: &'a Link,
    pub object: u64,
    pub method: u64,
    pub args: &'a mut &'a [u8],
    pub out: &'a mut Vec<u8>,
}

/// What answers calls on one side: the implementation's objects in the oracle, the test's
/// own callbacks in the test.
pub trait Answerer {
    fn answer(&mut self, call: Call<'_>) -> io::Result<()>;
}

/// An answerer of no calls: the side that holds no objects for this call.
pub struct NoCallbacks;

impl Answerer for NoCallbacks {
    fn answer(&mut self, _: Call<'_>) -> io::Result<()> {
        Err(io::Error::other("a call back with nothing to answer it"))
    }
}

/// One message on the link.
enum Message {
    Call {
        object: u64,
        method: u64,
        args: Vec<u8>,
    },
    Return(Vec<u8>),
    Panicked(String),
}

/// One end of the link between a test and the implementation under test.
pub struct Link {
    stream: UnixStream,
    /// Every message over this link, when the oracle keeps them: shared with the link's
    /// clones, which an implementation's call back of the test may take.
    transcript: Option<std::sync::Arc<Mutex<Transcript>>>,
}

impl Link {
    pub fn new(stream: UnixStream) -> Link {
        Link {
            stream,
            transcript: None,
        }
    }

    /// A link that keeps every message it sends or receives.
    pub(crate) fn recording(stream: UnixStream) -> Link {
        Link {
            stream,
            transcript: Some(Default::default()),
        }
    }

    /// Another handle on this link, for a callback that must own its way back: a Crazy
    /// Eights player is a `Box<dyn PlayerStrategy>`, which borrows nothing, so it cannot
    /// hold the `&Link` an [`Answerer`] is lent.
    pub fn try_clone(&self) -> io::Result<Link> {
        Ok(Link {
            stream: self.stream.try_clone()?,
            transcript: self.transcript.clone(),
        })
    }

    fn send(&self, message: &Message) -> io::Result<()> {
        let mut body = Vec::new();
        match message {
            Message::Call {
                object,
                method,
                args,
            } => {
                put_varint(&mut body, 0)?;
                put_varint(&mut body, *object)?;
                put_varint(&mut body, *method)?;
                body.extend_from_slice(args);
            }
            Message::Return(value) => {
                put_varint(&mut body, 1)?;
                body.extend_from_slice(value);
            }
            Message::Panicked(said) => {
                put_varint(&mut body, 2)?;
                said.put(&mut body)?;
            }
        }
        self.send_body(&body)
    }

    /// Sends one message's body, framed.
    pub(crate) fn send_body(&self, body: &[u8]) -> io::Result<()> {
        let mut framed = Vec::with_capacity(body.len() + 10);
        put_varint(&mut framed, body.len() as u64)?;
        framed.extend_from_slice(body);
        (&self.stream).write_all(&framed)?;
        self.keep(Said::ByThisSide, body);
        Ok(())
    }

    /// What this link has kept, if it keeps a transcript.
    pub(crate) fn transcript(&self) -> Option<std::sync::Arc<Mutex<Transcript>>> {
        self.transcript.clone()
    }

    /// Says no more: the other side reads the end of the link once it has read the rest.
    pub(crate) fn stop_sending(&self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Write);
    }

    /// Adds a message to the transcript, if this link keeps one.
    fn keep(&self, said: Said, body: &[u8]) {
        if let Some(transcript) = &self.transcript
            && let Ok(mut transcript) = transcript.lock()
        {
            transcript.keep(said, body);
        }
    }

    /// The next message; an error at the end of the link or on a message that is not one.
    fn receive(&self) -> io::Result<Message> {
        let body = self.receive_body()?;
        let mut rest = body.as_slice();
        Ok(match take_tag(&mut rest, 3)? {
            0 => Message::Call {
                object: take_varint(&mut rest)?,
                method: take_varint(&mut rest)?,
                args: rest.to_vec(),
            },
            1 => Message::Return(rest.to_vec()),
            _ => Message::Panicked(String::take(&mut rest)?),
        })
    }

    /// The next message's body; an error at the end of the link.
    pub(crate) fn receive_body(&self) -> io::Result<Vec<u8>> {
        let mut stream = &self.stream;
        let length = take_varint(&mut stream)?;
        if length > MESSAGE_CAP {
            return Err(io::Error::other("a message longer than the link takes"));
        }
        let mut body = Vec::new();
        (&mut stream).take(length).read_to_end(&mut body)?;
        if body.len() as u64 != length {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        self.keep(Said::ByTheOtherSide, &body);
        Ok(body)
    }

    /// Calls `method` of `object` on the other side, answering its calls back with
    /// `answerer` until it returns: Ok with what it returned, or Err with what it panicked
    /// with.
    pub fn call(
        &self,
        object: u64,
        method: u64,
        args: Vec<u8>,
        answerer: &mut dyn Answerer,
    ) -> io::Result<Result<Vec<u8>, String>> {
        self.send(&Message::Call {
            object,
            method,
            args,
        })?;
        loop {
            match self.receive()? {
                Message::Return(value) => return Ok(Ok(value)),
                Message::Panicked(said) => return Ok(Err(said)),
                Message::Call {
                    object,
                    method,
                    args,
                } => self.answer_one(answerer, object, method, &args)?,
            }
        }
    }

    /// Answers calls with `answerer` until the other side hangs up.
    pub fn serve(&self, answerer: &mut dyn Answerer) -> io::Result<()> {
        loop {
            match self.receive() {
                Ok(Message::Call {
                    object,
                    method,
                    args,
                }) => self.answer_one(answerer, object, method, &args)?,
                Ok(_) => return Err(io::Error::other("a reply to no call")),
                Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
                Err(error) => return Err(error),
            }
        }
    }

    fn answer_one(
        &self,
        answerer: &mut dyn Answerer,
        object: u64,
        method: u64,
        args: &[u8],
    ) -> io::Result<()> {
        let mut out = Vec::new();
        let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            answerer.answer(Call {
                link: self,
                object,
                method,
                args: &mut &args[..],
                out: &mut out,
            })
        }));
        let reply = match answered {
            Ok(Ok(())) => Message::Return(out),
            Ok(Err(error)) => {
                Message::Panicked(format!("a call the stand-in cannot make: {error}"))
            }
            Err(payload) => Message::Panicked(panic_text(payload.as_ref())),
        };
        self.send(&reply)
    }
}

/// What a panic said.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with no message".to_string())
}

/// The test's end of the link, taken off stdin at the first call.
fn test_link() -> Option<&'static Link> {
    static LINK: OnceLock<Option<Link>> = OnceLock::new();
    LINK.get_or_init(|| crate::serve::take_channel().ok().map(Link::new))
        .as_ref()
}

/// Held by the thread whose call is on the link: one exchange at a time.
static TURN: Mutex<()> = Mutex::new(());

thread_local! {
    /// A link of this thread's own, in place of stdin's: see [`with_link`].
    static OWN_LINK: std::cell::RefCell<Option<std::rc::Rc<Link>>> = const { std::cell::RefCell::new(None) };
    /// How deep this thread is in calls: a call made while answering a call back is part
    /// of the exchange its outer call holds the turn for.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// In a test: calls `method` of `object` in the implementation under test with the
/// arguments `args` wrote, answering calls back with `answerer`, and returns what it
/// returned. Panics as the implementation did, or when the link is gone.
pub fn ask<R: Wire>(
    object: u64,
    method: u64,
    args: impl FnOnce(&mut Vec<u8>) -> io::Result<()>,
    answerer: &mut dyn Answerer,
) -> R {
    let mut encoded = Vec::new();
    args(&mut encoded).expect("writing to memory");
    let own = OWN_LINK.with(|own| own.borrow().clone());
    let link = own
        .as_deref()
        .or_else(|| test_link())
        .unwrap_or_else(|| lost("no implementation to ask: these tests run only under the grader"));
    let outer = DEPTH.with(|depth| depth.get() == 0);
    let turn = outer.then(|| TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
    DEPTH.with(|depth| depth.set(depth.get() + 1));
    let answered = link.call(object, method, encoded, answerer);
    DEPTH.with(|depth| depth.set(depth.get() - 1));
    drop(turn);
    match answered {
        Ok(Ok(value)) => R::take(&mut value.as_slice())
            .unwrap_or_else(|error| lost(&format!("an answer that is not one: {error}"))),
        Ok(Err(said)) => std::panic::panic_any(said),
        Err(error) => lost(&format!(
            "the implementation under test stopped answering: {error}"
        )),
    }
}

/// Runs `body` with this thread's stand-ins asking over `link`, not stdin: for tests of
/// the stand-ins themselves, an answerer serving the other end on a thread.
pub fn with_link<T>(link: Link, body: impl FnOnce() -> T) -> T {
    OWN_LINK.with(|own| *own.borrow_mut() = Some(std::rc::Rc::new(link)));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
    OWN_LINK.with(|own| *own.borrow_mut() = None);
    result.unwrap_or_else(|payload| std::panic::resume_unwind(payload))
}

fn lost(why: &str) -> ! {
    panic!("cardgrade stand-in: {why}")
}

/// How an implementation is made: its crate's `register`.
pub type Register = fn(Submission) -> Submission;

macro_rules! servers {
    ($($assignment:ident),+ $(,)?) => {
        /// The answerer of `assignment`'s calls with `submission`'s implementation of it.
        pub fn server<'a>(submission: &'a Submission, assignment: &str) -> Option<Box<dyn Answerer + 'a>> {
            $(
                if assignment == stringify!($assignment) {
                    return crate::$assignment::stand_in::server(submission);
                }
            )+
            None
        }
    };
}

crate::for_each_assignment!(servers);

/// Objects one side made at the other's call, by their number.
pub struct Objects<T: ?Sized> {
    made: Vec<std::rc::Rc<std::cell::RefCell<Box<T>>>>,
}

impl<T: ?Sized> Default for Objects<T> {
    fn default() -> Self {
        Objects { made: Vec::new() }
    }
}

impl<T: ?Sized> Objects<T> {
    /// Keeps `object` and writes its number to `out`.
    pub fn keep(&mut self, object: Box<T>, out: &mut Vec<u8>) -> io::Result<()> {
        self.made
            .push(std::rc::Rc::new(std::cell::RefCell::new(object)));
        put_varint(out, self.made.len() as u64 - 1)
    }

    /// Object `number`, shared so that a call back may reach another object meanwhile.
    pub fn get(&self, number: u64) -> io::Result<std::rc::Rc<std::cell::RefCell<Box<T>>>> {
        usize::try_from(number)
            .ok()
            .and_then(|n| self.made.get(n))
            .cloned()
            .ok_or_else(|| io::Error::other(format!("no object {number}")))
    }
}

/// The arguments of a call that takes none.
pub fn no_args(_: &mut Vec<u8>) -> io::Result<()> {
    Ok(())
}

/// What a method that returns nothing replies.
pub struct Done;

impl Wire for Done {
    fn put(&self, _: &mut (impl Write + ?Sized)) -> io::Result<()> {
        Ok(())
    }
    fn take(_: &mut (impl Read + ?Sized)) -> io::Result<Done> {
        Ok(Done)
    }
}

/// What a call lent the test's deck returns: its value, and the deck as the implementation
/// left it, which replaces the test's.
pub struct WithDeck<T> {
    pub value: T,
    pub deck: crate::deck::Deck,
}

impl<T: Wire> Wire for WithDeck<T> {
    fn put(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        self.value.put(out)?;
        self.deck.put(out)
    }
    fn take(input: &mut (impl Read + ?Sized)) -> io::Result<WithDeck<T>> {
        Ok(WithDeck {
            value: T::take(input)?,
            deck: crate::deck::Deck::take(input)?,
        })
    }
}

/// In a test: calls constructor `method` of the implementation, lending it `deck` (the
/// first argument, then those `args` writes), answering calls back with `answerer`; puts the
/// deck back as the implementation left it, and returns what it returned.
pub fn ask_lending_deck<R: Wire>(
    method: u64,
    deck: &mut crate::deck::Deck,
    args: impl FnOnce(&mut Vec<u8>) -> io::Result<()>,
    answerer: &mut dyn Answerer,
) -> R {
    let lent = |out: &mut Vec<u8>| {
        deck.put(out)?;
        args(out)
    };
    let played: WithDeck<R> = ask(CONSTRUCTORS, method, lent, answerer);
    *deck = played.deck;
    played.value
}

/// A method of a stand-in, by its position in its type's `ALL`.
pub fn method_of<M: Copy>(all: &[M], method: u64) -> io::Result<M> {
    usize::try_from(method)
        .ok()
        .and_then(|n| all.get(n).copied())
        .ok_or_else(|| io::Error::other(format!("no method {method}")))
}
