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
use std::collections::BTreeSet;
use std::io::Read;
use std::path::PathBuf;
use std::sync::LazyLock;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use grader::spec::{SpecError, SpecErrors, Suite, TestCase, load, parse};
use grader_api::protocol::{self, Hello, Item, MOST_REPLY_BYTES, PROTOCOL_VERSION};
use grader_api::unit::Compared;
use grader_api::wire::{Wire, put_varint};
use grader_api::{Card, Submission, Suit};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{Index, select};
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
fn the_harness_catches_a_panic_and_a_large_allocation_and_counts_what_a_call_holds() {
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

// ---------------------------------------------------------------------------------------
// The spec loader.

const FILE: &str = "fuzz.yaml";

/// What loading `text` must give: a suite whose tests are placed in the text, or an error
/// naming the file, at a line and column of the text when it says one.
fn loaded(text: String) -> Result<(), TestCaseError> {
    let shown = text.clone();
    let outcome = bounded("loading a spec", move || {
        parse(FILE, &text, None).map(|suite| {
            let places: Vec<_> = suite.tests().map(|(_, test)| test.location).collect();
            // The reference answers what a loaded spec asks (the first input of a bulk
            // test): a spec the loader takes must not make the grader's own side fail.
            let reference = reference::submission();
            for (_, test) in suite.tests() {
                first_input(&reference, test);
            }
            places
        })
    });
    match outcome {
        Ok(places) => {
            // A test is placed at the `name:` that names it.
            for (line, column) in places.into_iter().flatten() {
                placed_within(&shown, (line, column))?;
                let at: String = yaml_lines(&shown)[line - 1]
                    .chars()
                    .skip(column - 1)
                    .collect();
                prop_assert!(
                    at.starts_with("name:"),
                    "a test placed at {}:{}, which reads {:?}:\n{}",
                    line,
                    column,
                    at,
                    shown
                );
            }
        }
        Err(SpecErrors(errors)) => {
            prop_assert!(!errors.is_empty(), "refused without a reason:\n{}", shown);
            for SpecError {
                file,
                location,
                message,
            } in errors
            {
                prop_assert_eq!(&file, FILE, "{}", message);
                if let Some(place) = location {
                    placed_within(&shown, place).map_err(|failure| {
                        TestCaseError::fail(format!("{failure}\nerror: {message}"))
                    })?;
                }
            }
        }
    }
    Ok(())
}

/// Whether a line and column (1-based) lie in `text`, or just past its end.
fn placed_within(text: &str, (line, column): (usize, usize)) -> Result<(), TestCaseError> {
    let lines = yaml_lines(text);
    prop_assert!(
        (1..=lines.len() + 1).contains(&line),
        "line {} of a text of {} lines:\n{}",
        line,
        lines.len(),
        text
    );
    // Columns count characters, as an editor and the YAML parser do.
    let width = lines.get(line - 1).map_or(0, |line| line.chars().count());
    prop_assert!(
        (1..=width + 1).contains(&column),
        "column {} of line {} of {} characters:\n{}",
        column,
        line,
        width,
        text
    );
    Ok(())
}

/// `text`'s lines as the YAML parser counts them, as an editor does too: a lone carriage
/// return, a next-line and a line or paragraph separator each end one.
fn yaml_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut start = 0;
    while let Some((at, c)) = chars.next() {
        if matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}') {
            lines.push(&text[start..at]);
            start = at + c.len_utf8();
            if c == '\r' && chars.next_if(|&(_, next)| next == '\n').is_some() {
                start += 1;
            }
        }
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// An input, and the reference's reply frames to it.
type InputWithReplies = (Vec<u8>, Vec<Vec<u8>>);

/// The first input of `test`, and the reference's replies to it.
fn first_input(reference: &Submission, test: &TestCase) -> InputWithReplies {
    let mut first = (Vec::new(), Vec::new());
    test.request.respond(reference, &mut |answered| {
        first.0 = answered.input.to_vec();
        protocol::each_frame(answered.frames, |frame| first.1.push(frame.to_vec()));
        false
    });
    first
}

/// The shipped specs, as written.
static SHIPPED: LazyLock<Vec<String>> = LazyLock::new(|| {
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("specs");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(folder)
        .expect("specs/ is readable")
        .map(|entry| entry.expect("specs/ lists").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| std::fs::read_to_string(path).expect("a shipped spec is readable"))
        .collect()
});

