//! `grader spec fill`: writes the reference's answer into every listed case without an
//! `expect`, in the spec's own syntax, and changes nothing else of the file: comments,
//! order and layout stay as the instructor wrote them. `--check` only says what it would
//! write, and fails, for CI.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use grader_api::spec::Grading;

use crate::exit;
use crate::grade::reference_answers;
use crate::spec::{self, TestCase};

#[derive(Debug, clap::Args)]
pub struct FillArgs {
    /// The spec files (or folders of them) to fill.
    #[arg(required = true, value_name = "SPEC")]
    pub specs: Vec<PathBuf>,
    /// Write nothing: say which cases lack an `expect` and what it would be, and exit 1
    /// if any does.
    #[arg(long)]
    pub check: bool,
}

/// An `expect` to write into a case: where the case is, and the value.
struct Filling {
    case: String,
    at: (usize, usize),
    expect: String,
}

pub fn run(args: FillArgs) -> ExitCode {
    let files = match spec::spec_files(&args.specs) {
        Ok(files) => files,
        Err(message) => return exit::done_or_usage(Err(message)),
    };
    let mut lacking = 0;
    for file in &files {
        match fill(file, args.check) {
            Ok(count) => lacking += count,
            Err(message) => return exit::done_or_usage(Err(message)),
        }
    }
    match (args.check, lacking) {
        (true, 0) => ExitCode::from(exit::PASSED),
        (true, _) => {
            println!("{lacking} cases have no `expect`; `grader spec fill` writes them");
            ExitCode::from(exit::FAILED)
        }
        (false, _) => ExitCode::from(exit::PASSED),
    }
}

/// Fills one file, or with `check` tells what it would fill: how many cases lack an
/// `expect`.
fn fill(path: &Path, check: bool) -> Result<usize, String> {
    let text = spec::read(path).map_err(|error| error.to_string())?;
    let name = path.display().to_string();
    let suite = spec::parse(&name, &text, None).map_err(|errors| errors.to_string())?;
    let reference = reference::submission();
    let fillings: Vec<Filling> = suite
        .tests()
        .filter_map(|(_, test)| filling(&reference, test))
        .collect();
    if check {
        for filling in &fillings {
            let (line, column) = filling.at;
            println!(
                "{name}:{line}:{column}: case `{}` has no `expect`; the reference answers `expect: {}`",
                filling.case, filling.expect
            );
        }
        return Ok(fillings.len());
    }
    if fillings.is_empty() {
        return Ok(0);
    }
    let filled = written_into(&text, &fillings).ok_or_else(|| {
        format!("{name}: a case's layout is not one this tool can add `expect` to; the file is left as it was")
    })?;
    // What was written must load and say what the reference answers, or it is not kept.
    let reloaded = spec::parse(&name, &filled, None).map_err(|errors| {
        format!("{name}: the filled spec would not load, so it is left as it was: {errors}")
    })?;
    let now_lacking = reloaded
        .tests()
        .filter(|(_, test)| filling(&reference, test).is_some())
        .count();
    if now_lacking > 0 {
        return Err(format!(
            "{name}: {now_lacking} cases would still lack an `expect`, so the file is left as it was"
        ));
    }
    std::fs::write(path, filled).map_err(|error| format!("cannot write {name}: {error}"))?;
    println!("{name}: wrote `expect` into {} cases", fillings.len());
    Ok(0)
}

/// The `expect` a listed case without one would take: its one answer, in spec syntax.
fn filling(reference: &grader_api::Submission, test: &TestCase) -> Option<Filling> {
    if test.grading != Grading::Listed || !test.written.is_empty() {
        return None;
    }
    let answers = reference_answers(reference, &*test.request);
    let [(_, replies)] = &answers[..] else {
        return None;
    };
    let [reply] = &replies[..] else {
        return None;
    };
    Some(Filling {
        case: test.name.clone(),
        at: test.location?,
        expect: test.request.expect_text(reply)?,
    })
}

