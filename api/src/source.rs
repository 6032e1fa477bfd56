//! Where a request's inputs come from: written out in a spec, or generated from a seed.

use std::io::{self, Read, Write};

use crate::wire::{Wire, put_varint, take_tag};

/// A request's inputs: listed one by one, or made by a generator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source<T, G> {
    Listed(Vec<T>),
    Generated(G),
}

/// Makes inputs from a seed, the same ones on every machine.
pub trait Generator {
    type Item;

    /// How many inputs it makes.
    fn count(&self) -> u32;

    /// Calls `visit` with each input in order; stops early when it returns `false`.
    fn generate(&self, visit: &mut dyn FnMut(Self::Item) -> bool);
}

impl<T: Clone, G: Generator<Item = T>> Source<T, G> {
    pub fn len(&self) -> u64 {
        match self {
            Source::Listed(items) => items.len() as u64,
            Source::Generated(generator) => u64::from(generator.count()),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `visit` with each input in order; stops early when it returns `false`.
    pub fn for_each(&self, mut visit: impl FnMut(T) -> bool) {
        match self {
            Source::Listed(items) => {
                for item in items {
                    if !visit(item.clone()) {
                        return;
                    }
                }
            }
            Source::Generated(generator) => generator.generate(&mut visit),
        }
    }
}

impl<T: Wire, G: Wire> Wire for Source<T, G> {
    fn put(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        match self {
            Source::Listed(items) => {
                put_varint(out, 0)?;
                items.put(out)
            }
            Source::Generated(generator) => {
                put_varint(out, 1)?;
                generator.put(out)
            }
        }
    }

    fn take(input: &mut (impl Read + ?Sized)) -> io::Result<Source<T, G>> {
        Ok(match take_tag(input, 2)? {
            0 => Source::Listed(Wire::take(input)?),
            _ => Source::Generated(Wire::take(input)?),
        })
    }
}
