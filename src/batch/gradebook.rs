//! The class's gradebook, gradebook.csv: a row per submission, its score, outcome, time
//! and what went wrong, in one line.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{GRADEBOOK, Graded, write_atomically};

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
    let mut csv = String::from("submission,score,max_score,outcome,seconds,note");
    for column in &columns {
        csv.push(',');
        csv.push_str(&csv_field(column));
    }
    csv.push('\n');
    for (name, results, groups) in rows {
        csv.push_str(&csv_field(&name));
        match results {
            None => csv.push_str(",,,not_graded,,"),
            Some(results) => {
                let _ = write!(
                    csv,
                    ",{},{},{},{:.1},{}",
                    results["score"],
                    // Unknown when a check was killed before it wrote results.
                    match &results["max_score"] {
                        serde_json::Value::Null => String::new(),
                        max => max.to_string(),
                    },
                    results["outcome"].as_str().unwrap_or(""),
                    results["execution_time_ms"].as_f64().unwrap_or(0.0) / 1000.0,
                    csv_field(&note(results))
                );
            }
        }
        for column in &columns {
            match groups.get(column) {
                Some(points) => {
                    let _ = write!(csv, ",{}", (points * 100.0).round() / 100.0);
                }
                None => csv.push(','),
            }
        }
        csv.push('\n');
    }
    write_atomically(out, GRADEBOOK, &csv)
}

/// What the gradebook says of a submission beyond its score: the tests its time left
/// unrun, or why nothing was graded.
fn note(results: &serde_json::Value) -> String {
    let out_of_time = results["tests"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|test| test["output"] == crate::results::OUT_OF_TIME)
        .count();
    match results["outcome"].as_str() {
        Some("out_of_time") if out_of_time > 0 => {
            format!("{out_of_time} tests {}", crate::results::OUT_OF_TIME)
        }
        Some("out_of_time") => results["build_output"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        _ => String::new(),
    }
}

/// A CSV field, quoted where it must be.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_where_they_must_be() {
        assert_eq!(csv_field("alice"), "alice");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
