//! What cargo says while it builds, read with caps: its stderr to its end, its JSON
//! messages line by line into the errors of the student's crate and those of the
//! generated crate's own file.

use std::io::{BufRead, BufReader, Read};

use serde::Deserialize;

use super::error::GeneratedError;

/// The most of cargo's stderr, and of its error messages, kept; the rest is read and dropped.
pub(super) const OUTPUT_CAP: usize = 256 * 1024;
/// Longer lines of cargo's JSON output are skipped: no message of cargo's own is this long.
pub(super) const LINE_CAP: usize = 4 << 20;

/// All of `stream`, read to its end so the writer never blocks, the first [`OUTPUT_CAP`]
/// bytes kept.
pub(super) fn read_capped(stream: impl Read) -> String {
    let mut kept = Vec::new();
    let mut reader = BufReader::new(stream);
    loop {
        let chunk = match reader.fill_buf() {
            Ok([]) | Err(_) => break,
            Ok(chunk) => chunk,
        };
        let room = OUTPUT_CAP.saturating_sub(kept.len()).min(chunk.len());
        kept.extend_from_slice(&chunk[..room]);
        let read = chunk.len();
        reader.consume(read);
    }
    String::from_utf8_lossy(&kept).into_owned()
}

/// Calls `each` with every line of `stream` up to [`LINE_CAP`] bytes; longer ones are
/// read past, not held.
pub(super) fn for_each_line(stream: impl Read, mut each: impl FnMut(&str)) {
    let mut reader = BufReader::new(stream);
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let chunk = match reader.fill_buf() {
            Ok([]) | Err(_) => break,
            Ok(chunk) => chunk,
        };
        let (part, ended) = match chunk.iter().position(|&b| b == b'\n') {
            Some(end) => (&chunk[..end], Some(end + 1)),
            None => (chunk, None),
        };
        if line.len() + part.len() > LINE_CAP {
            too_long = true;
            line.clear();
        } else if !too_long {
            line.extend_from_slice(part);
        }
        let used = ended.unwrap_or(chunk.len());
        reader.consume(used);
        if ended.is_some() {
            if !too_long {
                each(&String::from_utf8_lossy(&line));
            }
            line.clear();
            too_long = false;
        }
    }
}

#[derive(Default)]
pub(super) struct BuildOutcome {
    /// Cargo said it linked the runner; where it said it put it is not trusted, since the
    /// build's own processes could write to cargo's output.
    pub(super) linked: bool,
    /// Rendered errors of the student's crate (or anything else that is not the runner).
    pub(super) errors: Vec<String>,
    /// Errors in the generated main.rs: the contract is missing, not the student's logic.
    pub(super) runner_errors: Vec<GeneratedError>,
    /// Bytes of errors kept; beyond [`OUTPUT_CAP`] errors are counted only.
    pub(super) kept: usize,
    pub(super) dropped: usize,
}

#[derive(Deserialize)]
pub(super) struct CargoMessage {
    reason: String,
    target: Option<CargoTarget>,
    message: Option<CompilerMessage>,
}

#[derive(Deserialize)]
pub(super) struct CargoTarget {
    name: String,
}

#[derive(Deserialize)]
pub(super) struct CompilerMessage {
    level: String,
    rendered: Option<String>,
    message: String,
    #[serde(default)]
    spans: Vec<CompilerSpan>,
}

#[derive(Deserialize)]
pub(super) struct CompilerSpan {
    line_start: usize,
    is_primary: bool,
}

impl BuildOutcome {
    pub(super) fn absorb(&mut self, line: &str, runner_bin: &str) {
        let Ok(message) = serde_json::from_str::<CargoMessage>(line) else {
            return;
        };
        match message.reason.as_str() {
            "compiler-artifact"
                if message
                    .target
                    .as_ref()
                    .is_some_and(|t| t.name == runner_bin) =>
            {
                self.linked = true;
            }
            "compiler-message" => {
                let (Some(diagnostic), Some(target)) = (message.message, message.target) else {
                    return;
                };
                if diagnostic.level != "error" {
                    return;
                }
                let line = diagnostic
                    .spans
                    .iter()
                    .find(|span| span.is_primary)
                    .map(|span| span.line_start);
                let text = if target.name == runner_bin {
                    diagnostic.message
                } else {
                    diagnostic.rendered.unwrap_or(diagnostic.message)
                };
                if self.kept + text.len() > OUTPUT_CAP {
                    self.dropped += 1;
                    if self.dropped == 1 {
                        self.errors.push("(more errors not shown)".into());
                    }
                    return;
                }
                self.kept += text.len();
                if target.name == runner_bin {
                    self.runner_errors.push(GeneratedError {
                        message: text,
                        line,
                    });
                } else {
                    self.errors.push(text);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_past_the_cap_are_skipped_and_the_rest_kept() {
        let long = "x".repeat(LINE_CAP + 1);
        let text = format!("first\n{long}\nlast\nunfinished");
        let mut lines = Vec::new();
        for_each_line(text.as_bytes(), |line| lines.push(line.to_string()));
        assert_eq!(lines, ["first", "last"]);
    }

    #[test]
    fn a_stream_is_read_to_its_end_and_cut_at_the_cap() {
        let text = "y".repeat(OUTPUT_CAP * 3);
        assert_eq!(read_capped(text.as_bytes()).len(), OUTPUT_CAP);
    }
}
