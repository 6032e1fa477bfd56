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
}

pub fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

/// Texts longer than this are refused, so a hostile length cannot make us allocate.
const MAX_TEXT: u64 = 1 << 20;
/// Lists longer than this are refused for the same reason.
const MAX_LIST: u64 = 1 << 18;

pub fn put_varint(out: &mut (impl Write + ?Sized), mut value: u64) -> io::Result<()> {
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

pub fn take_varint(input: &mut (impl Read + ?Sized)) -> io::Result<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
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
}

impl Wire for u32 {
    fn put(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        put_varint(out, u64::from(*self))
    }
    fn take(input: &mut (impl Read + ?Sized)) -> io::Result<u32> {
        u32::try_from(take_varint(input)?).map_err(|_| invalid("number too large"))
    }
}

impl Wire for u8 {
    fn put(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        put_varint(out, u64::from(*self))
    }
    fn take(input: &mut (impl Read + ?Sized)) -> io::Result<u8> {
        u8::try_from(take_varint(input)?).map_err(|_| invalid("number too large"))
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
}

impl Wire for bool {
    fn put(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        put_varint(out, u64::from(*self))
    }
    fn take(input: &mut (impl Read + ?Sized)) -> io::Result<bool> {
        Ok(take_tag(input, 2)? == 1)
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
}

impl Wire for Card {
    fn put(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        out.write_all(&[self.index()])
    }
    fn take(input: &mut (impl Read + ?Sized)) -> io::Result<Card> {
        Card::from_index(take_byte(input)?).ok_or_else(|| invalid("card index past 51"))
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
    fn garbage_is_an_error_not_a_panic() {
        assert!(bool::take(&mut [7u8].as_slice()).is_err());
        assert!(Vec::<u8>::take(&mut [0xff, 0xff, 0xff, 0xff, 0x7f].as_slice()).is_err());
        assert!(Card::take(&mut [52u8].as_slice()).is_err());
        assert!(u64::take(&mut [0xffu8; 11].as_slice()).is_err());
    }
}
