//! The newest glibc an ELF executable needs, read from its version needs (the
//! `.gnu.version_r` section, what `readelf -V` lists): the Gradescope package refuses a
//! grader that Gradescope's images could not start.

/// A glibc version, `(major, minor)`.
pub type Version = (u32, u32);

/// Why an executable's version needs could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ElfError {
    #[error("it is not a 64-bit little-endian ELF file")]
    NotElf64,
    #[error("it is cut short: {0} lies past its end")]
    Truncated(&'static str),
}

/// `SHT_GNU_verneed`: the section listing the symbol versions a file needs.
const VERSION_NEEDS: u64 = 0x6fff_fffe;

fn bytes<const N: usize>(elf: &[u8], at: u64, what: &'static str) -> Result<[u8; N], ElfError> {
    usize::try_from(at)
        .ok()
        .and_then(|at| elf.get(at..at.checked_add(N)?))
        .and_then(|slice| slice.try_into().ok())
        .ok_or(ElfError::Truncated(what))
}

fn u16_at(elf: &[u8], at: u64, what: &'static str) -> Result<u64, ElfError> {
    Ok(u16::from_le_bytes(bytes(elf, at, what)?).into())
}

fn u32_at(elf: &[u8], at: u64, what: &'static str) -> Result<u64, ElfError> {
    Ok(u32::from_le_bytes(bytes(elf, at, what)?).into())
}

fn u64_at(elf: &[u8], at: u64, what: &'static str) -> Result<u64, ElfError> {
    Ok(u64::from_le_bytes(bytes(elf, at, what)?))
}

/// The NUL-ended name at `at`.
fn name_at(elf: &[u8], at: u64) -> Result<&[u8], ElfError> {
    let start = usize::try_from(at).map_err(|_| ElfError::Truncated("a version's name"))?;
    let rest = elf
        .get(start..)
        .ok_or(ElfError::Truncated("a version's name"))?;
    let end = rest
        .iter()
        .position(|&b| b == 0)
        .ok_or(ElfError::Truncated("a version's name"))?;
    Ok(&rest[..end])
}

/// The highest `GLIBC_x.y` version the executable `elf` needs; `None` for one that needs
/// no versioned glibc symbol (a static executable).
pub fn highest_needed(elf: &[u8]) -> Result<Option<Version>, ElfError> {
    if elf.get(..6) != Some(b"\x7fELF\x02\x01".as_slice()) {
        return Err(ElfError::NotElf64);
    }
    let sections = u64_at(elf, 0x28, "the section table")?;
    let entry_size = u16_at(elf, 0x3a, "the section table")?;
    let count = u16_at(elf, 0x3c, "the section table")?;
    let mut highest = None;
    // Offsets are added saturating: one past the end is refused as cut short.
    let at = |base: u64, offset: u64| base.saturating_add(offset);
    for index in 0..count {
        let header = at(sections, index.saturating_mul(entry_size));
        if u32_at(elf, at(header, 4), "a section header")? != VERSION_NEEDS {
            continue;
        }
        let mut need = u64_at(elf, at(header, 0x18), "a section header")?;
        let needs = u32_at(elf, at(header, 0x2c), "a section header")?;
        let strings_index = u32_at(elf, at(header, 0x28), "a section header")?;
        let strings_header = at(sections, strings_index.saturating_mul(entry_size));
        let strings = u64_at(elf, at(strings_header, 0x18), "the names' section")?;
        for _ in 0..needs {
            let versions = u16_at(elf, at(need, 2), "a version need")?;
            let mut version = at(need, u32_at(elf, at(need, 8), "a version need")?);
            for _ in 0..versions {
                let name = u32_at(elf, at(version, 8), "a version")?;
                if let Some(found) = glibc_version(name_at(elf, at(strings, name))?) {
                    highest = highest.max(Some(found));
                }
                // A next of 0 ends the list, whatever the count says.
                match u32_at(elf, at(version, 12), "a version")? {
                    0 => break,
                    next => version = at(version, next),
                }
            }
            match u32_at(elf, at(need, 12), "a version need")? {
                0 => break,
                next => need = at(need, next),
            }
        }
    }
    Ok(highest)
}

/// `(2, 34)` for `GLIBC_2.34` (and for `GLIBC_2.34.1`).
fn glibc_version(name: &[u8]) -> Option<Version> {
    let version = std::str::from_utf8(name).ok()?.strip_prefix("GLIBC_")?;
    let mut parts = version.split('.');
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_running_grader_needs_the_glibc_objdump_says() {
        let elf = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let read = highest_needed(&elf).unwrap();
        let out = std::process::Command::new("objdump")
            .arg("-T")
            .arg(std::env::current_exe().unwrap())
            .output()
            .expect("objdump runs");
        let listed = String::from_utf8_lossy(&out.stdout)
            .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
            .filter_map(|word| glibc_version(word.as_bytes()))
            .max();
        assert!(read.is_some());
        assert_eq!(read, listed);
    }

    #[test]
    fn a_file_that_is_not_elf_or_is_cut_short_is_an_error_not_a_panic() {
        assert!(matches!(
            highest_needed(b"#!/bin/sh"),
            Err(ElfError::NotElf64)
        ));
        let elf = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        for cut in [7, 0x40, elf.len() / 2] {
            assert!(highest_needed(&elf[..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn versions_are_read_from_glibc_names_only() {
        assert_eq!(glibc_version(b"GLIBC_2.34"), Some((2, 34)));
        assert_eq!(glibc_version(b"GLIBC_2.2.5"), Some((2, 2)));
        assert_eq!(glibc_version(b"GCC_3.0"), None);
    }
}
