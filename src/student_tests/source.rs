//! The student's tests as text: their `#[cfg(test)]` modules found by tokens (never inside
//! a string or a comment), each `#[test]` in them with its lines.

use std::ops::Range;

/// A token of Rust source: an identifier or one punctuation character, with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Token {
    text: String,
    ident: bool,
    at: usize,
    line: usize,
}

/// The identifiers and punctuation of `text`: comments, string, character and number
/// literals are skipped, lifetimes kept as identifiers.
fn tokens(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let (mut i, mut line) = (0, 1);
    let line_of = |from: usize, to: usize| bytes[from..to].iter().filter(|&&b| b == b'\n').count();
    while i < bytes.len() {
        let start = i;
        let b = bytes[i];
        let rest = &bytes[i..];
        if rest.starts_with(b"//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            while i < bytes.len() {
                if bytes[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if bytes[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(rest) {
            // r"..", r#".."#, br, cr: up to a quote followed by as many hashes.
            i += rest.iter().position(|&c| c == b'"').unwrap_or(0) + 1;
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            while i < bytes.len() && !bytes[i..].starts_with(&close) {
                i += 1;
            }
            i += close.len();
        } else if b == b'"' || ((b == b'b' || b == b'c') && rest.get(1) == Some(&b'"')) {
            i += if b == b'"' { 1 } else { 2 };
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if b == b'\'' || (b == b'b' && rest.get(1) == Some(&b'\'')) {
            let quote = if b == b'b' { i + 1 } else { i };
            match (bytes.get(quote + 1), bytes.get(quote + 2)) {
                (Some(b'\\'), _) => {
                    // From the backslash: the loop steps over each escape whole.
                    i = quote + 1;
                    while i < bytes.len() && bytes[i] != b'\'' {
                        i += if bytes[i] == b'\\' { 2 } else { 1 };
                    }
                    i += 1;
                }
                (Some(_), Some(b'\'')) => i = quote + 3,
                _ => {
                    // A character of more than one byte, or a lifetime (an identifier).
                    let close = text[quote + 1..].char_indices().nth(1);
                    match close {
                        Some((n, '\'')) => i = quote + 1 + n + 1,
                        _ => i = quote + 1,
                    }
                }
            }
        } else if b.is_ascii_alphabetic() || b == b'_' || b >= 0x80 {
            let raw = rest.starts_with(b"r#")
                && rest
                    .get(2)
                    .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_');
            let from = if raw { i + 2 } else { i };
            i = from;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] >= 0x80)
            {
                i += 1;
            }
            tokens.push(Token {
                text: text[from..i].to_string(),
                ident: true,
                at: start,
                line,
            });
        } else if b.is_ascii_digit() {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
        } else {
            i += 1;
            if !b.is_ascii_whitespace() {
                tokens.push(Token {
                    text: (b as char).to_string(),
                    ident: false,
                    at: start,
                    line,
                });
            }
        }
        let end = i.min(bytes.len());
        line += line_of(start, end);
        i = end;
    }
    tokens
}

/// How many hashes a raw string starting `rest` has, if it is one.
fn raw_string_start(rest: &[u8]) -> Option<usize> {
    let after_prefix = match rest {
        [b'b' | b'c', b'r', ..] => &rest[2..],
        [b'r', ..] => &rest[1..],
        _ => return None,
    };
    let hashes = after_prefix.iter().take_while(|&&c| c == b'#').count();
    (after_prefix.get(hashes) == Some(&b'"')).then_some(hashes)
}

/// A `#[test]` of a student's test module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestFn {
    /// Its path in its module: its name, after the modules nested in it (`more::kings`).
    pub name: String,
    /// Its lines in the file, its attributes included.
    pub lines: Range<usize>,
    /// Its bytes in the file, its attributes included.
    pub bytes: Range<usize>,
}

/// A `#[cfg(test)]` module of a student's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestModule {
    pub name: String,
    /// From its `#[cfg(test)]` to its closing brace.
    pub bytes: Range<usize>,
    /// The lines `bytes` spans.
    pub lines: Range<usize>,
    pub tests: Vec<TestFn>,
}

/// The `#[cfg(test)]` modules of `text`, with their `#[test]`s; None when a module's
/// braces do not close.
pub fn test_modules(text: &str) -> Option<Vec<TestModule>> {
    let tokens = tokens(text);
    let mut modules = Vec::new();
    let mut n = 0;
    while n < tokens.len() {
        if !is_cfg_test(&tokens, n) {
            n += 1;
            continue;
        }
        let start = n;
        // Past this and any further attributes, and `pub` with its restriction.
        let mut k = n;
        while tokens.get(k).is_some_and(|t| t.text == "#") {
            k = close_of(&tokens, k + 1)? + 1;
        }
        if tokens.get(k).is_some_and(|t| t.text == "pub") {
            k += 1;
            if tokens.get(k).is_some_and(|t| t.text == "(") {
                k = close_of(&tokens, k)? + 1;
            }
        }
        let (Some(word), Some(name), Some(open)) =
            (tokens.get(k), tokens.get(k + 1), tokens.get(k + 2))
        else {
            break;
        };
        if word.text != "mod" || !name.ident || open.text != "{" {
            n = k;
            continue;
        }
        let close = close_of(&tokens, k + 2)?;
        modules.push(TestModule {
            name: name.text.clone(),
            bytes: tokens[start].at..tokens[close].at + 1,
            lines: tokens[start].line..tokens[close].line + 1,
            tests: tests_in(&tokens[k + 3..close]),
        });
        n = close + 1;
    }
    Some(modules)
}

