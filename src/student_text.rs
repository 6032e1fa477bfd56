//! Text a submission controls: what it prints and panics with, its package's name, its
//! tests' names and messages, its files' and folders' names, a roster's cells. It enters
//! the grader as a [`StudentText`], which has no `Display` and lends its text only to be
//! compared or to find a file by (`tests/house.rs` lists where): an output takes it
//! through the method for its place, which renders it so that it says what it says there
//! and nothing else (no escape sequence on a terminal, no workflow command in a GitHub
//! log, no formula in a spreadsheet, no markup in a report).
//!
//! The renderings that text of the grader's own may need too (an instructor's names, whole
//! results files read back as JSON) are functions of this module beside the methods.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// Text a submission controls, wholly or in part: text of the grader's that quotes it (a
/// failure's fields, a compiler's messages on its code) is student text too.
///
/// Results files carry it as a JSON string, JSON's escaping being its rendering there; what
/// the grader reads back from them (a batch's manifest) is student text again.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct StudentText(String);

impl From<String> for StudentText {
    fn from(text: String) -> StudentText {
        StudentText(text)
    }
}

impl From<&str> for StudentText {
    fn from(text: &str) -> StudentText {
        StudentText(text.to_string())
    }
}

/// Student text with the grader's words after it is student text still.
impl std::ops::Add<&str> for StudentText {
    type Output = StudentText;

    fn add(mut self, words: &str) -> StudentText {
        self.0.push_str(words);
        self
    }
}

impl std::ops::Add<&StudentText> for StudentText {
    type Output = StudentText;

    fn add(mut self, more: &StudentText) -> StudentText {
        self.0.push_str(&more.0);
        self
    }
}

/// As a terminal would show it, so that a test's assertion or a panic cannot send it raw.
impl std::fmt::Debug for StudentText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("StudentText")
            .field(&self.on_terminal())
            .finish()
    }
}

impl StudentText {
    /// For a terminal (the pretty report, terse lines, messages): every control character
    /// shown, as [`visible_controls`] does; line breaks kept.
    pub fn on_terminal(&self) -> String {
        visible_controls(&self.0)
    }

    /// On one line of the grader's (a name in a progress line, a warning, a log): every
    /// control shown, a line break and a tab too, and no workflow command.
    pub fn on_a_line(&self) -> String {
        let shown: String = visible_controls(&self.0)
            .chars()
            .map(|c| match c {
                '\n' => '\u{240a}',
                '\t' => '\u{2409}',
                c => c,
            })
            .collect();
        inert_in_github_log(&shown)
    }

    /// In a GitHub Actions log, or a message Classroom's reporter prints into one: no line
    /// of it a workflow command.
    pub fn in_github_log(&self) -> String {
        inert_in_github_log(&self.0)
    }

    /// In a file staff or a platform reads (results, annotations): colour codes removed
    /// and any other control shown.
    pub fn in_file(&self) -> String {
        in_file(&self.0)
    }