/// Values and marks a spec is made of, and some it should never meet; [`tokens`] adds the
/// assignments' names and every field name the schema knows.
#[rustfmt::skip]
const TOKENS: &[&str] = &[
    "has_pair", "category", "KH", "10h", "T♥", "1X", "0", "-1", "1e300",
    "4294967296", "18446744073709551616", ".nan", ".inf", "0x1F", "0o17", "~", "null",
    "true", "no", "2026-02-30", "9999-12-31", "[", "]", "{", "}", ",", ":", "- ", "? ",
    "&a", "*a", "!!str", "!!map", "!x", "|", ">-", "'", "\"", "#", "%", "@", "`", "\t",
    "\\", "é", "♥", "ǅ", "\u{feff}", "\u{200b}", "\r", "---", "...", "<<",
];

/// [`TOKENS`], every assignment's name, and every field name of the spec schema (a
/// file's, a group's and a case's, of every assignment).
fn tokens() -> Vec<&'static str> {
    static NAMES: LazyLock<BTreeSet<String>> = LazyLock::new(|| {
        fn field_names(schema: &serde_json::Value, into: &mut BTreeSet<String>) {
            match schema {
                serde_json::Value::Object(map) => {
                    if let Some(serde_json::Value::Object(fields)) = map.get("properties") {
                        into.extend(fields.keys().cloned());
                    }
                    map.values().for_each(|value| field_names(value, into));
                }
                serde_json::Value::Array(items) => {
                    items.iter().for_each(|item| field_names(item, into))
                }
                _ => {}
            }
        }
        let mut names: BTreeSet<String> = grader_api::ASSIGNMENTS
            .iter()
            .map(|unit| unit.name().to_string())
            .collect();
        field_names(&grader::schema::spec_schema(), &mut names);
        names
    });
    TOKENS
        .iter()
        .copied()
        .chain(NAMES.iter().map(String::as_str))
        .collect()
}

