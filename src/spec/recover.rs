//! Reading on past a mistake: the YAML parser stops at the first field it refuses, so that
//! field is blanked out (the entry of a `[...]` or `{...}`, or a field's line), or where
//! that cannot be, the case or group that holds it, and the file read again. One run then
//! finds the mistakes of every case and group, each at its own place, as a compiler's would.

use std::ops::Range;

/// A spec's text with the cases and groups that held mistakes blanked out, line for line,
/// so every later error keeps its line and column.
pub struct Recovery {
    lines: Vec<String>,
    /// Groups that lost a case: what is said of the whole group may be only that loss.
    touched_groups: Vec<String>,
    /// The lines (0-based) of each case, group or top-level field that lost a field, and
    /// where the field was (1-based): what it lacks now is no mistake of its own, and it
    /// makes no test.
    mended: Vec<(Range<usize>, (usize, usize))>,
    blanked_any: bool,
}

/// What holds a line: a case, else a group, else a top-level field.
enum Holder {
    Case {
        cases: Items,
        span: Range<usize>,
        group: Option<String>,
    },
    Group {
        groups: Items,
        span: Range<usize>,
    },
    Field(Range<usize>),
}

impl Holder {
    fn span(&self) -> Range<usize> {
        match self {
            Holder::Case { span, .. } | Holder::Group { span, .. } | Holder::Field(span) => {
                span.clone()
            }
        }
    }
}

/// A block sequence's items: the line of the key that holds them, and each item's lines.
struct Items {
    key_line: usize,
    spans: Vec<Range<usize>>,
}

impl Recovery {
    pub fn new(text: &str) -> Recovery {
        Recovery {
            lines: text.split('\n').map(str::to_string).collect(),
            touched_groups: Vec::new(),
            mended: Vec::new(),
            blanked_any: false,
        }
    }

    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    /// Whether anything was blanked out, so that a file left with no group is no mistake
    /// of its own.
    pub fn blanked_any(&self) -> bool {
        self.blanked_any
    }

    /// Whether group `name` lost a case.
    pub fn touched(&self, name: &str) -> bool {
        self.touched_groups.iter().any(|touched| touched == name)
    }

    /// Whether `line` (1-based) is in a case, group or top-level field that lost a field.
    pub fn mended(&self, line: usize) -> bool {
        line.checked_sub(1)
            .is_some_and(|at| self.mended.iter().any(|(span, _)| span.contains(&at)))
    }

    /// Whether a mistake found at `line` and `column` may be only what a field blanked out
    /// left: the parser reads in order, so a mistake of the file's own in the same case or
    /// group comes after the field blanked; one at or before it is said of what holds the
    /// field (a field it needs, a table it checks whole), as the field's loss made it.
    pub fn left_by_a_blanked_field(&self, line: usize, column: usize) -> bool {
        self.mended.iter().any(|(span, blanked)| {
            line.checked_sub(1).is_some_and(|at| span.contains(&at)) && (line, column) <= *blanked
        })
    }

    /// Reads past the mistake at `line` and `column` (1-based): blanks the entry of the
    /// `[...]` or `{...}` that holds it, else its line when that is a field of a case, group
    /// or top-level field, so the rest of these is read on; else the whole case, group or
    /// top-level field. False when there is nothing left to blank there.
    pub fn read_past(&mut self, line: usize, column: usize) -> bool {
        let Some(index) = self.written(line) else {
            return false;
        };
        let Some(holder) = self.holder(index) else {
            return false;
        };
        let span = holder.span();
        let text = &self.lines[index];
        let is_field_line =
            index != span.start && !is_item(text) && key_of(text.trim_start()).is_some();
        let blanked = match flow_entry(text, column) {
            Some(entry) => {
                self.lines[index] = text
                    .chars()
                    .enumerate()
                    .map(|(at, c)| if entry.contains(&at) { ' ' } else { c })
                    .collect();
                true
            }
            None if is_field_line => {
                let end = self.block_end(index + 1, indentation(text) + 1);
                self.blank_lines(index..end)
            }
            None => false,
        };
        if !blanked {
            return self.blank_holder(holder);
        }
        self.blanked_any = true;
        self.mended.push((span, (line, column)));
        true
    }

