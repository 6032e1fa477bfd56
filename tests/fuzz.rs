//! Arbitrary input at the grader's doors from outside (issue 12): text to the card parser,
//! bytes and YAML to the spec loader, and reply frames, as a hostile runner could send
//! them, to every decoder of runner answers. Every call runs on a thread of its own and
//! must return within [`HANG`], without panicking, and allocating at most
//! [`MOST_ALLOCATED`] at once.
//!
//! Each property runs proptest's default number of cases; `PROPTEST_CASES` sets another,
//! for the long run that docs/fuzzing.md records.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Read;
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use grader::spec::{SpecErrors, load, parse};
use grader_api::protocol::{self, Hello, PROTOCOL_VERSION};
use grader_api::wire::{Wire, put_varint};
use grader_api::{Card, Suit};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::Config;

/// A call still running after this has hung: the slowest here takes milliseconds, and a
/// machine busy with other builds is slower, not a thousand times slower.
const HANG: Duration = Duration::from_secs(30);
/// The most one call may hold at once beyond what it was handed.
const MOST_ALLOCATED: usize = 64 << 20;

// ---------------------------------------------------------------------------------------
// The harness: a counting allocator, and a call on a thread of its own.

/// Counts the heap bytes each thread holds and their peak, so that one call is held to
/// the cap while other tests allocate on their own threads.
struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count(change: isize) {
    // A thread being torn down may still free; those bytes belong to no call.
    let _ = LIVE.try_with(|live| {
        let now = live.get() + change;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

// SAFETY: every call goes to the system allocator as it came; only its size is counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() {
            count(layout.size() as isize);
        }
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let block = unsafe { System.alloc_zeroed(layout) };
        if !block.is_null() {
            count(layout.size() as isize);
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        unsafe { System.dealloc(block, layout) };
        count(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = unsafe { System.realloc(block, layout, new_size) };
        if !moved.is_null() {
            count(new_size as isize - layout.size() as isize);
        }
        moved
    }
}

/// `call`'s result and the most it held at once, in bytes.
fn with_peak<T>(call: impl FnOnce() -> T) -> (T, usize) {
    let start = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(start));
    let value = call();
    let peak = PEAK.with(Cell::get) - start;
    (value, peak.max(0) as usize)
}

/// Runs `call` on a thread of its own and returns what it returned; panics if it
/// panicked, ran past [`HANG`] (left running: the test has failed) or held more than
/// [`MOST_ALLOCATED`].
fn bounded<T: Send + 'static>(what: &str, call: impl FnOnce() -> T + Send + 'static) -> T {
    let (done, finished) = mpsc::channel();
    let worker = std::thread::spawn(move || {
        let outcome = with_peak(call);
        let _ = done.send(());
        outcome
    });
    // A call that panicked drops the sender: `join` below tells which it was.
    if let Err(RecvTimeoutError::Timeout) = finished.recv_timeout(HANG) {
        panic!("{what} did not return within {HANG:?}");
    }
    let (value, peak) = worker
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    assert!(
        peak <= MOST_ALLOCATED,
        "{what} held {peak} bytes at once; the cap is {MOST_ALLOCATED}"
    );
    value
}

fn config() -> Config {
    // Failures are kept as plain #[test]s of their input, not as files beside this one.
    Config {
        failure_persistence: None,
        ..Config::default()
    }
}

#[test]
fn the_harness_catches_a_hang_a_panic_and_a_large_allocation() {
    let panicked = std::panic::catch_unwind(|| bounded("a panic", || panic!("on purpose")));
    assert!(panicked.is_err());
    let large = std::panic::catch_unwind(|| {
        bounded("a large allocation", || vec![1u8; MOST_ALLOCATED + 1].len())
    });
    assert!(large.is_err());
    let (held, peak) = with_peak(|| vec![1u8; 1 << 20]);
    assert!(peak >= 1 << 20, "{peak}");
    drop(held);
    assert_eq!(bounded("a small call", || 2 + 2), 4);
}

// ---------------------------------------------------------------------------------------
// The card parser.

/// What the card parser must make of `text`: if a card, one that reads back from how it
/// is shown; if not, a message saying what a card looks like.
fn parsed_card(text: String) -> Result<Option<Card>, TestCaseError> {
    let shown = format!("{text:?}");
    let parsed = bounded("parsing a card", move || text.parse::<Card>());
    match parsed {
        Ok(card) => {
            prop_assert_eq!(card.to_string().parse::<Card>(), Ok(card), "{}", shown);
            Ok(Some(card))
        }
        Err(error) => {
            let message = error.to_string();
            prop_assert!(message.contains("like `KH`"), "{}: {}", shown, message);
            Ok(None)
        }
    }
}

/// What a rank written for a test is.
#[derive(Clone, Copy, Debug)]
enum Rank {
    Value(u8),
    /// Not a rank, whatever stands around it.
    Not,
    /// Any text, which may happen to spell a rank.
    Anything,
}

