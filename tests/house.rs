//! The house's own rules, checked from its source: every assignment is whole and nothing is
//! left over (what `grader_api::for_each_assignment!` lists is what the folders hold), and
//! the floors of the api and of the grader's own crate run one way (no two of their files
//! import each other, directly or through others), and long files are few.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// Every assignment's module name, in the manifest's order.
fn assignments() -> Vec<&'static str> {
    grader_api::ASSIGNMENTS
        .iter()
        .map(|unit| unit.name())
        .collect()
}

/// The names of the entries of `dir` (files and folders).
fn entries(dir: &str) -> BTreeSet<String> {
    std::fs::read_dir(repo().join(dir))
        .unwrap_or_else(|error| panic!("{dir}: {error}"))
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn every_assignment_is_whole_and_nothing_is_left_over() {
    let mut missing = Vec::new();
    let specs_readme = read(&repo().join("specs/README.md"));
    for name in assignments() {
        let one_of = |paths: &[String]| paths.iter().any(|path| repo().join(path).is_file());
        let parts: [(&str, Vec<String>); 6] = [
            ("its contract", vec![format!("api/src/{name}.rs")]),
            ("its spec side", vec![format!("api/src/{name}/spec.rs")]),
            (
                "its reference",
                vec![
                    format!("reference/src/{name}.rs"),
                    format!("reference/src/{name}/mod.rs"),
                ],
            ),
            ("its bugs", vec![format!("reference/src/{name}/bugs.rs")]),
            ("its spec file", vec![format!("specs/{name}.yaml")]),
            (
                "its template module",
                vec![format!("student_template/src/{name}.rs")],
            ),
        ];
        for (what, paths) in &parts {
            if !one_of(paths) {
                missing.push(format!("{name}: {what} ({})", paths.join(" or ")));
            }
        }
        // tests/mutants.rs makes a trial of every bug of every library.
        let bugs = reference::bugs::LIBRARIES
            .iter()
            .find(|library| library.assignment == name)
            .map_or(0, |library| (library.bugs)().len());
        if bugs == 0 {
            missing.push(format!(
                "{name}: bugs in its library, which tests/mutants.rs grades one by one"
            ));
        }
        if !specs_readme.contains(&format!("\n### {name}\n")) {
            missing.push(format!(
                "{name}: its section `### {name}` in specs/README.md"
            ));
        }
    }
    assert!(missing.is_empty(), "missing:\n{}", missing.join("\n"));

    // What is neither an assignment's nor one of the house's own files is left over.
    let names = assignments();
    let own = |entry: &str, house: &[&str], suffixes: &[&str]| {
        house.contains(&entry)
            || suffixes.iter().any(|suffix| {
                entry
                    .strip_suffix(suffix)
                    .is_some_and(|name| names.contains(&name))
            })
    };
    let mut stray = Vec::new();
    let rooms: [(&str, &[&str], &[&str]); 4] = [
        ("api/src", API_CORE, &[".rs", ""]),
        (
            "reference/src",
            &["lib.rs", "bugs.rs", "games.rs"],
            &[".rs", ""],
        ),
        ("specs", &["README.md"], &[".yaml"]),
        ("student_template/src", &["lib.rs"], &[".rs"]),
    ];
    for (dir, house, suffixes) in rooms {
        for entry in entries(dir) {
            if !own(&entry, house, suffixes) {
                stray.push(format!("{dir}/{entry}"));
            }
        }
    }
    let libraries: Vec<&str> = reference::bugs::LIBRARIES
        .iter()
        .map(|library| library.assignment)
        .collect();
    if libraries != names {
        stray.push(format!(
            "reference::bugs::LIBRARIES, whose libraries are of {libraries:?}"
        ));
    }
    assert!(
        stray.is_empty(),
        "neither an assignment's (grader_api::for_each_assignment!) nor the house's: {}",
        stray.join(", ")
    );
}

/// The api's own files and folders, which belong to no assignment.
const API_CORE: &[&str] = &[
    "lib.rs",
    "assignment.rs",
    "assignments.rs",
    "card.rs",
    "deck.rs",
    "oracle.rs",
    "protocol.rs",
    "serve.rs",
    "source.rs",
    "spec.rs",
    "spec",
    "stand_in.rs",
    "submission.rs",
    "text.rs",
    "transcript.rs",
    "unit.rs",
    "wire.rs",
];

/// The grader's core names no assignment: each lives in its own files of api, reference,
/// specs and the student template, and joins the one list, `for_each_assignment!`.
#[test]
fn the_core_names_no_assignment() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut names: Vec<String> = Vec::new();
    for unit in grader_api::ASSIGNMENTS {
        names.push(unit.name().to_string());
        names.extend(
            unit.name()
                .split('_')
                .filter(|w| w.len() > 4)
                .map(String::from),
        );
    }
    names.extend(["crazy_eights", "crazy eights", "plaisante", "draw poker"].map(String::from));
    let mut files = vec![root];
    let mut offenders = Vec::new();
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap().to_lowercase();
        for name in &names {
            if names_word(&text, name) {
                offenders.push(format!("{} names `{name}`", path.display()));
            }
        }
    }
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}

