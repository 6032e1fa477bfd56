//! The byte format between grader and runner: varints, tags, and a [`Wire`] impl per type.
//!
//! Hand-written rather than a serialization framework: bulk groups stream millions of
//! answers, and the runner should not pay for more than it needs.

use std::io::{self, Read, Write};

use crate::card::Card;

/// A value that crosses the pipe.
pub trait Wire: Sized {
    fn put(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()>;
    fn take(input: &mut (impl Read + ?Sized)) -> io::Result<Self>;

    /// The largest values of this type whose encodings fit in about `budget` bytes, one for
    /// each shape it takes (each variant, and each variant of what those hold): the answers
    /// a hostile runner may send at the protocol's limits, which the grader must read within
    /// its caps. The macros below give every struct and enum its own from its fields; a type
    /// written by hand that an answer holds must write it, or the fuzz test that reads every
    /// assignment's largest answers says which type has none.
    #[cfg(feature = "spec")]
    fn largest(_budget: usize) -> Vec<Self> {
        Vec::new()
    }
}

/// The `n`th of `T`'s largest shapes within `budget`, going round when `T` has fewer;
/// `fresh` is set when `T` has a shape at `n`, so that a value built from several fields
/// stops when none has a new one.
#[cfg(feature = "spec")]
#[doc(hidden)]
pub fn nth_largest<T: Wire>(budget: usize, n: usize, fresh: &mut bool) -> T {
    let mut shapes = T::largest(budget);
    assert!(
        !shapes.is_empty(),
        "{} has no largest value: write its `Wire::largest`",
        std::any::type_name::<T>()
    );
    *fresh |= n < shapes.len();
    let at = n % shapes.len();
    shapes.swap_remove(at)
}

/// The values a struct or a variant of fields makes from its fields' largest shapes, each
/// field given an equal part of `budget`: the first of every field's shapes, then the
/// second, until no field has another.
#[cfg(feature = "spec")]
#[doc(hidden)]
pub fn largest_by_fields<T>(mut build: impl FnMut(usize, &mut bool) -> T) -> Vec<T> {
    let mut values = Vec::new();
    for n in 0.. {
        let mut fresh = n == 0;
        let value = build(n, &mut fresh);
        if !fresh {
            break;
        }
        values.push(value);
    }
    values
}

#[cfg(feature = "spec")]
fn encoded_len<T: Wire>(value: &T) -> usize {
    let mut bytes = Vec::new();
    value.put(&mut bytes).map_or(0, |()| bytes.len())
}

pub fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

/// Texts longer than this are refused, so a hostile length cannot make us allocate.
const MAX_TEXT: u64 = 1 << 20;
/// Lists longer than this are refused for the same reason.
const MAX_LIST: u64 = 1 << 18;

#[inline]
pub fn put_varint(out: &mut (impl Write + ?Sized), value: u64) -> io::Result<()> {
    // Most varints (lengths, counts, ranks) fit in one byte: written as one, inlined, a
    // single store where `out` is a Vec.
    match value {
        0..0x80 => out.write_all(&[value as u8]),
        _ => put_long_varint(out, value),
    }
}

fn put_long_varint(out: &mut (impl Write + ?Sized), mut value: u64) -> io::Result<()> {
    let mut buf = [0u8; 10];
    let mut len = 0;
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            buf[len] = byte;
            len += 1;
            break;
        }
        buf[len] = byte | 0x80;
        len += 1;
    }
    out.write_all(&buf[..len])
}

fn take_byte(input: &mut (impl Read + ?Sized)) -> io::Result<u8> {
    let mut byte = [0u8; 1];
    input.read_exact(&mut byte)?;
    Ok(byte[0])
}

#[inline]
pub fn take_varint(input: &mut (impl Read + ?Sized)) -> io::Result<u64> {
    // As in `put_varint`: a varint of one byte is read inlined, with no loop.
    match take_byte(input)? {
        first @ 0..0x80 => Ok(u64::from(first)),
        first => take_long_varint(first, input),
    }
}