/// A rank as people might write it.
fn rank() -> impl Strategy<Value = (String, Rank)> {
    let known = prop_oneof![
        (2u8..=9).prop_map(|value| (value.to_string(), Rank::Value(value))),
        select(vec![
            ("10", 10),
            ("T", 10),
            ("t", 10),
            ("J", 11),
            ("j", 11),
            ("Q", 12),
            ("q", 12),
            ("K", 13),
            ("k", 13),
            ("A", 14),
            ("a", 14),
        ])
        .prop_map(|(text, value)| (text.to_string(), Rank::Value(value))),
    ];
    let not = select(vec![
        "", "0", "1", "01", "11", "1O", "TT", "10 ", "٣", "Ⅻ", "X", "KK", "-2", "+2",
    ])
    .prop_map(|text| (text.to_string(), Rank::Not));
    prop_oneof![
        3 => known,
        1 => not,
        1 => any::<String>().prop_map(|text| (text, Rank::Anything)),
    ]
}

/// A suit as people might write it, and the suit where it is one.
fn suit() -> impl Strategy<Value = (String, Option<Suit>)> {
    let known = select(vec![
        ("C", Suit::Clubs),
        ("c", Suit::Clubs),
        ("♣", Suit::Clubs),
        ("♧", Suit::Clubs),
        ("D", Suit::Diamonds),
        ("d", Suit::Diamonds),
        ("♦", Suit::Diamonds),
        ("♢", Suit::Diamonds),
        ("H", Suit::Hearts),
        ("h", Suit::Hearts),
        ("♥", Suit::Hearts),
        ("♡", Suit::Hearts),
        ("S", Suit::Spades),
        ("s", Suit::Spades),
        ("♠", Suit::Spades),
        ("♤", Suit::Spades),
    ])
    .prop_map(|(text, suit)| (text.to_string(), Some(suit)));
    let unknown = select(vec![
        "",
        "X",
        "♥\u{fe0f}",
        "🂡",
        "é",
        "HH",
        "\u{0}",
        "Ｈ",
        "ꞩ",
    ])
    .prop_map(|text| (text.to_string(), None));
    prop_oneof![3 => known, 1 => unknown]
}

/// Space around a card, and whether it is the kind the parser trims.
fn margin() -> impl Strategy<Value = (String, bool)> {
    select(vec![
        ("", true),
        (" ", true),
        ("  ", true),
        ("\t", true),
        ("\n", true),
        ("\u{a0}", true),
        ("\u{3000}", true),
        ("\u{200b}", false),
        ("_", false),
    ])
    .prop_map(|(text, trimmed)| (text.to_string(), trimmed))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_card_parser_takes_any_text(text in any::<String>()) {
        parsed_card(text)?;
    }

    #[test]
    fn the_card_parser_takes_any_bytes(bytes in vec(any::<u8>(), 0..16)) {
        parsed_card(String::from_utf8_lossy(&bytes).into_owned())?;
    }

    #[test]
    fn the_card_parser_reads_every_spelling_of_a_card_and_nothing_else(
        (before, leading) in margin(),
        (rank, value) in rank(),
        (suit, suit_is) in suit(),
        (after, trailing) in margin(),
    ) {
        let text = format!("{before}{rank}{suit}{after}");
        let parsed = parsed_card(text.clone())?;
        let expected = match (value, suit_is, leading && trailing) {
            (Rank::Anything, _, _) => parsed,
            (Rank::Value(value), Some(suit), true) => Some(Card::new(value, suit).unwrap()),
            _ => None,
        };
        prop_assert_eq!(parsed, expected, "{:?}", text);
        // In single quotes YAML folds a line break into a space, which is trimmed too.
        let yaml = format!("'{}'", text.replace('\'', "''"));
        let read = bounded("reading a card from YAML", move || {
            serde_yaml::from_str::<Card>(&yaml).ok()
        });
        if !matches!(value, Rank::Anything) {
            prop_assert_eq!(read, expected, "{:?}", text);
        }
    }
}

const FILE: &str = "fuzz.yaml";

// ---------------------------------------------------------------------------------------
// What these tests found, each as the input that showed it.

/// An endless stream: `head`, then `body` repeated.
struct Endless {
    head: Vec<u8>,
    body: Vec<u8>,
    sent: u64,
}

impl Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut written = 0;
        while written < buf.len() {
            let at = self.sent as usize;
            let byte = match self.head.get(at) {
                Some(&byte) => byte,
                None => self.body[(at - self.head.len()) % self.body.len()],
            };
            buf[written] = byte;
            written += 1;
            self.sent += 1;
        }
        Ok(written)
    }
}

