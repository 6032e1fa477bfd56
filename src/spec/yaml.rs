//! A spec file as its author reads it: checks of its shape made before the YAML parser
//! reads it, and the parser's errors said in the instructor's words, at the place the
//! mistake was made rather than where the parser gave up.

use std::borrow::Cow;

use grader_api::spec::{Place, Problem};

/// Brackets or indentation nested this deep are no spec a person wrote, and the YAML
/// parser's time on them grows fast.
const MOST_NESTING: usize = 32;
const MOST_INDENT: usize = 256;

/// A line and column, 1-based.
type At = (usize, usize);

/// What a scan of the text outside quoted strings and comments finds.
#[derive(Default)]
struct Scan {
    /// The first bracket nested deeper than [`MOST_NESTING`], and its depth.
    too_deep: Option<(At, usize)>,
    /// The first `[` or `{` that is never closed.
    unclosed_bracket: Option<(At, char)>,
    /// A quoted string still open at the end of the text.
    unclosed_quote: Option<At>,
}

fn scan(text: &str) -> Scan {
    let mut found = Scan::default();
    let mut open: Vec<(At, char)> = Vec::new();
    let (mut quote, mut comment) = (None::<(At, char)>, false);
    let (mut line, mut column, mut previous) = (1, 0, ' ');
    for c in text.chars() {
        column += 1;
        match (quote, c) {
            (_, '\n') => (line, column, comment) = (line + 1, 0, false),
            _ if comment => {}
            (Some((_, mark)), c) if c == mark => quote = None,
            (Some(_), _) => {}
            (None, '#') if previous.is_whitespace() => comment = true,
            (None, '"' | '\'') if matches!(previous, ' ' | '[' | '{' | ',' | ':') => {
                quote = Some(((line, column), c));
            }
            (None, '[' | '{') => {
                open.push(((line, column), c));
                if open.len() > MOST_NESTING && found.too_deep.is_none() {
                    found.too_deep = Some(((line, column), open.len()));
                }
            }
            (None, ']' | '}') => {
                let opener = if c == ']' { '[' } else { '{' };
                // Closing an outer bracket closes over any inner one left open.
                if let Some(at) = open.iter().rposition(|&(_, o)| o == opener) {
                    if found.unclosed_bracket.is_none() {
                        found.unclosed_bracket = open.get(at + 1).copied();
                    }
                    open.truncate(at);
                }
            }
            _ => {}
        }
        previous = c;
    }
    found.unclosed_bracket = found.unclosed_bracket.or(open.first().copied());
    found.unclosed_quote = quote.map(|(at, _)| at);
    found
}

/// Where `text` nests flow collections (`[`, `{`) or indents deeper than a spec needs:
/// line, column and what is wrong.
pub fn too_deep(text: &str) -> Option<(usize, usize, String)> {
    for (index, line) in text.lines().enumerate() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if indent > MOST_INDENT {
            return Some((
                index + 1,
                1,
                format!("indented {indent} spaces; a spec nests at most {MOST_INDENT}"),
            ));
        }
    }
    let ((line, column), depth) = scan(text).too_deep?;
    Some((
        line,
        column,
        format!("brackets nested {depth} deep; a spec nests at most {MOST_NESTING}"),
    ))
}