/// `text` with each filling's `expect` added to its case: into a `{ ... }` case after what
/// it holds last, or as a line of its own after a case written as lines of fields. None
/// when a case is laid out otherwise.
fn written_into(text: &str, fillings: &[Filling]) -> Option<String> {
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let mut in_order: Vec<&Filling> = fillings.iter().collect();
    // From the end of the file up, so that each edit leaves the places before it as they are.
    in_order.sort_by_key(|filling| std::cmp::Reverse(filling.at));
    for filling in in_order {
        let (line, column) = filling.at;
        let index = line.checked_sub(1)?;
        let name_at = lines
            .get(index)?
            .char_indices()
            .nth(column.checked_sub(1)?)?
            .0;
        if let Some(open) = enclosing_brace(&lines, (index, name_at)) {
            let (line, at, last) = last_inside_braces(&lines, open)?;
            // After what the case holds last, so that a comment or a line break before the
            // `}` stays where it is, and a trailing comma stays trailing.
            let field = match last {
                ',' => format!(" expect: {},", filling.expect),
                _ => format!(", expect: {}", filling.expect),
            };
            lines[line].insert_str(at, &field);
        } else {
            let indent = lines[index][..name_at].len();
            let last = (index + 1..lines.len())
                .take_while(|&at| {
                    let line = &lines[at];
                    line.trim().is_empty() || indentation(line) >= indent
                })
                .filter(|&at| {
                    let content = lines[at].trim();
                    !content.is_empty() && !content.starts_with('#')
                })
                .last()
                .unwrap_or(index);
            lines.insert(
                last + 1,
                format!("{}expect: {}", " ".repeat(indent), filling.expect),
            );
        }
    }
    Some(lines.join("\n"))
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The line and byte of the `{` of the flow mapping the `name:` at `name` is a key of, if
/// it is one: looked for from the sequence entry (`- `) the case starts in, on the name's
/// line or above it, whatever the mapping's keys' order and lines.
fn enclosing_brace(lines: &[String], name: (usize, usize)) -> Option<(usize, usize)> {
    let entry = (0..=name.0).rev().find_map(|at| {
        let line = &lines[at];
        let dash = indentation(line);
        let entry = line[dash..].starts_with("- ") || line[dash..] == *"-";
        (entry && (at < name.0 || dash < name.1)).then_some((at, dash + 1))
    })?;
    let mut open: Vec<(usize, usize, char)> = Vec::new();
    scan(lines, entry, |at, byte, c, quoted| {
        if (at, byte) >= name {
            return Some(
                open.last()
                    .filter(|(_, _, c)| *c == '{')
                    .map(|&(at, byte, _)| (at, byte)),
            );
        }
        match c {
            '{' | '[' if !quoted => open.push((at, byte, c)),
            '}' | ']' if !quoted => {
                open.pop();
            }
            _ => {}
        }
        None
    })
    .flatten()
}

/// What the `{ ... }` opened at `open` (line, byte) holds last, past nested brackets and
/// quoted text, spaces, line breaks and comments: the line and byte just past it, and the
/// character it is (a `,` where the mapping ends with a trailing comma).
fn last_inside_braces(lines: &[String], open: (usize, usize)) -> Option<(usize, usize, char)> {
    let mut depth = 0usize;
    let mut last = None;
    scan(lines, open, |at, byte, c, quoted| {
        match c {
            '{' | '[' if !quoted => depth += 1,
            '}' | ']' if !quoted => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(last.filter(|_| c == '}'));
                }
            }
            _ => {}
        }
        if quoted || !c.is_whitespace() {
            last = Some((at, byte + c.len_utf8(), c));
        }
        None
    })
    .flatten()
}

/// Visits each character of `lines` from `from` (line, byte) on, but comments, with its line,
/// byte and whether it is quoted text, until `visit` returns a value.
fn scan<T>(
    lines: &[String],
    (line, byte): (usize, usize),
    mut visit: impl FnMut(usize, usize, char, bool) -> Option<T>,
) -> Option<T> {
    let mut quote = None;
    for (at, text) in lines.iter().enumerate().skip(line) {
        let from = if at == line { byte } else { 0 };
        let mut previous = ' ';
        for (byte, c) in text.get(from..)?.char_indices() {
            let after = std::mem::replace(&mut previous, c);
            let quoted = match (quote, c) {
                (Some(mark), c) if c == mark => {
                    quote = None;
                    true
                }
                (Some(_), _) => true,
                // A quote opens text only where a value starts: `the seed's rule` is plain.
                (None, '"' | '\'') if matches!(after, ' ' | '{' | '[' | ',' | ':') => {
                    quote = Some(c);
                    true
                }
                (None, '#') if after == ' ' => break,
                (None, _) => false,
            };
            if let Some(found) = visit(at, from + byte, c, quoted) {
                return Some(found);
            }
        }
    }
    None
}
