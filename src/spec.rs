//! Spec files: YAML an instructor writes, loaded into the groups and cases the grader runs.
//!
//! Every error names the file and, where the YAML parser or a case name can tell us, the
//! line and column.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use grader_api::plaisante::Check;
use grader_api::protocol::{Answer, Request};
use grader_api::{Assignment, Card, HandName, HandSource};
use serde::Deserialize;

/// The specs shipped with the grader, used when `--spec` is not given.
pub const BUILT_IN: &[(&str, &str)] = &[(
    "specs/plaisante_hand.yaml",
    include_str!("../specs/plaisante_hand.yaml"),
)];

const DEFAULT_TIMEOUT_MS: u64 = 2_000;

/// A spec that cannot be used, and where.
#[derive(Debug, thiserror::Error)]
#[error("{file}{}: {message}", location.map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default())]
pub struct SpecError {
    pub file: String,
    pub location: Option<(usize, usize)>,
    pub message: String,
}

/// Who may see a group's results, as Gradescope names it.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    #[default]
    Visible,
    Hidden,
    AfterDueDate,
    AfterPublished,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecFile {
    assignment: Assignment,
    #[serde(default)]
    defaults: Defaults,
    groups: Vec<GroupSpec>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Defaults {
    timeout_ms: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GroupSpec {
    name: String,
    #[serde(default)]
    points: f64,
    #[serde(default)]
    visibility: Visibility,
    hint: Option<String>,
    timeout_ms: Option<u64>,
    /// The check of every case that does not name its own.
    check: Option<Check>,
    /// The checks a generated or exhaustive group asks of every hand.
    checks: Option<Vec<Check>>,
    cases: Option<Vec<CaseSpec>>,
    generate: Option<GenerateSpec>,
    exhaustive: Option<ExhaustiveSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseSpec {
    name: String,
    hand: Vec<Card>,
    check: Option<Check>,
    expect: Option<Expectation>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GenerateSpec {
    count: u32,
    seed: u64,
    #[serde(default = "five")]
    hand_size: u8,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExhaustiveSpec {
    #[serde(default = "five")]
    hand_size: u8,
}

fn five() -> u8 {
    5
}

/// An answer written out in a spec.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
enum Expectation {
    Bool(bool),
    Number(i64),
    Cells(Vec<i64>),
    Text(String),
}

impl Expectation {
    fn to_answer(&self, check: Check) -> Result<Answer, String> {
        match (self, check) {
            (Expectation::Bool(value), c) if c.name().starts_with("has_") => {
                Ok(Answer::Bool(*value))
            }
            (Expectation::Cells(cells), Check::CountValues) => Ok(Answer::Cells(cells.clone())),
            (Expectation::Text(text), Check::Evaluate) => {
                text.parse::<HandName>().map(Answer::Hand)
            }
            (Expectation::Number(n), Check::TotalValue | Check::BaseMult | Check::Score) => {
                Ok(Answer::Number(*n))
            }
            (_, check) => Err(format!(
                "`expect` does not fit {check}: it returns {}",
                match check {
                    Check::CountValues => "a list of 15 counts",
                    Check::Evaluate => "a hand name such as \"Pair\"",
                    Check::TotalValue | Check::BaseMult | Check::Score => "a number",
                    _ => "true or false",
                }
            )),
        }
    }
}

/// Everything the grader runs: the groups of every spec loaded.
#[derive(Debug)]
pub struct Suite {
    pub groups: Vec<Group>,
}

#[derive(Debug)]
pub struct Group {
    pub assignment: Assignment,
    pub name: String,
    pub points: f64,
    pub visibility: Visibility,
    pub hint: Option<String>,
    pub timeout: Duration,
    pub tests: Vec<TestCase>,
}

/// One test: one request, reported as one line.
#[derive(Debug)]
pub struct TestCase {
    /// `assignment::group::case`, as filters match it.
    pub id: String,
    pub name: String,
    pub request: Request,
    /// What the spec wrote, with where it wrote it; the reference must agree.
    pub written: Option<(Answer, Option<(usize, usize)>)>,
}

impl TestCase {
    /// True for a generated or exhaustive group, reported as one test.
    pub fn is_bulk(&self) -> bool {
        let Request::PlaisanteHands { source, .. } = &self.request;
        !matches!(source, HandSource::Listed(_))
    }
}

impl fmt::Display for Suite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for group in &self.groups {
            writeln!(
                f,
                "{}::{} ({} tests)",
                group.assignment,
                group.name,
                group.tests.len()
            )?;
        }
        Ok(())
    }
}

/// Loads the given spec files, or the built-in specs when none are given.
pub fn load(paths: &[PathBuf], timeout_override: Option<Duration>) -> Result<Suite, SpecError> {
    let mut groups = Vec::new();
    if paths.is_empty() {
        for (name, text) in BUILT_IN {
            groups.extend(parse(name, text, timeout_override)?);
        }
    }
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|error| SpecError {
            file: path.display().to_string(),
            location: None,
            message: format!("cannot read the spec: {error}"),
        })?;
        groups.extend(parse(&path.display().to_string(), &text, timeout_override)?);
    }
    let mut seen = HashSet::new();
    for group in &groups {
        for test in &group.tests {
            if !seen.insert(test.id.clone()) {
                return Err(SpecError {
                    file: "specs".into(),
                    location: None,
                    message: format!(
                        "two tests are named `{}`; give one of them another name",
                        test.id
                    ),
                });
            }
        }
    }
    Ok(Suite { groups })
}

/// Parses one spec file's text; `file` names it in errors.
pub fn parse(
    file: &str,
    text: &str,
    timeout_override: Option<Duration>,
) -> Result<Vec<Group>, SpecError> {
    let error_at = |location: Option<(usize, usize)>, message: String| SpecError {
        file: file.to_string(),
        location,
        message,
    };
    let spec: SpecFile = serde_yaml::from_str(text).map_err(|error| {
        let location = error.location().map(|l| (l.line(), l.column()));
        // The parser appends its own "at line N column M"; we print the position up front.
        let message = error.to_string();
        let message = match message.rfind(" at line ") {
            Some(cut) if location.is_some() => message[..cut].to_string(),
            _ => message,
        };
        error_at(location, message)
    })?;
    let default_timeout = timeout_override
        .or(spec.defaults.timeout_ms.map(Duration::from_millis))
        .unwrap_or(Duration::from_millis(DEFAULT_TIMEOUT_MS));
    let mut groups = Vec::new();
    for group in spec.groups {
        let group_at = locate(text, &group.name);
        let sources = [
            group.cases.is_some(),
            group.generate.is_some(),
            group.exhaustive.is_some(),
        ];
        if sources.iter().filter(|&&s| s).count() != 1 {
            return Err(error_at(
                group_at,
                format!(
                    "group `{}` needs exactly one of `cases`, `generate` or `exhaustive`",
                    group.name
                ),
            ));
        }
        if !(group.points.is_finite() && group.points >= 0.0) {
            return Err(error_at(
                group_at,
                format!("group `{}`: points must be 0 or more", group.name),
            ));
        }
        let group_slug = slug(&group.name);
        let prefix = format!("{}::{group_slug}", spec.assignment);
        let mut tests = Vec::new();
        if let Some(cases) = group.cases {
            if cases.is_empty() {
                return Err(error_at(
                    group_at,
                    format!("group `{}` lists no cases", group.name),
                ));
            }
            for case in cases {
                let case_at = locate(text, &case.name);
                let check = case.check.or(group.check).ok_or_else(|| {
                    error_at(
                        case_at,
                        format!(
                            "case `{}` names no check: give it `check:` or give its group one",
                            case.name
                        ),
                    )
                })?;
                let written = case
                    .expect
                    .map(|e| e.to_answer(check).map(|answer| (answer, case_at)))
                    .transpose()
                    .map_err(|message| {
                        error_at(case_at, format!("case `{}`: {message}", case.name))
                    })?;
                tests.push(TestCase {
                    id: format!("{prefix}::{}", slug(&case.name)),
                    name: case.name,
                    request: Request::PlaisanteHands {
                        source: HandSource::Listed(vec![case.hand]),
                        checks: vec![check],
                    },
                    written,
                });
            }
        } else {
            let checks = group.checks.filter(|c| !c.is_empty()).ok_or_else(|| {
                error_at(
                    group_at,
                    format!(
                        "group `{}` needs `checks:`, the methods to ask of every hand",
                        group.name
                    ),
                )
            })?;
            let source = match (group.generate, group.exhaustive) {
                (Some(g), _) => HandSource::Generated {
                    count: g.count,
                    seed: g.seed,
                    hand_size: g.hand_size,
                },
                (_, Some(e)) => HandSource::Exhaustive {
                    hand_size: e.hand_size,
                },
                (None, None) => unreachable!("checked above: one source per group"),
            };
            let hand_size = match &source {
                HandSource::Generated { hand_size, .. } | HandSource::Exhaustive { hand_size } => {
                    *hand_size
                }
                HandSource::Listed(_) => 5,
            };
            if !(1..=5).contains(&hand_size) {
                return Err(error_at(
                    group_at,
                    format!(
                        "group `{}`: hand_size must be 1 to 5, not {hand_size}",
                        group.name
                    ),
                ));
            }
            tests.push(TestCase {
                id: prefix.clone(),
                name: group.name.clone(),
                request: Request::PlaisanteHands { source, checks },
                written: None,
            });
        }
        groups.push(Group {
            assignment: spec.assignment,
            name: group.name,
            points: group.points,
            visibility: group.visibility,
            hint: group.hint,
            timeout: group
                .timeout_ms
                .map(Duration::from_millis)
                .unwrap_or(default_timeout),
            tests,
        });
    }
    Ok(groups)
}

/// Line and column (1-based) of the first `name: <name>` in the text, for errors about
/// things the YAML parser accepted but we refuse.
fn locate(text: &str, name: &str) -> Option<(usize, usize)> {
    text.lines().enumerate().find_map(|(index, line)| {
        let column = line.find("name:")?;
        let value = line[column + 5..].trim_start();
        let value = value.trim_start_matches(['"', '\'']);
        value.starts_with(name).then_some((index + 1, column + 1))
    })
}

/// A test-name segment: lowercase words joined by `_`.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_string()
}