/// Whether `text` holds `word` as a whole word, or its plural: `eights` and `blackjacks`
/// do, `weights` and `warning` (for `war`) do not.
fn names_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let after = text[at + word.len()..]
            .strip_prefix('s')
            .unwrap_or(&text[at + word.len()..]);
        !text[..at]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric)
            && !after.chars().next().is_some_and(char::is_alphanumeric)
    })
}

#[test]
fn an_assignments_name_is_found_as_a_whole_word() {
    assert!(names_word("two eights", "eight"));
    assert!(names_word("blackjacks and", "blackjack"));
    assert!(names_word("a war.", "war"));
    assert!(!names_word("a warning", "war"));
    assert!(!names_word("it is warm", "war"));
    assert!(!names_word("weights", "eight"));
}

/// The modules of a crate's `src` folder each file is, by path (`spec::schema`; a folder's
/// `mod.rs` is the folder's module), with its text up to its tests; the crate's root
/// (lib.rs, and main.rs, a crate of its own), which declares and re-exports them, is left
/// out.
fn modules_of(src: &str) -> BTreeMap<String, String> {
    fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                walk(&path, &format!("{prefix}{name}::"), out);
            } else if let Some(file) = name.strip_suffix(".rs")
                && !(prefix.is_empty() && ["lib", "main"].contains(&file))
            {
                let module = match file {
                    "mod" => prefix.trim_end_matches("::").to_string(),
                    _ => format!("{prefix}{file}"),
                };
                let text = read(&path);
                let own = text
                    .find("#[cfg(test)]\nmod tests")
                    .map_or(&text[..], |at| &text[..at]);
                out.insert(module, without_comments(own));
            }
        }
    }
    let mut modules = BTreeMap::new();
    walk(&repo().join(src), "", &mut modules);
    modules
}

