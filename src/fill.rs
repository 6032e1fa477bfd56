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

/// `text` with each filling's `expect` added to its case: into a `{ ... }` case before its
/// `}`, or as a line of its own after a case written as lines of fields. None when a case
/// is laid out otherwise.
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
        let before_name = lines[index][..name_at].trim_end();
        if before_name.ends_with('{') {
            let (close_line, close_at) = closing_brace(&lines, index, before_name.len() - 1)?;
            let close = &mut lines[close_line];
            let end = close[..close_at].trim_end().len();
            close.insert_str(end, &format!(", expect: {}", filling.expect));
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

/// The line and byte of the `}` that closes the `{` at byte `open` of line `line`,
/// past nested brackets and quoted text.
fn closing_brace(lines: &[String], line: usize, open: usize) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let mut quote = None;
    let mut previous;
    for (at, text) in lines.iter().enumerate().skip(line) {
        let from = if at == line { open } else { 0 };
        previous = ' ';
        for (byte, c) in text[from..].char_indices() {
            let after = std::mem::replace(&mut previous, c);
            match (quote, c) {
                (Some(mark), c) if c == mark => quote = None,
                (Some(_), _) => {}
                // A quote opens text only where a value starts: `the seed's rule` is plain.
                (None, '"' | '\'') if matches!(after, ' ' | '{' | '[' | ',' | ':') => {
                    quote = Some(c);
                }
                (None, '#') if after == ' ' => break,
                (None, '{' | '[') => depth += 1,
                (None, '}' | ']') => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return (c == '}').then_some((at, from + byte));
                    }
                }
                _ => {}
            }
        }
    }
    None
}
