//! `grader batch export`: a batch's scores as a gradebook CSV that Canvas or Moodle
//! imports, each submission folder matched to a student of the course's roster.
//!
//! An import does what the CSV says without asking, so the export refuses a roster that
//! cannot say whose each score is (see `read_roster` and `submissions_of`), and writes
//! scores on the scale of the assignment's points possible (see `scale`), never on another.
//!
//! Over 600 lines, as one concern: the export's guarantees (whose score is whose, on which
//! scale) rest on one reading of the roster and one matching of folders to students, kept
//! beside them; the roster's reading, which `late.rs` shares, is the part to move out next.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::folder::{MANIFEST, results_named};
use super::manifest::Manifest;
use crate::student_text::StudentText;

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("lms").required(true).args(["canvas", "moodle"])))]
pub struct ExportArgs {
    /// The results folder of `grader batch` (or of `grader batch merge`).
    pub results: PathBuf,
    /// Canvas: ROSTER is the course's gradebook as Canvas exports it (Grades, Export);
    /// the CSV written has its Student, ID, SIS User ID, SIS Login ID and Section columns,
    /// a Points Possible row and the score column.
    #[arg(long, value_name = "ROSTER.csv")]
    pub canvas: Option<PathBuf>,
    /// Moodle: ROSTER is any CSV of the course's students, such as Moodle's own grade
    /// export (Export, Plain text file); the CSV written has its identity columns (First
    /// name, Last name, ID number, Email address, Username, and the --by column) and the
    /// score column, for Import, CSV file, mapping the --by column to that user field.
    #[arg(long, value_name = "ROSTER.csv")]
    pub moodle: Option<PathBuf>,
    /// The roster column whose value names a student's submission folder [default: `ID`
    /// for Canvas, whose Download Submissions names each file `name_ID_...`; `Email
    /// address` for Moodle].
    #[arg(long, value_name = "COLUMN")]
    pub by: Option<String>,
    /// The gradebook column the scores go to: an existing assignment's header as the LMS
    /// writes it (Canvas: `Homework 3 (123456)`), or a new one to create.
    #[arg(long, value_name = "NAME", default_value = "cardgrade")]
    pub column: String,
    /// The assignment's points possible in the LMS: each score is scaled to it (score /
    /// the batch's maximum × N, to 2 decimals). Without it, scores are out of the batch's
    /// maximum, and a roster whose Points Possible for --column differs is refused.
    #[arg(long, value_name = "N", value_parser = points_possible)]
    pub points_possible: Option<f64>,
    /// The CSV to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

fn points_possible(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|points| points.is_finite() && *points > 0.0)
        .ok_or_else(|| {
            format!("`{text}` is not a number of points: write one above 0, such as 100")
        })
}

/// The columns that identify a student to Canvas, in the order its export writes them.
const CANVAS_IDENTITY: [&str; 5] = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"];
/// The columns that identify a student in Moodle's grade export and its CSV import, and
/// in Gradescope's grade download, compared without case.
const MOODLE_IDENTITY: [&str; 7] = [
    "first name",
    "last name",
    "id number",
    "email address",
    "username",
    "sid",
    "email",
];
/// The first cell of the row of Canvas's export that holds each assignment's points.
const POINTS_POSSIBLE: &str = "Points Possible";
/// What to do of a roster without the `--by` column.
pub(super) const BY: &str = "name the column that names each submission folder with --by";
/// How many faults, or lines, a refusal names before it counts the rest.
const NAMED_AT_MOST: usize = 10;

/// A roster: its header and rows, each cell as the file has it. Staff's file, but its
/// cells are not theirs alone: a student may have chosen a name or an email address.
pub(super) struct Roster {
    path: PathBuf,
    header: Vec<StudentText>,
    rows: Vec<Row>,
}

/// A row of a roster and the line of the file it starts on (1-based), by which a refusal
/// names it.
pub(super) struct Row {
    pub(super) line: u64,
    cells: Vec<StudentText>,
}

impl Row {
    /// Its cell in column `column`; none where the row is short.
    fn cell(&self, column: usize) -> Option<&StudentText> {
        self.cells.get(column)
    }

    /// The text of its cell in column `column`, to match or read a value by: empty where
    /// the row is short.
    pub(super) fn text(&self, column: usize) -> &str {
        self.cell(column)
            .map_or("", StudentText::raw_for_comparison)
    }

    /// The value of column `column` that names a submission (`--by`'s), to match by.
    fn name(&self, column: usize) -> &str {
        name_in(self.text(column))
    }