    /// In a cell of a CSV file a spreadsheet opens: never a formula.
    ///
    /// A spreadsheet reads a cell starting with `=`, `+`, `-` or `@`, or with a tab or
    /// carriage return (which some skip before looking for one), as a formula; a leading
    /// `'` makes it text (OWASP's advice against CSV injection). Anything else is kept as it
    /// is, leading tabs included; quoting is the csv crate's.
    pub fn in_csv_cell(&self) -> Cow<'_, str> {
        if self.0.starts_with(['=', '+', '-', '@', '\t', '\r']) {
            Cow::Owned(format!("'{}", self.0))
        } else {
            Cow::Borrowed(&self.0)
        }
    }

    /// In XML 1.0, which parses whatever a submission prints: no colour codes; of the
    /// characters XML 1.0 forbids (C0 controls but tab, line feed and carriage return;
    /// U+FFFE and U+FFFF; a Rust string holds no lone surrogate), the controls shown as
    /// signs as in every report (`␁`) and the two noncharacters as escapes (`\u{fffe}`).
    pub fn in_xml(&self) -> String {
        let mut out = String::with_capacity(self.0.len());
        for c in in_file(&self.0).chars() {
            match c {
                '\u{fffe}' | '\u{ffff}' => out.extend(c.escape_unicode()),
                _ => out.push(c),
            }
        }
        out
    }

    /// Inside a Markdown code fence, where Markdown shows HTML as text: no fence of its own
    /// can close ours.
    pub fn in_markdown_fence(&self) -> String {
        in_file(&self.0).replace("```", "ʼʼʼ")
    }

    /// In HTML text or a quoted attribute: no markup.
    pub fn in_html(&self) -> String {
        html_escaped(&self.0)
    }

    /// In a file's name: its first `at_most` ASCII letters, digits, `-` and `_`, and nothing
    /// else, so that it names no other folder and needs no quoting.
    pub fn in_file_name(&self, at_most: usize) -> String {
        self.0
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .take(at_most)
            .collect()
    }

    /// `texts`, `separator` between each two.
    pub fn joined<'t>(
        texts: impl IntoIterator<Item = &'t StudentText>,
        separator: &str,
    ) -> StudentText {
        let texts: Vec<&str> = texts.into_iter().map(|text| text.0.as_str()).collect();
        StudentText(texts.join(separator))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Without the whitespace at its end.
    pub fn trim_end(&self) -> StudentText {
        StudentText(self.0.trim_end().to_string())
    }

    /// Each of its lines (as `str::lines` cuts them), as student text.
    pub fn lines(&self) -> impl Iterator<Item = StudentText> + '_ {
        self.0.lines().map(StudentText::from)
    }

    /// The text itself, to compare with another or parse, never to write: only what a
    /// comparison or a parser decides leaves with it.
    pub fn raw_for_comparison(&self) -> &str {
        &self.0
    }

    /// The text as the file system has it, for a name that came from there (a submission's
    /// folder or zip): to find that submission's own files by, never to write.
    pub fn raw_for_path(&self) -> &str {
        &self.0
    }
}

/// Text without terminal color codes (and other `ESC [` sequences), for files.
fn without_colour(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            // Parameters and intermediates, up to the final byte `@` to `~`.
            for code in chars.by_ref() {
                if ('@'..='~').contains(&code) {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Text for a file: colour codes (the grader's, or a compiler's) removed, any other
/// control shown.
pub(crate) fn in_file(text: &str) -> String {
    visible_controls(&without_colour(text))
}

/// `text` with every control character but newline and tab shown as a visible sign
/// (`ESC` as `␛`, `BEL` as `␇`, DEL as `␡`, a C1 control as `\u{9b}`), and every mark
/// that reorders text (a bidi override or isolate, as `\u{202e}`), so printed text
/// cannot retitle a terminal, ring it, move its cursor, or read backwards; `\r\n` becomes
/// `\n`. For the grader's own text that may hold anything (an instructor's spec names, a
/// command line's words); student text comes through [`StudentText::on_terminal`].
pub(crate) fn visible_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' if chars.peek() == Some(&'\n') => {}
            // The Control Pictures block draws each C0 control at U+2400 plus its code.
            '\0'..='\u{1f}' => out.extend(char::from_u32(0x2400 + u32::from(c))),
            '\u{7f}' => out.push('\u{2421}'),
            '\u{80}'..='\u{9f}'
            | '\u{61c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}' => out.push_str(&c.escape_unicode().to_string()),
            _ => out.push(c),
        }
    }
    out
}

/// `text` as a GitHub Actions log shows it and its runner reads no command in it: where a
/// line (after a line feed or a carriage return, which the runner also breaks lines at)
/// would start with `::` after its whitespace, a backslash comes first, and `##[` anywhere
/// reads `#\#[`. Visibly, so that a reader sees what was written.
pub(crate) fn inert_in_github_log(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // Only whitespace since the last line break.
    let mut line_start = true;
    for (at, c) in text.char_indices() {
        let rest = &text[at..];
        if line_start && rest.starts_with("::") {
            out.push('\\');
        }
        out.push(c);
        if rest.starts_with("##[") {
            out.push('\\');
        }
        line_start = matches!(c, '\n' | '\r') || (line_start && c.is_whitespace());
    }
    out
}

/// `text` in HTML: no `<`, `>`, `&` or `"` of its own.
pub(crate) fn html_escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Fails to compile where `$type` implements `$trait`: two blanket impls of a trait, one
/// for every type and one for those implementing `$trait`, make the bare path ambiguous
/// exactly where both apply.
macro_rules! assert_lacks {
    ($type:ty: $($trait:tt)+) => {
        const _: fn() = || {
            trait Ambiguous<Which> {
                fn some_item() {}
            }
            impl<T: ?Sized> Ambiguous<()> for T {}
            struct Implemented;
            impl<T: ?Sized + $($trait)+> Ambiguous<Implemented> for T {}
            let _ = <$type as Ambiguous<_>>::some_item;
        };
    };
}