/// The `#[test]`s of a whole file, as of an integration test (`tests/*.rs`); None when its
/// braces do not close.
pub fn file_tests(text: &str) -> Option<Vec<TestFn>> {
    let tokens = tokens(text);
    let mut depth = 0usize;
    for token in &tokens {
        match token.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth = depth.checked_sub(1)?,
            _ => {}
        }
    }
    (depth == 0).then(|| tests_in(&tokens))
}

/// Whether `text` names the student's module `module` in its code, not in a string or a
/// comment: the identifier, but for grader-api's module of that name (`grader_api::pairs`
/// is not the student's).
pub fn names_module(text: &str, module: &str) -> bool {
    let tokens = tokens(text);
    tokens.iter().enumerate().any(|(n, token)| {
        let of_the_api = n >= 3
            && tokens[n - 3].text == "grader_api"
            && tokens[n - 2].text == ":"
            && tokens[n - 1].text == ":";
        token.ident && token.text == module && !of_the_api
    })
}

/// The file's own `use` declarations of other crates (`grader_api`, `std`), as written:
/// what its tests may name without importing it themselves.
pub fn file_uses(text: &str) -> Vec<String> {
    let tokens = tokens(text);
    let mut uses = Vec::new();
    let mut depth = 0usize;
    let mut n = 0;
    while n < tokens.len() {
        match tokens[n].text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth = depth.saturating_sub(1),
            "use" if depth == 0 => {
                let end = (n..tokens.len()).find(|&k| tokens[k].text == ";");
                let first = tokens.get(n + 1).map(|t| t.text.as_str());
                if let (Some(end), Some(first)) = (end, first) {
                    if !matches!(first, "crate" | "super" | "self") {
                        uses.push(text[tokens[n].at..tokens[end].at + 1].to_string());
                    }
                    n = end;
                }
            }
            _ => {}
        }
        n += 1;
    }
    uses
}

/// `text` with its declarations of modules in other files (`mod x;`) made empty modules
/// (`mod x {}`), line for line: the file is built alone, without them.
pub fn without_file_modules(text: &str) -> String {
    let tokens = tokens(text);
    let mut semicolons = Vec::new();
    let mut depth = 0usize;
    for (n, token) in tokens.iter().enumerate() {
        match token.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth = depth.saturating_sub(1),
            "mod"
                if depth == 0
                    && tokens.get(n + 1).is_some_and(|t| t.ident)
                    && tokens.get(n + 2).is_some_and(|t| t.text == ";") =>
            {
                semicolons.push(tokens[n + 2].at);
            }
            _ => {}
        }
    }
    let mut shown = text.to_string();
    // From the last: each replacement moves what follows it.
    for at in semicolons.into_iter().rev() {
        shown.replace_range(at..at + 1, "{}");
    }
    shown
}

/// Whether `#[cfg(test)]` starts at token `n`.
fn is_cfg_test(tokens: &[Token], n: usize) -> bool {
    let texts: Vec<&str> = tokens
        .iter()
        .skip(n)
        .take(7)
        .map(|t| t.text.as_str())
        .collect();
    texts == ["#", "[", "cfg", "(", "test", ")", "]"]
}

/// The token that closes the bracket at `open`.
fn close_of(tokens: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (n, token) in tokens.iter().enumerate().skip(open) {
        match token.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(n);
                }
            }
            _ => {}
        }
    }
    None
}

/// The `#[test]` functions among the items of a module's body, and in the modules nested
/// in it.
fn tests_in(body: &[Token]) -> Vec<TestFn> {
    let mut tests = Vec::new();
    let mut item_start = 0;
    let mut n = 0;
    while n < body.len() {
        let ends_item = match body[n].text.as_str() {
            ";" => Some(n),
            "(" | "[" | "{" => {
                let Some(close) = close_of(body, n) else {
                    return tests;
                };
                // An item ends with a brace group, unless an attribute's bracket.
                let attribute = body[n].text == "[" && n > 0 && body[n - 1].text == "#";
                n = close;
                (body[close].text == "}" && !attribute).then_some(close)
            }
            _ => None,
        };
        if let Some(end) = ends_item {
            let item = &body[item_start..=end];
            // A module whose body is the item's last brace group: its tests, by their path.
            let module = item
                .windows(3)
                .position(|w| w[0].text == "mod" && w[1].ident && w[2].text == "{")
                .filter(|&at| close_of(item, at + 2) == Some(item.len() - 1));
            let is_test = item.windows(4).any(|w| {
                w[0].text == "#" && w[1].text == "[" && w[2].text == "test" && w[3].text == "]"
            });
            let name = item.windows(2).find(|w| w[0].text == "fn" && w[1].ident);
            if let Some(at) = module {
                let module = &item[at + 1].text;
                tests.extend(
                    tests_in(&item[at + 3..item.len() - 1])
                        .into_iter()
                        .map(|test| TestFn {
                            name: format!("{module}::{}", test.name),
                            ..test
                        }),
                );
            } else if let (true, Some(name)) = (is_test, name) {
                tests.push(TestFn {
                    name: name[1].text.clone(),
                    lines: item[0].line..body[end].line + 1,
                    bytes: item[0].at..body[end].at + 1,
                });
            }
            item_start = end + 1;
        }
        n += 1;
    }
    tests
}

