//! The reference's answers to bulk groups, kept on disk so that they are computed once,
//! not once per submission: each group's inputs and reply frames as the reference gave
//! them, compressed. An entry is keyed by all that decides its answers (the request, which
//! holds the spec's inputs and rules, and the reference, api and grader it came from) and
//! is read whole and checked before it is used: a damaged or truncated entry is removed
//! and the answers computed again, never trusted.
//!
//! The store is never where a build or a runner can read: beside the builds' folders, not
//! in one.

use std::io;
use std::path::{Path, PathBuf};

use grader_api::assignment::Asked;
use grader_api::source::Window;
use grader_api::wire::{put_varint, take_varint};

/// Overrides where the store is.
pub const STORE_ENV: &str = "CARDGRADE_ANSWERS_DIR";
/// Starts every entry; a change of layout changes it.
const MAGIC: &[u8] = b"cardgrade answers 2\n";
/// The longest answers an entry may say it holds: the largest group's are about 100 MiB.
const MOST_BYTES: u64 = 1 << 30;
/// What the reference's answers were computed by: the reference's and grader-api's
/// sources and the grader's version, hashed by build.rs.
const MADE_BY: &str = env!("CARDGRADE_ANSWERS_DIGEST");

/// One input and its reply frames, as the reference answered them.
pub struct Record<'a> {
    pub input: &'a [u8],
    pub frames: &'a [u8],
}

/// A folder of entries.
pub struct Store {
    dir: PathBuf,
}

impl Store {
    pub fn at(dir: impl Into<PathBuf>) -> Store {
        Store { dir: dir.into() }
    }

    /// The store `CARDGRADE_ANSWERS_DIR` names, else `answers` beside the builds.
    pub fn default_for(builds: &Path) -> Store {
        match std::env::var_os(STORE_ENV) {
            Some(dir) => Store::at(dir),
            None => Store::at(builds.join("answers")),
        }
    }

    /// The answers kept for `request`, whole and checked; None when there are none or the
    /// entry is damaged, which is then removed.
    pub fn load(&self, request: &dyn Asked) -> Option<Answers> {
        let path = self.path_of(request);
        let bytes = std::fs::read(&path).ok()?;
        let answers = read_entry(&bytes, &key(request), request.input_count());
        if answers.is_none() {
            let _ = std::fs::remove_file(&path);
        }
        answers
    }

    /// Keeps `answers`, all of `request`'s, written whole or not at all.
    pub fn save(&self, request: &dyn Asked, answers: &Answers) -> io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let path = self.path_of(request);
        let partial = path.with_extension(format!("partial-{}", std::process::id()));
        std::fs::write(&partial, encoded(&key(request), answers))?;
        std::fs::rename(&partial, &path)
    }

    fn path_of(&self, request: &dyn Asked) -> PathBuf {
        let hash = crate::compile::stable_hash(&key(request));
        self.dir
            .join(format!("{}-{hash:016x}.lz4", request.assignment()))
    }
}

#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// Spec files or folders [default: the built-in specs].
    #[arg(long = "spec", value_name = "PATH")]
    pub specs: Vec<PathBuf>,
    /// Only this assignment's groups (repeatable).
    #[arg(long = "assignment", value_name = "NAME")]
    pub assignments: Vec<String>,
    /// The folder to keep them in [default: `CARDGRADE_ANSWERS_DIR`, else `answers`
    /// beside the builds, where `grader check` looks].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// `grader cache build`: the reference's answers to every bulk group, computed and kept
/// now, so that no submission waits for them.
pub fn run(args: BuildArgs) -> std::process::ExitCode {
    crate::exit::done_or_usage(build(&args))
}

fn build(args: &BuildArgs) -> Result<(), String> {
    let suite = crate::spec::load(&args.specs, &[], None).map_err(|e| e.to_string())?;
    let store = match &args.out {
        Some(dir) => Store::at(dir),
        None => Store::default_for(
            &crate::compile::builds_folder().map_err(|e| format!("no folder of builds: {e}"))?,
        ),
    };
    let kept = keep_all(&store, &suite, &args.assignments)?;
    println!(
        "the answers of {} bulk groups are kept in {}",
        kept.len(),
        store.dir.display()
    );
    Ok(())
}

