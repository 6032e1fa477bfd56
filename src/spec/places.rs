//! Where in a spec file each thing is: a group, a case, a key, a problem; found by reading
//! the file once, in order.

use grader_api::spec::Place;

/// `file:line:column`, or the file alone when the place is not known.
pub(super) fn place_in(file: &str, location: Option<(usize, usize)>) -> String {
    match location {
        Some((line, column)) => format!("{file}:{line}:{column}"),
        None => file.to_string(),
    }
}

/// Where in `text` a problem is.
pub(super) fn place(text: &str, at: &Place) -> Option<(usize, usize)> {
    Places::new(text).of(at)
}

/// Places problems in a text read into lines once. A file's problems come in its order, so
/// each is looked for from where the one before it was found (from the top only when it is
/// not there): placing a problem for every case reads the file once, not once per case,
/// and cases of one name are each placed where each is.
pub(super) struct Places<'t> {
    lines: Vec<&'t str>,
    group: Option<PlacedGroup>,
}

/// The group last placed, where it is, and where to look for its next case.
pub(super) struct PlacedGroup {
    name: String,
    at: (usize, usize),
    next_case: (usize, usize),
}

impl<'t> Places<'t> {
    pub(super) fn new(text: &'t str) -> Places<'t> {
        Places {
            lines: text.lines().collect(),
            group: None,
        }
    }

    pub(super) fn of(&mut self, at: &Place) -> Option<(usize, usize)> {
        match at {
            Place::At(line, column) => Some((*line, *column)),
            Place::Group(group) => self.group(group),
            Place::Case { group, case } => {
                let in_group = self.group(group).map_or((0, 0), |at| past(&self.lines, at));
                let from = match &self.group {
                    Some(placed) if placed.name == *group => placed.next_case,
                    _ => in_group,
                };
                let at = locate(&self.lines, case, from)
                    .or_else(|| locate(&self.lines, case, in_group))?;
                if let Some(placed) = &mut self.group
                    && placed.name == *group
                {
                    placed.next_case = past(&self.lines, at);
                }
                Some(at)
            }
            Place::File => None,
        }
    }

    pub(super) fn group(&mut self, name: &str) -> Option<(usize, usize)> {
        if let Some(placed) = &self.group
            && placed.name == name
        {
            return Some(placed.at);
        }
        let from = self
            .group
            .as_ref()
            .map_or((0, 0), |placed| past(&self.lines, placed.at));
        let at = locate(&self.lines, name, from).or_else(|| locate(&self.lines, name, (0, 0)))?;
        self.group = Some(PlacedGroup {
            name: name.to_string(),
            at,
            next_case: past(&self.lines, at),
        });
        Some(at)
    }
}

/// Line and column (1-based) of the first `name: <name>` in the text at or after `from`, a
/// line (0-based) and a byte of it, for errors about things the YAML parser accepted but we
/// refuse. Every `name:` of a line counts: a group written on one line holds its cases.
pub(super) fn locate(
    lines: &[&str],
    name: &str,
    (from_line, from_byte): (usize, usize),
) -> Option<(usize, usize)> {
    lines
        .iter()
        .enumerate()
        .skip(from_line)
        .find_map(|(index, line)| {
            let start = if index == from_line { from_byte } else { 0 };
            line.match_indices("name:")
                .filter(|&(column, _)| column >= start)
                .find_map(|(column, _)| {
                    let value = line[column + 5..].trim_start();
                    let value = value.trim_start_matches(['"', '\'']);
                    let rest = value.strip_prefix(name)?.trim_start();
                    // The whole name, not a longer one that starts the same.
                    let whole = rest.is_empty() || rest.starts_with([',', '}', '"', '\'', '#']);
                    // Columns count characters, as the YAML parser's and an editor's do.
                    whole.then_some((index + 1, line[..column].chars().count() + 1))
                })
        })
}

/// Where to look for the next name after the one [`locate`] found `at`: past its `name:`.
pub(super) fn past(lines: &[&str], (line, column): (usize, usize)) -> (usize, usize) {
    let byte = lines[line - 1]
        .char_indices()
        .nth(column - 1)
        .map_or(0, |(byte, _)| byte);
    (line - 1, byte + 1)
}

/// The list item of group `name` at or after line `from` (0-based): the line its `-` is on
/// and the `-`'s column (0-based).
pub fn group_item(text: &str, name: &str, from: usize) -> Option<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let (line, _) = locate(&lines, name, (from, 0))?;
    let at = line - 1;
    let dash = |index: usize| {
        let line = lines.get(index)?;
        let trimmed = line.trim_start();
        (trimmed.starts_with("- ") || trimmed == "-").then(|| line.len() - trimmed.len())
    };
    match dash(at) {
        Some(column) => Some((at, column)),
        None => at
            .checked_sub(1)
            .and_then(|above| Some((above, dash(above)?))),
    }
}

/// Line and column of a top-level `key:`.
pub(super) fn locate_key(text: &str, key: &str) -> Option<(usize, usize)> {
    text.lines()
        .position(|line| line.starts_with(&format!("{key}:")))
        .map(|index| (index + 1, 1))
}