/// The rest of a varint whose `first` byte says more follow.
fn take_long_varint(first: u8, input: &mut (impl Read + ?Sized)) -> io::Result<u64> {
    let mut value = u64::from(first & 0x7f);
    for shift in (7..64).step_by(7) {
        let byte = take_byte(input)?;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(invalid("varint longer than 64 bits"))
}

/// A tag: which variant of an enum follows.
pub fn take_tag(input: &mut (impl Read + ?Sized), below: u64) -> io::Result<u64> {
    let tag = take_varint(input)?;
    if tag < below {
        Ok(tag)
    } else {
        Err(invalid("unknown tag"))
    }
}

impl Wire for u64 {
    fn put(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        put_varint(out, *self)
    }
    fn take(input: &mut (impl Read + ?Sized)) -> io::Result<u64> {
        take_varint(input)
    }
    #[cfg(feature = "spec")]
    fn largest(_budget: usize) -> Vec<Self> {
        vec![u64::MAX]
    }
}

impl Wire for u32 {
    fn put(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        put_varint(out, u64::from(*self))
    }
    fn take(input: &mut (impl Read + ?Sized)) -> io::Result<u32> {
        u32::try_from(take_varint(input)?).map_err(|_| invalid("number too large"))
    }
    #[cfg(feature = "spec")]
    fn largest(_budget: usize) -> Vec<Self> {
        vec![u32::MAX]
    }
}

impl Wire for u8 {
    fn put(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        put_varint(out, u64::from(*self))
    }
    fn take(input: &mut (impl Read + ?Sized)) -> io::Result<u8> {
        u8::try_from(take_varint(input)?).map_err(|_| invalid("number too large"))
    }
    #[cfg(feature = "spec")]
    fn largest(_budget: usize) -> Vec<Self> {
        vec![u8::MAX]
    }
}

impl Wire for i64 {
    fn put(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        put_varint(out, ((*self << 1) ^ (*self >> 63)) as u64)
    }
    fn take(input: &mut (impl Read + ?Sized)) -> io::Result<i64> {
        let raw = take_varint(input)?;
        Ok(((raw >> 1) as i64) ^ -((raw & 1) as i64))
    }
    #[cfg(feature = "spec")]
    fn largest(_budget: usize) -> Vec<Self> {
        vec![i64::MIN]
    }
}

impl Wire for bool {
    fn put(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        put_varint(out, u64::from(*self))
    }
    fn take(input: &mut (impl Read + ?Sized)) -> io::Result<bool> {
        Ok(take_tag(input, 2)? == 1)
    }
    #[cfg(feature = "spec")]
    fn largest(_budget: usize) -> Vec<Self> {
        vec![true]
    }
}

impl Wire for String {
    fn put(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        put_varint(out, self.len() as u64)?;
        out.write_all(self.as_bytes())
    }
    fn take(input: &mut (impl Read + ?Sized)) -> io::Result<String> {
        let len = take_len(input, MAX_TEXT)?;
        let mut bytes = vec![0u8; len];
        input.read_exact(&mut bytes)?;
        String::from_utf8(bytes).map_err(|_| invalid("text is not UTF-8"))
    }
    #[cfg(feature = "spec")]
    fn largest(budget: usize) -> Vec<Self> {
        let bytes = budget.saturating_sub(10).min(MAX_TEXT as usize);
        vec!["♥".repeat(bytes / '♥'.len_utf8())]
    }
}

fn take_len(input: &mut (impl Read + ?Sized), limit: u64) -> io::Result<usize> {
    let len = take_varint(input)?;
    if len > limit {
        return Err(invalid("length beyond the protocol's limit"));
    }
    Ok(len as usize)
}

impl<T: Wire> Wire for Vec<T> {
    fn put(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        put_varint(out, self.len() as u64)?;
        self.iter().try_for_each(|item| item.put(out))
    }
    fn take(input: &mut (impl Read + ?Sized)) -> io::Result<Vec<T>> {
        let len = take_len(input, MAX_LIST)?;
        (0..len).map(|_| T::take(input)).collect()
    }
    /// One list as long as the wire takes and the budget holds, of every shape of `T` in turn.
    #[cfg(feature = "spec")]
    fn largest(budget: usize) -> Vec<Self> {
        let item_budget = (budget / MAX_LIST as usize).max(1);
        let widest = T::largest(item_budget)
            .iter()
            .map(encoded_len)
            .max()
            .unwrap_or(0);
        let count = (budget.saturating_sub(10) / widest.max(1)).min(MAX_LIST as usize);
        let mut fresh = false;
        vec![
            (0..count)
                .map(|n| nth_largest(item_budget, n, &mut fresh))
                .collect(),
        ]
    }
}

impl<T: Wire> Wire for Option<T> {
    fn put(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        match self {
            None => put_varint(out, 0),
            Some(value) => {
                put_varint(out, 1)?;
                value.put(out)
            }
        }
    }
    fn take(input: &mut (impl Read + ?Sized)) -> io::Result<Option<T>> {
        Ok(match take_tag(input, 2)? {
            0 => None,
            _ => Some(T::take(input)?),
        })
    }
    #[cfg(feature = "spec")]
    fn largest(budget: usize) -> Vec<Self> {
        T::largest(budget.saturating_sub(1))
            .into_iter()
            .map(Some)
            .collect()
    }
}

impl Wire for Card {
    fn put(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        out.write_all(&[self.index()])
    }
    fn take(input: &mut (impl Read + ?Sized)) -> io::Result<Card> {
        Card::from_index(take_byte(input)?).ok_or_else(|| invalid("card index past 51"))
    }
    #[cfg(feature = "spec")]
    fn largest(_budget: usize) -> Vec<Self> {
        Card::from_index(51).into_iter().collect()
    }
}

/// Implements [`Wire`] for a fieldless enum through its position in an `ALL` list.
#[macro_export]
#[doc(hidden)]
macro_rules! wire_by_position {
    ($type:ty) => {
        impl $crate::wire::Wire for $type {
            fn put(&self, out: &mut (impl std::io::Write + ?Sized)) -> std::io::Result<()> {
                let position = <$type>::ALL.iter().position(|v| v == self).unwrap_or(0);
                $crate::wire::put_varint(out, position as u64)
            }
            fn take(input: &mut (impl std::io::Read + ?Sized)) -> std::io::Result<$type> {
                let tag = $crate::wire::take_tag(input, <$type>::ALL.len() as u64)?;
                Ok(<$type>::ALL[tag as usize])
            }
            #[cfg(feature = "spec")]
            fn largest(_budget: usize) -> Vec<$type> {
                <$type>::ALL.to_vec()
            }
        }
    };
}

/// Implements [`Wire`] for a struct, field by field in the order listed.
#[macro_export]
#[doc(hidden)]
macro_rules! wire_struct {
    ($type:ident { $($field:ident),* $(,)? }) => {
        impl $crate::wire::Wire for $type {
            fn put(&self, out: &mut (impl std::io::Write + ?Sized)) -> std::io::Result<()> {
                $( $crate::wire::Wire::put(&self.$field, out)?; )*
                Ok(())
            }
            fn take(input: &mut (impl std::io::Read + ?Sized)) -> std::io::Result<$type> {
                Ok($type { $( $field: $crate::wire::Wire::take(input)?, )* })
            }
            #[cfg(feature = "spec")]
            fn largest(budget: usize) -> Vec<$type> {
                let share = budget / <[&str]>::len(&[$(stringify!($field)),*]).max(1);
                $crate::wire::largest_by_fields(|n, fresh| $type {
                    $( $field: $crate::wire::nth_largest(share, n, fresh), )*
                })
            }
        }
    };
}

impl Wire for std::cmp::Ordering {
    fn put(&self, out: &mut (impl std::io::Write + ?Sized)) -> std::io::Result<()> {
        put_varint(out, (*self as i8 + 1) as u64)
    }
    fn take(input: &mut (impl std::io::Read + ?Sized)) -> std::io::Result<std::cmp::Ordering> {
        Ok(match take_tag(input, 3)? {
            0 => std::cmp::Ordering::Less,
            1 => std::cmp::Ordering::Equal,
            _ => std::cmp::Ordering::Greater,
        })
    }
    #[cfg(feature = "spec")]
    fn largest(_budget: usize) -> Vec<Self> {
        vec![std::cmp::Ordering::Greater]
    }
}

/// Implements [`Wire`] for an enum: a tag by the variant's position, then its fields in
/// order. Each variant is written as a pattern, naming its fields:
/// `Answer { Refused, Number(value), Choice { positions, problem } }`.
#[macro_export]
#[doc(hidden)]
macro_rules! wire_enum {
    ($type:ident { $($variant:ident $(( $($field:ident),+ ))? $({ $($named:ident),+ })?),+ $(,)? }) => {
        impl $crate::wire::Wire for $type {
            fn put(&self, out: &mut (impl std::io::Write + ?Sized)) -> std::io::Result<()> {
                #[allow(dead_code)]
                enum Tag { $($variant),+ }
                match self {
                    $($type::$variant $(( $($field),+ ))? $({ $($named),+ })? => {
                        $crate::wire::put_varint(out, Tag::$variant as u64)?;
                        $($( $crate::wire::Wire::put($field, out)?; )+)?
                        $($( $crate::wire::Wire::put($named, out)?; )+)?
                        Ok(())
                    })+
                }
            }
            fn take(input: &mut (impl std::io::Read + ?Sized)) -> std::io::Result<$type> {
                #[allow(dead_code)]
                enum Tag { $($variant),+ }
                let tag = $crate::wire::take_varint(input)?;
                $(
                    if tag == Tag::$variant as u64 {
                        return Ok($type::$variant
                            $(( $({ let _ = stringify!($field); $crate::wire::Wire::take(input)? }),+ ))?
                            $({ $($named: $crate::wire::Wire::take(input)?),+ })?);
                    }
                )+
                Err($crate::wire::invalid("unknown tag"))
            }
            #[cfg(feature = "spec")]
            fn largest(budget: usize) -> Vec<$type> {
                let mut values = Vec::new();
                $(
                    let fields = <[&str]>::len(&[$($(stringify!($field)),+)? $($(stringify!($named)),+)?]);
                    let share = budget.saturating_sub(1) / fields.max(1);
                    values.extend($crate::wire::largest_by_fields(|n, fresh| {
                        let _ = (share, n, &fresh);
                        $type::$variant
                            $(( $({ let _ = stringify!($field); $crate::wire::nth_largest(share, n, fresh) }),+ ))?
                            $({ $($named: $crate::wire::nth_largest(share, n, fresh)),+ })?
                    }));
                )+
                values
            }
        }
    };
}

#[cfg(test)]
pub(crate) fn round_trip<T: Wire + PartialEq + std::fmt::Debug>(value: T) {
    let mut bytes = Vec::new();
    value.put(&mut bytes).unwrap();
    assert_eq!(T::take(&mut bytes.as_slice()).unwrap(), value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primitives_round_trip() {
        round_trip(0u64);
        round_trip(u64::MAX);
        round_trip(i64::MIN);
        round_trip(-1i64);
        round_trip(true);
        round_trip("♥ text".to_string());
        round_trip(vec![Some(3u32), None]);
        round_trip(vec!["KH".parse::<Card>().unwrap()]);
    }

    #[test]
    fn a_varint_takes_a_byte_per_seven_bits_and_round_trips_at_each_boundary() {
        for (value, length) in [
            (0, 1),
            (0x7f, 1),
            (0x80, 2),
            (0x3fff, 2),
            (0x4000, 3),
            (u64::MAX, 10),
        ] {
            let mut bytes = Vec::new();
            put_varint(&mut bytes, value).unwrap();
            assert_eq!(bytes.len(), length, "{value:#x} is {bytes:02x?}");
            assert_eq!(take_varint(&mut bytes.as_slice()).unwrap(), value);
        }
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(bool::take(&mut [7u8].as_slice()).is_err());
        assert!(Vec::<u8>::take(&mut [0xff, 0xff, 0xff, 0xff, 0x7f].as_slice()).is_err());
        assert!(Card::take(&mut [52u8].as_slice()).is_err());
        assert!(u64::take(&mut [0xffu8; 11].as_slice()).is_err());
    }

    #[cfg(feature = "spec")]
    #[test]
    fn the_largest_values_fill_their_budget_in_every_shape() {
        #[derive(Debug)]
        enum Shape {
            Empty,
            Pair(u32, Vec<Card>),
            Named { text: String, flag: Option<bool> },
        }
        crate::wire_enum!(Shape {
            Empty,
            Pair(number, cards),
            Named { text, flag }
        });
        let budget = 1 << 16;
        let shapes = Shape::largest(budget);
        assert!(
            matches!(
                &shapes[..],
                [
                    Shape::Empty,
                    Shape::Pair(u32::MAX, _),
                    Shape::Named {
                        flag: Some(true),
                        ..
                    }
                ]
            ),
            "{shapes:?}"
        );
        for shape in &shapes {
            assert!(encoded_len(shape) <= budget, "{shape:?} is over budget");
        }
        // Each field of a variant has half the budget, less what a length takes.
        let filled = |len: usize| len + 20 >= budget / 2;
        assert!(matches!(&shapes[1], Shape::Pair(_, cards) if filled(cards.len())));
        assert!(matches!(&shapes[2], Shape::Named { text, .. } if filled(text.len())));
        let lists = Vec::<Vec<Card>>::largest(1 << 24);
        assert_eq!(
            lists[0].len(),
            MAX_LIST as usize,
            "as many lists as the wire takes"
        );
    }
}
