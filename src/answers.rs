//! The reference's answers to bulk groups, kept on disk so that they are computed once,
//! not once per submission: each group's inputs and reply frames as the reference gave
//! them, compressed in blocks, each block's frames apart from its inputs so that a
//! runner's replies are compared with a stretch of them at once. An entry is keyed by all
//! that decides its answers (the request, which holds the spec's inputs and rules, and the
//! reference, api and grader it came from). Its layout is checked when it is opened, and each block when it is read,
//! before any of its answers is used: a damaged or truncated entry is removed and the
//! answers computed again, never trusted. A block at a time is held, so a grader holding
//! an entry of a hundred megabytes of answers needs a few hundred kilobytes for them.
//!
//! The store is never where a build or a runner can read: beside the builds' folders, not
//! in one.

use std::io;
use std::path::{Path, PathBuf};

use grader_api::source::Window;
use grader_api::unit::{Answered, Asked};
use grader_api::wire::{put_varint, take_varint};

mod records;

pub use records::{Answers, Bound, Place};

/// Overrides where the store is.
pub const STORE_ENV: &str = "CARDGRADE_ANSWERS_DIR";
/// Starts every entry; a change of layout changes it.
const MAGIC: &[u8] = b"cardgrade answers 4\n";
/// The longest part of a block of answers an entry may say it holds.
const MOST_BLOCK_BYTES: u64 = 1 << 26;
/// Inputs per block: a block is a few hundred kilobytes of answers.
pub const BLOCK_INPUTS: u64 = 1 << 14;
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
        self.write_whole(&self.path_of(request), &encoded(&key(request), answers))
    }

    /// The store's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file `name` of the store.
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Writes `bytes` to `path` of the store whole or not at all: under another name,
    /// then renamed.
    pub fn write_whole(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let partial = path.with_extension(format!("partial-{}", std::process::id()));
        std::fs::write(&partial, bytes)?;
        std::fs::rename(&partial, path)
    }

    /// Where the answers to `request` are kept.
    pub fn path_of(&self, request: &dyn Asked) -> PathBuf {
        let hash = crate::compile::stable_hash(&key(request));
        self.dir
            .join(format!("{}-{hash:016x}.lz4", request.assignment()))
    }
}

/// What decides a request's answers: who computed them, the assignment and the request.
pub(crate) fn key(request: &dyn Asked) -> Vec<u8> {
    let mut key = Vec::new();
    key.extend_from_slice(MADE_BY.as_bytes());
    key.push(0);
    key.extend_from_slice(request.assignment().as_bytes());
    key.push(0);
    key.extend_from_slice(request.payload());
    key
}

/// An entry: the key, how many inputs it holds, and their answers in blocks, each with
/// its inputs, its checksum, and for each of its parts (the index, the inputs, the frames)
/// its length uncompressed and compressed; then the parts, compressed.
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
    /// Adds the answers to the inputs that follow these: a block of their own when they
    /// fill one and none are open, compressed where they lie, not copied.
    pub fn add(&mut self, answers: &Answers) {
        if self.open.inputs() == 0 && answers.inputs() >= BLOCK_INPUTS {
            self.seal_block(answers);
            return;
        }
        self.open.append(answers);
        self.seal_when_full();
    }

    /// Adds one input and its reply frames.
    pub fn push(&mut self, answered: Answered) {
        self.open.push(answered);
        self.seal_when_full();
    }

    fn seal_when_full(&mut self) {
        if self.open.inputs() >= BLOCK_INPUTS {
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
        self.inputs + self.open.inputs()
    }

    /// Makes the open answers a block.
    fn seal(&mut self) {
        if self.open.inputs() == 0 {
            return;
        }
        let mut open = std::mem::take(&mut self.open);
        self.seal_block(&open);
        open.clear();
        self.open = open;
    }

    /// Adds `answers` as the next block.
    fn seal_block(&mut self, answers: &Answers) {
        let parts = answers.parts();
        // LZ4: it decompresses several times faster than the reference answers.
        let compressed = parts.map(lz4_flex::block::compress);
        // Writing into memory cannot fail.
        let _ = put_varint(&mut self.sealed, answers.inputs());
        let _ = put_varint(&mut self.sealed, u64::from(checksum(parts)));
        for (part, compressed) in parts.iter().zip(&compressed) {
            let _ = put_varint(&mut self.sealed, part.len() as u64);
            let _ = put_varint(&mut self.sealed, compressed.len() as u64);
        }
        for compressed in compressed {
            self.sealed.extend_from_slice(&compressed);
        }
        self.count += 1;
        self.inputs += answers.inputs();
    }
}

