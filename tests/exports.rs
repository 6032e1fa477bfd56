//! The CSVs of `grader batch` and `grader batch export` (issue 36): student and roster text
//! reaches every cell as text a spreadsheet shows and never evaluates, a roster that cannot
//! say whose each score is is refused naming its lines, and scores are written out of the
//! assignment's points possible, never on another scale.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::{grader_env, scratch};

/// What a spreadsheet reads as the start of a formula, as OWASP's page on CSV injection
/// lists it.
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// The payloads as submission folders: a file name holds no `/`.
const HOSTILE_FOLDERS: [&str; 5] = [
    "=HYPERLINK(\"x\")",
    "+cmd|' calc'!A0",
    "@SUM(1+1)",
    "-2+3",
    "\t=1+1",
];

/// The payloads as roster cells, each beside the folder of the same place above.
const HOSTILE_CELLS: [&str; 5] = [
    "=HYPERLINK(\"http://x\")",
    "+cmd|' /C calc'!A0",
    "@SUM(1+1)",
    "-2+3",
    "\t=1+1",
];

/// The one submission with a score, named as Canvas's Download Submissions names it (user
/// ID 12345).
const SMITH: &str = "smithjohn_12345_678_crate";

/// The score SMITH is given, and the batch's maximum, as README's example crate earns.
const SMITH_SCORE: f64 = 86.2;

/// A graded batch of SMITH and a folder per hostile name, under `scratch/exports-NAME`:
/// its results folder. None of them is a crate, so each is graded in a blink at 0 of
/// plaisante_hand's 105; SMITH's result is then given `SMITH_SCORE`, since the exports read
/// only each result's score and maximum, and a crate's build would take a minute.
fn graded_class(name: &str) -> PathBuf {
    let dir = scratch().join(format!("exports-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    let class = dir.join("class");
    for folder in HOSTILE_FOLDERS.iter().chain([&SMITH]) {
        std::fs::create_dir_all(class.join(folder)).unwrap();
        std::fs::write(class.join(folder).join("notes.txt"), "not a crate").unwrap();
    }
    let out = dir.join("results");
    let mut batch = Command::new(env!("CARGO_BIN_EXE_grader"));
    grader_env(&mut batch)
        .arg("batch")
        .arg(&class)
        .arg("--out")
        .arg(&out)
        .args([
            "--",
            "--assignment",
            "plaisante_hand",
            "--skip",
            "every_hand",
        ]);
    let run = batch.output().unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let smith = out.join(format!("{SMITH}.json"));
    let mut results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&smith).unwrap()).unwrap();
    assert_eq!(results["max_score"], 105.0, "{results:#}");
    results["score"] = SMITH_SCORE.into();
    std::fs::write(&smith, results.to_string()).unwrap();
    out
}

/// `grader batch export RESULTS --LMS ROSTER --out CSV EXTRA` with `roster` as the roster
/// (written beside RESULTS): the exit code, stderr, and the CSV if one was written.
fn export(
    results: &Path,
    lms: &str,
    roster: &str,
    extra: &[&str],
) -> (Option<i32>, String, Option<String>) {
    let roster_path = results.with_file_name(format!("{lms}-roster.csv"));
    std::fs::write(&roster_path, roster).unwrap();
    let written = results.with_file_name(format!("{lms}-import.csv"));
    let _ = std::fs::remove_file(&written);
    let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
    grader_env(&mut command)
        .args(["batch", "export"])
        .arg(results)
        .arg(format!("--{lms}"))
        .arg(&roster_path)
        .arg("--out")
        .arg(&written)
        .args(extra);
    let run = command.output().unwrap();
    (
        run.status.code(),
        String::from_utf8_lossy(&run.stderr).into_owned(),
        std::fs::read_to_string(&written).ok(),
    )
}

/// `records` as a CSV, quoted by the csv crate where a cell needs it.
fn csv_text(records: &[Vec<&str>]) -> String {
    let mut writer = csv::WriterBuilder::new()
        .flexible(true)
        .from_writer(Vec::new());
    for record in records {
        writer.write_record(record).unwrap();
    }
    String::from_utf8(writer.into_inner().unwrap()).unwrap()
}

