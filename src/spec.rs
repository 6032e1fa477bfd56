//! Spec files: YAML an instructor writes. The core reads a file's `assignment:`, and that
//! assignment's spec side reads the rest into groups and tests; the core checks what every
//! group shares and places every error in its file, at a line and column where it can.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use grader_api::ASSIGNMENTS;
use grader_api::spec::{DueDate, Grading, Place, Policy, Ranged, StudentTests};

mod built_in;
mod errors;
mod files;
pub mod kept;
mod places;
mod recover;
pub mod student_tests;
mod suite;
mod yaml;

pub use built_in::BUILT_IN_SPECS;
use built_in::built_in;
pub use errors::{SpecError, SpecErrors};
pub use files::{fingerprint, read, spec_files};
pub use places::group_item;
use places::{Places, locate, locate_key, past, place, place_in};
pub use suite::{Group, HIDDEN_GROUP, Scoring, Suite, TestCase, colliding_ids};

use recover::Recovery;

pub use grader_api::spec::Visibility;

const DEFAULT_TIMEOUT_MS: u64 = 2_000;
/// How long a runner may answer no further input, unless its group says.
const DEFAULT_STALL_MS: u64 = 1_000;
/// Loads the given spec files, or the built-in specs when none are given, then the
/// `added` ones over them: an added group of the same assignment and name replaces the
/// group it is named after, in its place; any other is added at the end.
pub fn load(
    paths: &[PathBuf],
    added: &[PathBuf],
    timeout_override: Option<Duration>,
) -> Result<Suite, SpecErrors> {
    let mut groups: Vec<Group> = Vec::new();
    // Where each id is in `groups`, and the dependencies allowed so far: a spec may give
    // thousands, and looking through all of them for each would take minutes.
    let mut group_at: HashMap<String, usize> = HashMap::new();
    let mut allowed: HashSet<String> = HashSet::new();
    let mut build_timeout = None;
    let mut allowed_dependencies: Vec<String> = Vec::new();
    let mut due = None;
    let mut policy: Option<(String, Policy)> = None;
    let mut warnings = Vec::new();
    let mut errors = Vec::new();
    let mut add = |name: &str, file: Result<Suite, SpecErrors>| {
        let file = match file {
            Ok(file) => file,
            Err(SpecErrors(found)) => return errors.extend(found),
        };
        match (&policy, file.policy) {
            (Some((first, given)), Some(this)) if *given != this => errors.push(SpecError {
                file: name.to_string(),
                location: None,
                message: format!(
                    "its `policy:` is not {first}'s: a submission is graded by one policy, so give it in one spec file"
                ),
            }),
            (None, Some(this)) => policy = Some((name.to_string(), this)),
            _ => {}
        }
        for group in file.groups {
            match group_at.get(&group.id) {
                Some(&at) => groups[at] = group,
                None => {
                    group_at.insert(group.id.clone(), groups.len());
                    groups.push(group);
                }
            }
        }
        build_timeout = build_timeout.max(file.build_timeout);
        due = due.max(file.due);
        warnings.extend(file.warnings);
        for name in file.allowed_dependencies {
            if allowed.insert(name.clone()) {
                allowed_dependencies.push(name);
            }
        }
    };
    if paths.is_empty() {
        for (name, text) in built_in() {
            add(name, parse(name, text, timeout_override));
        }
    }
    for (paths, flag) in [(paths, "--spec"), (added, "--add-spec")] {
        let files = spec_files(paths).map_err(|message| SpecError {
            file: flag.into(),
            location: None,
            message,
        })?;
        for path in &files {
            add(
                &path.display().to_string(),
                parse_file(path, timeout_override),
            );
        }
    }
    if !errors.is_empty() {
        return Err(SpecErrors(errors));
    }
    // A file may hold only `defaults` (the dependencies it allows); all of them, none.
    if groups.is_empty() {
        return Err(SpecError {
            file: "--spec".into(),
            location: None,
            message: "the specs given hold no group (`groups: []`): there is nothing to grade"
                .into(),
        }
        .into());
    }
    let collisions = colliding_ids(&groups);
    match collisions.is_empty() {
        true => Ok(Suite {
            groups,
            build_timeout,
            allowed_dependencies,
            due,
            policy: policy.map(|(_, policy)| policy),
            warnings,
        }),
        false => Err(SpecErrors(collisions)),
    }
}