    /// Its cell in column `column` as a message shows it.
    fn shown(&self, column: usize) -> String {
        self.cell(column)
            .map_or_else(String::new, StudentText::on_a_line)
    }

    /// Canvas's Points Possible row, which is no student's (Canvas writes its first cell
    /// as `    Points Possible`).
    fn is_points_possible(&self) -> bool {
        self.text(0).trim() == POINTS_POSSIBLE
    }
}

impl Roster {
    /// The column named `name`; spaces around a header's name are not part of it.
    pub(super) fn column(&self, name: &str) -> Option<usize> {
        self.header
            .iter()
            .position(|header| header.raw_for_comparison().trim() == name)
    }

    /// The column named `name`, or a refusal naming the columns it has, and `hint`.
    pub(super) fn required(&self, name: &str, hint: &str) -> Result<usize, String> {
        self.column(name).ok_or_else(|| {
            let header: Vec<String> = self.header.iter().map(StudentText::on_a_line).collect();
            format!(
                "the roster {} has no column `{name}` (it has {}): {hint}",
                self.path.display(),
                header.join(", ")
            )
        })
    }

    /// The refusal of this roster for `faults`, each naming its lines.
    fn refused(&self, faults: &[String]) -> String {
        refused(&self.path, faults)
    }
}

/// The refusal of the roster at `path` for `faults`, each naming its lines.
fn refused(path: &Path, faults: &[String]) -> String {
    let mut said = format!(
        "the roster {} is refused: {}",
        path.display(),
        faults[..faults.len().min(NAMED_AT_MOST)].join("; ")
    );
    if faults.len() > NAMED_AT_MOST {
        said.push_str(&format!("; and {} more", faults.len() - NAMED_AT_MOST));
    }
    said
}

/// "line 3", "lines 3 and 5", "lines 3, 5 and 7", the first few of many.
fn lines(lines: &[u64]) -> String {
    let named: Vec<String> = lines
        .iter()
        .take(NAMED_AT_MOST)
        .map(u64::to_string)
        .collect();
    match named.as_slice() {
        [] => "no line".to_string(),
        [one] => format!("line {one}"),
        [first @ .., last] if lines.len() <= NAMED_AT_MOST => {
            format!("lines {} and {last}", first.join(", "))
        }
        _ => format!(
            "lines {} and {} more",
            named.join(", "),
            lines.len() - NAMED_AT_MOST
        ),
    }
}

/// Reads a roster, refused where its quoting is broken or a row has more or fewer cells
/// than its header: the csv crate reads both without complaint (an open quote runs the rest
/// of the file into one cell; a short row reads as blanks), and a cell read in another
/// column than its own gives a score to the wrong student, or to nobody.
pub(super) fn read_roster(path: &Path) -> Result<Roster, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the roster {}: {e}", path.display()))?;
    // A spreadsheet's UTF-8 byte order mark is not part of the first column's name.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if let Some(fault) = quoting_fault(text) {
        return Err(refused(path, &[fault]));
    }
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let header: Vec<StudentText> = reader
        .headers()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .iter()
        .map(StudentText::from)
        .collect();
    let mut rows = Vec::new();
    let mut faults = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| format!("{}: {e}", path.display()))?;
        let line = record.position().map_or(0, csv::Position::line);
        if record.len() != header.len() {
            faults.push(format!(
                "line {line} has {} cells where the header has {}",
                record.len(),
                header.len()
            ));
        }
        rows.push(Row {
            line,
            cells: record.iter().map(StudentText::from).collect(),
        });
    }
    if !faults.is_empty() {
        return Err(refused(path, &faults));
    }
    Ok(Roster {
        path: path.to_path_buf(),
        header,
        rows,
    })
}

