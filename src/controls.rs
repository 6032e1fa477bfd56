//! Control characters shown, not sent: text a submission controls reaches a terminal, a
//! log or a file only through `visible_controls`. A floor of its own, beneath the verdicts
//! and the results that both print such text.

/// `text` with every control character but newline and tab shown as a visible sign
/// (`ESC` as `␛`, `BEL` as `␇`, DEL as `␡`, a C1 control as `\u{9b}`), and every mark
/// that reorders text (a bidi override or isolate, as `\u{202e}`), so printed text
/// cannot retitle a terminal, ring it, move its cursor, or read backwards; `\r\n` becomes
/// `\n`.
pub fn visible_controls(text: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_not_sent() {
        assert_eq!(
            visible_controls("a\u{1b}]0;pwned\u{7}b\r\n\tc\u{7f}\u{9b}\rd\u{202e}e"),
            "a␛]0;pwned␇b\n\tc␡\\u{9b}␍d\\u{202e}e"
        );
    }
}