/// Reads and parses one spec file.
fn parse_file(path: &Path, timeout_override: Option<Duration>) -> Result<Suite, SpecErrors> {
    let text = read(path)?;
    parse(&path.display().to_string(), &text, timeout_override)
}

/// The structural mistakes read past in one file before giving up: each costs a reading of
/// the whole file.
const MOST_RECOVERIES: usize = 25;

/// Parses one spec file's text; `file` names it in errors, all of them.
pub fn parse(
    file: &str,
    text: &str,
    timeout_override: Option<Duration>,
) -> Result<Suite, SpecErrors> {
    let diagnosed = diagnose(file, text, timeout_override);
    match diagnosed.errors.is_empty() {
        true => Ok(diagnosed.suite),
        false => Err(SpecErrors(diagnosed.errors)),
    }
}

/// A spec file read as far as it goes: the groups that load, with their warnings, and
/// every error found, in file order.
pub struct Diagnosed {
    pub suite: Suite,
    pub errors: Vec<SpecError>,
}

/// Reads one spec file's text, reading past each mistake to find the next.
pub fn diagnose(file: &str, text: &str, timeout_override: Option<Duration>) -> Diagnosed {
    // Editors on Windows may start a UTF-8 file with a byte order mark, which the YAML
    // parser would take for the start of a second document.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = yaml::with_newlines(text);
    let text = &*text;
    let mut checked = Diagnosed {
        suite: Suite::default(),
        errors: Vec::new(),
    };
    let spec_error = |location: Option<(usize, usize)>, message: String| SpecError {
        file: file.to_string(),
        location,
        message,
    };
    if text.trim().is_empty() {
        checked.errors.push(spec_error(
            None,
            "the file is empty; a spec gives `assignment:` and `groups:`".into(),
        ));
        return checked;
    }
    if let Some((line, column, message)) = yaml::too_deep(text) {
        checked
            .errors
            .push(spec_error(Some((line, column)), message));
        return checked;
    }
    let name = match grader_api::spec::assignment_of(text) {
        Ok(name) => name,
        Err(problem) => {
            let problem = yaml::reworded(text, problem);
            checked
                .errors
                .push(spec_error(place(text, &problem.at), problem.message));
            return checked;
        }
    };
    let Some(unit) = grader_api::assignment(name.trim()) else {
        let names: Vec<&str> = ASSIGNMENTS.iter().map(|unit| unit.name()).collect();
        checked.errors.push(spec_error(
            locate_key(text, "assignment"),
            format!(
                "`{name}` is not an assignment; expected one of: {}",
                names.join(", ")
            ),
        ));
        return checked;
    };
    let mut recovery = Recovery::new(text);
    let mut errors = Vec::new();
    let kept = kept::beside_spec(file, unit.name()).unwrap_or_else(|why| {
        errors.push(spec_error(None, why));
        Vec::new()
    });
    let parsed = loop {
        let read = recovery.text();
        match unit.parse(&read) {
            Ok(parsed) => break Some(parsed),
            // An alias whose anchor was read past is no mistake of its own.
            Err(problem) if problem.message == "unknown anchor" && recovery.blanked_any() => {
                break None;
            }
            Err(problem) => {
                let problem = yaml::reworded(&read, problem);
                // `grups` said to be `groups` already: that `groups` is missing says nothing new.
                let misspelt = |error: &SpecError| {
                    problem
                        .message
                        .strip_prefix("missing `")
                        .is_some_and(|rest| {
                            let field = rest.split('`').next().unwrap_or_default();
                            error.message.ends_with(&format!("did you mean `{field}`?"))
                        })
                };
                if errors.iter().any(misspelt) {
                    break None;
                }
                let Place::At(line, column) = problem.at else {
                    errors.push(spec_error(place(&read, &problem.at), problem.message));
                    break None;
                };
                // A field blanked to read on may be one its case or group needs: that it is
                // missing now is no mistake of the file's, and what holds it goes whole.
                let missing = problem.message.contains("missing `") && recovery.mended(line);
                if missing || recovery.left_by_a_blanked_field(line, column) {
                    if recovery.blank_around(line) {
                        continue;
                    }
                    break None;
                }
                errors.push(spec_error(Some((line, column)), problem.message));
                if errors.len() >= MOST_RECOVERIES || !recovery.read_past(line, column) {
                    break None;
                }
            }
        }
    };
    // Each case or group read on past a field is left out whole, so that its group still
    // loads without it and is checked, as one blanked at once would be.
    let parsed = match parsed {
        Some(parsed) if recovery.blank_mended() => {
            unit.parse(&recovery.text()).ok().or(Some(parsed))
        }
        parsed => parsed,
    };
    let Some(parsed) = parsed else {
        checked.errors = errors;
        return checked;
    };
    // What is found from here on of a case or group that lost a field may be only that
    // loss: it is left out, as is the test it would make.
    let mended =
        |location: Option<(usize, usize)>| location.is_some_and(|(line, _)| recovery.mended(line));
    let mut places = Places::new(text);
    for problem in parsed.problems {
        // A group that lost a case may be refused for what it lacks now.
        if let Place::Group(group) = &problem.at
            && recovery.touched(group)
        {
            continue;
        }
        let location = places.of(&problem.at);
        if !mended(location) {
            errors.push(spec_error(location, problem.message));
        }
    }
    let defaults = &parsed.defaults;
    let default_timeout = timeout_override
        .or(defaults
            .timeout_ms
            .map(|Ranged(ms)| Duration::from_millis(ms)))
        .unwrap_or(Duration::from_millis(DEFAULT_TIMEOUT_MS));
    let mut group_from = (0, 0);
    // Where each group id is in the suite: a spec may hold thousands of groups.
    let mut group_ids: HashMap<String, usize> = HashMap::new();
    let lines: Vec<&str> = text.lines().collect();
    for group in parsed.groups {
        let common = group.common;
        let group_at = locate(&lines, &common.name, group_from);
        if let Some(at) = group_at {
            group_from = past(&lines, at);
        }
        if mended(group_at) {
            continue;
        }
        let in_group =
            |message: String| spec_error(group_at, format!("group `{}`: {message}", common.name));
        let errors_before = errors.len();
        let points = common.points.unwrap_or(0.0);
        if common.points.is_none() {
            checked.suite.warnings.push(in_group(
                "gives no `points`, so it is worth nothing; give `points: 0` if that is meant"
                    .into(),
            ));
        }
        let group_id = format!("{}::{}", unit.name(), slug(&common.name));
        if slug(&common.name).is_empty() {
            errors.push(in_group(
                "the name has no letter or digit to make a test id of".into(),
            ));
        } else if let Some(first) = group_ids
            .get(&group_id)
            .map(|&at| &checked.suite.groups[at])
        {
            // A later group of the same id would replace it, as `--add-spec` does.
            errors.push(in_group(format!(
                "this group's id is `{group_id}`, as is the group `{}` at {}; give one of them another name",
                first.name,
                place_in(&first.file, first.location)
            )));
        }
        // A group refused is not graded, nor answered by the reference.
        if errors.len() > errors_before {
            continue;
        }
        // Cases come in order: each is looked for after the one before, so that finding
        // them all reads the file once.
        let mut case_from = group_from;
        let tests = group
            .tests
            .into_iter()
            .map(|test| {
                let (id, location, name, weight) = match test.case {
                    Some(case) => {
                        let at = locate(&lines, &case.name, case_from);
                        if let Some(at) = at {
                            case_from = past(&lines, at);
                        }
                        let id = slug(case.id.as_deref().unwrap_or(&case.name));
                        (format!("{group_id}::{id}"), at, case.name, case.weight)
                    }
                    None => (group_id.clone(), group_at, common.name.clone(), 1),
                };
                TestCase {
                    id,
                    name,
                    weight,
                    request: test.request,
                    grading: test.grading,
                    written: test.written,
                    file: file.to_string(),
                    location,
                }
            })
            .filter(|test| !mended(test.location))
            .collect::<Vec<TestCase>>();
        let student_tests = common.student_tests.map(|setting| StudentTests {
            kept: kept.clone(),
            ..setting
        });
        let tests = match &student_tests {
            Some(setting) => match student_tests::bugs(unit.name(), setting) {
                Ok(bugs) => student_tests::tests(&bugs, setting)
                    .into_iter()
                    .map(|(id, name, weight)| TestCase {
                        id: format!("{group_id}::{id}"),
                        name,
                        weight,
                        request: Box::new(student_tests::NoRequest(unit.name())),
                        grading: Grading::StudentTests,
                        written: Vec::new(),
                        file: file.to_string(),
                        location: group_at,
                    })
                    .collect(),
                Err(why) => {
                    errors.push(in_group(why));
                    continue;
                }
            },
            None => tests,
        };
        let nameless = tests.iter().filter(|test| test.id.ends_with("::"));
        for test in nameless {
            errors.push(spec_error(
                test.location,
                format!(
                    "case `{}`: the name has no letter or digit to make a test id of; give it an `id`",
                    test.name
                ),
            ));
        }
        if common.scoring.is_some() && tests.iter().any(|test| test.grading != Grading::Bulk) {
            errors.push(in_group(
                "`scoring` is for a group graded as one test over many inputs (`generate` or `exhaustive`); each case of a group of cases already earns its own share, so remove it"
                    .into(),
            ));
        }
        if errors.len() > errors_before {
            continue;
        }
        group_ids.insert(group_id.clone(), checked.suite.groups.len());
        checked.suite.groups.push(Group {
            assignment: unit,
            id: group_id,
            name: common.name,
            points,
            visibility: common.visibility,
            withheld: false,
            hint: common.hint,
            diagnose: common.diagnose,
            timeout: common
                .timeout_ms
                .map(Duration::from_millis)
                .unwrap_or(default_timeout),
            stall: Duration::from_millis(common.stall_ms.unwrap_or(DEFAULT_STALL_MS)),
            scoring: common.scoring.unwrap_or_default(),
            tests,
            student_tests,
            file: file.to_string(),
            location: group_at,
        });
    }
    checked.suite.due = defaults.due.map(|DueDate(days)| days);
    checked.suite.policy = parsed.policy.clone();
    checked.suite.build_timeout = defaults
        .build_timeout_s
        .map(|Ranged(seconds)| Duration::from_secs(seconds));
    checked.suite.allowed_dependencies = parsed.defaults.allow_dependencies;
    if checked.suite.groups.is_empty() && errors.is_empty() && !recovery.blanked_any() {
        checked.suite.warnings.push(spec_error(
            locate_key(text, "groups"),
            "the file holds no group (`groups: []`): it grades nothing".into(),
        ));
    }
    // Mistakes are found in passes; they are told in the order they are in the file.
    errors.sort_by_key(|error| error.location);
    checked.errors = errors;
    checked
}