/// `problem` in an instructor's words where the YAML parser's are a parser's, moved to
/// where the mistake is.
pub fn reworded(text: &str, problem: Problem) -> Problem {
    let message = &problem.message;
    let at = |(line, column): At, message: String| Problem {
        at: Place::At(line, column),
        message,
    };
    if message.contains("found character that cannot start any token")
        && let Place::At(line, column) = problem.at
        && character_at(text, line, column) == Some('\t')
    {
        return at(
            (line, column),
            "a tab is not allowed for indentation in YAML; indent with spaces".into(),
        );
    }
    if message.contains("while parsing a flow")
        && let Some((place, bracket)) = scan(text).unclosed_bracket
    {
        let closer = if bracket == '[' { ']' } else { '}' };
        return at(
            place,
            format!("this `{bracket}` is never closed: a `{closer}` is missing"),
        );
    }
    if message.contains("while scanning a quoted scalar")
        && let Some(place) = scan(text).unclosed_quote
    {
        return at(
            place,
            "this quoted string is never closed: it runs to the end of the file".into(),
        );
    }
    if message.contains("more than one document") {
        let second = text
            .lines()
            .enumerate()
            .skip(1)
            .find(|(_, line)| line.trim_end() == "---");
        if let Some((index, _)) = second {
            return at(
                (index + 1, 1),
                "a spec is one YAML document, but a second one starts here; remove the `---` or split the file".into(),
            );
        }
    }
    if message.contains("repetition limit exceeded") {
        let anchor = text.lines().enumerate().find_map(|(index, line)| {
            let column = line.find(" &")? + 2;
            Some((index + 1, column))
        });
        return Problem {
            at: anchor.map_or(Place::File, |(line, column)| Place::At(line, column)),
            message: "aliases (`*name`) expand to far more than any spec holds: write the values out, or alias less".into(),
        };
    }
    if message == "unknown anchor" {
        return Problem {
            message: "this alias (`*name`) names no anchor (`&name`) written before it".into(),
            ..problem
        };
    }
    let message = without_item_indexes(message);
    if let Some((path, key)) = duplicate_key(&message)
        && let Place::At(line, column) = problem.at
        && let Some(second) = second_key(text, (line, column), key)
    {
        return at(
            second,
            format!("{path}`{key}` is given a second time here; give each field once"),
        );
    }
    if let Some((path, field)) = message
        .split_once("missing field `")
        .and_then(|(path, rest)| Some((path, rest.strip_suffix('`')?)))
    {
        return Problem {
            message: format!("{path}missing `{field}`: this needs `{field}: ...`"),
            ..problem
        };
    }
    if let Some(unknown) = unknown_field(&message) {
        let split = match problem.at {
            Place::At(line, column) => name_split_at(text, (line, column)),
            _ => None,
        };
        let message = match split {
            Some(name) => format!(
                "{unknown}; a comma ends a name in `{{ ... }}`: if `{name}` is one name, quote it, `name: \"{name}\"`"
            ),
            None => unknown,
        };
        return Problem { message, ..problem };
    }
    let message = expected_type(&message).unwrap_or(message);
    Problem { message, ..problem }
}

/// The name a comma split, when the key at `at` is a word with no value that follows
/// `name: ...,` in a `{ ... }`: `{ name: a, b }` reads as a name `a` and a key `b`.
fn name_split_at(text: &str, (line, column): At) -> Option<String> {
    let line = text.lines().nth(line.checked_sub(1)?)?;
    let at = line.char_indices().nth(column.checked_sub(1)?)?.0;
    let (before, rest) = line.split_at(at);
    // The key has no `:`, so no value: the entry ends at the next comma or brace.
    let end = rest.find([',', '}'])?;
    let key = rest[..end].trim();
    if key.is_empty() || key.contains([':', '{', '[', '"', '\'']) {
        return None;
    }
    let before = before.trim_end().strip_suffix(',')?;
    let (_, name) = before.rsplit_once("name:")?;
    let name = name.trim();
    let plain = !name.is_empty() && !name.contains([',', '{', '}', '[', ']', '"', '\'', ':']);
    plain.then(|| format!("{name}, {key}"))
}

/// The path and the key of serde's "duplicate field `seed`" or "duplicate entry with key
/// \"outcome\"".
fn duplicate_key(message: &str) -> Option<(&str, &str)> {
    let (path, key) = match message.split_once("duplicate field `") {
        Some((path, rest)) => (path, rest.strip_suffix('`')?),
        None => {
            let (path, rest) = message.split_once("duplicate entry with key \"")?;
            (path, rest.strip_suffix('"')?)
        }
    };
    Some((path, key))
}

/// Where the mapping that starts at `start` gives `key` a second time. The YAML parser
/// places a duplicate key at the start of its mapping, the first key or the `{`, which is
/// not where the mistake is.
fn second_key(text: &str, (line, column): At, key: &str) -> Option<At> {
    let lines: Vec<&str> = text.lines().collect();
    let first = lines.get(line.checked_sub(1)?)?;
    let is_key_at = |chars: &[char], at: usize| {
        let rest: String = chars[at..].iter().collect();
        rest.strip_prefix(key)
            .is_some_and(|after| after.trim_start().starts_with(':'))
    };
    let chars: Vec<char> = first.chars().collect();
    if chars.get(column.checked_sub(1)?) == Some(&'{') {
        // A `{ ... }` on one line: its keys at its own depth, after the `{` or a comma.
        let mut depth = 0;
        let mut keys = Vec::new();
        let mut entry_starts = true;
        for (at, &c) in chars.iter().enumerate().skip(column - 1) {
            match c {
                '{' | '[' => {
                    depth += 1;
                    entry_starts = depth == 1;
                    continue;
                }
                '}' | ']' => depth -= 1,
                ',' if depth == 1 => {
                    entry_starts = true;
                    continue;
                }
                ' ' => continue,
                _ if entry_starts && depth == 1 && is_key_at(&chars, at) => keys.push(at),
                _ => {}
            }
            if depth == 0 {
                break;
            }
            entry_starts = false;
        }
        return keys.get(1).map(|&at| (line, at + 1));
    }
    // A block mapping: its keys are the lines indented to its first key's column.
    let indent = column - 1;
    let mut keys = (line - 1..lines.len())
        .take_while(|&index| {
            let text = lines[index];
            index == line - 1
                || text.trim().is_empty()
                || text.len() - text.trim_start().len() >= indent
        })
        .filter(|&index| {
            let text: Vec<char> = lines[index].chars().collect();
            let at_indent =
                index == line - 1 || lines[index].len() - lines[index].trim_start().len() == indent;
            at_indent && text.len() > indent && is_key_at(&text, indent)
        });
    keys.nth(1).map(|index| (index + 1, column))
}

