//! What the student's code prints, split per request at the runner's markers and cut at a
//! cap, read on a thread of its own so a flood never blocks the runner or the grader.

use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::Instant;

use grader_api::protocol::{OUTPUT_MARKER_LEN, OUTPUT_MARKER_PREFIX};

use crate::student_text::StudentText;

/// Bytes of output kept per request and stream; the rest is counted, not kept.
pub const OUTPUT_CAP: usize = 4 * 1024;

/// What one request printed on one stream.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Printed {
    pub kept: Vec<u8>,
    /// Bytes printed beyond [`OUTPUT_CAP`].
    pub dropped: u64,
}

impl Printed {
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty() && self.dropped == 0
    }

    /// What was kept, a line printed several times in a row shown once with its count.
    pub fn text(&self) -> StudentText {
        let mut text = collapse_repeats(&String::from_utf8_lossy(&self.kept));
        if self.dropped > 0 {
            text.push_str(&format!("\n… {} more bytes not shown", self.dropped));
        }
        text.into()
    }

    /// Adds what was printed after this, as if on one stream.
    pub fn append(&mut self, later: &Printed) {
        self.push(&later.kept);
        self.dropped += later.dropped;
    }

    fn push(&mut self, bytes: &[u8]) {
        let room = OUTPUT_CAP.saturating_sub(self.kept.len());
        let taken = room.min(bytes.len());
        self.kept.extend_from_slice(&bytes[..taken]);
        self.dropped += (bytes.len() - taken) as u64;
    }
}

/// `text` with each run of identical lines as one line and the run's length.
fn collapse_repeats(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        let mut repeats = 1;
        while lines.peek() == Some(&line) {
            lines.next();
            repeats += 1;
        }
        match repeats {
            1 => out.push_str(line),
            _ => out.push_str(&format!("{}  (×{repeats})\n", line.trim_end_matches('\n'))),
        }
    }
    out
}

/// One piece of a stream: up to a marker, or up to the end of the stream.
struct Segment {
    /// The request this output belongs to; `None` for what came after the last marker.
    sequence: Option<u64>,
    printed: Printed,
}

/// A stream being read in the background.
pub struct Capture {
    segments: Receiver<Segment>,
    /// Bytes read from the stream so far, markers included.
    read: Arc<AtomicU64>,
    /// Output of a request whose marker has not come yet, merged across calls to `take`.
    ended: bool,
}

impl Capture {
    pub fn start(stream: impl Read + Send + 'static) -> Capture {
        let (sender, segments) = channel();
        let read = Arc::new(AtomicU64::new(0));
        let counted = Counted {
            stream,
            read: Arc::clone(&read),
        };
        thread::spawn(move || split_at_markers(counted, |segment| sender.send(segment).is_ok()));
        Capture {
            segments,
            read,
            ended: false,
        }
    }

    /// Bytes read from the stream so far.
    pub fn bytes_read(&self) -> u64 {
        self.read.load(Ordering::Relaxed)
    }

    /// The output of request `sequence`. Waits until `deadline` for its marker (it was
    /// written before the answer, but travels on another pipe); after the runner died,
    /// for the end of the stream instead.
    pub fn take(&mut self, sequence: u64, deadline: Instant) -> Printed {
        let mut printed = Printed::default();
        while !self.ended {
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.segments.recv_timeout(wait) {
                Ok(segment) => {
                    // Output of earlier requests whose marker came late belongs to them; drop it.
                    if segment.sequence.is_some_and(|s| s < sequence) {
                        continue;
                    }
                    printed.push(&segment.printed.kept);
                    printed.dropped += segment.printed.dropped;
                    match segment.sequence {
                        Some(s) if s == sequence => break,
                        Some(_) => {}
                        None => self.ended = true,
                    }
                }
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => self.ended = true,
            }
        }
        printed
    }
}

/// A stream that counts what is read from it.
struct Counted<R> {
    stream: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let read = self.stream.read(buf)?;
        self.read.fetch_add(read as u64, Ordering::Relaxed);
        Ok(read)
    }
}

