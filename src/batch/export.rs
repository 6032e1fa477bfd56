//! `grader batch export`: a batch's scores as a gradebook CSV that Canvas or Moodle
//! imports, each submission folder matched to a student of the course's roster.

use std::path::{Path, PathBuf};

use super::{MANIFEST, Manifest, results_named};

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
    /// The CSV to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
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

/// A roster: its header and rows.
struct Roster {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

fn read_roster(path: &Path) -> Result<Roster, String> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(path)
        .map_err(|e| format!("cannot read the roster {}: {e}", path.display()))?;
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .iter()
        // A spreadsheet's UTF-8 byte order mark is not part of the first column's name.
        .map(|h| h.trim_start_matches('\u{feff}').trim().to_string())
        .collect();
    let rows = reader
        .records()
        .map(|record| {
            record
                .map(|r| r.iter().map(str::to_string).collect())
                .map_err(|e| format!("{}: {e}", path.display()))
        })
        .collect::<Result<_, _>>()?;
    Ok(Roster { header, rows })
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

/// Whether the submission folder `folder` is the student whose roster value is `value`:
/// the same name, a Gradescope export's `submission_ID` for the Submission ID, or (for
/// Canvas) a Canvas download's name for the user ID.
fn is_of(folder: &str, value: &str, canvas: bool) -> bool {
    let value = value.trim();
    !value.is_empty()
        && (folder == value
            || folder.strip_prefix("submission_") == Some(value)
            || (canvas && canvas_user_id(folder) == Some(value)))
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
    let column_of = |name: &str| roster.header.iter().position(|h| h == name);
    let Some(by_column) = column_of(&by) else {
        return Err(format!(
            "the roster {} has no column `{by}` (it has {}): name the column that names each submission folder with --by",
            roster_path.display(),
            roster.header.join(", ")
        ));
    };
    let identity: Vec<&str> = if canvas {
        CANVAS_IDENTITY.to_vec()
    } else {
        let mut kept: Vec<&str> = roster
            .header
            .iter()
            .filter(|c| MOODLE_IDENTITY.contains(&c.to_lowercase().as_str()))
            .map(String::as_str)
            .collect();
        if !kept.contains(&by.as_str()) {
            kept.push(&by);
        }
        kept
    };
    let scores: Vec<(&str, Option<serde_json::Value>)> = manifest
        .submissions
        .iter()
        .map(|name| (name.as_str(), results_named(&args.results, name)))
        .collect();
    let maximum = scores
        .iter()
        .filter_map(|(_, r)| r.as_ref()?["max_score"].as_f64())
        .fold(0.0, f64::max);

    let mut writer = csv::Writer::from_path(&args.out)
        .map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;
    let mut write = |record: Vec<String>| {
        writer
            .write_record(&record)
            .map_err(|e| format!("cannot write {}: {e}", args.out.display()))
    };
    let mut header: Vec<String> = identity.iter().map(|c| c.to_string()).collect();
    header.push(args.column.clone());
    write(header)?;
    if canvas {
        // Canvas reads the assignment's points from this row when it creates the column.
        let mut possible = vec![String::new(); identity.len()];
        possible[0] = "Points Possible".into();
        possible.push(maximum.to_string());
        write(possible)?;
    }
    let mut matched: Vec<&str> = Vec::new();
    let mut students = 0;
    for row in &roster.rows {
        let cell = |index: Option<usize>| {
            index
                .and_then(|i| row.get(i))
                .map_or(String::new(), |v| v.trim().to_string())
        };
        let value = cell(Some(by_column));
        // Canvas's export has rows that are no student's (Points Possible, Student, Test Student).
        if value.is_empty() || cell(Some(0)).trim() == "Points Possible" {
            continue;
        }
        students += 1;
        let found = scores
            .iter()
            .find(|(folder, _)| is_of(folder, &value, canvas));
        let score = match found {
            Some((folder, results)) => {
                matched.push(folder);
                results
                    .as_ref()
                    .and_then(|r| r["score"].as_f64())
                    .map_or(String::new(), |s| s.to_string())
            }
            // No submission: left blank, which both LMSs read as "leave the grade as it is".
            None => String::new(),
        };
        let mut record: Vec<String> = identity.iter().map(|c| cell(column_of(c))).collect();
        record.push(score);
        write(record)?;
    }
    writer
        .flush()
        .map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;
    let unmatched: Vec<&str> = scores
        .iter()
        .map(|(folder, _)| *folder)
        .filter(|folder| !matched.contains(folder))
        .collect();
    let mut said = format!(
        "wrote {}: {} of {students} students have a score",
        args.out.display(),
        matched.len()
    );
    if !unmatched.is_empty() {
        said.push_str(&format!(
            "; no student of the roster has the {} {} (--by {by})",
            if unmatched.len() == 1 {
                "submission"
            } else {
                "submissions"
            },
            unmatched.join(", ")
        ));
    }
    Ok(said)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(is_of("submission_314", "314", false));
        assert!(!is_of("submission_314", "31", false));
        assert!(!is_of("alice", "", false));
    }
}