    /// Blanks out whole each case, group or top-level field that lost a field: read on to
    /// find its other mistakes, it is no test and lacks what it lost. False when none did.
    pub fn blank_mended(&mut self) -> bool {
        let starts: Vec<usize> = self.mended.iter().map(|(span, _)| span.start).collect();
        let mut blanked = false;
        for start in starts {
            // One blanked already, with its case or group, holds nothing to find.
            if is_blank(&self.lines[start]) {
                continue;
            }
            if let Some(holder) = self.holder(start) {
                blanked |= self.blank_holder(holder);
            }
        }
        blanked
    }

    /// Blanks out the case, else the group, else the top-level field holding `line`
    /// (1-based). False when there is none, or it is blank already: reading on would
    /// only find the same mistake again.
    pub fn blank_around(&mut self, line: usize) -> bool {
        match self.written(line).and_then(|index| self.holder(index)) {
            Some(holder) => self.blank_holder(holder),
            None => false,
        }
    }

    /// The index of `line` (1-based), unless it is blank: a mistake at a blank line is one
    /// read past already, or none an item holds.
    fn written(&self, line: usize) -> Option<usize> {
        line.checked_sub(1)
            .filter(|&at| self.lines.get(at).is_some_and(|text| !is_blank(text)))
    }

    fn blank_holder(&mut self, holder: Holder) -> bool {
        match holder {
            Holder::Case { cases, span, group } => {
                let blanked = self.blank(&cases, span);
                if blanked && let Some(name) = group {
                    self.touched_groups.push(name);
                }
                blanked
            }
            Holder::Group { groups, span } => self.blank(&groups, span),
            Holder::Field(lines) => self.blank_lines(lines),
        }
    }

    /// The case, else the group, else the top-level field (never `assignment` or `groups`)
    /// that holds line `index`.
    fn holder(&self, index: usize) -> Option<Holder> {
        if let Some(groups) = self.top_level("groups").and_then(|key| self.items(key))
            && let Some(group) = groups
                .spans
                .iter()
                .find(|span| span.contains(&index))
                .cloned()
        {
            let cases = self
                .key_in(group.clone(), "cases")
                .and_then(|key| self.items(key));
            if let Some(cases) = cases
                && let Some(case) = cases
                    .spans
                    .iter()
                    .find(|span| span.contains(&index))
                    .cloned()
            {
                return Some(Holder::Case {
                    cases,
                    span: case,
                    group: self.name_in(group),
                });
            }
            return Some(Holder::Group {
                groups,
                span: group,
            });
        }
        let field = (0..=index.min(self.lines.len().saturating_sub(1)))
            .rev()
            .find(|&at| self.top_level_key(at).is_some())?;
        if matches!(self.top_level_key(field), Some("groups" | "assignment")) {
            return None;
        }
        let end = self.block_end(field + 1, 0);
        (field..end)
            .contains(&index)
            .then_some(Holder::Field(field..end))
    }

    /// Blanks `item` of `items`; the last item gone, its key is given an empty list, so
    /// the file still says there was a list there.
    fn blank(&mut self, items: &Items, item: Range<usize>) -> bool {
        if !self.blank_lines(item) {
            return false;
        }
        let all_blank = items
            .spans
            .iter()
            .all(|span| span.clone().all(|at| is_blank(&self.lines[at])));
        if all_blank {
            let key_line = &self.lines[items.key_line];
            let key_end = key_line.find(':').map_or(key_line.len(), |colon| colon + 1);
            self.lines[items.key_line] = format!("{} []", &key_line[..key_end]);
        }
        true
    }

