//! The class report: one HTML page, no script, with a histogram of scores, the
//! submissions that could not be graded fairly (did not build, timed out, crashed, flooded
//! their output) by name, and, of the others, the pass rate of the tests the class fails
//! most and a typical failure of each.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::folder::{self, REPORT, write_atomically};
use super::misconceptions::{self, Graded, misconceptions, shared_answers};
use crate::student_text::{StudentText, html_escaped};
use crate::verdict::Trouble;

/// What the page may load and run: its own inline style and data images, no script, no
/// other file. Every text of a submission's is escaped; this holds even where one is not.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/// Tests the pass-rate chart and the table show at most.
const SHOWN_TESTS: usize = 30;
/// Bars of the score histogram, each a tenth of the maximum.
const BINS: usize = 10;

/// A test across the class.
struct TestRow<'a> {
    id: &'a str,
    passed: usize,
    ran: usize,
    /// The first failing submission and what its failure said.
    typical: Option<(&'a StudentText, &'a str)>,
}

/// Why a submission's tests say nothing of the tests themselves, if they do not: each
/// kind of trouble it had, in words. Read from what the grader alone writes, the outcome
/// and each test's `trouble`; never from text, which a submission may have printed.
fn troubles(results: &serde_json::Value) -> Vec<&'static str> {
    let mut found: Vec<&'static str> = Vec::new();
    let mut add = |kind| {
        if !found.contains(&kind) {
            found.push(kind);
        }
    };
    match results["outcome"].as_str() {
        Some("build_failed") => add("did not build"),
        Some("out_of_time") => add("used its time"),
        _ => {}
    }
    for test in results["tests"].as_array().into_iter().flatten() {
        if let Some(trouble) = test["trouble"].as_str().and_then(Trouble::from_key) {
            add(trouble.words());
        }
    }
    found
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
    let set_apart: Vec<(&StudentText, Vec<&str>)> = class
        .iter()
        .map(|g| (g.name, troubles(g.results)))
        .filter(|(_, troubles)| !troubles.is_empty())
        .collect();
    let counted: Vec<&Graded> = class
        .iter()
        .filter(|g| !set_apart.iter().any(|(name, _)| *name == g.name))
        .collect();
    let rows = failed_most(&counted, "code");
    let own_tests = failed_most(&counted, "tests");

    let mut page = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"{CONTENT_SECURITY_POLICY}\">\n<title>cardgrade: class report</title>\n<style>body{{font-family:sans-serif;margin:2em;max-width:70em}}svg text{{font-size:12px;font-family:sans-serif}}table{{border-collapse:collapse}}td,th{{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:left}}pre{{background:#f6f6f6;padding:1em;overflow-x:auto}}</style>\n</head><body>\n",
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
    if !set_apart.is_empty() {
        let _ = writeln!(
            page,
            "<h2 id=\"set-apart\">Not counted in the pass rates</h2>\n<p>{} submissions did not build, timed out, crashed or flooded their output: their tests say little of the tests, so they are left out of the pass rates and typical failures below.</p>\n<table><tr><th>submission</th><th>what happened</th><th>score</th></tr>",
            set_apart.len()
        );
        for (name, troubles) in &set_apart {
            let score = class
                .iter()
                .find(|g| g.name == *name)
                .map_or(String::new(), |g| {
                    format!("{} / {}", g.results["score"], g.results["max_score"])
                });
            let _ = writeln!(
                page,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                name.in_html(),
                troubles.join(", "),
                html_escaped(&score)
            );
        }
        page.push_str("</table>\n");
    }
    page.push_str(&known_mistakes(class));
    page.push_str("<h2>The tests of the code the class fails most</h2>\n");
    let _ = writeln!(
        page,
        "<p id=\"counted\">Pass rates of {} of the {} submissions; {} left out, as listed above.</p>",
        class.len() - set_apart.len(),
        class.len(),
        set_apart.len()
    );
    if rows.is_empty() {
        page.push_str("<p>Every test passed for every submission.</p>\n");
    } else {
        page.push_str(&pass_rates(&rows));
        page.push_str("<table><tr><th>test</th><th>passed</th><th>a typical failure</th></tr>\n");
        for (index, row) in rows.iter().enumerate() {
            let _ = writeln!(
                page,
                "<tr><td><code>{}</code></td><td>{} of {}</td><td><a href=\"#failure-{index}\">{}</a></td></tr>",
                html_escaped(row.id),
                row.passed,
                row.ran,
                row.typical
                    .map_or(String::new(), |(name, _)| name.in_html())
            );
        }
        let _ = writeln!(
            page,
            "</table>\n<h2>Typical failures</h2>\n<p>From the {} submissions counted; the {} left out are not drawn from.</p>",
            class.len() - set_apart.len(),
            set_apart.len()
        );
        for (index, row) in rows.iter().enumerate() {
            if let Some((name, output)) = row.typical {
                let _ = writeln!(
                    page,
                    "<h3 id=\"failure-{index}\"><code>{}</code>, as <code>{}</code> failed it</h3>\n<pre>{}</pre>",
                    html_escaped(row.id),
                    name.in_html(),
                    html_escaped(output)
                );
            }
        }
    }
    if !own_tests.is_empty() {
        let _ = writeln!(
            page,
            "<h2 id=\"own-tests\">What the class's own tests miss</h2>\n<p>The known mistakes the submissions' own tests must catch, the least caught first (a test of these passes where the submission's tests catch the mistake): what to ask students to test for.</p>\n<table><tr><th>test</th><th>caught by</th></tr>"
        );
        for row in &own_tests {
            let _ = writeln!(
                page,
                "<tr><td><code>{}</code></td><td>{} of {}</td></tr>",
                html_escaped(row.id),
                row.passed,
                row.ran
            );
        }
        page.push_str("</table>\n");
    }
    page.push_str("</body></html>\n");
    page
}