/// The spec files to name in messages: given paths, or the built-in ones.
pub fn describe(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        "the built-in specs".into()
    } else {
        paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

pub fn is_spec_path(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_err(text: &str) -> String {
        parse("t.yaml", text, None).unwrap_err().to_string()
    }

    #[test]
    fn a_bad_card_names_file_line_and_what_a_card_looks_like() {
        let err = parse_err(
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH, 1X] }\n",
        );
        assert!(err.starts_with("t.yaml:6:"), "{err}");
        assert!(err.contains("`1X` is not a card"), "{err}");
    }

    #[test]
    fn an_unknown_check_lists_the_known_ones() {
        let err = parse_err(
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pairs\n    cases:\n      - { name: c, hand: [KH] }\n",
        );
        // The parser places errors of a block mapping at the mapping: the group, line 3.
        assert!(err.starts_with("t.yaml:3:"), "{err}");
        assert!(err.contains("groups[0]"), "{err}");
        assert!(err.contains("has_pair, has_two_pair"), "{err}");
    }

    #[test]
    fn a_case_without_a_check_is_refused_at_its_line() {
        let err = parse_err(
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    cases:\n      - { name: lonely, hand: [KH] }\n",
        );
        assert!(err.starts_with("t.yaml:5:"), "{err}");
        assert!(err.contains("names no check"), "{err}");
    }

    #[test]
    fn an_expectation_of_the_wrong_type_is_refused() {
        let err = parse_err(
            "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: evaluate\n    cases:\n      - { name: c, hand: [KH], expect: true }\n",
        );
        assert!(err.contains("hand name"), "{err}");
    }

    #[test]
    fn the_built_in_specs_load() {
        let suite = load(&[], None).unwrap();
        assert!(
            suite
                .groups
                .iter()
                .any(|g| g.tests.iter().any(TestCase::is_bulk))
        );
    }

    #[test]
    fn slugs_are_filter_friendly() {
        assert_eq!(
            slug("Three kings is NOT a pair!"),
            "three_kings_is_not_a_pair"
        );
        assert_eq!(slug("A-2-3-4-5"), "a_2_3_4_5");
    }
}
