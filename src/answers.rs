//! The reference's answers to bulk groups, kept on disk so that they are computed once,
//! not once per submission: each group's inputs and reply frames as the reference gave
//! them, compressed in blocks. An entry is keyed by all that decides its answers (the
//! request, which holds the spec's inputs and rules, and the reference, api and grader it
//! came from). Its layout is checked when it is opened, and each block when it is read,
//! before any of its answers is used: a damaged or truncated entry is removed and the
//! answers computed again, never trusted. A block at a time is held, so a grader holding
//! an entry of a hundred megabytes of answers needs a few hundred kilobytes for them.
//!
//! The store is never where a build or a runner can read: beside the builds' folders, not
//! in one.

use std::io;
use std::path::{Path, PathBuf};

use grader_api::source::Window;
use grader_api::unit::Asked;
use grader_api::wire::{put_varint, take_varint};

/// Overrides where the store is.
pub const STORE_ENV: &str = "CARDGRADE_ANSWERS_DIR";
/// Starts every entry; a change of layout changes it.
const MAGIC: &[u8] = b"cardgrade answers 3\n";
/// The longest block of answers an entry may say it holds.
const MOST_BLOCK_BYTES: u64 = 1 << 26;
/// Inputs per block: a block is a few hundred kilobytes of answers.
const BLOCK_INPUTS: u64 = 1 << 14;
/// What the reference's answers were computed by: the reference's and grader-api's
/// sources and the grader's version, hashed by build.rs.
const MADE_BY: &str = env!("CARDGRADE_ANSWERS_DIGEST");

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

    /// The answers kept for `request`, their layout checked; None when there are none
    /// or the entry is damaged, which is then removed.
    pub fn open(&self, request: &dyn Asked) -> Option<Kept> {
        let path = self.path_of(request);
        let bytes = std::fs::read(&path).ok()?;
        let kept = Kept::read(bytes, &key(request), request.input_count());
        if kept.is_none() {
            self.remove(request);
        }
        kept
    }

    /// Removes the answers kept for `request`, found damaged.
    pub fn remove(&self, request: &dyn Asked) {
        let _ = std::fs::remove_file(self.path_of(request));
    }

    /// Keeps `answers`, all of `request`'s, written whole or not at all.
    pub fn save(&self, request: &dyn Asked, answers: Blocks) -> io::Result<()> {
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
        if store.open(request).is_none_or(|kept| !kept.is_whole()) {
            let mut answers = Blocks::default();
            request.respond(&reference, &mut |input, frames| {
                answers.push(input, frames);
                true
            });
            store
                .save(request, answers)
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

/// An entry: the key, how many inputs it holds, and their answers in blocks, each with
/// its inputs, its length and checksum uncompressed, and its length compressed.
fn encoded(key: &[u8], mut blocks: Blocks) -> Vec<u8> {
    blocks.seal();
    let mut entry = MAGIC.to_vec();
    // Writing into memory cannot fail.
    let _ = put_varint(&mut entry, key.len() as u64);
    entry.extend_from_slice(key);
    let _ = put_varint(&mut entry, blocks.inputs);
    let _ = put_varint(&mut entry, blocks.count);
    entry.extend_from_slice(&blocks.sealed);
    entry
}

/// Answers on their way to an entry, compressed a block at a time as they come: what is
/// held while the reference computes is about the entry's size, not the answers'.
#[derive(Default)]
pub struct Blocks {
    /// The blocks done, each laid out as in the entry.
    sealed: Vec<u8>,
    count: u64,
    /// The inputs the sealed blocks hold.
    inputs: u64,
    /// The answers not yet in a block.
    open: Answers,
}

impl Blocks {
    /// Adds the answers to the inputs that follow these.
    pub fn add(&mut self, answers: &Answers) {
        self.open.append(answers);
        self.seal_when_full();
    }

    /// Adds one input and its reply frames.
    pub fn push(&mut self, input: &[u8], frames: &[u8]) {
        self.open.push(input, frames);
        self.seal_when_full();
    }

    fn seal_when_full(&mut self) {
        if self.open.inputs >= BLOCK_INPUTS {
            self.seal();
        }
    }

    /// Adds the blocks of the inputs that follow these.
    pub fn append(&mut self, mut later: Blocks) {
        self.seal();
        later.seal();
        self.sealed.extend_from_slice(&later.sealed);
        self.count += later.count;
        self.inputs += later.inputs;
    }

    pub fn inputs(&self) -> u64 {
        self.inputs + self.open.inputs
    }

    /// Makes the open answers a block.
    fn seal(&mut self) {
        if self.open.inputs == 0 {
            return;
        }
        let records = &self.open.stream;
        // LZ4: it decompresses several times faster than the reference answers.
        let compressed = lz4_flex::block::compress(records);
        for number in [
            self.open.inputs,
            records.len() as u64,
            u64::from(crc32fast::hash(records)),
            compressed.len() as u64,
        ] {
            // Writing into memory cannot fail.
            let _ = put_varint(&mut self.sealed, number);
        }
        self.sealed.extend_from_slice(&compressed);
        self.count += 1;
        self.inputs += self.open.inputs;
        self.open.stream.clear();
        self.open.inputs = 0;
    }
}

/// An entry opened: its bytes, and where each block is.
pub struct Kept {
    bytes: Vec<u8>,
    blocks: Vec<Block>,
}

struct Block {
    /// The number of its first input, and how many it holds.
    first: u64,
    inputs: u64,
    length: usize,
    checksum: u32,
    /// Where its compressed bytes lie in the entry.
    compressed: std::ops::Range<usize>,
}

impl Kept {
    /// The entry in `bytes`, if its key is `key` and its blocks hold `inputs` inputs and
    /// end where it ends.
    fn read(bytes: Vec<u8>, key: &[u8], inputs: u64) -> Option<Kept> {
        let mut rest = bytes.strip_prefix(MAGIC)?;
        let number = |rest: &mut &[u8]| take_varint(rest).ok();
        let key_length = usize::try_from(number(&mut rest)?).ok()?;
        let (stored_key, mut rest) = rest.split_at_checked(key_length)?;
        if stored_key != key || number(&mut rest)? != inputs {
            return None;
        }
        let count = number(&mut rest)?;
        let mut blocks = Vec::new();
        let mut first = 0u64;
        for _ in 0..count {
            let block_inputs = number(&mut rest)?;
            let length = number(&mut rest)?;
            let checksum = u32::try_from(number(&mut rest)?).ok()?;
            let compressed_length = usize::try_from(number(&mut rest)?).ok()?;
            if length > MOST_BLOCK_BYTES || block_inputs == 0 {
                return None;
            }
            let start = bytes.len() - rest.len();
            rest = rest.get(compressed_length..)?;
            blocks.push(Block {
                first,
                inputs: block_inputs,
                length: length as usize,
                checksum,
                compressed: start..start + compressed_length,
            });
            first = first.checked_add(block_inputs)?;
        }
        (rest.is_empty() && first == inputs).then_some(Kept { bytes, blocks })
    }

    /// The records of block `index`, if it decompresses to its length and checksum and
    /// holds its inputs.
    fn block(&self, index: usize) -> Option<Vec<u8>> {
        let block = self.blocks.get(index)?;
        let mut records = vec![0; block.length];
        let written =
            lz4_flex::block::decompress_into(&self.bytes[block.compressed.clone()], &mut records)
                .ok()?;
        if written != block.length || crc32fast::hash(&records) != block.checksum {
            return None;
        }
        let (mut at, mut inputs) = (0, 0);
        while let Some(place) = place_at(&records, at) {
            at = place.end;
            inputs += 1;
        }
        (at == records.len() && inputs == block.inputs).then_some(records)
    }

    /// Whether every block is whole.
    pub fn is_whole(&self) -> bool {
        (0..self.blocks.len()).all(|index| self.block(index).is_some())
    }

    /// Reads the answers to the inputs in `window`, block by block.
    pub fn reader(&self, window: Window) -> KeptReader<'_> {
        let block = self
            .blocks
            .partition_point(|block| block.first + block.inputs <= window.start);
        KeptReader {
            kept: self,
            block,
            next: window.start,
            end: window.end,
        }
    }
}

/// Reads the answers to a window of inputs from an entry, a block at a time.
pub struct KeptReader<'a> {
    kept: &'a Kept,
    block: usize,
    /// The number of the next input to read, and of the input after the window.
    next: u64,
    end: u64,
}