/// The cells of `csv`, read back by the csv crate (every row as long as the first), each
/// checked not to start as a formula does.
fn inert_cells(csv: &str) -> Vec<Vec<String>> {
    let rows: Vec<Vec<String>> = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(csv.as_bytes())
        .records()
        .map(|record| record.unwrap().iter().map(String::from).collect())
        .collect();
    for cell in rows.iter().flatten() {
        assert!(
            !cell.starts_with(FORMULA_STARTS),
            "a cell a spreadsheet evaluates: {cell:?} in\n{csv}"
        );
    }
    rows
}

/// `text` as the issue asks a CSV to hold it: after a `'` where it starts as a formula
/// does, and otherwise unchanged, leading tabs and spaces included.
fn as_text(text: &str) -> String {
    if text.starts_with(FORMULA_STARTS) {
        format!("'{text}")
    } else {
        text.to_string()
    }
}

/// The row of `rows` whose cell `column` is `value`.
fn row_with<'a>(rows: &'a [Vec<String>], column: usize, value: &str) -> &'a [String] {
    rows.iter()
        .find(|row| row[column] == value)
        .unwrap_or_else(|| panic!("no row with {value:?}: {rows:?}"))
}

#[test]
fn the_gradebook_holds_every_submission_name_as_text_and_scores_as_numbers() {
    let out = graded_class("gradebook");
    let rows = inert_cells(&std::fs::read_to_string(out.join("gradebook.csv")).unwrap());
    assert_eq!(rows.len(), HOSTILE_FOLDERS.len() + 2, "{rows:?}");
    for folder in HOSTILE_FOLDERS.iter().chain([&SMITH]) {
        let row = row_with(&rows, 0, &as_text(folder));
        assert_eq!(row[1..4], ["0.0", "105.0", "build_failed"], "{rows:?}");
    }
}

#[test]
fn a_moodle_export_holds_every_roster_cell_as_text_as_the_roster_has_it() {
    let out = graded_class("moodle");
    let mut roster = vec![vec![
        "First name",
        "Last name",
        "ID number",
        "Email address",
        "folder",
    ]];
    for (cell, folder) in HOSTILE_CELLS.iter().zip(HOSTILE_FOLDERS) {
        roster.push(vec![cell, "Doe", "", "jd@example.edu", folder]);
    }
    // A tab before a name, as a spreadsheet may have put there, is kept.
    roster.push(vec!["John", "\tSmith", " 7", "js@example.edu", SMITH]);
    let (code, said, written) = export(&out, "moodle", &csv_text(&roster), &["--by", "folder"]);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("6 of 6 students have a score, out of 105"),
        "{said}"
    );
    let rows = inert_cells(&written.unwrap());
    assert_eq!(
        rows[0],
        [
            "First name",
            "Last name",
            "ID number",
            "Email address",
            "folder",
            "cardgrade"
        ]
    );
    for record in &roster[1..] {
        let row = row_with(&rows, 4, &as_text(record[4]));
        let copied: Vec<String> = record.iter().map(|cell| as_text(cell)).collect();
        assert_eq!(row[..5], copied, "{rows:?}");
    }
    // Scores are numbers, out of the batch's maximum: Moodle's roster has no points possible.
    assert_eq!(row_with(&rows, 4, SMITH)[5], "86.2");
    assert_eq!(row_with(&rows, 4, "'-2+3")[5], "0");
}

/// A Canvas gradebook whose assignment `Poker (55)` is worth 100 points, with a student
/// for each hostile folder (its ID the folder's name) and Smith (ID 12345).
fn canvas_roster() -> String {
    let mut roster = vec![
        vec![
            "Student",
            "ID",
            "SIS User ID",
            "SIS Login ID",
            "Section",
            "Poker (55)",
        ],
        vec!["    Points Possible", "", "", "", "", "100.00"],
    ];
    for (cell, folder) in HOSTILE_CELLS.iter().zip(HOSTILE_FOLDERS) {
        roster.push(vec![cell, folder, cell, cell, cell, ""]);
    }
    roster.push(vec!["Smith, John", "12345", "s1", "jsmith", "\tA", ""]);
    csv_text(&roster)
}

