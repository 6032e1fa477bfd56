//! Where a request's inputs come from: written out in a spec, or generated from a seed.

use std::io::{self, Read, Write};

use crate::wire::{Wire, put_varint, take_tag, take_varint};

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

/// Which of a request's inputs a runner answers: those numbered `start` (from 0) up to,
/// not including, `end`. A bulk group split across runners gives each runner a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub start: u64,
    pub end: u64,
}

impl Window {
    /// Every input.
    pub const ALL: Window = Window {
        start: 0,
        end: u64::MAX,
    };

    /// `visit`, called only with the inputs inside the window: those before it are passed
    /// over unanswered, and the inputs stop after its last. Each assignment wraps the
    /// closure that runs the submission in it, so a runner never runs code for an input
    /// outside its window.
    pub fn only<T>(self, mut visit: impl FnMut(T) -> bool) -> impl FnMut(T) -> bool {
        let mut next = 0u64;
        move |item| {
            let number = next;
            next += 1;
            if number < self.start {
                return true;
            }
            number < self.end && visit(item) && next < self.end
        }
    }
}

impl Wire for Window {
    fn put(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        put_varint(out, self.start)?;
        put_varint(out, self.end)
    }

    fn take(input: &mut (impl Read + ?Sized)) -> io::Result<Window> {
        Ok(Window {
            start: take_varint(input)?,
            end: take_varint(input)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visited(window: Window, count: u64) -> (Vec<u64>, u64) {
        let mut seen = Vec::new();
        let mut offered = 0;
        {
            let mut visit = window.only(|n| {
                seen.push(n);
                true
            });
            for n in 0..count {
                offered += 1;
                if !visit(n) {
                    break;
                }
            }
        }
        (seen, offered)
    }

    #[test]
    fn a_window_visits_its_inputs_and_stops_after_its_last() {
        assert_eq!(visited(Window { start: 3, end: 6 }, 10), (vec![3, 4, 5], 6));
        assert_eq!(visited(Window { start: 0, end: 2 }, 10), (vec![0, 1], 2));
        assert_eq!(visited(Window { start: 8, end: 20 }, 10), (vec![8, 9], 10));
        assert_eq!(
            visited(Window { start: 4, end: 4 }, 10).0,
            Vec::<u64>::new()
        );
        assert_eq!(visited(Window::ALL, 5), (vec![0, 1, 2, 3, 4], 5));
    }
}