#[cfg(test)]
mod tests {
    use super::*;

    const STUDENT: &str = r##"use grader_api::Card;

/// A helper the contract does not have.
fn count_helper() -> u32 { 1 }

#[cfg(test)]
mod tests {
    use super::*;
    const SAID: &str = "include_str!(\"x\") } {";
    // include_bytes!("in a comment") }

    fn hand(cards: &[&str]) -> Vec<Card> { cards.iter().map(|c| c.parse().unwrap()).collect() }

    #[test]
    fn a_pair() {
        let c = '}';
        let s = r#"a " } "#;
        assert!(hand(&["KH"]).len() == 1);
    }

    #[test]
    #[should_panic]
    fn another<'a>() { let _: &'a str = "x"; }
}
"##;

    #[test]
    fn test_modules_and_their_tests_are_found_by_tokens() {
        let modules = test_modules(STUDENT).unwrap();
        assert_eq!(modules.len(), 1);
        let module = &modules[0];
        assert_eq!(module.name, "tests");
        assert_eq!(module.lines, 6..25);
        let names: Vec<&str> = module.tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["a_pair", "another"]);
        assert_eq!(module.tests[0].lines, 14..20);
        assert_eq!(module.tests[1].lines, 21..24);
        assert!(STUDENT[module.tests[1].bytes.clone()].starts_with("#[test]\n    #[should_panic]"));
        assert!(STUDENT[module.bytes.clone()].ends_with("}\n}"));
    }

    #[test]
    fn tests_of_modules_nested_in_a_test_module_are_found_by_their_path() {
        let text = "#[cfg(test)]\nmod tests {\n    #[test]\n    fn outer() {}\n    mod more {\n        use super::*;\n        #[test]\n        fn inner() {}\n        pub mod deeper { #[test] fn deepest() {} }\n    }\n}\n";
        let modules = test_modules(text).unwrap();
        let names: Vec<&str> = modules[0].tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["outer", "more::inner", "more::deeper::deepest"]);
        assert_eq!(modules[0].tests[1].lines, 7..9);
        assert!(text[modules[0].tests[2].bytes.clone()].starts_with("#[test] fn deepest"));
    }

    #[test]
    fn an_integration_files_tests_are_its_whole_texts() {
        let text = "//! Hands.\n#![allow(unused)]\nuse my_submission::pairs::Pair;\n\n#[test]\nfn three_kings() {}\n\nmod more {\n    #[test]\n    fn four_kings() {}\n}\n";
        let names: Vec<String> = file_tests(text)
            .unwrap()
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(names, ["three_kings", "more::four_kings"]);
        assert!(names_module(text, "pairs"));
        assert!(!names_module(text, "Hands"));
        let of_the_api = "use grader_api::pairs::Pairs;\nuse my::{snap::Snap};\n";
        assert!(!names_module(of_the_api, "pairs"));
        assert!(names_module(of_the_api, "snap"));
        assert_eq!(file_tests("#[test]\nfn open() {\n"), None);
        assert_eq!(file_tests("fn shut() {}}\n{"), None);
    }

    #[test]
    fn an_escaped_character_literal_ends_at_its_own_quote() {
        let text = "#[cfg(test)]\nmod tests {\n    const SLASH: char = '\\\\';\n    const QUOTE: char = '\\'';\n    #[test]\n    fn after_them() {}\n}\n";
        let modules = test_modules(text).unwrap();
        assert_eq!(modules[0].tests.len(), 1, "{text}");
        assert_eq!(modules[0].tests[0].name, "after_them");
    }

    #[test]
    fn the_files_own_uses_of_other_crates_are_kept() {
        let text = "use grader_api::{Card, deck::{Deck, HandSource}};\nuse crate::other::Hand;\nmod a {\n    use std::fmt;\n}\n";
        assert_eq!(
            file_uses(text),
            ["use grader_api::{Card, deck::{Deck, HandSource}};"]
        );
    }

    #[test]
    fn modules_in_other_files_are_made_empty_line_for_line() {
        let text = "/// Bugs.\npub mod bugs;\nmod a {\n    mod inner;\n}\nmod b;\n";
        assert_eq!(
            without_file_modules(text),
            "/// Bugs.\npub mod bugs{}\nmod a {\n    mod inner;\n}\nmod b{}\n"
        );
    }

    #[test]
    fn unclosed_braces_are_no_module() {
        assert_eq!(
            test_modules("#[cfg(test)]\nmod tests {\n fn a() {}\n"),
            None
        );
    }
}
