//! Spec files as the grader reads them: the files of the paths given, each read whole,
//! refused when too big or not UTF-8, at the place of the first byte that is not.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::built_in::built_in;
use super::errors::SpecError;

/// The largest spec file read: loading is linear, but a file this big is a mistake.
const MOST_SPEC_BYTES: u64 = 8 << 20;
/// The text of one spec file, refusing one too big to be a spec unread, and one that is not
/// UTF-8 at the line and column of the first byte that is not.
pub fn read(path: &Path) -> Result<String, SpecError> {
    let unreadable = |location, message: String| SpecError {
        file: path.display().to_string(),
        location,
        message,
    };
    let size = std::fs::metadata(path)
        .map_err(|error| unreadable(None, format!("cannot read the spec: {error}")))?
        .len();
    if size > MOST_SPEC_BYTES {
        return Err(unreadable(
            None,
            format!("the spec is {size} bytes; a spec may be at most {MOST_SPEC_BYTES} (8 MiB)"),
        ));
    }
    // A device or a pipe has no size to check first, and may never end.
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(MOST_SPEC_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|error| unreadable(None, format!("cannot read the spec: {error}")))?;
    if bytes.len() as u64 > MOST_SPEC_BYTES {
        return Err(unreadable(
            None,
            format!(
                "the spec is longer than {MOST_SPEC_BYTES} bytes (8 MiB), the most a spec may be"
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|error| {
        let offset = error.utf8_error().valid_up_to();
        let before = &error.as_bytes()[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |at| at + 1);
        // Valid up to `offset`, so the characters before it on its line can be counted.
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        unreadable(
            Some((line, column)),
            format!(
                "byte {offset} (0x{:02x}) is not UTF-8 text; save the spec as UTF-8",
                error.as_bytes()[offset]
            ),
        )
    })
}

/// The spec files `paths` name: each file as given, each folder's `.yaml` files in order.
pub fn spec_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut inside: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?
                .flatten()
                .map(|entry| entry.path())
                .filter(|p| {
                    p.extension()
                        .is_some_and(|ext| ext == "yaml" || ext == "yml")
                        && !super::kept::is_kept_file(p)
                })
                .collect();
            if inside.is_empty() {
                return Err(format!("{} holds no .yaml spec", path.display()));
            }
            inside.sort();
            files.extend(inside);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

/// A hash of every spec text `load` would read for these paths: two gradings with the same
/// fingerprint graded against the same specs.
pub fn fingerprint(paths: &[PathBuf], added: &[PathBuf]) -> Result<u64, String> {
    let mut texts: Vec<String> = Vec::new();
    if paths.is_empty() {
        texts.extend(built_in().into_iter().map(|(_, text)| text.to_string()));
    }
    for file in spec_files(paths)?.iter().chain(&spec_files(added)?) {
        texts.push(
            std::fs::read_to_string(file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))?,
        );
    }
    Ok(crate::compile::stable_hash(&texts))
}