/// Computes and keeps the answers of every bulk test of `suite` (of `assignments`, when
/// any is named) that `store` does not hold yet; the entries that hold them.
pub fn keep_all(
    store: &Store,
    suite: &crate::spec::Suite,
    assignments: &[String],
) -> Result<Vec<PathBuf>, String> {
    let reference = reference::submission();
    let mut kept = Vec::new();
    for (group, test) in suite.tests() {
        let wanted = assignments.is_empty()
            || assignments
                .iter()
                .any(|name| name == group.assignment.name());
        if !wanted || test.grading != grader_api::spec::Grading::Bulk {
            continue;
        }
        let request = &*test.request;
        if store.load(request).is_none() {
            let mut answers = Answers::default();
            request.respond(&reference, &mut |input, frames| {
                answers.push(input, frames);
                true
            });
            store
                .save(request, &answers)
                .map_err(|e| format!("cannot keep the answers of {}: {e}", test.id))?;
        }
        kept.push(store.path_of(request));
    }
    Ok(kept)
}

/// What decides a request's answers: who computed them, the assignment and the request.
fn key(request: &dyn Asked) -> Vec<u8> {
    let mut key = Vec::new();
    key.extend_from_slice(MADE_BY.as_bytes());
    key.push(0);
    key.extend_from_slice(request.assignment().as_bytes());
    key.push(0);
    key.extend_from_slice(request.payload());
    key
}

/// An entry: the key, what it holds, and the answers compressed.
fn encoded(key: &[u8], answers: &Answers) -> Vec<u8> {
    let mut entry = MAGIC.to_vec();
    // Writing into memory cannot fail.
    let _ = put_varint(&mut entry, key.len() as u64);
    entry.extend_from_slice(key);
    let _ = put_varint(&mut entry, answers.inputs);
    let _ = put_varint(&mut entry, answers.stream.len() as u64);
    let _ = put_varint(&mut entry, u64::from(crc32fast::hash(&answers.stream)));
    // LZ4: it decompresses several times faster than the reference answers.
    entry.extend_from_slice(&lz4_flex::block::compress(&answers.stream));
    entry
}

/// The answers in an entry, if it is whole: its key is `key`, it decompresses to the
/// length it says, and its records are `inputs` in number and end where it ends.
fn read_entry(bytes: &[u8], key: &[u8], inputs: u64) -> Option<Answers> {
    let mut rest = bytes.strip_prefix(MAGIC)?;
    let key_length = usize::try_from(take_varint(&mut rest).ok()?).ok()?;
    let (stored_key, mut rest) = rest.split_at_checked(key_length)?;
    if stored_key != key || take_varint(&mut rest).ok()? != inputs {
        return None;
    }
    let length = take_varint(&mut rest).ok()?;
    let checksum = take_varint(&mut rest).ok()?;
    if length > MOST_BYTES {
        return None;
    }
    let mut stream = vec![0; usize::try_from(length).ok()?];
    let written = lz4_flex::block::decompress_into(rest, &mut stream).ok()?;
    if written as u64 != length || u64::from(crc32fast::hash(&stream)) != checksum {
        return None;
    }
    let answers = Answers { stream, inputs };
    let mut counted = 0;
    let parsed = answers.each(|_| {
        counted += 1;
        true
    });
    (parsed && counted == inputs).then_some(answers)
}

/// A bulk group's answers as the reference gave them, input by input.
#[derive(Default)]
pub struct Answers {
    stream: Vec<u8>,
    inputs: u64,
}

/// Where one record lies in a stream of them: its input from `start`, its frames from
/// `frames_start`, up to `end`, where the next record begins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub start: usize,
    pub frames_start: usize,
    pub end: usize,
}

/// Where the record beginning at byte `at` of `stream` lies, if a whole one begins there.
pub fn place_at(stream: &[u8], at: usize) -> Option<Place> {
    let mut rest = stream.get(at..)?;
    let mut length = || {
        take_varint(&mut rest)
            .ok()
            .and_then(|n| usize::try_from(n).ok())
    };
    let (input_length, frames_length) = (length()?, length()?);
    let start = stream.len() - rest.len();
    let frames_start = start.checked_add(input_length)?;
    let end = frames_start.checked_add(frames_length)?;
    (end <= stream.len()).then_some(Place {
        start,
        frames_start,
        end,
    })
}