    fn blank_lines(&mut self, lines: Range<usize>) -> bool {
        if lines.clone().all(|at| is_blank(&self.lines[at])) {
            return false;
        }
        for at in lines {
            self.lines[at].clear();
        }
        self.blanked_any = true;
        true
    }

    /// The line of a top-level `key:` that holds a block below it.
    fn top_level(&self, key: &str) -> Option<usize> {
        (0..self.lines.len()).find(|&at| self.top_level_key(at) == Some(key))
    }

    fn top_level_key(&self, at: usize) -> Option<&str> {
        let line = &self.lines[at];
        if line.starts_with([' ', '-', '#']) {
            return None;
        }
        key_of(line)
    }

    /// The line, inside `within`, of the key `key:` at the item's own indentation, with
    /// nothing after it on the line.
    fn key_in(&self, within: Range<usize>, key: &str) -> Option<usize> {
        let first = within.start;
        let indent = item_content_column(&self.lines[first])?;
        within.into_iter().find(|&at| {
            let line = &self.lines[at];
            let content = match at == first {
                true => &line[indent.min(line.len())..],
                false if indentation(line) == indent => line.trim_start(),
                false => return false,
            };
            key_of(content) == Some(key) && after_colon(content).is_empty()
        })
    }

    /// The `name:` given in `within`, the lines of a group.
    fn name_in(&self, within: Range<usize>) -> Option<String> {
        within.into_iter().find_map(|at| {
            let line = self.lines[at].trim_start();
            let line = line.strip_prefix("- ").unwrap_or(line).trim_start();
            let value = line.strip_prefix("name:")?;
            let value = value.split(" #").next().unwrap_or(value).trim();
            Some(value.trim_matches(['"', '\'']).to_string())
        })
    }

    /// The block sequence under the key on line `key_line`, if it is one.
    fn items(&self, key_line: usize) -> Option<Items> {
        if !after_colon(&self.lines[key_line]).is_empty() {
            return None;
        }
        let first = (key_line + 1..self.lines.len()).find(|&at| !is_blank(&self.lines[at]))?;
        let indent = indentation(&self.lines[first]);
        if !is_item(&self.lines[first]) || indent < indentation(&self.lines[key_line]) {
            return None;
        }
        let end = self.block_end(first, indent);
        let starts: Vec<usize> = (first..end)
            .filter(|&at| indentation(&self.lines[at]) == indent && is_item(&self.lines[at]))
            .collect();
        let spans = starts
            .iter()
            .zip(starts.iter().skip(1).chain([&end]))
            .map(|(&start, &next)| start..next)
            .collect();
        Some(Items { key_line, spans })
    }

    /// The line after a block that starts at `from` and whose lines are indented at least
    /// `indent`, its items' dashes at `indent` included.
    fn block_end(&self, from: usize, indent: usize) -> usize {
        (from..self.lines.len())
            .find(|&at| {
                let line = &self.lines[at];
                !is_blank(line)
                    && (indentation(line) < indent
                        || (indentation(line) == indent && !is_item(line)))
            })
            .unwrap_or(self.lines.len())
    }
}