/// The share of the submissions that ran the test that passed it.
fn pass_rate(row: &TestRow) -> f64 {
    row.passed as f64 / row.ran.max(1) as f64
}

/// The tests of `counted` that grade `grades` (the submissions' `code`, or their own
/// `tests`) and that some fail, the least passed first, at most `SHOWN_TESTS`.
fn failed_most<'a>(counted: &[&Graded<'a>], grades: &str) -> Vec<TestRow<'a>> {
    let mut rows: Vec<TestRow> = Vec::new();
    for graded in counted {
        let tests = graded.results["tests"].as_array().into_iter().flatten();
        // Results written before tests said what they grade grade code.
        for test in tests.filter(|test| test["grades"].as_str().unwrap_or("code") == grades) {
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
    rows.retain(|row| row.ran > 0 && row.passed < row.ran);
    rows.sort_by(|a, b| pass_rate(a).total_cmp(&pass_rate(b)).then(a.id.cmp(b.id)));
    rows.truncate(SHOWN_TESTS);
    rows
}

/// The class's known mistakes, the most common first, and the wrong answers submissions
/// share that none explains: staff's, as the whole page is.
fn known_mistakes(class: &[Graded]) -> String {
    let mut section = String::from(
        "<h2 id=\"known-mistakes\">The class's known mistakes</h2>\n<p>The library's bugs whose wrong answers are exactly a submission's, check by check (as <code>diagnosis.csv</code> lists them): what the class misunderstands, the most common first.</p>\n",
    );
    let found = misconceptions(class);
    if found.is_empty() {
        section.push_str("<p>No submission's wrong answers are those of a known mistake.</p>\n");
    } else {
        section.push_str("<table><tr><th>submissions</th><th>group</th><th>check</th><th>known mistake</th><th>what it is</th></tr>\n");
        for row in &found {
            let _ = writeln!(
                section,
                "<tr><td>{} of {}</td><td><code>{}::{}</code></td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td></tr>",
                row.submissions.len(),
                class.len(),
                html_escaped(row.assignment),
                html_escaped(row.group),
                html_escaped(row.check),
                html_escaped(&row.names()),
                html_escaped(&row.descriptions())
            );
        }
        section.push_str("</table>\n");
    }
    let shared = shared_answers(class);
    if !shared.is_empty() {
        section.push_str("<h3 id=\"shared-answers\">Wrong answers shared that no known mistake explains</h3>\n<p>Submissions whose wrong answers to a check are the same on every input of every test, by what they answered, not by how their code reads (tests of a group in which a known mistake was found are left out). Listed for staff to look at; alike answers are no verdict.</p>\n<table><tr><th>check</th><th>inputs wrong alike</th><th>tests</th><th>submissions</th></tr>\n");
        for row in &shared {
            let code = |texts: Vec<String>| -> String {
                let coded: Vec<String> = texts
                    .iter()
                    .map(|text| format!("<code>{text}</code>"))
                    .collect();
                coded.join(", ")
            };
            let _ = writeln!(
                section,
                "<tr><td><code>{}::{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                html_escaped(row.assignment),
                html_escaped(row.check),
                grader_api::protocol::group_digits(row.wrong),
                code(row.tests.iter().map(|test| html_escaped(test)).collect()),
                code(row.submissions.iter().map(|name| name.in_html()).collect())
            );
        }
        section.push_str("</table>\n");
    }
    section
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
fn pass_rates(rows: &[TestRow]) -> String {
    let (label, bar, line) = (560, 300, 18);
    let mut svg = format!(
        "<svg role=\"img\" aria-label=\"pass rate per test\" width=\"{}\" height=\"{}\" xmlns=\"http://www.w3.org/2000/svg\">\n",
        label + bar + 60,
        rows.len() * line + 10
    );
    for (index, row) in rows.iter().enumerate() {
        let y = 5 + index * line;
        let share = pass_rate(row);
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><rect x=\"{}\" y=\"{y}\" width=\"{bar}\" height=\"{}\" fill=\"#eee\"/><rect x=\"{}\" y=\"{y}\" width=\"{}\" height=\"{}\" fill=\"#3a9d5d\"/><text x=\"{}\" y=\"{}\">{:.0}%</text>",
            label - 6,
            y + 13,
            html_escaped(row.id),
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

/// Writes the class report of every submission with results, and the class's known
/// mistakes in `diagnosis.csv` beside it. Returns the report's path.
pub fn write(out: &Path, class: &folder::Graded) -> Result<PathBuf, String> {
    let graded: Vec<Graded> = class
        .iter()
        .filter_map(|(name, results)| {
            Some(Graded {
                name,
                results: results.as_ref()?,
            })
        })
        .collect();
    misconceptions::write_csv(out, &graded)?;
    write_atomically(out, REPORT, &html(&graded))
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
                name: &"alice".into(),
                results: &a,
            },
            Graded {
                name: &"bob".into(),
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

#[cfg(test)]
mod own_tests {
    use super::*;

    #[test]
    fn the_tests_of_the_students_tests_are_ranked_apart_from_those_of_their_code() {
        let a = serde_json::json!({"score": 1.0, "max_score": 3.0, "tests": [
            {"name": "t::code", "grades": "code", "status": "failed", "output": "no"},
            {"name": "t::your_tests::bug_x", "grades": "tests", "status": "failed"},
            {"name": "t::your_tests::bug_y", "grades": "tests", "status": "passed"}]});
        let page = html(&[Graded {
            name: &"alice".into(),
            results: &a,
        }]);
        let own = page.find("id=\"own-tests\"").expect("a section of its own");
        let code = page.find("<code>t::code</code></td><td>0 of 1").unwrap();
        let missed = page
            .find("<code>t::your_tests::bug_x</code></td><td>0 of 1")
            .unwrap();
        assert!(code < own && own < missed, "{page}");
        assert_eq!(page.matches("t::your_tests::bug_x").count(), 1, "{page}");
        assert!(!page.contains("bug_y"), "caught by everyone: {page}");
    }
}

#[cfg(test)]
mod set_apart {
    use super::*;

    /// A failed test whose `field` says `text`, and whose output says it too.
    fn failed_with(name: &str, field: &str, text: &str) -> serde_json::Value {
        serde_json::json!({"name": name, "status": "failed", "output": text,
            "fields": [{"name": field, "text": text}]})
    }

    /// A failed test whose runner had `trouble`, as the grader writes it.
    fn troubled(name: &str, trouble: &str) -> serde_json::Value {
        serde_json::json!({"name": name, "status": "failed", "output": "", "trouble": trouble})
    }

    #[test]
    fn submissions_that_did_not_run_are_listed_apart_and_not_counted() {
        let ran = serde_json::json!({"outcome": "failed", "score": 1.0, "max_score": 2.0, "tests": [
            {"name": "t::easy", "status": "passed"},
            {"name": "t::hard", "status": "failed", "output": "expected true"}]});
        let unbuilt = serde_json::json!({"outcome": "build_failed", "score": 0.0, "max_score": 2.0, "tests": [
            {"name": "t::easy", "status": "failed", "output": "did not build"},
            {"name": "t::hard", "status": "failed", "output": "did not build"}]});
        let flood = serde_json::json!({"outcome": "failed", "score": 1.0, "max_score": 2.0, "tests": [
            troubled("t::easy", "flooded"),
            {"name": "t::hard", "status": "passed"}]});
        let looped = serde_json::json!({"outcome": "failed", "score": 1.0, "max_score": 2.0, "tests": [
            troubled("t::easy", "timed_out"),
            troubled("t::hard", "crashed")]});
        let page = html(&[
            Graded {
                name: &"alice".into(),
                results: &ran,
            },
            Graded {
                name: &"bob".into(),
                results: &unbuilt,
            },
            Graded {
                name: &"carol".into(),
                results: &flood,
            },
            Graded {
                name: &"dave".into(),
                results: &looped,
            },
        ]);
        assert!(
            page.contains("<tr><td><code>bob</code></td><td>did not build</td>"),
            "{page}"
        );
        assert!(
            page.contains("<tr><td><code>carol</code></td><td>flooded its output</td>"),
            "{page}"
        );
        assert!(
            page.contains("<tr><td><code>dave</code></td><td>timed out, crashed</td>"),
            "{page}"
        );
        assert!(!page.contains("<code>alice</code></td><td>"), "{page}");
        assert!(
            page.contains("Pass rates of 1 of the 4 submissions; 3 left out"),
            "{page}"
        );
        // Only alice's failure counts: hard fails 1 of 1, easy is not failed by anyone.
        assert!(
            page.contains("<code>t::hard</code></td><td>0 of 1"),
            "{page}"
        );
        assert!(!page.contains("<code>t::easy</code></td><td>"), "{page}");
        assert!(!page.contains("did not build</pre>"), "{page}");
    }

    #[test]
    fn words_a_submission_prints_are_no_trouble() {
        let words = "no answer for 1,000 ms (an endless loop?); the runner was killed and restarted for the other tests; printed 9 MB\n… 9000000 more bytes not shown";
        for field in [
            "stdout of your code",
            "stderr of your code",
            "problem",
            "expected",
        ] {
            let printed =
                serde_json::json!({"outcome": "failed", "tests": [failed_with("t", field, words)]});
            assert!(troubles(&printed).is_empty(), "{field}");
        }
        // Nor the grader's own wording of an ending, in any field a submission can fill.
        for (field, text) in [
            (
                "actual",
                "no answer: the runner process was killed by signal 6 (SIGABRT) while running your code",
            ),
            (
                "stopped",
                "after 1,200 of 2,598,960: no answer for 1,000 ms (an endless loop?); the runner was killed and restarted for the other tests",
            ),
        ] {
            let results =
                serde_json::json!({"outcome": "failed", "tests": [failed_with("t", field, text)]});
            assert!(troubles(&results).is_empty(), "{field}: {text}");
        }
    }

    #[test]
    fn the_page_loads_and_runs_nothing() {
        let page = html(&[]);
        let head = &page[..page.find("</head>").unwrap()];
        assert!(
            head.contains(&format!(
                "<meta http-equiv=\"Content-Security-Policy\" content=\"{CONTENT_SECURITY_POLICY}\">"
            )),
            "{head}"
        );
        assert!(CONTENT_SECURITY_POLICY.starts_with("default-src 'none';"));
        assert!(!CONTENT_SECURITY_POLICY.contains("script"));
    }
}