#[test]
fn a_canvas_export_scales_scores_to_the_rosters_points_possible_when_told_to() {
    let out = graded_class("canvas");
    // Canvas would record 86.2 of 105 as 86.2 of 100: refused, naming both numbers.
    let (code, said, written) = export(
        &out,
        "canvas",
        &canvas_roster(),
        &["--column", "Poker (55)"],
    );
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains(
            "line 2 gives `Poker (55)` 100 points possible, and the batch's maximum is 105"
        ),
        "{said}"
    );
    assert!(said.contains("--points-possible 100"), "{said}");
    assert_eq!(written, None, "a refused export writes nothing");

    let (code, said, written) = export(
        &out,
        "canvas",
        &canvas_roster(),
        &["--column", "Poker (55)", "--points-possible", "100"],
    );
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("6 of 6 students have a score, scaled from 105 to 100 points possible"),
        "{said}"
    );
    let rows = inert_cells(&written.unwrap());
    assert_eq!(rows[1], ["Points Possible", "", "", "", "", "100"]);
    // 86.2 / 105 × 100 = 82.095...
    assert_eq!(
        row_with(&rows, 1, "12345"),
        ["Smith, John", "12345", "s1", "jsmith", "'\tA", "82.1"]
    );
    for (cell, folder) in HOSTILE_CELLS.iter().zip(HOSTILE_FOLDERS) {
        let (cell, folder) = (as_text(cell), as_text(folder));
        assert_eq!(
            row_with(&rows, 1, &folder),
            [&cell, &folder, &cell, &cell, &cell, "0"]
        );
    }

    // Points possible other than the roster's are refused, naming both.
    let (code, said, written) = export(
        &out,
        "canvas",
        &canvas_roster(),
        &["--column", "Poker (55)", "--points-possible", "50"],
    );
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains(
            "line 2 gives `Poker (55)` 100 points possible, and --points-possible says 50"
        ),
        "{said}"
    );
    assert_eq!(written, None);

    // A new column has no points possible in the roster: Canvas takes the row written.
    let (code, said, written) = export(&out, "canvas", &canvas_roster(), &[]);
    assert_eq!(code, Some(0), "{said}");
    let rows = inert_cells(&written.unwrap());
    assert_eq!(rows[1], ["Points Possible", "", "", "", "", "105"]);
    assert_eq!(row_with(&rows, 1, "12345")[5], "86.2");
}

#[test]
fn a_roster_that_cannot_say_whose_each_score_is_is_refused_naming_its_lines() {
    let out = graded_class("bad-rosters");
    let canvas_header = "Student,ID,SIS User ID,SIS Login ID,Section\n    Points Possible,,,,\n";
    for (lms, roster, fault) in [
        (
            "moodle",
            "First name,folder\nAnn,nobody\nBo,someone\n".to_string(),
            "no student of it has a submission: the `folder` of lines 2 and 3 (such as `nobody`) names none of the batch's 6 submissions",
        ),
        (
            "canvas",
            format!("{canvas_header}Ann,999,s1,ann,A\n"),
            "no student of it has a submission: the `ID` of line 3 (such as `999`)",
        ),
        (
            "moodle",
            format!("First name,folder\nJohn,{SMITH}\nAnn,-2+3\nJohn again,{SMITH}\n"),
            "lines 2 and 4 are the same student (`folder` smithjohn_12345_678_crate)",
        ),
        (
            "canvas",
            format!("{canvas_header}\"Smith, John\",12345,s1,js,A\nJohnny,{SMITH},s2,jo,A\n"),
            "lines 3 and 4 are different students who match one submission, smithjohn_12345_678_crate",
        ),
        (
            "moodle",
            format!("First name,Last name,folder\nJohn,Smith,{SMITH}\nAnn,-2+3\n"),
            "line 3 has 2 cells where the header has 3",
        ),
        (
            "moodle",
            format!("First name,Last name,folder\nJohn,Smith,{SMITH}\nAnn,Lee,-2+3,x\n"),
            "line 3 has 4 cells where the header has 3",
        ),
        (
            "moodle",
            format!("First name,Last name,folder\n\"Smith, John,x,{SMITH}\nAnn,Lee,-2+3\n"),
            "line 2 opens a quoted cell that no quote closes",
        ),
        (
            "moodle",
            "First name,folder\n".to_string(),
            "it has no row below its header (line 1)",
        ),
        (
            "canvas",
            canvas_header.to_string(),
            "it names no student: no `ID` on line 2",
        ),
    ] {
        let (code, said, written) = export(
            &out,
            lms,
            &roster,
            &["--by", if lms == "canvas" { "ID" } else { "folder" }],
        );
        assert_eq!(code, Some(2), "{roster}: {said}");
        assert!(said.contains("is refused: "), "{roster}: {said}");
        assert!(said.contains(fault), "{roster}: {said}");
        assert_eq!(written, None, "{roster}: a refused roster scores no one");
    }
}
