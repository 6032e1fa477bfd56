//! The class's gradebook, gradebook.csv: a row per submission, its score, outcome, time
//! and what went wrong, in one line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::folder::{GRADEBOOK, Graded, write_atomically};
use crate::student_text::StudentText;

/// The gradebook's column of the points a late penalty took off `score`.
const LATE_PENALTY: &str = "late_penalty";

/// Writes the gradebook: a row per submission with its score, maximum, the outcome, the
/// time, a note (tests not run for lack of time) and each group's points. Returns its
/// path.
pub(super) fn gradebook(out: &Path, class: &Graded) -> Result<PathBuf, String> {
    let mut columns: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for (name, results) in class {
        let Some(results) = results else {
            rows.push((name.clone(), None, BTreeMap::new()));
            continue;
        };
        let mut groups: BTreeMap<String, f64> = BTreeMap::new();
        for test in results["tests"].as_array().into_iter().flatten() {
            let column = format!(
                "{}::{}",
                test["assignment"].as_str().unwrap_or(""),
                test["group"].as_str().unwrap_or("")
            );
            if !columns.contains(&column) {
                columns.push(column.clone());
            }
            *groups.entry(column).or_default() += test["score"].as_f64().unwrap_or(0.0);
        }
        rows.push((name.clone(), Some(results), groups));
    }
    let mut csv = csv::Writer::from_writer(Vec::new());
    let cannot = |e: csv::Error| format!("cannot write {GRADEBOOK}: {e}");
    let mut header: Vec<String> = [
        "submission",
        "score",
        "max_score",
        "outcome",
        "seconds",
        "note",
    ]
    .map(String::from)
    .to_vec();
    // Only a class with a late penalty has the column, so a gradebook without one reads
    // as it always has.
    let penalized = rows
        .iter()
        .any(|(_, results, _)| results.is_some_and(|results| results.get("penalty").is_some()));
    if penalized {
        header.push(LATE_PENALTY.to_string());
    }
    header.extend(columns.iter().map(|column| {
        StudentText::from(column.as_str())
            .in_csv_cell()
            .into_owned()
    }));
    csv.write_record(&header).map_err(cannot)?;
    for (name, results, groups) in rows {
        let mut record: Vec<String> = vec![name.in_csv_cell().into_owned()];
        match results {
            None => record.extend(["", "", "not_graded", "", ""].map(String::from)),
            Some(results) => record.extend([
                number_cell(&results["score"]),
                // Unknown when a check was killed before it wrote results.
                number_cell(&results["max_score"]),
                StudentText::from(results["outcome"].as_str().unwrap_or(""))
                    .in_csv_cell()
                    .into_owned(),
                format!(
                    "{:.1}",
                    results["execution_time_ms"].as_f64().unwrap_or(0.0) / 1000.0
                ),
                StudentText::from(note(results)).in_csv_cell().into_owned(),
            ]),
        }
        if penalized {
            record.push(results.map_or(String::new(), |results| {
                number_cell(&results["penalty"]["points"])
            }));
        }
        record.extend(columns.iter().map(|column| {
            groups.get(column).map_or(String::new(), |points| {
                ((points * 100.0).round() / 100.0).to_string()
            })
        }));
        csv.write_record(&record).map_err(cannot)?;
    }
    let bytes = csv
        .into_inner()
        .map_err(|e| format!("cannot write {GRADEBOOK}: {e}"))?;
    // Every cell was a `str`, so the CSV is UTF-8.
    write_atomically(out, GRADEBOOK, &String::from_utf8_lossy(&bytes))
}

/// A number of the results as the results file writes it (`83.2`, `105.0`), or an empty
/// cell where there is none: only numbers, so no text of the results reaches a score's
/// column unrendered.
fn number_cell(value: &serde_json::Value) -> String {
    if value.is_number() {
        value.to_string()
    } else {
        String::new()
    }
}

/// What the gradebook says of a submission beyond its score: the tests its time left
/// unrun, or why nothing was graded; and why a late penalty was taken off it.
fn note(results: &serde_json::Value) -> String {
    let out_of_time = results["tests"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|test| test["output"] == crate::results::OUT_OF_TIME)
        .count();
    let ran_out = match results["outcome"].as_str() {
        Some("out_of_time") if out_of_time > 0 => {
            format!("{out_of_time} tests {}", crate::results::OUT_OF_TIME)
        }
        Some("out_of_time") => results["build_output"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        _ => String::new(),
    };
    let late = results["penalty"]["why"]
        .as_str()
        .map(|why| format!("late penalty: {why}"));
    [Some(ran_out).filter(|said| !said.is_empty()), late]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The results of a submission that failed, its one test earning `score`, in 1.2 s.
    fn failed(score: f64, max_score: f64) -> serde_json::Value {
        serde_json::json!({
            "score": score,
            "max_score": max_score,
            "outcome": "failed",
            "execution_time_ms": 1200,
            "tests": [{"assignment": "a", "group": "g", "score": score}],
        })
    }

    #[test]
    fn a_late_penalty_has_a_column_of_its_own_and_its_reason_in_the_note() {
        let out = tempfile::tempdir().unwrap();
        let on_time = failed(5.0, 10.0);
        let mut late = on_time.clone();
        late["score"] = 4.0.into();
        late["penalty"] = serde_json::json!({"points": 1.0, "why": "late by 2 days, 10% a day"});
        let class = vec![
            ("late".into(), Some(late)),
            ("on-time".into(), Some(on_time)),
            ("gone".into(), None),
        ];
        let written = gradebook(out.path(), &class).unwrap();
        assert_eq!(
            std::fs::read_to_string(written).unwrap(),
            "submission,score,max_score,outcome,seconds,note,late_penalty,a::g\nlate,4.0,10.0,failed,1.2,\"late penalty: late by 2 days, 10% a day\",1.0,5\non-time,5.0,10.0,failed,1.2,,,5\ngone,,,not_graded,,,,\n"
        );
    }

    #[test]
    fn the_gradebook_renders_names_and_notes_as_text_and_scores_as_numbers() {
        let out = crate::temp::folder("test-gradebook").unwrap();
        let results = failed(1.5, 105.0);
        let class = vec![
            ("=1+1, \"x\"".into(), Some(results)),
            ("\tbob".into(), None),
        ];
        let written = gradebook(out.path(), &class).unwrap();
        let text = std::fs::read_to_string(written).unwrap();
        assert_eq!(
            text,
            "submission,score,max_score,outcome,seconds,note,a::g\n\"'=1+1, \"\"x\"\"\",1.5,105.0,failed,1.2,,1.5\n'\tbob,,,not_graded,,,\n"
        );
    }
}