/// The checksum of a block's parts, one after another.
fn checksum(parts: [&[u8]; 3]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    for part in parts {
        hasher.update(part);
    }
    hasher.finalize()
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
    checksum: u32,
    /// Its parts: each one's length, and where its compressed bytes lie in the entry.
    parts: [(usize, std::ops::Range<usize>); 3],
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
            let checksum = u32::try_from(number(&mut rest)?).ok()?;
            let mut lengths = [(0, 0); 3];
            for (length, compressed) in &mut lengths {
                *length = number(&mut rest)?;
                *compressed = usize::try_from(number(&mut rest)?).ok()?;
            }
            if block_inputs == 0 || lengths.iter().any(|&(length, _)| length > MOST_BLOCK_BYTES) {
                return None;
            }
            let mut start = bytes.len() - rest.len();
            let parts = lengths.map(|(length, compressed)| {
                let place = start..start.saturating_add(compressed);
                start = place.end;
                (length as usize, place)
            });
            rest = bytes.get(start..)?;
            blocks.push(Block {
                first,
                inputs: block_inputs,
                checksum,
                parts,
            });
            first = first.checked_add(block_inputs)?;
        }
        (rest.is_empty() && first == inputs).then_some(Kept { bytes, blocks })
    }

    /// Block `index` in `into`, whose room it reuses; whether it decompressed to its
    /// lengths and checksum and holds its inputs.
    fn block_into(&self, index: usize, into: &mut Answers) -> bool {
        let Some(block) = self.blocks.get(index) else {
            return false;
        };
        for ((length, compressed), part) in block.parts.iter().zip(into.parts_mut()) {
            // Resized, not cleared: only room it did not have yet is zeroed.
            part.resize(*length, 0);
            match lz4_flex::block::decompress_into(&self.bytes[compressed.clone()], part) {
                Ok(written) if written == *length => {}
                _ => return false,
            }
        }
        checksum(into.parts()) == block.checksum && into.read_bounds(block.inputs)
    }

    /// Whether every block is whole.
    pub fn is_whole(&self) -> bool {
        let mut answers = Answers::default();
        (0..self.blocks.len()).all(|index| self.block_into(index, &mut answers))
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
    /// Puts the answers to the window's inputs in the next block, checked, in `into`
    /// (reusing its room); `Ok(false)` after the window's last, and `Err` with the number
    /// of the first input not read when the block is damaged.
    pub fn next_records(&mut self, into: &mut Answers) -> Result<bool, u64> {
        let Some(block) = self
            .kept
            .blocks
            .get(self.block)
            .filter(|_| self.next < self.end)
        else {
            return Ok(false);
        };
        let after = block.first + block.inputs;
        let whole = self.next == block.first && self.end >= after;
        if whole {
            if !self.kept.block_into(self.block, into) {
                return Err(self.next);
            }
        } else {
            // The window starts or ends inside this block.
            let mut answers = Answers::default();
            if !self.kept.block_into(self.block, &mut answers) {
                return Err(self.next);
            }
            let window = Window {
                start: self.next - block.first,
                end: self.end.min(after) - block.first,
            };
            *into = answers.part(window);
        }
        self.block += 1;
        self.next = self.end.min(after);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each input and its frames.
    type Records = Vec<(Vec<u8>, Vec<u8>)>;

    /// Answers to `count` inputs, of every length up to a few bytes, some with no frames.
    fn answers(count: u64) -> Records {
        (0..count)
            .map(|n| {
                let input = n.to_le_bytes()[..(n % 3) as usize + 1].to_vec();
                let mut frames = Vec::new();
                for _ in 0..n % 4 {
                    grader_api::protocol::put_reply(
                        &mut frames,
                        &grader_api::protocol::Reply::Answer(n as u8),
                    );
                }
                (input, frames)
            })
            .collect()
    }

    /// How many frames `frames` holds, laid end to end.
    fn frames_in(frames: &[u8]) -> u64 {
        let mut count = 0;
        grader_api::protocol::each_frame(frames, |_| count += 1);
        count
    }

    /// A record as the reference's answering gives it.
    fn answered((input, frames): &(Vec<u8>, Vec<u8>)) -> Answered<'_> {
        Answered {
            input,
            frames,
            replies: frames_in(frames),
        }
    }

    /// The records, added an input at a time.
    fn blocks_of(records: &[(Vec<u8>, Vec<u8>)]) -> Blocks {
        let mut blocks = Blocks::default();
        for record in records {
            blocks.push(answered(record));
        }
        blocks
    }

    /// An entry of `records` under the key `key`.
    fn entry(records: &Records) -> Vec<u8> {
        encoded(b"key", blocks_of(records))
    }

    /// The records `answers` hold, checking each one's count of frames.
    fn records_of(answers: &Answers) -> Records {
        (0..answers.inputs() as usize)
            .map(|number| {
                let place = answers.place(number).expect("a record of each input");
                let frames = answers.frames()[place.frames.clone()].to_vec();
                assert_eq!(place.replies, frames_in(&frames));
                (answers.input(&place).to_vec(), frames)
            })
            .collect()
    }

    /// What `reader` reads, or the number of the first input it could not.
    fn read_all(mut reader: KeptReader) -> Result<Records, u64> {
        let (mut all, mut block) = (Vec::new(), Answers::default());
        while reader.next_records(&mut block)? {
            all.extend(records_of(&block));
        }
        Ok(all)
    }

    /// The records of the inputs in `window`.
    fn part(records: &Records, window: Window) -> Records {
        records[window.start as usize..window.end as usize].to_vec()
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
            let window_in_total = Window {
                start: window.start,
                end: window.end.min(total),
            };
            assert_eq!(
                read_all(kept.reader(window)),
                Ok(part(&answers, window_in_total))
            );
        }
    }

    #[test]
    fn every_answer_counts_the_frames_it_carries() {
        let reference = reference::submission();
        let suite = crate::spec::load(&[], &[], None).expect("the built-in specs load");
        let mut answered_inputs = 0;
        for (_, test) in suite.tests() {
            let first = Window { start: 0, end: 50 };
            test.request
                .respond_within(&reference, first, &mut |answered| {
                    assert_eq!(answered.replies, frames_in(answered.frames), "{}", test.id);
                    answered_inputs += 1;
                    true
                });
        }
        assert!(
            answered_inputs > 1_000,
            "only {answered_inputs} inputs answered"
        );
    }

    #[test]
    fn a_chunk_with_the_room_of_another_holds_as_much_again_without_growing() {
        let records = answers(BLOCK_INPUTS);
        let mut full = Answers::default();
        for record in &records {
            full.push(answered(record));
        }
        let mut next = full.with_room_of();
        assert_eq!(next.inputs(), 0);
        let room: Vec<usize> = next.parts_mut().map(|part| part.capacity()).to_vec();
        for record in &records {
            next.push(answered(record));
        }
        let after: Vec<usize> = next.parts_mut().map(|part| part.capacity()).to_vec();
        assert_eq!(room, after, "no part grew");
        assert_eq!(records_of(&next), records);
    }

    #[test]
    fn an_entry_of_another_key_or_count_or_layout_is_not_used() {
        let bytes = entry(&answers(3));
        assert!(Kept::read(bytes.clone(), b"another key", 3).is_none());
        assert!(Kept::read(bytes.clone(), b"key", 4).is_none());
        // An entry of the layout before, whose records held each input beside its frames.
        let mut before = b"cardgrade answers 3\n".to_vec();
        before.extend_from_slice(&bytes[MAGIC.len()..]);
        assert!(Kept::read(before, b"key", 3).is_none());
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
                Ok(read) => assert_eq!(read, answers, "flip at {at}"),
                Err(first) => assert!(first == 0 || first == BLOCK_INPUTS, "flip at {at}"),
            }
        }
    }
}
