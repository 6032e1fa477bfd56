//! A runner's replies as they arrive: passed on in place, the expected ones at once, an
//! item cut short held until the rest comes.

use std::io::{self, BufRead};

use grader_api::protocol::{self, Item};

/// Takes a runner's replies as they arrive.
pub trait Replies {
    /// One whole reply frame; `false` to hear no more.
    fn take(&mut self, frame: &[u8]) -> bool;

    /// Takes the whole reply frames `bytes` start with that are the replies expected next,
    /// if it knows them, without their being read one by one; what it took.
    fn take_expected(&mut self, _bytes: &[u8]) -> Taken {
        Taken::default()
    }
}

/// The replies at the start of a runner's bytes that [`Replies::take_expected`] took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Taken {
    pub bytes: usize,
    pub replies: u64,
}

/// A closure takes the replies one by one.
impl<F: FnMut(&[u8]) -> bool> Replies for F {
    fn take(&mut self, frame: &[u8]) -> bool {
        self(frame)
    }
}

/// What [`pass_items`] did with the items a runner's bytes start with.
#[derive(Debug)]
pub struct Passed {
    /// The bytes of the items passed on.
    pub used: usize,
    /// The replies among them.
    pub taken: u64,
    pub stop: Option<Stop>,
}

/// Why [`pass_items`] stopped before the bytes ran out, or before an item cut short.
#[derive(Debug, PartialEq, Eq)]
pub enum Stop {
    /// At the end of the replies to request number `0`.
    End(u64),
    /// The replies were refused: the receiver heard no more.
    Refused,
}

/// Passes the whole items `bytes` start with to `replies`: at once the replies it
/// expects, and the items between one by one; up to the end of the replies, a reply it
/// refuses, or an item not all there.
fn pass_items(bytes: &[u8], replies: &mut impl Replies) -> io::Result<Passed> {
    let mut passed = Passed {
        used: 0,
        taken: 0,
        stop: None,
    };
    while passed.stop.is_none() {
        let expected = replies.take_expected(&bytes[passed.used..]);
        passed.used += expected.bytes;
        passed.taken += expected.replies;
        let Some(item) = protocol::item_in(&bytes[passed.used..]) else {
            break;
        };
        let (item, length) = item?;
        let item_bytes = &bytes[passed.used..passed.used + length];
        passed.used += length;
        passed.stop = match item {
            Item::Reply => {
                passed.taken += 1;
                (!replies.take(item_bytes)).then_some(Stop::Refused)
            }
            Item::End(ended) => Some(Stop::End(ended)),
        };
    }
    Ok(passed)
}

/// A tag and a length of at most ten bytes: an item's header is no longer.
const MOST_ITEM_HEADER: usize = 11;

/// Passes on the whole items that have arrived in `answers` (see [`pass_items`]), in place
/// where they can be. An item cut short by the end of what has arrived is moved to `held`,
/// and the rest is added to it as it comes, up to its end: a read that gives up while the
/// rest is on its way (the runner is looked at between reads) loses none of it.
pub fn pass_arrived(
    answers: &mut impl BufRead,
    held: &mut Vec<u8>,
    replies: &mut impl Replies,
) -> io::Result<Passed> {
    let arrived = answers.fill_buf()?;
    if arrived.is_empty() {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    if held.is_empty() {
        let passed = pass_items(arrived, replies)?;
        let used = match passed.used {
            0 => {
                held.extend_from_slice(arrived);
                arrived.len()
            }
            used => used,
        };
        answers.consume(used);
        return Ok(passed);
    }
    let missing = match protocol::item_header(held) {
        Some(Ok((_, length))) => length.saturating_sub(held.len()),
        Some(Err(error)) => return Err(error),
        None => MOST_ITEM_HEADER,
    };
    let added = missing.min(arrived.len());
    held.extend_from_slice(&arrived[..added]);
    answers.consume(added);
    let passed = pass_items(held, replies)?;
    held.drain(..passed.used);
    Ok(passed)
}