/// One edit of a spec's lines.
#[derive(Clone, Debug)]
enum Edit {
    Delete(Index),
    Duplicate(Index),
    Swap(Index, Index),
    /// The token at a place of a line replaced with another.
    Replace(Index, Index, &'static str),
    /// A token put at a place of a line.
    Insert(Index, Index, &'static str),
    Indent(Index, usize),
    Dedent(Index),
    /// The line joined to the next.
    Join(Index),
    /// The text cut at a place of a line, as a file written halfway.
    Cut(Index, Index),
}

fn edit() -> impl Strategy<Value = Edit> {
    let token = select(tokens());
    prop_oneof![
        any::<Index>().prop_map(Edit::Delete),
        any::<Index>().prop_map(Edit::Duplicate),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Edit::Swap(a, b)),
        (any::<Index>(), any::<Index>(), token.clone())
            .prop_map(|(line, at, token)| Edit::Replace(line, at, token)),
        (any::<Index>(), any::<Index>(), token)
            .prop_map(|(line, at, token)| Edit::Insert(line, at, token)),
        (any::<Index>(), 1usize..8).prop_map(|(line, by)| Edit::Indent(line, by)),
        any::<Index>().prop_map(Edit::Dedent),
        any::<Index>().prop_map(Edit::Join),
        (any::<Index>(), any::<Index>()).prop_map(|(line, at)| Edit::Cut(line, at)),
    ]
}

/// The byte offsets of `line`'s characters, and its end.
fn boundaries(line: &str) -> Vec<usize> {
    line.char_indices()
        .map(|(at, _)| at)
        .chain([line.len()])
        .collect()
}

/// The byte range of the token of `line` around a place: a run of word characters, or
/// one other character.
fn token_at(line: &str, at: &Index) -> std::ops::Range<usize> {
    let places = boundaries(line);
    let start = places[at.index(places.len())];
    let word = |c: char| c.is_alphanumeric() || c == '_';
    match line[start..].chars().next() {
        None => start..start,
        Some(c) if !word(c) => start..start + c.len_utf8(),
        Some(_) => {
            let begin = line[..start]
                .char_indices()
                .rev()
                .take_while(|&(_, c)| word(c))
                .last()
                .map_or(start, |(at, _)| at);
            let end = line[start..]
                .char_indices()
                .find(|&(_, c)| !word(c))
                .map_or(line.len(), |(at, _)| start + at);
            begin..end
        }
    }
}

fn apply(lines: &mut Vec<String>, edit: &Edit) {
    if lines.is_empty() {
        return;
    }
    let count = lines.len();
    let pick = |index: &Index| index.index(count);
    match edit {
        Edit::Delete(line) => {
            lines.remove(pick(line));
        }
        Edit::Duplicate(line) => {
            let at = pick(line);
            lines.insert(at, lines[at].clone());
        }
        Edit::Swap(a, b) => {
            let (a, b) = (pick(a), pick(b));
            lines.swap(a, b);
        }
        Edit::Replace(line, at, token) => {
            let line = &mut lines[pick(line)];
            let range = token_at(line, at);
            line.replace_range(range, token);
        }
        Edit::Insert(line, at, token) => {
            let line = &mut lines[pick(line)];
            let places = boundaries(line);
            line.insert_str(places[at.index(places.len())], token);
        }
        Edit::Indent(line, by) => {
            let line = &mut lines[pick(line)];
            line.insert_str(0, &" ".repeat(*by));
        }
        Edit::Dedent(line) => {
            let line = &mut lines[pick(line)];
            *line = line.trim_start().to_string();
        }
        Edit::Join(line) => {
            let at = pick(line);
            if at + 1 < lines.len() {
                let next = lines.remove(at + 1);
                lines[at].push_str(&next);
            }
        }
        Edit::Cut(line, at) => {
            let at_line = pick(line);
            lines.truncate(at_line + 1);
            let places = boundaries(&lines[at_line]);
            let cut = places[at.index(places.len())];
            lines[at_line].truncate(cut);
        }
    }
}

/// A shipped spec with a few edits, as an instructor's slip or a corrupted file makes.
fn edited_spec() -> impl Strategy<Value = String> {
    (any::<Index>(), vec(edit(), 1..6)).prop_map(|(spec, edits)| {
        let spec = &SHIPPED[spec.index(SHIPPED.len())];
        let mut lines: Vec<String> = spec.lines().map(str::to_string).collect();
        for edit in &edits {
            apply(&mut lines, edit);
        }
        lines.join("\n") + "\n"
    })
}

/// A YAML node, to be written in block or flow style.
#[derive(Clone, Debug)]
enum Node {
    Scalar(String),
    Alias(&'static str),
    Anchored(&'static str, Box<Node>),
    Tagged(&'static str, Box<Node>),
    /// A `|` or `>-` block scalar of these lines.
    Block(&'static str, Vec<String>),
    Sequence(bool, Vec<Node>),
    Mapping(bool, Vec<(Node, Node)>),
}

/// `text` as a YAML double-quoted scalar, control characters escaped.
fn double_quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' | '\\' => out.extend(['\\', c]),
            c if c.is_control() && u32::from(c) <= 0xffff => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c if c.is_control() => out.push_str(&format!("\\U{:08x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => select(tokens()).prop_map(str::to_string),
        1 => "[a-z_ ]{0,12}",
        1 => any::<String>().prop_map(|text| double_quoted(&text)),
        1 => "'[^'\\p{Cc}]{0,8}'",
        1 => "\"(\\\\([0abtnvfre \"/\\\\N_LP]|x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})|[^\"\\\\\\p{Cc}]){0,8}\"",
        1 => any::<i64>().prop_map(|n| n.to_string()),
        1 => any::<f64>().prop_map(|n| n.to_string()),
    ]
}

fn node() -> impl Strategy<Value = Node> {
    let anchor = select(vec!["a", "b", "c"]);
    let leaf = prop_oneof![
        16 => scalar().prop_map(Node::Scalar),
        1 => anchor.clone().prop_map(Node::Alias),
        1 => (select(vec!["|", ">-", "|+", ">2"]), vec(scalar(), 0..3))
            .prop_map(|(style, lines)| Node::Block(style, lines)),
    ];
    leaf.prop_recursive(8, 64, 6, move |inner| {
        prop_oneof![
            3 => (any::<bool>(), vec(inner.clone(), 0..6))
                .prop_map(|(flow, items)| Node::Sequence(flow, items)),
            3 => (any::<bool>(), vec((inner.clone(), inner.clone()), 0..6))
                .prop_map(|(flow, entries)| Node::Mapping(flow, entries)),
            1 => (anchor.clone(), inner.clone())
                .prop_map(|(name, node)| Node::Anchored(name, Box::new(node))),
            1 => (select(vec!["!!str", "!!seq", "!!map", "!!int", "!x", "!<tag:x>"]), inner)
                .prop_map(|(tag, node)| Node::Tagged(tag, Box::new(node))),
        ]
    })
}

/// `node` in flow style, on one line.
fn flow(node: &Node, out: &mut String) {
    match node {
        Node::Scalar(text) => out.push_str(text),
        Node::Alias(name) => out.push_str(&format!("*{name}")),
        Node::Anchored(name, node) => {
            out.push_str(&format!("&{name} "));
            flow(node, out);
        }
        Node::Tagged(tag, node) => {
            out.push_str(&format!("{tag} "));
            flow(node, out);
        }
        Node::Block(_, lines) => out.push_str(&format!("{:?}", lines.join(" "))),
        Node::Sequence(_, items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                flow(item, out);
            }
            out.push(']');
        }
        Node::Mapping(_, entries) => {
            out.push('{');
            for (i, (key, value)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                flow(key, out);
                out.push_str(": ");
                flow(value, out);
            }
            out.push('}');
        }
    }
}

/// `node` as the value after a key or a dash at `indent`: on that line, or on the lines
/// below, indented further.
fn block(node: &Node, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent + 2);
    match node {
        Node::Sequence(false, items) if !items.is_empty() => {
            for item in items {
                out.push_str(&format!("\n{pad}-"));
                block(item, indent + 2, out);
            }
        }
        Node::Mapping(false, entries) if !entries.is_empty() => {
            for (key, value) in entries {
                out.push_str(&format!("\n{pad}"));
                flow(key, out);
                out.push(':');
                block(value, indent + 2, out);
            }
        }
        Node::Block(style, lines) => {
            out.push_str(&format!(" {style}"));
            for line in lines {
                out.push_str(&format!("\n{pad}{line}"));
            }
        }
        Node::Anchored(name, inner) => {
            out.push_str(&format!(" &{name}"));
            block(inner, indent, out);
        }
        other => {
            out.push(' ');
            flow(other, out);
        }
    }
}

/// A whole document: a node under an assignment's header or alone, with some of what
/// surrounds YAML in files (a directive, a byte-order mark, CRLF, tabs, a second document).
fn document() -> impl Strategy<Value = String> {
    let header = prop_oneof![
        1 => Just(String::new()),
        1 => select(tokens()).prop_map(|name| format!("assignment: {name}\n")),
        6 => select(
            grader_api::ASSIGNMENTS
                .iter()
                .map(|unit| unit.name())
                .collect::<Vec<_>>()
        )
        .prop_map(|name| format!("assignment: {name}\n")),
    ];
    let wrapping = prop_oneof![
        6 => Just(""),
        1 => select(vec!["%YAML 1.2\n---\n", "\u{feff}", "--- !x\n"]),
    ];
    let ending = prop_oneof![
        6 => Just("\n"),
        1 => select(vec!["", "\n---\n", "\n...\n", "\n--- b\n", " # end"]),
    ];
    (
        wrapping,
        header,
        select(vec!["groups", "rules", "defaults", "x"]),
        node(),
        ending,
        0..4u8,
    )
        .prop_map(|(wrapping, header, key, node, ending, style)| {
            let mut body = format!("{key}:");
            block(&node, 0, &mut body);
            let body = match style {
                0 => body.replace('\n', "\r\n"),
                1 => body.replacen("\n  ", "\n\t", 1),
                _ => body,
            };
            format!("{wrapping}{header}{body}{ending}")
        })
}

/// Collections nested deeper than any spec, opened on one line or indented, closed or not.
fn deep() -> impl Strategy<Value = String> {
    let opener = select(vec![
        "[", "{a: ", "- ", "? ", "[{a: ", "!!seq [", "&a [", "\"",
    ]);
    (
        opener,
        prop_oneof![3 => 0usize..40, 1 => 0usize..400],
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(opener, depth, closed, indented, with_header)| {
            let header = match with_header {
                true => "assignment: poker\ngroups:\n",
                false => "",
            };
            let nested = match indented {
                true => (0..depth)
                    .map(|level| format!("{}{}\n", " ".repeat(level), opener.trim_end()))
                    .collect::<String>(),
                false => opener.repeat(depth),
            };
            let closing: String = match closed {
                true => opener
                    .chars()
                    .rev()
                    .filter_map(|c| match c {
                        '[' => Some(']'),
                        '{' => Some('}'),
                        _ => None,
                    })
                    .collect::<String>()
                    .repeat(depth),
                false => String::new(),
            };
            format!("{header}{nested}x{closing}\n")
        })
}

/// Anchors that each repeat the one before, `levels` of them `width` wide: a spec that is
/// small written and huge expanded, where the loader reads any YAML (`expect`) or cards.
fn aliases(levels: usize, width: usize, field: &str) -> String {
    let mut text = String::from(
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n",
    );
    text.push_str(&format!("      - {{ name: c0, {field}: &a0 [KH, KD] }}\n"));
    for level in 1..levels {
        let row = vec![format!("*a{}", level - 1); width].join(", ");
        text.push_str(&format!(
            "      - {{ name: c{level}, {field}: &a{level} [{row}] }}\n"
        ));
    }
    text.push_str(&format!(
        "      - {{ name: last, {field}: *a{} }}\n",
        levels - 1
    ));
    text
}

#[test]
fn the_spec_loader_takes_aliases_that_expand_without_end() {
    for levels in 1..12 {
        for width in 1..12 {
            for field in ["hand: [KH], expect", "hand"] {
                let text = aliases(levels, width, field);
                loaded(text).unwrap_or_else(|failure| panic!("{failure}"));
            }
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_spec_loader_takes_any_bytes(bytes in vec(any::<u8>(), 0..256)) {
        loaded(String::from_utf8_lossy(&bytes).into_owned())?;
    }

    #[test]
    fn the_spec_loader_takes_any_bytes_after_an_assignment(
        unit in any::<Index>(),
        bytes in vec(any::<u8>(), 0..256),
    ) {
        let name = grader_api::ASSIGNMENTS[unit.index(grader_api::ASSIGNMENTS.len())].name();
        loaded(format!("assignment: {name}\n{}", String::from_utf8_lossy(&bytes)))?;
    }

    #[test]
    fn the_spec_loader_takes_any_yaml(text in document()) {
        loaded(text)?;
    }

    #[test]
    fn the_spec_loader_takes_any_edit_of_a_shipped_spec(text in edited_spec()) {
        loaded(text)?;
    }

    #[test]
    fn the_spec_loader_takes_deep_nesting(text in deep()) {
        loaded(text)?;
    }
}

#[test]
fn a_spec_file_past_the_size_cap_is_refused_unread() {
    let folder = grader::temp::folder("test-fuzz").expect("a temporary folder can be made");
    let path = folder.path().join("huge.yaml");
    // Sparse: the file is 9 GiB long, but nothing of it is written.
    std::fs::File::create(&path)
        .and_then(|file| file.set_len(9 << 30))
        .expect("a sparse file can be made");
    let refusal = bounded("loading a 9 GiB spec", {
        let path = path.clone();
        move || {
            load(&[path], &[], None)
                .err()
                .map(|SpecErrors(errors)| errors)
        }
    });
    let errors = refusal.expect("a 9 GiB spec is refused");
    let [error] = &errors[..] else {
        panic!("one error for one file: {errors:?}")
    };
    assert_eq!(error.file, path.display().to_string());
    assert!(error.message.contains("at most"), "{}", error.message);
}

// ---------------------------------------------------------------------------------------
// The decoders of runner answers.

static SUITE: LazyLock<Suite> =
    LazyLock::new(|| load(&[], &[], None).expect("the shipped specs load"));
static REFERENCE: LazyLock<Submission> = LazyLock::new(reference::submission);

/// A test of the shipped specs with the first input the reference answers for it, and
/// the reference's replies to every test of its assignment, as frames to bend.
struct Asking {
    test: &'static TestCase,
    input: Vec<u8>,
    replies: Vec<Vec<u8>>,
    frames_to_bend: Vec<Vec<u8>>,
}

static ASKINGS: LazyLock<Vec<Asking>> = LazyLock::new(|| {
    let suite = LazyLock::force(&SUITE);
    // The students' own tests ask the runner nothing: there is no reply of theirs to decode.
    let firsts: Vec<(&TestCase, InputWithReplies)> = suite
        .tests()
        .filter(|(_, test)| test.grading != grader_api::spec::Grading::StudentTests)
        .map(|(_, test)| (test, first_input(&REFERENCE, test)))
        .collect();
    firsts
        .iter()
        .map(|(test, (input, replies))| {
            let assignment = test.request.assignment();
            let frames_to_bend = firsts
                .iter()
                .filter(|(other, _)| other.request.assignment() == assignment)
                .flat_map(|(_, (_, replies))| replies.iter().cloned())
                .collect();
            Asking {
                test,
                input: input.clone(),
                replies: replies.clone(),
                frames_to_bend,
            }
        })
        .collect()
});

/// Every reply of the reference to the first input of a shipped test.
static EVERY_FRAME: LazyLock<Vec<Vec<u8>>> = LazyLock::new(|| {
    ASKINGS
        .iter()
        .flat_map(|asking| asking.replies.iter().cloned())
        .collect()
});

/// A change to a frame's payload.
#[derive(Clone, Debug)]
enum Bend {
    Flip(Index, u8),
    Set(Index, u8),
    Insert(Index, u8),
    Delete(Index),
    /// A number, such as a list's length, put in as a varint.
    Number(Index, u64),
    Cut(Index),
}

fn bend() -> impl Strategy<Value = Bend> {
    let telling = select(vec![0u8, 1, 2, 3, 4, 51, 52, 0x7f, 0x80, 0xff]);
    let number = prop_oneof![
        select(vec![
            1 << 18,
            (1 << 18) + 1,
            1 << 20,
            (1 << 20) + 1,
            1 << 24,
            1 << 32,
            u64::MAX
        ]),
        any::<u64>(),
    ];
    prop_oneof![
        (any::<Index>(), 1..=u8::MAX).prop_map(|(at, mask)| Bend::Flip(at, mask)),
        (any::<Index>(), telling.clone()).prop_map(|(at, byte)| Bend::Set(at, byte)),
        (any::<Index>(), telling).prop_map(|(at, byte)| Bend::Insert(at, byte)),
        any::<Index>().prop_map(Bend::Delete),
        (any::<Index>(), number).prop_map(|(at, n)| Bend::Number(at, n)),
        any::<Index>().prop_map(Bend::Cut),
    ]
}

/// A reply frame as a hostile runner might send one.
#[derive(Clone, Debug)]
enum Hostile {
    /// Bytes of any kind.
    Noise(Vec<u8>),
    /// A payload of any bytes, in a frame of this tag and of the right length.
    Framed(u8, Vec<u8>),
    /// One of the reference's frames with its payload bent, in a frame of the right length.
    Bent(Index, Vec<Bend>),
}

fn hostile() -> impl Strategy<Value = Hostile> {
    prop_oneof![
        1 => vec(any::<u8>(), 0..32).prop_map(Hostile::Noise),
        1 => (0u8..5, vec(any::<u8>(), 0..48)).prop_map(|(tag, payload)| Hostile::Framed(tag, payload)),
        4 => (any::<Index>(), vec(bend(), 0..4)).prop_map(|(frame, bends)| Hostile::Bent(frame, bends)),
    ]
}

/// `payload` in a reply frame tagged `tag`.
fn framed(tag: u8, payload: &[u8]) -> Vec<u8> {
    let mut frame = vec![tag];
    put_varint(&mut frame, payload.len() as u64).expect("writing to memory cannot fail");
    frame.extend_from_slice(payload);
    frame
}

/// The tag and payload of a well-formed frame.
fn parts(frame: &[u8]) -> (u8, Vec<u8>) {
    let mut rest = &frame[1..];
    let length =
        grader_api::wire::take_varint(&mut rest).expect("the reference's frames are whole");
    assert_eq!(rest.len() as u64, length);
    (frame[0], rest.to_vec())
}

fn made(hostile: &Hostile, pool: &[Vec<u8>]) -> Vec<u8> {
    match hostile {
        Hostile::Noise(bytes) => bytes.clone(),
        Hostile::Framed(tag, payload) => framed(*tag, payload),
        Hostile::Bent(_, _) if pool.is_empty() => Vec::new(),
        Hostile::Bent(frame, bends) => {
            let (tag, mut payload) = parts(&pool[frame.index(pool.len())]);
            for bend in bends {
                let len = payload.len();
                let place = |at: &Index, after: usize| at.index(len + after);
                match bend {
                    Bend::Flip(at, mask) if !payload.is_empty() => payload[place(at, 0)] ^= mask,
                    Bend::Set(at, byte) if !payload.is_empty() => payload[place(at, 0)] = *byte,
                    Bend::Insert(at, byte) => payload.insert(place(at, 1), *byte),
                    Bend::Delete(at) if !payload.is_empty() => {
                        payload.remove(place(at, 0));
                    }
                    Bend::Number(at, n) => {
                        let at = place(at, 1);
                        let mut varint = Vec::new();
                        put_varint(&mut varint, *n).expect("writing to memory cannot fail");
                        payload.splice(at..at, varint);
                    }
                    Bend::Cut(at) => payload.truncate(place(at, 1)),
                    _ => {}
                }
            }
            framed(tag, &payload)
        }
    }
}

/// Known reply tags: an answer, a panic, an unregistered assignment.
fn is_reply_tag(tag: Option<&u8>) -> bool {
    matches!(tag, Some(1..=3))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_decoder_of_a_test_takes_any_reply(
        test in any::<Index>(),
        position in any::<Index>(),
        sent in vec(hostile(), 1..4),
    ) {
        let asking = &ASKINGS[test.index(ASKINGS.len())];
        let frames: Vec<Vec<u8>> = sent.iter().map(|h| made(h, &asking.frames_to_bend)).collect();
        let unknown_tags: Vec<bool> = frames.iter().map(|f| !is_reply_tag(f.first())).collect();
        let position = match asking.replies.len() {
            0 => 0,
            len => position.index(len),
        };
        let id = asking.test.id.clone();
        let shown = bounded("decoding replies", move || {
            let request = &*asking.test.request;
            let want = asking.replies.get(position).cloned().unwrap_or_default();
            let mut shown = Vec::new();
            for frame in &frames {
                shown.push(request.show(frame));
                request.difference(Compared { reference: &REFERENCE, input: &asking.input, position, expected: &want, actual: Some(frame) });
                request.difference(Compared { reference: &REFERENCE, input: &asking.input, position, expected: frame, actual: Some(&want) });
                request.breakdown(position, &want, frame);
                protocol::panic_of(frame);
            }
            // Where the answers are the submission's own choices, the reference plays
            // them: whatever they are, it must answer.
            if let Some(pinned) = request.pinned(&frames) {
                grader::grade::reference_answers(&REFERENCE, &*pinned);
            }
            shown
        });
        for (shown, unknown) in shown.iter().zip(unknown_tags) {
            if unknown {
                prop_assert!(shown.contains("could not read"), "{}: {}", id, shown);
            }
        }
    }

    #[test]
    fn the_reply_stream_reader_takes_any_bytes(
        items in vec(prop_oneof![
            3 => hostile().prop_map(|h| made(&h, &EVERY_FRAME)),
            1 => any::<u64>().prop_map(|n| {
                let mut end = vec![0];
                put_varint(&mut end, n).expect("writing to memory cannot fail");
                end
            }),
        ], 0..8),
    ) {
        let stream = items.concat();
        let read = bounded("reading a reply stream", move || {
            let mut input = stream.as_slice();
            let mut frame = Vec::new();
            let mut frames = Vec::new();
            while let Ok(item) = protocol::read_item(&mut input, &mut frame) {
                if item == Item::Reply {
                    frames.push(frame.clone());
                }
            }
            frames
        });
        for frame in read {
            prop_assert_eq!(protocol::first_frame(&frame), &frame[..], "not one whole frame");
            prop_assert!(frame.len() as u64 <= MOST_REPLY_BYTES + 16);
        }
    }

    #[test]
    fn frames_laid_end_to_end_come_apart_into_the_bytes_they_were(bytes in vec(any::<u8>(), 0..256)) {
        let pieces = bounded("splitting frames", {
            let bytes = bytes.clone();
            move || {
                let mut pieces: Vec<Vec<u8>> = Vec::new();
                protocol::each_frame(&bytes, |frame| pieces.push(frame.to_vec()));
                pieces
            }
        });
        prop_assert!(pieces.iter().all(|piece| !piece.is_empty()));
        prop_assert_eq!(pieces.concat(), bytes);
    }

    #[test]
    fn the_hello_reader_takes_any_bytes(
        version in prop_oneof![Just(PROTOCOL_VERSION), any::<u64>()],
        rest in vec(any::<u8>(), 0..64),
    ) {
        let mut bytes = Vec::new();
        put_varint(&mut bytes, version).expect("writing to memory cannot fail");
        bytes.extend(rest);
        let hello = bounded("reading a hello", move || Hello::read(&mut bytes.as_slice()).ok());
        if let Some(hello) = hello {
            prop_assert_eq!(hello.protocol, version);
        }
    }
}

/// The last test of `assignment` whose reference answers with the kind of answer `frame` is
/// (its tag and variant), or else the assignment's first test. The last: the shipped specs
/// end with the tests that ask the most of an answer (whole hands, whose choices the
/// reference replays).
fn test_answered_like(assignment: &str, frame: &[u8]) -> &'static Asking {
    let kind = |frame: &[u8]| {
        let (tag, payload) = parts(frame);
        (tag, payload.first().copied())
    };
    let mut of_assignment = ASKINGS
        .iter()
        .filter(|asking| asking.test.request.assignment() == assignment);
    of_assignment
        .clone()
        .find(|asking| {
            asking
                .replies
                .first()
                .is_some_and(|want| kind(want) == kind(frame))
        })
        .or_else(|| of_assignment.next())
        .expect("every assignment has a shipped test")
}

#[test]
fn the_largest_answers_a_runner_may_send_are_read_within_the_caps() {
    for unit in grader_api::ASSIGNMENTS {
        let assignment = unit.name();
        let frames = unit.largest_replies();
        // The last frame is the largest panic; the ones before it, the answers.
        assert!(
            frames.len() > 1,
            "{assignment}'s answer has no largest value: its `Wire::largest` gives none"
        );
        for frame in frames {
            assert!(frame.len() as u64 <= MOST_REPLY_BYTES + 16);
            read_within_the_caps(assignment, frame);
        }
    }
}

/// Every decoder of replies reads `frame`, as the shipped test of `assignment` that is
/// answered like it would.
fn read_within_the_caps(assignment: &'static str, frame: Vec<u8>) {
    let asking = test_answered_like(assignment, &frame);
    let id = &asking.test.id;
    bounded(&format!("{id} reading its largest answer"), move || {
        let request = &*asking.test.request;
        let want = asking.replies.first().cloned().unwrap_or_default();
        request.show(&frame);
        request.difference(Compared {
            reference: &REFERENCE,
            input: &asking.input,
            position: 0,
            expected: &want,
            actual: Some(&frame),
        });
        request.breakdown(0, &want, &frame);
        if let Some(pinned) = request.pinned(&[frame]) {
            grader::grade::reference_answers(&REFERENCE, &*pinned);
        }
    });
}

#[test]
fn a_reply_claiming_4_gib_is_refused_without_allocating_it() {
    let mut header = vec![1u8];
    put_varint(&mut header, 4 << 30).unwrap();
    let (read, peak) = bounded("reading a reply of 4 GiB", move || {
        with_peak(|| {
            protocol::read_item(&mut header.as_slice(), &mut Vec::new()).map_err(|e| e.to_string())
        })
    });
    assert_eq!(
        read,
        Err("a reply longer than the grader reads".to_string())
    );
    assert!(peak < 1 << 10, "held {peak} bytes");
}

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

#[test]
fn a_game_of_the_reference_with_a_table_or_calls_as_large_as_a_frame_holds_is_explained_within_the_caps()
 {
    use grader_api::crazy_eights::{Answer, PlayerTurn, TableSeen, Told};
    use grader_api::protocol::{Reply, decode_reply, put_reply};
    let card: Card = "10H".parse().unwrap();
    let (asking, result, table, told) = ASKINGS
        .iter()
        .find_map(
            |asking| match decode_reply::<Answer>(asking.replies.first()?) {
                Ok(Reply::Answer(Answer::Game {
                    result,
                    table,
                    told,
                })) => Some((asking, result, table, told)),
                _ => None,
            },
        )
        .expect("a shipped test plays a game");
    let huge_table = TableSeen {
        starter: Some(card),
        hands: vec![vec![card; 60]; 1 << 18],
    };
    let turn = PlayerTurn {
        player_id: 1,
        drew_a_card: false,
        played_card: Some(card),
        declared_suit: None,
    };
    // As many seats, and turns in a call, as a list may hold.
    let mut huge_told = vec![Vec::new(); 1 << 18];
    let call = Told {
        before_turn: 1,
        turns: vec![turn; 1 << 18],
    };
    huge_told[0] = vec![call; 8];
    // The same turns as the reference's, so that what differs is the table, or the calls.
    let games = [
        (huge_table, told.clone(), "a huge table"),
        (table, huge_told, "huge calls"),
    ];
    for (table, told, what) in games {
        let mut frame = Vec::new();
        put_reply(
            &mut frame,
            &Reply::Answer(Answer::Game {
                result: result.clone(),
                table,
                told,
            }),
        );
        assert!(frame.len() as u64 <= MOST_REPLY_BYTES, "{what}");
        let explained = bounded(&format!("explaining a game with {what}"), move || {
            let want = &asking.replies[0];
            let request = &asking.test.request;
            let breakdown = request.breakdown(0, want, &frame);
            let difference = request.difference(Compared {
                reference: &REFERENCE,
                input: &asking.input,
                position: 0,
                expected: want,
                actual: Some(&frame),
            });
            (difference.detail.map(|(_, text)| text.len()), breakdown)
        });
        assert!(explained.0.is_some(), "{what}");
        assert!(explained.1.2.len() < 1_000, "{what}: {:?}", explained.1);
    }
}