/// Where the quoting of a CSV goes wrong, if it does: a quoted cell that no quote closes,
/// or text after a cell's closing quote (a quote left out or stray). The csv crate reads
/// both without an error, the first by running the rest of the file into one cell. A quote
/// inside a cell that does not start with one is read as itself, by the csv crate as by
/// spreadsheets, and is no fault.
fn quoting_fault(text: &str) -> Option<String> {
    enum State {
        CellStart,
        Unquoted,
        Quoted { opened: u64 },
        // A quote inside a quoted cell: its end, or the first of `""`, a quote in the cell.
        QuoteInQuoted { opened: u64 },
    }
    let mut state = State::CellStart;
    let mut line = 1;
    for c in text.chars() {
        state = match (state, c) {
            (State::Quoted { opened }, '"') => State::QuoteInQuoted { opened },
            (quoted @ State::Quoted { .. }, _) => quoted,
            (State::QuoteInQuoted { opened }, '"') => State::Quoted { opened },
            (_, ',' | '\n' | '\r') => State::CellStart,
            (State::QuoteInQuoted { opened }, _) => {
                return Some(format!(
                    "the quoted cell that line {opened} opens is closed on line {line} by a quote followed by more text: a quote is missing or stray"
                ));
            }
            (State::CellStart, '"') => State::Quoted { opened: line },
            (State::CellStart | State::Unquoted, _) => State::Unquoted,
        };
        if c == '\n' {
            line += 1;
        }
    }
    match state {
        State::Quoted { opened } => Some(format!(
            "line {opened} opens a quoted cell that no quote closes"
        )),
        _ => None,
    }
}

/// The Canvas user ID in a name as Canvas's Download Submissions writes it:
/// `lastfirst_ID_SUBMISSION_file`, or `lastfirst_LATE_ID_...` for a late one.
fn canvas_user_id(folder: &str) -> Option<&str> {
    let mut parts = folder.split('_').skip(1);
    let id = match parts.next()? {
        "LATE" => parts.next()?,
        id => id,
    };
    (!id.is_empty() && id.bytes().all(|b| b.is_ascii_digit())).then_some(id)
}

/// The name of a submission a roster's cell holds: the cell without the spaces a
/// spreadsheet may put around it. A tab is kept: it may be part of a folder's name, as any
/// other character.
fn name_in(cell: &str) -> &str {
    cell.trim_matches(' ')
}

/// Whether the submission folder `folder` is the student whose roster value is `value`:
/// the same name, a Gradescope export's `submission_ID` for the Submission ID, or (for
/// Canvas) a Canvas download's name for the user ID.
fn is_of(folder: &str, value: &str, canvas: bool) -> bool {
    let value = name_in(value);
    !value.is_empty()
        && (folder == value
            || folder.strip_prefix("submission_") == Some(value)
            || (canvas && canvas_user_id(folder) == Some(value)))
}

/// The roster's rows that are students: all but Canvas's Points Possible row and the rows
/// with nothing in the `--by` column (Canvas's Muted or Manual Posting row), which no
/// submission could be matched to.
pub(super) fn students(roster: &Roster, by_column: usize) -> Vec<&Row> {
    roster
        .rows
        .iter()
        .filter(|row| !row.is_points_possible() && !row.name(by_column).is_empty())
        .collect()
}

/// Each student's submission (an index into `folders`), found by the `--by` column.
/// Refused, naming the lines, where the roster cannot say whose a score is: the same
/// student on two rows (each would get the score), a submission matched by two students
/// or a student matching two submissions (which score is whose is not ours to say), or no
/// student at all with a submission (a wrong roster or `--by`, whose import would change
/// nothing and say so nowhere).
pub(super) fn submissions_of(
    roster: &Roster,
    students: &[&Row],
    (by_column, by): (usize, &str),
    folders: &[&StudentText],
    canvas: bool,
) -> Result<Vec<Option<usize>>, String> {
    if students.is_empty() {
        let rows: Vec<u64> = roster.rows.iter().map(|row| row.line).collect();
        return Err(roster.refused(&[if rows.is_empty() {
            "it has no row below its header (line 1): it names no student".to_string()
        } else {
            format!("it names no student: no `{by}` on {}", lines(&rows))
        }]));
    }
    let mut faults = Vec::new();
    // Each student's name for a submission, by its first row, and the lines it is on, in
    // the roster's order.
    let mut lines_of_name: Vec<(&Row, Vec<u64>)> = Vec::new();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for student in students {
        match seen.get(student.name(by_column)) {
            Some(&index) => lines_of_name[index].1.push(student.line),
            None => {
                seen.insert(student.name(by_column), lines_of_name.len());
                lines_of_name.push((student, vec![student.line]));
            }
        }
    }
    for (first, on) in &lines_of_name {
        if on.len() > 1 {
            faults.push(format!(
                "{} are the same student (`{by}` {})",
                lines(on),
                first.shown(by_column)
            ));
        }
    }
    let mut matched = Vec::new();
    // The students each submission matches: each name once, with the first line it is on.
    let mut claims: Vec<Vec<(&str, u64)>> = vec![Vec::new(); folders.len()];
    for student in students {
        let name = student.name(by_column);
        let theirs: Vec<usize> = (0..folders.len())
            .filter(|&index| is_of(folders[index].raw_for_comparison(), name, canvas))
            .collect();
        if let [first, second, ..] = theirs[..] {
            faults.push(format!(
                "line {} matches more than one submission: {} and {}",
                student.line,
                folders[first].on_a_line(),
                folders[second].on_a_line()
            ));
        }
        for &index in &theirs {
            // Rows of one name are the duplicates above; only another name is another student.
            if !claims[index].iter().any(|(claimed, _)| *claimed == name) {
                claims[index].push((name, student.line));
            }
        }
        matched.push(theirs.first().copied());
    }
    for (folder, claimed) in folders.iter().zip(&claims) {
        if claimed.len() > 1 {
            let on: Vec<u64> = claimed.iter().map(|(_, line)| *line).collect();
            faults.push(format!(
                "{} are different students who match one submission, {}",
                lines(&on),
                folder.on_a_line()
            ));
        }
    }
    if matched.iter().all(Option::is_none) {
        let on: Vec<u64> = students.iter().map(|row| row.line).collect();
        faults.push(format!(
            "no student of it has a submission: the `{by}` of {} (such as `{}`) names none of the batch's {} submissions (such as `{}`); name the column that names each submission folder with --by",
            lines(&on),
            students[0].shown(by_column),
            folders.len(),
            folders
                .first()
                .map_or_else(String::new, |folder| folder.on_a_line())
        ));
    }
    if faults.is_empty() {
        Ok(matched)
    } else {
        Err(roster.refused(&faults))
    }
}