/// `YYYY-MM-DD` as days since 1970-01-01, as `--due` takes it.
pub fn due_date(text: &str) -> Result<u64, String> {
    text.parse().map(|DueDate(days)| days)
}

/// A test-name segment: lowercase words joined by `_`.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    // "the seed's" reads as one word: `the_seeds`, not `the_seed_s`.
    for c in name.chars().filter(|c| !matches!(c, '\'' | '’')) {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn due_dates_count_days_from_1970() {
        assert_eq!(due_date("1970-01-01"), Ok(0));
        assert_eq!(due_date("2000-03-01"), Ok(11_017));
        assert_eq!(due_date("2024-02-29"), Ok(19_782));
        assert_eq!(due_date(" 2026-12-01 "), Ok(20_788));
        assert_eq!(due_date("2026-04-30"), Ok(20_573));
        for bad in [
            "2026-13-01",
            "2026-12",
            "yesterday",
            "1969-12-31",
            "2026-01-00",
        ] {
            assert!(due_date(bad).is_err(), "{bad}");
        }
        for (impossible, says) in [
            ("2026-02-29", "February 2026 has 28 days"),
            ("2026-02-30", "February 2026 has 28 days"),
            ("2024-02-30", "February 2024 has 29 days"),
            ("2100-02-29", "February 2100 has 28 days"),
            ("2026-04-31", "April 2026 has 30 days"),
        ] {
            let refused = due_date(impossible).unwrap_err();
            assert_eq!(refused, format!("`{impossible}` is not a date: {says}"));
        }
    }
}
