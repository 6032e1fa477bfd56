//! The class report: one HTML page, no script, with a histogram of scores, the pass rate
//! of the tests the class fails most, and a typical failure of each.

use std::fmt::Write as _;

/// Tests the pass-rate chart and the table show at most.
const SHOWN_TESTS: usize = 30;
/// Bars of the score histogram, each a tenth of the maximum.
const BINS: usize = 10;

/// One submission's results: its name and our JSON.
pub struct Graded<'a> {
    pub name: &'a str,
    pub results: &'a serde_json::Value,
}

/// A test across the class.
struct TestRow<'a> {
    id: &'a str,
    passed: usize,
    ran: usize,
    /// The first failing submission and what its failure said.
    typical: Option<(&'a str, &'a str)>,
}

pub fn html(class: &[Graded]) -> String {
    let fractions: Vec<f64> = class
        .iter()
        .map(|g| {
            let max = g.results["max_score"].as_f64().unwrap_or(0.0);
            let score = g.results["score"].as_f64().unwrap_or(0.0);
            if max > 0.0 { score / max } else { 0.0 }
        })
        .collect();
    let mut rows: Vec<TestRow> = Vec::new();
    for graded in class {
        for test in graded.results["tests"].as_array().into_iter().flatten() {
            let Some(id) = test["name"].as_str() else {
                continue;
            };
            let index = match rows.iter().position(|row| row.id == id) {
                Some(index) => index,
                None => {
                    rows.push(TestRow {
                        id,
                        passed: 0,
                        ran: 0,
                        typical: None,
                    });
                    rows.len() - 1
                }
            };
            let row = &mut rows[index];
            match test["status"].as_str() {
                Some("passed") => {
                    row.passed += 1;
                    row.ran += 1;
                }
                Some("failed") => {
                    row.ran += 1;
                    if row.typical.is_none() {
                        row.typical = Some((graded.name, test["output"].as_str().unwrap_or("")));
                    }
                }
                _ => {}
            }
        }
    }
    let rate = |row: &TestRow| row.passed as f64 / row.ran.max(1) as f64;
    rows.retain(|row| row.ran > 0 && row.passed < row.ran);
    rows.sort_by(|a, b| rate(a).total_cmp(&rate(b)).then(a.id.cmp(b.id)));
    rows.truncate(SHOWN_TESTS);

    let mut page = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>cardgrade: class report</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:70em}svg text{font-size:12px;font-family:sans-serif}table{border-collapse:collapse}td,th{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:left}pre{background:#f6f6f6;padding:1em;overflow-x:auto}</style>\n</head><body>\n",
    );
    let mean = fractions.iter().sum::<f64>() / fractions.len().max(1) as f64;
    let _ = writeln!(
        page,
        "<h1>Class report</h1>\n<p>{} submissions; mean score {:.1}% of the maximum.</p>",
        class.len(),
        mean * 100.0
    );
    page.push_str("<h2>Scores</h2>\n");
    page.push_str(&histogram(&fractions));
    page.push_str("<h2>The tests the class fails most</h2>\n");
    if rows.is_empty() {
        page.push_str("<p>Every test passed for every submission.</p>\n");
    } else {
        page.push_str(&pass_rates(&rows, rate));
        page.push_str("<table><tr><th>test</th><th>passed</th><th>a typical failure</th></tr>\n");
        for (index, row) in rows.iter().enumerate() {
            let _ = writeln!(
                page,
                "<tr><td><code>{}</code></td><td>{} of {}</td><td><a href=\"#failure-{index}\">{}</a></td></tr>",
                escape(row.id),
                row.passed,
                row.ran,
                row.typical.map_or(String::new(), |(name, _)| escape(name))
            );
        }
        page.push_str("</table>\n<h2>Typical failures</h2>\n");
        for (index, row) in rows.iter().enumerate() {
            if let Some((name, output)) = row.typical {
                let _ = writeln!(
                    page,
                    "<h3 id=\"failure-{index}\"><code>{}</code>, as <code>{}</code> failed it</h3>\n<pre>{}</pre>",
                    escape(row.id),
                    escape(name),
                    escape(output)
                );
            }
        }
    }
    page.push_str("</body></html>\n");
    page
}

/// Submissions per tenth of the maximum, as an SVG bar chart.
fn histogram(fractions: &[f64]) -> String {
    let mut counts = [0usize; BINS];
    for fraction in fractions {
        let bin = ((fraction * BINS as f64) as usize).min(BINS - 1);
        counts[bin] += 1;
    }
    let tallest = counts.iter().copied().max().unwrap_or(0).max(1);
    let (width, height, bar) = (520, 220, 48);
    let mut svg = format!(
        "<svg role=\"img\" aria-label=\"score histogram\" width=\"{width}\" height=\"{}\" xmlns=\"http://www.w3.org/2000/svg\">\n",
        height + 56
    );
    for (bin, count) in counts.iter().enumerate() {
        let h = count * height / tallest;
        let x = 10 + bin * (bar + 2);
        let _ = writeln!(
            svg,
            "<rect x=\"{x}\" y=\"{}\" width=\"{bar}\" height=\"{h}\" fill=\"#4a7bd0\"><title>{count} submissions</title></rect><text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{count}</text><text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}%</text>",
            26 + height - h,
            x + bar / 2,
            21 + height - h,
            x + bar / 2,
            height + 46,
            bin * 10
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// One horizontal bar per test: the share of the class that passed it.
fn pass_rates(rows: &[TestRow], rate: impl Fn(&TestRow) -> f64) -> String {
    let (label, bar, line) = (560, 300, 18);
    let mut svg = format!(
        "<svg role=\"img\" aria-label=\"pass rate per test\" width=\"{}\" height=\"{}\" xmlns=\"http://www.w3.org/2000/svg\">\n",
        label + bar + 60,
        rows.len() * line + 10
    );
    for (index, row) in rows.iter().enumerate() {
        let y = 5 + index * line;
        let share = rate(row);
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><rect x=\"{}\" y=\"{y}\" width=\"{bar}\" height=\"{}\" fill=\"#eee\"/><rect x=\"{}\" y=\"{y}\" width=\"{}\" height=\"{}\" fill=\"#3a9d5d\"/><text x=\"{}\" y=\"{}\">{:.0}%</text>",
            label - 6,
            y + 13,
            escape(row.id),
            label,
            line - 4,
            label,
            (share * bar as f64) as usize,
            line - 4,
            label + bar + 6,
            y + 13,
            share * 100.0
        );
    }
    svg.push_str("</svg>\n");
    svg
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_most_failed_tests_come_first_with_a_typical_failure() {
        let a = serde_json::json!({"score": 1.0, "max_score": 2.0, "tests": [
            {"name": "t::easy", "status": "passed"},
            {"name": "t::hard", "status": "failed", "output": "expected <3>"}]});
        let b = serde_json::json!({"score": 0.0, "max_score": 2.0, "tests": [
            {"name": "t::easy", "status": "failed", "output": "nope"},
            {"name": "t::hard", "status": "failed", "output": "again"}]});
        let page = html(&[
            Graded {
                name: "alice",
                results: &a,
            },
            Graded {
                name: "bob",
                results: &b,
            },
        ]);
        let hard = page.find("<code>t::hard</code></td><td>0 of 2").unwrap();
        let easy = page.find("<code>t::easy</code></td><td>1 of 2").unwrap();
        assert!(hard < easy, "{page}");
        assert!(page.contains("<pre>expected &lt;3&gt;</pre>"), "{page}");
        assert!(page.contains("aria-label=\"score histogram\""));
        assert!(!page.contains("<script"));
    }
}