/// How scores are written: out of the batch's maximum, or scaled to the assignment's
/// points possible in the LMS.
struct Scale {
    maximum: f64,
    possible: f64,
}

impl Scale {
    fn points(&self, score: f64) -> f64 {
        let scaled = if self.scales() {
            score / self.maximum * self.possible
        } else {
            score
        };
        (scaled * 100.0).round() / 100.0
    }

    fn scales(&self) -> bool {
        !same_points(self.maximum, self.possible)
    }
}

fn same_points(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// The scale of the scores: the assignment's points possible are the roster's (the `--column`
/// cell of Canvas's Points Possible row), or `--points-possible`, or else the batch's
/// maximum. Scores are scaled only when staff ask for it with `--points-possible`: an LMS
/// reads a score as out of its own points possible, so a roster whose points possible are
/// not the batch's maximum, exported as it is, would record 86.2 of 105 as 86.2 of 100.
fn scale(roster: &Roster, column: &str, maximum: f64, asked: Option<f64>) -> Result<Scale, String> {
    let rostered = roster.column(column).and_then(|index| {
        let row = roster.rows.iter().find(|row| row.is_points_possible())?;
        let points = row.text(index).trim().parse::<f64>().ok()?;
        Some((points, row.line))
    });
    match (rostered, asked) {
        (Some((points, line)), Some(asked)) if !same_points(points, asked) => {
            return Err(roster.refused(&[format!(
                "line {line} gives `{column}` {points} points possible, and --points-possible says {asked}: pass the assignment's own, {points}"
            )]));
        }
        (Some((points, line)), None) if !same_points(points, maximum) => {
            return Err(roster.refused(&[format!(
                "line {line} gives `{column}` {points} points possible, and the batch's maximum is {maximum}: pass --points-possible {points} to scale each score to it (score / {maximum} × {points}), or export to a new --column"
            )]));
        }
        _ => {}
    }
    let possible = asked
        .or(rostered.map(|(points, _)| points))
        .unwrap_or(maximum);
    if maximum <= 0.0 && !same_points(possible, maximum) {
        return Err(format!(
            "no result of the batch has a maximum score to scale from to {possible} points possible"
        ));
    }
    Ok(Scale { maximum, possible })
}

/// The columns written before the score, each its header's cell and the roster's column it
/// copies: Canvas's own, or those of the roster that identify a student to Moodle, and
/// `--by`'s.
fn identity(roster: &Roster, by_column: usize, canvas: bool) -> Vec<(String, Option<usize>)> {
    if canvas {
        return CANVAS_IDENTITY
            .iter()
            .map(|name| (name.to_string(), roster.column(name)))
            .collect();
    }
    let header_cell = |index: usize| (roster.header[index].in_csv_cell().into_owned(), Some(index));
    let mut kept: Vec<(String, Option<usize>)> = roster
        .header
        .iter()
        .enumerate()
        .filter(|(_, name)| {
            let name = name.raw_for_comparison().trim().to_lowercase();
            MOODLE_IDENTITY.contains(&name.as_str())
        })
        .map(|(index, _)| header_cell(index))
        .collect();
    if !kept.iter().any(|(_, column)| *column == Some(by_column)) {
        kept.push(header_cell(by_column));
    }
    kept
}

pub fn export(args: &ExportArgs) -> Result<String, String> {
    let (roster_path, canvas) = match (&args.canvas, &args.moodle) {
        (Some(roster), _) => (roster, true),
        (None, Some(roster)) => (roster, false),
        (None, None) => return Err("pass --canvas ROSTER.csv or --moodle ROSTER.csv".into()),
    };
    let manifest_path = args.results.join(MANIFEST);
    let manifest: Manifest = std::fs::read_to_string(&manifest_path)
        .map_err(|e| {
            format!(
                "cannot read {}: {e}; pass a results folder of grader batch",
                manifest_path.display()
            )
        })
        .and_then(|text| {
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", manifest_path.display()))
        })?;
    let roster = read_roster(roster_path)?;
    let by = args
        .by
        .clone()
        .unwrap_or_else(|| if canvas { "ID" } else { "Email address" }.to_string());
    let by_column = roster.required(&by, BY)?;
    let identity = identity(&roster, by_column, canvas);
    let scores: Vec<(&StudentText, Option<serde_json::Value>)> = manifest
        .submissions
        .iter()
        .map(|name| (name, results_named(&args.results, name)))
        .collect();
    let maximum = scores
        .iter()
        .filter_map(|(_, r)| r.as_ref()?["max_score"].as_f64())
        .fold(0.0, f64::max);
    let students = students(&roster, by_column);
    let folders: Vec<&StudentText> = scores.iter().map(|(folder, _)| *folder).collect();
    let submissions = submissions_of(&roster, &students, (by_column, &by), &folders, canvas)?;
    let scale = scale(&roster, &args.column, maximum, args.points_possible)?;

    // Built whole before the file is opened, so a refused export writes nothing.
    let mut records: Vec<Vec<String>> = Vec::new();
    let mut header: Vec<String> = identity.iter().map(|(cell, _)| cell.clone()).collect();
    // The column's name is staff's, on the command line; written as a roster's would be.
    header.push(
        StudentText::from(args.column.as_str())
            .in_csv_cell()
            .into_owned(),
    );
    records.push(header);
    if canvas {
        // Canvas reads the assignment's points from this row when it creates the column.
        let mut possible = vec![String::new(); identity.len()];
        possible[0] = POINTS_POSSIBLE.into();
        possible.push(scale.possible.to_string());
        records.push(possible);
    }
    for (student, submission) in students.iter().zip(&submissions) {
        let mut record: Vec<String> = identity
            .iter()
            .map(|(_, column)| {
                column
                    .and_then(|index| student.cell(index))
                    .map_or_else(String::new, |cell| cell.in_csv_cell().into_owned())
            })
            .collect();
        // No submission, or no results: left blank, which both LMSs read as "leave the
        // grade as it is".
        let score = submission
            .and_then(|index| scores[index].1.as_ref()?["score"].as_f64())
            .map_or(String::new(), |score| scale.points(score).to_string());
        record.push(score);
        records.push(record);
    }
    let cannot = |e: csv::Error| format!("cannot write {}: {e}", args.out.display());
    let mut writer = csv::Writer::from_path(&args.out).map_err(cannot)?;
    for record in &records {
        writer.write_record(record).map_err(cannot)?;
    }
    writer
        .flush()
        .map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;

    let unmatched: Vec<&StudentText> = folders
        .iter()
        .enumerate()
        .filter(|(index, _)| !submissions.contains(&Some(*index)))
        .map(|(_, folder)| *folder)
        .collect();
    let mut said = format!(
        "wrote {}: {} of {} students have a score",
        args.out.display(),
        submissions.iter().flatten().count(),
        students.len()
    );
    if scale.scales() {
        said.push_str(&format!(
            ", scaled from {} to {} points possible (score / {} × {}, to 2 decimals)",
            scale.maximum, scale.possible, scale.maximum, scale.possible
        ));
    } else if canvas {
        said.push_str(&format!(", out of {}", scale.possible));
    } else {
        // Moodle's grade item has its own maximum, which the roster does not say.
        said.push_str(&format!(
            ", out of {} (the batch's maximum; if the grade item's is another, pass it with --points-possible)",
            scale.possible
        ));
    }
    if !unmatched.is_empty() {
        said.push_str(&format!(
            "; no student of the roster has the {} {} (--by {by})",
            if unmatched.len() == 1 {
                "submission"
            } else {
                "submissions"
            },
            StudentText::joined(unmatched, ", ").on_a_line()
        ));
    }
    Ok(said)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_roster_cells_and_folders_on_its_line_with_no_control_or_command() {
        let hostile = "al\u{1b}]0;pwned\u{7}ice\n::error::forged\r##[group]x";
        let roster = Roster {
            path: PathBuf::from("roster.csv"),
            header: vec!["submission".into()],
            rows: [2, 3]
                .map(|line| Row {
                    line,
                    cells: vec![hostile.into()],
                })
                .into(),
        };
        let folders = [hostile.into(), format!("submission_{hostile}").into()];
        let folders: Vec<&StudentText> = folders.iter().collect();
        let refused = submissions_of(
            &roster,
            &students(&roster, 0),
            (0, "submission"),
            &folders,
            false,
        )
        .unwrap_err();
        assert!(refused.contains("are the same student"), "{refused}");
        assert!(
            refused.contains("matches more than one submission"),
            "{refused}"
        );
        assert!(
            !refused.contains(['\u{1b}', '\u{7}', '\n', '\r']) && !refused.contains("##["),
            "{refused:?}"
        );
        assert!(refused.contains("al␛]0;pwned␇ice␊::error::forged␍#\\#[group]x"));
    }

    #[test]
    fn canvas_download_names_carry_the_user_id() {
        assert_eq!(
            canvas_user_id("smithjohn_12345_678901_crate"),
            Some("12345")
        );
        assert_eq!(
            canvas_user_id("smithjohn_LATE_12345_678901_crate"),
            Some("12345")
        );
        assert_eq!(canvas_user_id("alice"), None);
        assert_eq!(canvas_user_id("submission_abc"), None);
        assert!(is_of("smithjohn_12345_678901_crate", "12345", true));
        assert!(!is_of("smithjohn_12345_678901_crate", "12345", false));
        assert!(!is_of("smithjohn_12345_678901_crate", "678901", true));
        assert!(is_of("alice", " alice ", false));
        assert!(is_of("\talice", "\talice", false));
        assert!(!is_of("alice", "\talice", false));
        assert!(is_of("submission_314", "314", false));
        assert!(!is_of("submission_314", "31", false));
        assert!(!is_of("alice", "", false));
    }

    #[test]
    fn a_quote_left_open_or_followed_by_text_is_a_fault_of_its_lines() {
        for good in [
            "a,b\n\"Smith, John\",1\n",
            "a,b\n\"say \"\"hi\"\"\",1\r\n",
            "a,b\n\"two\nlines\",1\n",
            "a,b\nO\"Brien,1\n",
            "a,b\n\"\",\"\"",
        ] {
            assert_eq!(quoting_fault(good), None, "{good:?}");
        }
        assert_eq!(
            quoting_fault("a,b\nx,1\n\"Smith, John,1\ny,2\n").as_deref(),
            Some("line 3 opens a quoted cell that no quote closes")
        );
        assert_eq!(
            quoting_fault("a,b\n\"Smith, John,1\n\"Doe\", Jane,2\n").as_deref(),
            Some(
                "the quoted cell that line 2 opens is closed on line 3 by a quote followed by more text: a quote is missing or stray"
            )
        );
    }

    #[test]
    fn lines_are_named_the_first_few_of_many() {
        assert_eq!(lines(&[3]), "line 3");
        assert_eq!(lines(&[3, 5]), "lines 3 and 5");
        assert_eq!(lines(&[3, 5, 7]), "lines 3, 5 and 7");
        let many: Vec<u64> = (2..=13).collect();
        assert_eq!(
            lines(&many),
            "lines 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 2 more"
        );
    }

    #[test]
    fn scores_are_scaled_to_the_points_possible_to_two_decimals() {
        let to_100 = Scale {
            maximum: 105.0,
            possible: 100.0,
        };
        assert!(to_100.scales());
        assert_eq!(to_100.points(86.2), 82.1);
        assert_eq!(to_100.points(83.2), 79.24);
        assert_eq!(to_100.points(105.0), 100.0);
        let as_graded = Scale {
            maximum: 105.0,
            possible: 105.0,
        };
        assert!(!as_graded.scales());
        assert_eq!(as_graded.points(86.2), 86.2);
    }
}