impl KeptReader<'_> {
    /// The records of the window's inputs in the next block, checked; `Ok(None)` after the
    /// window's last, and `Err` with the number of the first input not read when the
    /// block is damaged.
    pub fn next_records(&mut self) -> Result<Option<Vec<u8>>, u64> {
        let Some(block) = self
            .kept
            .blocks
            .get(self.block)
            .filter(|_| self.next < self.end)
        else {
            return Ok(None);
        };
        let mut records = self.kept.block(self.block).ok_or(self.next)?;
        self.block += 1;
        let after = block.first + block.inputs;
        if self.next == block.first && self.end >= after {
            self.next = after;
            return Ok(Some(records));
        }
        // The window starts or ends inside this block: find where.
        let (mut at, mut number) = (0, block.first);
        let (mut from, mut to) = (0, records.len());
        while let Some(place) = place_at(&records, at) {
            if number == self.next {
                from = at;
            }
            if number == self.end {
                to = at;
                break;
            }
            at = place.end;
            number += 1;
        }
        self.next = number;
        records.truncate(to);
        records.drain(..from);
        Ok(Some(records))
    }
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers to `count` inputs, of every length up to a few bytes, some with no frames.
    fn answers(count: u64) -> Answers {
        let mut answers = Answers::default();
        for n in 0..count {
            let input = n.to_le_bytes();
            let frames = vec![n as u8; (n % 4) as usize];
            answers.push(&input[..(n % 3) as usize + 1], &frames);
        }
        answers
    }

    /// The records laid end to end in `records`, added an input at a time.
    fn blocks_of(records: &[u8]) -> Blocks {
        let mut blocks = Blocks::default();
        let mut at = 0;
        while let Some(place) = place_at(records, at) {
            blocks.push(
                &records[place.start..place.frames_start],
                &records[place.frames_start..place.end],
            );
            at = place.end;
        }
        blocks
    }

    /// An entry of `answers` under the key `key`.
    fn entry(answers: &Answers) -> Vec<u8> {
        encoded(b"key", blocks_of(&answers.stream))
    }

    /// What `reader` reads, or the number of the first input it could not.
    fn read_all(mut reader: KeptReader) -> Result<Vec<u8>, u64> {
        let mut all = Vec::new();
        while let Some(records) = reader.next_records()? {
            all.extend_from_slice(&records);
        }
        Ok(all)
    }

    /// The records of the inputs in `window`, laid end to end.
    fn part(answers: &Answers, window: Window) -> Vec<u8> {
        let mut part = Answers::default();
        let (mut at, mut number) = (0, 0);
        while let Some(place) = place_at(&answers.stream, at) {
            if (window.start..window.end).contains(&number) {
                part.push(
                    &answers.stream[place.start..place.frames_start],
                    &answers.stream[place.frames_start..place.end],
                );
            }
            at = place.end;
            number += 1;
        }
        part.stream
    }

    #[test]
    fn each_window_reads_back_its_records_across_blocks() {
        let total = 2 * BLOCK_INPUTS + 100;
        let answers = answers(total);
        let kept = Kept::read(entry(&answers), b"key", total).expect("a whole entry");
        assert_eq!(kept.blocks.len(), 3);
        assert!(kept.is_whole());
        for (start, end) in [
            (0, total),
            (0, 1),
            (5, BLOCK_INPUTS),
            (BLOCK_INPUTS - 1, BLOCK_INPUTS + 1),
            (total / 2, total),
            (total, total),
        ] {
            let window = Window { start, end };
            assert_eq!(
                read_all(kept.reader(window)),
                Ok(part(&answers, window)),
                "{start}..{end}"
            );
        }
    }

    #[test]
    fn blocks_made_by_windows_apart_read_back_as_one_entry() {
        let total = 2 * BLOCK_INPUTS + 100;
        let answers = answers(total);
        let mut all = Blocks::default();
        for (start, end) in [(0, 5), (5, BLOCK_INPUTS + 3), (BLOCK_INPUTS + 3, total)] {
            all.append(blocks_of(&part(&answers, Window { start, end })));
        }
        assert_eq!(all.inputs(), total);
        let kept = Kept::read(encoded(b"key", all), b"key", total).expect("a whole entry");
        // Blocks end where the windows do: 5 inputs, the second window's 16,382, then a
        // whole block and the last 97.
        let sizes: Vec<u64> = kept.blocks.iter().map(|block| block.inputs).collect();
        assert_eq!(sizes, [5, BLOCK_INPUTS - 2, BLOCK_INPUTS, 97]);
        for window in [
            Window::ALL,
            Window {
                start: 4,
                end: BLOCK_INPUTS + 10,
            },
        ] {
            assert_eq!(read_all(kept.reader(window)), Ok(part(&answers, window)));
        }
    }

    #[test]
    fn an_entry_of_another_key_or_count_is_not_used() {
        let bytes = entry(&answers(3));
        assert!(Kept::read(bytes.clone(), b"another key", 3).is_none());
        assert!(Kept::read(bytes, b"key", 4).is_none());
    }

    #[test]
    fn a_truncated_or_damaged_entry_is_never_trusted() {
        let total = BLOCK_INPUTS + 7;
        let answers = answers(total);
        let bytes = entry(&answers);
        for cut in (0..bytes.len())
            .step_by(97)
            .chain(bytes.len() - 64..bytes.len())
        {
            assert!(
                Kept::read(bytes[..cut].to_vec(), b"key", total).is_none(),
                "cut at {cut}"
            );
        }
        for at in (MAGIC.len()..bytes.len()).step_by(13) {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x20;
            let Some(kept) = Kept::read(damaged, b"key", total) else {
                continue;
            };
            // A flipped bit the checks cannot see must leave the answers as they were; one
            // they see stops the reading at a block's first input.
            match read_all(kept.reader(Window::ALL)) {
                Ok(read) => assert_eq!(read, answers.stream, "flip at {at}"),
                Err(first) => assert!(first == 0 || first == BLOCK_INPUTS, "flip at {at}"),
            }
        }
    }
}