/// serde's path without `groups[2].cases[0]`: the line says where, and once a mistaken
/// case is read past the indexes of those after it no longer count from the file.
fn without_item_indexes(message: &str) -> String {
    let mut rest = message;
    for item in ["groups[", "cases["] {
        let Some(after) = rest.strip_prefix(item) else {
            break;
        };
        let Some((index, tail)) = after.split_once(']') else {
            break;
        };
        if !index.chars().all(|c| c.is_ascii_digit()) {
            break;
        }
        rest = match tail.strip_prefix('.') {
            Some(tail) => tail,
            None => tail.strip_prefix(": ").unwrap_or(tail),
        };
    }
    rest.to_string()
}

/// serde's "unknown field `pionts`, expected one of `name`, `points`" as "`pionts` is not
/// a field here; did you mean `points`?", and an unknown variant (`visibility: hiden`) alike.
fn unknown_field(message: &str) -> Option<String> {
    let (start, opening, kind) = [
        ("unknown field `", "a field"),
        ("unknown variant `", "a choice"),
    ]
    .into_iter()
    .find_map(|(opening, kind)| Some((message.find(opening)?, opening, kind)))?;
    let (path, rest) = message.split_at(start);
    let (field, rest) = rest[opening.len()..].split_once('`')?;
    let known: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
    let what = format!("{path}`{field}` is not {kind} here");
    Some(match grader_api::nearest(field, &known) {
        Some(near) => format!("{what}; did you mean `{near}`?"),
        None if known.is_empty() => format!("{what}; it takes none"),
        None => format!("{what}; expected one of: {}", known.join(", ")),
    })
}

/// serde's "invalid type: string \"many\", expected f64" as "expected a number, not `many`".
fn expected_type(message: &str) -> Option<String> {
    let (path, rest) = match message.find("invalid type: ") {
        Some(start) => (
            &message[..start],
            &message[start + "invalid type: ".len()..],
        ),
        None => return None,
    };
    let (found, wanted) = rest.split_once(", expected ")?;
    if let Some(text) = found
        .strip_prefix("string \"")
        .and_then(|text| text.strip_suffix('"'))
    {
        let number = wanted.contains("number") || wanted.starts_with(['u', 'i', 'f']);
        let bool = wanted.trim() == "a boolean";
        if let Some(why) = grader_api::spec::read_as_string(text, bool, number) {
            return Some(format!("{path}{why}"));
        }
    }
    let wanted = match wanted.trim() {
        "f64" | "f32" => "a number",
        "u64" | "u32" | "u16" | "u8" | "i64" | "i32" => "a whole number",
        "a boolean" => "true or false",
        "a sequence" => "a list, such as [a, b]",
        "a string" => "text",
        other if other.starts_with("struct") || other == "a map" => {
            "fields, such as `{ name: ... }`"
        }
        other => other,
    };
    let found = match found {
        "sequence" => "a list".to_string(),
        "map" => "fields".to_string(),
        "unit value" => "nothing".to_string(),
        other => match other.split_once(' ') {
            Some((_, value)) => format!("`{}`", value.trim_matches(['"', '`'])),
            None => other.to_string(),
        },
    };
    Some(format!("{path}expected {wanted}, not {found}"))
}

/// The character at a 1-based line and column.
fn character_at(text: &str, line: usize, column: usize) -> Option<char> {
    text.lines()
        .nth(line.checked_sub(1)?)?
        .chars()
        .nth(column.checked_sub(1)?)
}

/// `text` with each line break YAML knows (`\r\n`, a lone `\r`, a next-line, a line or
/// paragraph separator) made a `\n`: the places the grader finds itself count `\n`s, and
/// must count the lines the YAML parser counts.
pub fn with_newlines(text: &str) -> Cow<'_, str> {
    const BREAKS: [char; 4] = ['\r', '\u{85}', '\u{2028}', '\u{2029}'];
    if !text.contains(BREAKS) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace("\r\n", "\n").replace(BREAKS, "\n"))
}