impl Answers {
    /// Adds one input and its reply frames.
    pub fn push(&mut self, input: &[u8], frames: &[u8]) {
        // Writing into memory cannot fail.
        let _ = put_varint(&mut self.stream, input.len() as u64);
        let _ = put_varint(&mut self.stream, frames.len() as u64);
        self.stream.extend_from_slice(input);
        self.stream.extend_from_slice(frames);
        self.inputs += 1;
    }

    /// Adds the answers to the inputs that follow these.
    pub fn append(&mut self, later: &Answers) {
        self.stream.extend_from_slice(&later.stream);
        self.inputs += later.inputs;
    }

    pub fn inputs(&self) -> u64 {
        self.inputs
    }

    /// The records, laid end to end.
    pub fn into_stream(self) -> Vec<u8> {
        self.stream
    }

    /// Calls `visit` with each record in order until it returns false; false when the
    /// stream does not parse.
    pub fn each(&self, mut visit: impl FnMut(Record<'_>) -> bool) -> bool {
        let mut at = 0;
        while at < self.stream.len() {
            let Some(place) = place_at(&self.stream, at) else {
                return false;
            };
            at = place.end;
            let record = Record {
                input: &self.stream[place.start..place.frames_start],
                frames: &self.stream[place.frames_start..place.end],
            };
            if !visit(record) {
                break;
            }
        }
        true
    }

    /// The part of the stream that holds each window's records, in a stream that parses.
    pub fn parts(&self, windows: &[Window]) -> Vec<&[u8]> {
        let mut bounds: Vec<u64> = windows
            .iter()
            .flat_map(|w| [w.start, w.end])
            .map(|n| n.min(self.inputs))
            .collect();
        bounds.sort_unstable();
        bounds.dedup();
        let mut offsets = Vec::with_capacity(bounds.len());
        let (mut at, mut number) = (0, 0u64);
        for bound in &bounds {
            while number < *bound {
                at = place_at(&self.stream, at).map_or(self.stream.len(), |place| place.end);
                number += 1;
            }
            offsets.push(at);
        }
        let offset = |n: u64| offsets[bounds.partition_point(|&b| b < n.min(self.inputs))];
        windows
            .iter()
            .map(|w| &self.stream[offset(w.start)..offset(w.end)])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answers() -> Answers {
        let mut answers = Answers::default();
        answers.push(b"hand one", b"\x01\x02");
        answers.push(b"hand two", b"");
        answers.push(b"", b"\x03");
        answers
    }

    fn records(answers: &Answers) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut all = Vec::new();
        assert!(answers.each(|record| {
            all.push((record.input.to_vec(), record.frames.to_vec()));
            true
        }));
        all
    }

    #[test]
    fn each_window_gets_the_part_of_the_stream_holding_its_records() {
        let kept = answers();
        let windows = [
            Window { start: 0, end: 1 },
            Window { start: 1, end: 3 },
            Window { start: 3, end: 3 },
        ];
        let parts = kept.parts(&windows);
        let mut whole = Answers::default();
        for part in &parts {
            whole.stream.extend_from_slice(part);
        }
        assert_eq!(whole.stream, kept.stream);
        assert_eq!(place_at(parts[0], 0).map(|p| p.end), Some(parts[0].len()));
        assert_eq!(&parts[1][2..10], b"hand two");
        assert!(parts[2].is_empty());
    }

    #[test]
    fn a_whole_entry_reads_back_record_for_record() {
        let kept = answers();
        let read = read_entry(&encoded(b"key", &kept), b"key", 3).expect("a whole entry");
        assert_eq!(records(&read), records(&kept));
    }

    #[test]
    fn an_entry_of_another_key_or_count_is_not_used() {
        let bytes = encoded(b"key", &answers());
        assert!(read_entry(&bytes, b"another key", 3).is_none());
        assert!(read_entry(&bytes, b"key", 4).is_none());
    }

    #[test]
    fn a_truncated_or_damaged_entry_is_never_trusted() {
        let bytes = encoded(b"key", &answers());
        for cut in 0..bytes.len() {
            assert!(
                read_entry(&bytes[..cut], b"key", 3).is_none(),
                "cut at {cut}"
            );
        }
        for at in MAGIC.len()..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x20;
            if let Some(read) = read_entry(&damaged, b"key", 3) {
                // A flipped bit the checks cannot see must leave the answers as they were.
                assert_eq!(records(&read), records(&answers()), "flip at {at}");
            }
        }
    }
}