/// The characters (0-based) of the entry of a `[...]` or `{...}` on `line` that holds
/// `column` (1-based), with the comma that parts it from the next entry (from the one before,
/// when it is the last): blanked, they leave the collection whole without it. None when the
/// column is in no collection opened and closed on this line.
fn flow_entry(line: &str, column: usize) -> Option<Range<usize>> {
    let at = column.checked_sub(1)?;
    let chars: Vec<char> = line.chars().collect();
    // Each open collection: where it opens, and the commas at its depth so far.
    let mut open: Vec<(usize, Vec<usize>)> = Vec::new();
    let (mut quote, mut previous) = (None, ' ');
    for (index, &c) in chars.iter().enumerate() {
        match (quote, c) {
            (Some(mark), c) if c == mark => quote = None,
            (Some(_), _) => {}
            (None, '#') if previous.is_whitespace() => return None,
            (None, '"' | '\'') if matches!(previous, ' ' | '[' | '{' | ',' | ':') => {
                quote = Some(c);
            }
            (None, '[' | '{') => open.push((index, Vec::new())),
            (None, ',') => {
                if let Some((_, commas)) = open.last_mut() {
                    commas.push(index);
                }
            }
            (None, ']' | '}') => {
                let Some((start, commas)) = open.pop() else {
                    continue;
                };
                if !(start < at && at < index) {
                    continue;
                }
                // The innermost collection around the column closes first.
                let before = commas.iter().rev().find(|&&comma| comma < at).copied();
                let after = commas.iter().find(|&&comma| comma >= at).copied();
                return Some(match (before, after) {
                    (_, Some(after)) => before.unwrap_or(start) + 1..after + 1,
                    (Some(before), None) => before..index,
                    (None, None) => start + 1..index,
                });
            }
            _ => {}
        }
        previous = c;
    }
    None
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank(line: &str) -> bool {
    let content = line.trim();
    content.is_empty() || content.starts_with('#')
}

fn is_item(line: &str) -> bool {
    let content = line.trim_start_matches(' ');
    content == "-" || content.starts_with("- ")
}

/// The column where an item's content starts: after its `- `.
fn item_content_column(line: &str) -> Option<usize> {
    let dash = indentation(line);
    let rest = line.get(dash + 1..)?;
    Some(dash + 1 + rest.len() - rest.trim_start().len())
}

/// `key` of a line that starts with `key:`.
fn key_of(content: &str) -> Option<&str> {
    let (key, _) = content.split_once(':')?;
    let plain = !key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || c == '_');
    plain.then_some(key)
}

/// What follows the first `:` of a line, without a comment.
fn after_colon(line: &str) -> &str {
    let rest = line.split_once(':').map_or("", |(_, rest)| rest).trim();
    match rest.starts_with('#') {
        true => "",
        false => rest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = "\
assignment: a_game
defaults: { timeout_ms: 2000 }
groups:
  - name: first
    points: 2
    cases:
      - { name: a, hand: [KH] }
      # a comment
      - name: b
        hand: [QH]
  - name: second
    cases:
      - { name: c, hand: [KH] }
";

    #[test]
    fn a_case_is_blanked_line_for_line_and_its_group_is_touched() {
        let mut recovery = Recovery::new(SPEC);
        assert!(recovery.blank_around(10));
        let text = recovery.text();
        assert_eq!(text.lines().count(), SPEC.lines().count());
        assert!(text.contains("{ name: a"), "{text}");
        assert!(
            !text.contains("name: b") && !text.contains("[QH]"),
            "{text}"
        );
        assert!(recovery.touched("first") && !recovery.touched("second"));
        // The same place again is blank: nothing more to do.
        assert!(!recovery.blank_around(10));
    }

    #[test]
    fn the_last_case_gone_leaves_an_empty_list() {
        let mut recovery = Recovery::new(SPEC);
        assert!(recovery.blank_around(13));
        assert!(
            recovery.text().contains("    cases: []\n"),
            "{}",
            recovery.text()
        );
    }

    #[test]
    fn a_group_field_blanks_the_group() {
        let mut recovery = Recovery::new(SPEC);
        assert!(recovery.blank_around(5));
        let text = recovery.text();
        assert!(
            !text.contains("name: first") && text.contains("name: second"),
            "{text}"
        );
    }

    #[test]
    fn a_top_level_field_is_blanked_but_never_assignment_or_groups() {
        let mut recovery = Recovery::new(SPEC);
        assert!(recovery.blank_around(2));
        assert!(!recovery.text().contains("defaults"));
        assert!(!recovery.blank_around(1));
        assert!(!recovery.blank_around(3));
    }
}