/// Reads `stream` to its end, calling `emit` with each segment between markers.
fn split_at_markers(mut stream: impl Read, mut emit: impl FnMut(Segment) -> bool) {
    let prefix = OUTPUT_MARKER_PREFIX.as_bytes();
    let mut window: Vec<u8> = Vec::new();
    let mut current = Printed::default();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let read = match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        window.extend_from_slice(&chunk[..read]);
        loop {
            match find(&window, prefix) {
                Some(at) if window.len() >= at + OUTPUT_MARKER_LEN => {
                    current.push(&window[..at]);
                    let digits = &window[at + prefix.len()..at + prefix.len() + 16];
                    let sequence = std::str::from_utf8(digits)
                        .ok()
                        .and_then(|hex| u64::from_str_radix(hex, 16).ok());
                    window.drain(..at + OUTPUT_MARKER_LEN);
                    if let Some(sequence) = sequence {
                        let printed = std::mem::take(&mut current);
                        if !emit(Segment {
                            sequence: Some(sequence),
                            printed,
                        }) {
                            return;
                        }
                    }
                }
                Some(at) => {
                    // A marker has begun but not arrived whole: keep it for the next read.
                    current.push(&window[..at]);
                    window.drain(..at);
                    break;
                }
                None => {
                    // Keep a tail that may be the start of a marker split across reads.
                    let keep = (prefix.len() - 1).min(window.len());
                    let cut = window.len() - keep;
                    current.push(&window[..cut]);
                    window.drain(..cut);
                    break;
                }
            }
        }
    }
    current.push(&window);
    emit(Segment {
        sequence: None,
        printed: current,
    });
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    // Scanning for the first byte alone is fast on a flood; only candidates are compared.
    let mut from = 0;
    while let Some(offset) = haystack[from..].iter().position(|&b| b == needle[0]) {
        let at = from + offset;
        if haystack[at..].starts_with(needle) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_printed_again_and_again_is_shown_once_with_its_count() {
        let text = "start\nhand\nhand\nhand\nend\nhand\n";
        assert_eq!(collapse_repeats(text), "start\nhand  (×3)\nend\nhand\n");
    }
    use grader_api::protocol::output_marker;
    use std::time::Duration;

    /// A reader that hands out its bytes a few at a time, as a pipe may.
    struct Trickle(Vec<u8>, usize);
    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0.drain(..n);
            Ok(n)
        }
    }

    fn segments(bytes: Vec<u8>, step: usize) -> Vec<(Option<u64>, StudentText)> {
        let mut out = Vec::new();
        split_at_markers(Trickle(bytes, step), |s| {
            out.push((s.sequence, s.printed.text()));
            true
        });
        out
    }

    #[test]
    fn output_is_split_at_markers_however_the_pipe_cuts_it() {
        let mut bytes = b"first".to_vec();
        bytes.extend(output_marker(0));
        bytes.extend(output_marker(1));
        bytes.extend(b"third\n");
        bytes.extend(output_marker(2));
        bytes.extend(b"tail");
        for step in [1, 3, 7, 64 * 1024] {
            assert_eq!(
                segments(bytes.clone(), step),
                vec![
                    (Some(0), "first".into()),
                    (Some(1), StudentText::default()),
                    (Some(2), "third\n".into()),
                    (None, "tail".into()),
                ],
                "step {step}"
            );
        }
    }

    #[test]
    fn a_flood_is_cut_at_the_cap_and_counted() {
        let mut bytes = vec![b'x'; 10 * 1024 * 1024];
        bytes.extend(output_marker(0));
        let mut capture = Capture::start(std::io::Cursor::new(bytes));
        let printed = capture.take(0, Instant::now() + Duration::from_secs(10));
        assert_eq!(printed.kept.len(), OUTPUT_CAP);
        assert_eq!(printed.dropped, (10 * 1024 * 1024 - OUTPUT_CAP) as u64);
    }

    #[test]
    fn take_skips_output_of_earlier_requests() {
        let mut bytes = b"old".to_vec();
        bytes.extend(output_marker(0));
        bytes.extend(b"new");
        bytes.extend(output_marker(1));
        let mut capture = Capture::start(std::io::Cursor::new(bytes));
        assert_eq!(
            capture
                .take(1, Instant::now() + Duration::from_secs(5))
                .text()
                .raw_for_comparison(),
            "new"
        );
    }
}