#[test]
fn a_hello_without_end_is_refused_after_a_bounded_read() {
    let mut head = Vec::new();
    PROTOCOL_VERSION.put(&mut head).unwrap();
    protocol::API_VERSION.to_string().put(&mut head).unwrap();
    // As many names as a list may hold, each as long as a text may be.
    put_varint(&mut head, 1 << 18).unwrap();
    let mut name = Vec::new();
    put_varint(&mut name, 1 << 20).unwrap();
    name.extend(std::iter::repeat_n(b'a', 1 << 20));
    let (refused, sent) = bounded("reading an endless hello", move || {
        let mut runner = Endless {
            head,
            body: name,
            sent: 0,
        };
        let refused = Hello::read(&mut runner).is_err();
        (refused, runner.sent)
    });
    assert!(refused);
    assert!(
        sent <= protocol::MOST_HELLO_BYTES,
        "read {sent} bytes of a hello"
    );
}

#[test]
fn a_spec_that_never_ends_is_refused_at_the_size_cap() {
    // A device has no size to check first: only reading tells.
    let refusal = bounded("loading /dev/zero as a spec", || {
        load(&[PathBuf::from("/dev/zero")], &[], None)
            .err()
            .map(|SpecErrors(errors)| errors)
    });
    let errors = refusal.expect("an endless spec is refused");
    let [error] = &errors[..] else {
        panic!("one error for one file: {errors:?}")
    };
    assert_eq!(error.file, "/dev/zero");
    assert!(error.message.contains("longer than"), "{}", error.message);
}

// YAML ends a line at a lone `\r` too, and so do editors: the grader's own places must
// count lines as the parser does, or they point past the line they name.
#[test]
fn a_bracket_after_a_lone_carriage_return_is_placed_on_the_line_it_is_on() {
    let Err(SpecErrors(errors)) = parse(FILE, "groups: {{'\r': assignment}: [[]}", None) else {
        panic!("an unclosed bracket is refused");
    };
    assert_eq!(errors[0].location, Some((2, 17)), "{}", errors[0].message);
    assert!(
        errors[0].message.contains("never closed"),
        "{}",
        errors[0].message
    );
}

#[test]
fn a_case_after_a_lone_carriage_return_is_placed_on_the_line_it_is_on() {
    let text = "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n      - {\rname: c, hand: [KH, KD] }\n";
    let suite = parse(FILE, text, None).unwrap();
    let (_, test) = suite.tests().next().unwrap();
    assert_eq!(test.location, Some((7, 1)));
}

#[test]
fn a_test_after_a_letter_of_two_bytes_is_placed_at_the_column_of_its_name() {
    let text = "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n      - { id: café, name: c, hand: [KH, KD] }\n";
    let suite = parse(FILE, text, None).unwrap();
    let (_, test) = suite.tests().next().unwrap();
    assert_eq!(test.location, Some((6, 21)));
}

/// A spec of one group whose `count` cases are each refused, named `name` and a number, or
/// all `name` when `numbered` is false.
fn refusing_every_case(count: usize, numbered: bool) -> String {
    let cases: String = (0..count)
        .map(|i| match numbered {
            true => format!("      - {{ name: c{i}, hand: [KH, KH] }}\n"),
            false => "      - { name: c, hand: [KH, KH] }\n".to_string(),
        })
        .collect();
    format!(
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n{cases}"
    )
}

#[test]
fn cases_of_one_name_each_refused_are_each_placed_at_their_own_line() {
    let Err(SpecErrors(errors)) = parse(FILE, &refusing_every_case(3, false), None) else {
        panic!("a hand with a card twice is refused");
    };
    let lines: Vec<usize> = errors
        .iter()
        .filter_map(|e| e.location)
        .map(|(line, _)| line)
        .collect();
    assert_eq!(lines, [6, 7, 8]);
}

#[test]
fn a_spec_whose_every_case_is_refused_is_placed_in_one_reading() {
    // Placing each case's problem from the top of the file took minutes for this one.
    let text = refusing_every_case(20_000, true);
    let errors = bounded("placing 20,000 refused cases", move || {
        parse(FILE, &text, None)
            .err()
            .map(|SpecErrors(errors)| errors.len())
    });
    assert_eq!(errors, Some(20_000));
}

#[test]
fn a_case_of_a_group_written_on_one_line_is_placed_at_its_name() {
    let text = "assignment: plaisante_hand\ngroups:\n  - { name: g, check: has_pair, cases: [{ name: c, hand: [KH, KD] }] }\n";
    let suite = parse(FILE, text, None).unwrap();
    let (_, test) = suite.tests().next().unwrap();
    assert_eq!(test.location, Some((3, 43)));
}

#[test]
fn a_spec_of_groups_each_written_on_one_line_is_placed_in_one_reading() {
    // A case was looked for only below its group's line, so these were never found, and
    // each search read to the end of the file: minutes for 80,000 such groups.
    let groups: String = (0..5_000)
        .map(|i| {
            format!("  - {{ name: g{i}, check: has_pair, cases: [{{ name: c, hand: [KH] }}] }}\n")
        })
        .collect();
    let text = format!("assignment: plaisante_hand\ngroups:\n{groups}");
    let placed = bounded("placing 5,000 groups", move || {
        parse(FILE, &text, None)
            .map(|suite| suite.tests().filter(|(_, t)| t.location.is_some()).count())
            .ok()
    });
    assert_eq!(placed, Some(5_000));
}