fn without_comments(text: &str) -> String {
    text.lines()
        .map(|line| line.find("//").map_or(line, |at| &line[..at]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules `text`, the source of module `own`, names by `crate::`, `$crate::`,
/// `super::` or `self::` paths, or by a path that starts with the name of one of its own
/// children (`mod session;` then `session::run`), `use` lists included; each path is taken
/// to the longest module it starts with. A `mod` declaration alone names nothing.
fn imports(own: &str, text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let parent = own.rsplit_once("::").map_or("", |(parent, _)| parent);
    let children = modules.iter().filter_map(|module| {
        module
            .strip_prefix(own)
            .and_then(|rest| rest.strip_prefix("::"))
            .filter(|child| !child.contains("::"))
    });
    // Each root a path may start with, the module it is taken from, and whether the root
    // is itself the path's first segment (a child's name) rather than a keyword.
    let mut roots = vec![
        ("crate::".to_string(), "", false),
        ("super::".to_string(), parent, false),
        ("self::".to_string(), own, false),
    ];
    roots.extend(children.map(|child| (format!("{child}::"), own, true)));
    let mut paths = Vec::new();
    for (root, base, named) in &roots {
        for (at, _) in text.match_indices(root.as_str()) {
            let before = text[..at].chars().next_back();
            // `pub(in crate::grade)` is a visibility, no path.
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
                || text[..at].ends_with("(in ")
            {
                continue;
            }
            let mut rest = &text[if *named { at } else { at + root.len() }..];
            let mut base = base.to_string();
            while root == "super::"
                && let Some(further) = rest.strip_prefix("super::")
            {
                rest = further;
                base = base.rsplit_once("::").map_or("", |(up, _)| up).to_string();
            }
            paths.extend(expand(&base, rest));
        }
    }
    paths
        .iter()
        .filter_map(|path| {
            let segments: Vec<&str> = path.split("::").collect();
            (1..=segments.len())
                .rev()
                .map(|n| segments[..n].join("::"))
                .find(|module| modules.contains(module))
        })
        .filter(|module| module != own)
        .collect()
}

/// The paths a `crate::` path starting `rest` names, under `base`: one, or one per item of
/// a `{…}` list.
fn expand(base: &str, rest: &str) -> Vec<String> {
    let join = |path: &str| match base {
        "" => path.to_string(),
        _ => format!("{base}::{path}"),
    };
    let head: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
        .collect();
    let head = head.trim_end_matches(':');
    let after = &rest[head.len()..].trim_start_matches(':');
    if !after.starts_with('{') {
        return vec![join(head)];
    }
    let mut depth = 0;
    let mut items = Vec::new();
    let mut item = String::new();
    for c in after[1..].chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut item));
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    items.push(item);
    let under = |item: &str| match head {
        "" => item.trim().to_string(),
        _ => format!("{head}::{}", item.trim()),
    };
    items
        .iter()
        .filter(|item| !item.trim().is_empty())
        .flat_map(|item| expand("", &under(item)))
        .map(|path| join(&path))
        .collect()
}

/// Files of one assignment may import each other: it is one unit.
fn assignment_of(module: &str) -> Option<&str> {
    let first = module.split("::").next().unwrap_or_default();
    assignments().into_iter().find(|name| *name == first)
}

/// The circles of the crate whose source is in `src`: each set of modules that reach one
/// another through their imports (see [`imports`]), with the arrows among them, less the
/// circles `allowed` (all of whose modules it names) lets be.
fn circles(src: &str, allowed: impl Fn(&BTreeSet<String>) -> bool) -> Vec<String> {
    let sources = modules_of(src);
    let modules: BTreeSet<String> = sources.keys().cloned().collect();
    let arrows: BTreeMap<&str, BTreeSet<String>> = sources
        .iter()
        .map(|(module, text)| (module.as_str(), imports(module, text, &modules)))
        .collect();
    let reaches = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(module) = todo.pop() {
            for next in arrows.get(module.as_str()).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&str, BTreeSet<String>> =
        modules.iter().map(|m| (m.as_str(), reaches(m))).collect();
    // A module and those it reaches that reach it back make one circle.
    let mut found: BTreeSet<BTreeSet<String>> = BTreeSet::new();
    for (module, reached) in &reach {
        let circle: BTreeSet<String> = reached
            .iter()
            .filter(|other| reach[other.as_str()].contains(*module))
            .cloned()
            .chain([module.to_string()])
            .collect();
        if circle.len() > 1 && !allowed(&circle) {
            found.insert(circle);
        }
    }
    found
        .iter()
        .map(|circle| {
            let inside = circle.iter().map(|module| {
                let to: Vec<&str> = arrows[module.as_str()]
                    .iter()
                    .filter(|other| circle.contains(*other))
                    .map(String::as_str)
                    .collect();
                format!("  {module} -> {}", to.join(", "))
            });
            std::iter::once(format!("{} files:", circle.len()))
                .chain(inside)
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

/// No two files of the api import each other, directly or through others, but the files of
/// one assignment, which is one unit.
#[test]
fn the_api_floors_run_one_way() {
    let circles = circles("api/src", |circle| {
        let units: BTreeSet<Option<&str>> = circle.iter().map(|m| assignment_of(m)).collect();
        units.len() == 1 && units.iter().all(Option::is_some)
    });
    assert!(
        circles.is_empty(),
        "the api's files that import each other, directly or through others:\n{}",
        circles.join("\n")
    );
}

/// No two files of the grader's own crate (`src/`) import each other, directly or through
/// others. A module's arrows are the paths it names (see [`imports`]): a child that uses
/// its parent's items (`super::Build`) points at the parent, and a parent that uses its
/// child's (`session::run`, or `pub use session::Session`, a re-export being a use) points
/// at the child; a parent's `mod session;` alone is no arrow. So a parent that re-exports
/// or calls its children sits above them, and what the children share lives in a child of
/// its own, not in the parent.
#[test]
fn the_grader_floors_run_one_way() {
    let circles = circles("src", |_| false);
    assert!(
        circles.is_empty(),
        "the grader's files that import each other, directly or through others:\n{}",
        circles.join("\n")
    );
}

#[test]
fn imports_are_read_from_paths_lists_and_parents() {
    let modules: BTreeSet<String> = ["card", "spec", "spec::schema", "deck", "wire", "text"]
        .map(String::from)
        .into();
    let text = "use crate::card::Card;\nuse crate::{deck::Deck, wire::{Wire, put}};\nuse super::Problem;\nlet x = crate::text::group_digits(1);\nlet y = $crate::spec::schema::AnyValue;\nlet z = grader_api::deck::Deck;";
    let found = imports("spec::schema", text, &modules);
    let found: Vec<&str> = found.iter().map(String::as_str).collect();
    assert_eq!(found, ["card", "deck", "spec", "text", "wire"]);
}

/// The files of the core that read student text raw (by `StudentText::raw_for_comparison`
/// or `raw_for_path`), outside their tests, and what for: everywhere else it leaves the
/// grader only through a rendering for its place.
const READS_STUDENT_TEXT_RAW: &[(&str, &str)] = &[
    (
        "src/batch.rs",
        "finds a submission's shard by the hash of its name",
    ),
    (
        "src/batch/folder.rs",
        "finds a submission's results file by its name",
    ),
    (
        "src/batch/merge.rs",
        "checks that each shard holds the names their hash gives it",
    ),
    (
        "src/batch/export.rs",
        "matches a roster's cells with submissions' names, and reads its points possible",
    ),
];

#[test]
fn student_text_is_read_raw_only_where_listed() {
    let mut files = vec![repo().join("src")];
    let mut reading = BTreeSet::new();
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let name = path
            .strip_prefix(repo())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if name == "src/student_text.rs" {
            continue;
        }
        let text = read(&path);
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        if without_comments(code).contains("raw_for_") {
            reading.insert(name);
        }
    }
    let listed: BTreeSet<String> = READS_STUDENT_TEXT_RAW
        .iter()
        .map(|(file, _)| file.to_string())
        .collect();
    assert_eq!(
        reading, listed,
        "a file that reads student text raw says why in READS_STUDENT_TEXT_RAW, and only such a file is there"
    );
}

#[test]
fn imports_are_read_from_a_parents_children_and_self() {
    let modules: BTreeSet<String> = ["check", "check::args", "check::session", "lint"]
        .map(String::from)
        .into();
    let text = "mod args;\nmod session;\nuse self::args::CheckArgs;\nlet s = session::run();\nlet t = other::session::x;";
    let found = imports("check", text, &modules);
    let found: Vec<&str> = found.iter().map(String::as_str).collect();
    assert_eq!(found, ["check::args", "check::session"]);
    let text = "use super::super::lint::warnings;\npub(in crate::check) fn f() {}";
    let found = imports("check::session", text, &modules);
    let found: Vec<&str> = found.iter().map(String::as_str).collect();
    assert_eq!(found, ["lint"]);
}

/// The most files of src/ and api/src that may run over [`LONG_FILE`] lines.
const LONG_FILES_ALLOWED: usize = 3;

/// Lines past which a file is long: it likely holds more than one concern.
const LONG_FILE: usize = 600;

/// Every `.rs` file under `dir`, by its path from the repository's root.
fn rust_files(dir: &str) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut todo = vec![repo().join(dir)];
    while let Some(path) = todo.pop() {
        if path.is_dir() {
            todo.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let shown = path.strip_prefix(repo()).unwrap().display().to_string();
            files.push((shown, read(&path)));
        }
    }
    files.sort();
    files
}

/// The reason an opening `//!` comment gives for a long file: its paragraph that starts
/// `Over 600 lines`, from its colon on; None without one, or with no reason after it.
fn long_files_reason(text: &str) -> Option<String> {
    let opening: Vec<&str> = text
        .lines()
        .map_while(|line| line.strip_prefix("//!"))
        .map(str::trim)
        .collect();
    let paragraph = opening.join(" ");
    let (_, after) = paragraph.split_once(&format!("Over {LONG_FILE} lines"))?;
    let (_, reason) = after.split_once(':')?;
    let reason = reason.trim().to_string();
    (reason.split_whitespace().count() >= 5).then_some(reason)
}

/// At most three files of src/ and api/src run over 600 lines, each saying why in its
/// opening comment (`//! Over 600 lines, …: why`); the others are split by concern. A file
/// that says so but is not long is told too, so that the reasons stay true.
#[test]
fn long_files_are_few_and_say_why() {
    let mut long = Vec::new();
    let mut faults = Vec::new();
    for (path, text) in rust_files("src").into_iter().chain(rust_files("api/src")) {
        let lines = text.lines().count();
        let reason = long_files_reason(&text);
        if lines > LONG_FILE {
            long.push(format!("{path} ({lines} lines)"));
        }
        match (lines > LONG_FILE, reason) {
            (true, None) => faults.push(format!(
                "{path} ({lines} lines) gives no reason in its opening comment (`//! Over {LONG_FILE} lines, …: why`)"
            )),
            (false, Some(_)) => faults.push(format!(
                "{path} ({lines} lines) says it is over {LONG_FILE} lines"
            )),
            _ => {}
        }
    }
    if long.len() > LONG_FILES_ALLOWED {
        faults.push(format!(
            "more than {LONG_FILES_ALLOWED} files over {LONG_FILE} lines: {}",
            long.join(", ")
        ));
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn a_long_files_reason_is_read_from_its_opening_comment() {
    let reason = "//! Does a thing.\n//!\n//! Over 600 lines, as one concern: the table reads\n//! every field in order.\n\nuse x;\n//! Over 600 lines: not the opening comment at all, so never read here";
    assert_eq!(
        long_files_reason(reason).as_deref(),
        Some("the table reads every field in order.")
    );
    assert_eq!(long_files_reason("//! Over 600 lines: because.\n"), None);
    assert_eq!(long_files_reason("//! A file.\nuse x;\n"), None);
}