// Whatever writes student text takes it through a method for its place: nothing may print
// it, or borrow it as a `str` to print, without one.
assert_lacks!(StudentText: std::fmt::Display);
assert_lacks!(StudentText: std::ops::Deref<Target = str>);
assert_lacks!(StudentText: AsRef<str>);
assert_lacks!(StudentText: std::borrow::Borrow<str>);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_one_line_with_no_control_and_no_command() {
        let on_a_line = |text: &str| StudentText::from(text).on_a_line();
        assert_eq!(
            on_a_line("al\nice\r::error::x\t##[group]\u{1b}]0;t\u{7}"),
            "al␊ice␍::error::x␉#\\#[group]␛]0;t␇"
        );
        assert_eq!(on_a_line("::add-mask::x"), "\\::add-mask::x");
    }

    #[test]
    fn no_line_of_text_in_a_github_log_is_a_workflow_command() {
        let text =
            "fine::here\n  ::notice::x\r::error::y\n\t##[group]z\nand ##[error] in the middle";
        let inert = StudentText::from(text).in_github_log();
        assert_eq!(
            inert,
            "fine::here\n  \\::notice::x\r\\::error::y\n\t#\\#[group]z\nand #\\#[error] in the middle"
        );
        for line in inert.split(['\n', '\r']).map(str::trim_start) {
            assert!(!line.starts_with("::") && !line.contains("##["), "{line}");
        }
    }

    #[test]
    fn a_file_gets_no_color_code_and_no_control() {
        assert_eq!(
            StudentText::from("\u{1b}[1;31mtrue\u{1b}[0m or ♥\u{7}").in_file(),
            "true or ♥␇"
        );
    }

    #[test]
    fn control_characters_are_shown_not_sent() {
        assert_eq!(
            StudentText::from("a\u{1b}]0;pwned\u{7}b\r\n\tc\u{7f}\u{9b}\rd\u{202e}e").on_terminal(),
            "a␛]0;pwned␇b\n\tc␡\\u{9b}␍d\\u{202e}e"
        );
    }

    #[test]
    fn a_cell_a_spreadsheet_would_evaluate_is_text() {
        for formula in [
            "=HYPERLINK(\"http://x\")",
            "+cmd|' /C calc'!A0",
            "-2+3",
            "@SUM(1+1)",
            "\t=1+1",
            "\r=1+1",
        ] {
            assert_eq!(
                StudentText::from(formula).in_csv_cell(),
                format!("'{formula}")
            );
        }
        for text in [
            "alice",
            "Smith, John",
            " =1+1",
            "'quoted",
            "",
            "12345",
            "2+3",
        ] {
            assert_eq!(StudentText::from(text).in_csv_cell(), text);
        }
    }

    /// Whether `c` may stand in an XML 1.0 document: its `Char` production.
    fn xml_char(c: char) -> bool {
        matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
    }

    #[test]
    fn every_character_xml_forbids_is_shown_not_written() {
        let hostile: String = ('\0'..='\u{20}')
            .chain(['\u{7f}', '\u{9b}', '\u{fffe}', '\u{ffff}', '\u{1fffe}', 'é'])
            .collect();
        let text = StudentText::from(hostile).in_xml();
        assert!(text.chars().all(xml_char), "{text:?}");
        assert!(text.contains("␁") && text.contains("\\u{fffe}") && text.contains("\\u{ffff}"));
        assert!(text.ends_with('é'), "{text:?}");
    }

    #[test]
    fn no_fence_of_a_submission_closes_ours_and_no_markup_is_live() {
        assert_eq!(StudentText::from("```\nrm").in_markdown_fence(), "ʼʼʼ\nrm");
        assert_eq!(
            StudentText::from("<a href=\"x\">&</a>").in_html(),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
    }

    #[test]
    fn debugging_shows_it_as_a_terminal_would() {
        let debugged = format!("{:?}", StudentText::from("\u{1b}]0;t\u{7}"));
        assert!(!debugged.contains(['\u{1b}', '\u{7}']), "{debugged}");
        assert!(debugged.contains("␛]0;t␇"), "{debugged}");
    }
}
