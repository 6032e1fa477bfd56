//! Cheats of a `student_tests` group: a correct submission whose own tests try to tell the
//! reference from the bugs by anything but their answers, or to read them, or to make the
//! grader misread a verdict. Each is graded by the real `grader check --sandbox strict`
//! beside an honest test, and must score what that honest test scores alone and show
//! nothing of the reference or of the bugs.
//!
//! Each attack would have won against the harness before the stand-ins: one test binary
//! holding the reference and every bug, the reference run alone in temp folder run-0 or
//! run-1 and the bugs eight to a process, verdicts read from libtest's text, modules named
//! by a keyed hash that stayed the same from one grading to the next.

mod support;

use std::time::{Duration, Instant};

use support::{Mutant, caught_bugs, check, find_failure, scratch_file};

const GROUP: &str = "plaisante_hand::your_tests";

/// How long a test may take on one implementation.
const TIMEOUT_MS: u64 = 3000;

/// The group's time for all its runs, as a spec gives it when it does not say.
const BUDGET_S: u64 = 60;

/// Renames the reference's private helper in the student's copy of it, so that the name is
/// the reference's alone: seen in a report, it came from the reference or a bug.
const RENAMED: &[(&str, &str)] = &[
    ("fn has_value_count(", "fn holds_count("),
    ("self.has_value_count(2)", "self.holds_count(2)"),
    ("self.has_value_count(3)", "self.holds_count(3)"),
    ("self.has_value_count(4)", "self.holds_count(4)"),
];

/// The only bug [`THREE_SEVENS`] catches: what an honest module of it scores.
const HONEST_CATCH: [&str; 1] = ["bug_pair_at_least_two"];

/// A test that catches `has_pair` as "two or more", and passes on the reference: beside
/// each attack, so that a grading that catches nothing at all cannot pass for one the
/// attack gained nothing in.
const THREE_SEVENS: &str = r#"
    #[test]
    fn three_sevens_are_not_a_pair() {
        assert!(!hand(&["7H", "7D", "7C", "2S", "9H"]).has_pair());
    }
"#;

/// A test that catches `has_three_of_a_kind` as "three or more".
const FOUR_SEVENS: &str = r#"
    #[test]
    fn four_sevens_are_not_three_of_a_kind() {
        assert!(!hand(&["7H", "7D", "7C", "7S", "9H"]).has_three_of_a_kind());
    }
"#;

/// A test module of `tests`, with the helpers they use: `hand`, and `path_of`, a test's
/// name as libtest knows it (its module's path less the crate's name).
fn tests_of(tests: &[&str]) -> String {
    let body = tests.concat();
    format!(
        r#"#[cfg(test)]
mod tests {{
    use super::*;

    fn hand(cards: &[&str]) -> Hand {{
        Hand::new(cards.iter().map(|c| c.parse().unwrap()).collect())
    }}

    fn path_of(test: &str) -> String {{
        let module = module_path!();
        let module = module.split_once("::").map_or(module, |(_, rest)| rest);
        format!("{{module}}::{{test}}")
    }}
{body}}}
"#
    )
}

/// The outcome of `grader check --sandbox strict` of a correct submission named `name` (of
/// the reference, its helper renamed) whose lib.rs ends with a test module of `tests`, in
/// a group with `budget_s` for its runs: its stdout, once checked that the grading ended
/// in a report, that every test was graded, and that the report shows nothing of the
/// reference or of the bugs.
fn graded(name: &'static str, tests: &[&str], budget_s: u64) -> String {
    let dir = Mutant::of(
        "plaisante_hand",
        name,
        "correct, with tests of its own",
        RENAMED,
    )
    .write();
    let lib = dir.join("src/lib.rs");
    let own = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(&lib, format!("{own}\n{}", tests_of(tests))).unwrap();
    let spec = scratch_file(
        &format!("{name}.yaml"),
        format!(
            "assignment: plaisante_hand\ngroups:\n  - name: your tests\n    points: 10\n    timeout_ms: {TIMEOUT_MS}\n    student_tests: {{ bugs: all, budget_s: {budget_s} }}\n"
        ),
    );
    let (_, stdout, stderr) = check(
        &dir,
        &["--spec", spec.to_str().unwrap(), "--sandbox", "strict"],
    );
    assert!(stdout.contains("test result"), "{stdout}\n{stderr}");
    // A test left out could not have cheated: each must have run.
    assert!(!stdout.contains(" not graded: "), "{stdout}");
    for leaked in foreign_text(&own) {
        assert!(!stdout.contains(&leaked), "{leaked:?} in:\n{stdout}");
    }
    stdout
}

/// Text the reference, the bugs or the program that serves them hold and the student's
/// source `own` does not: the reference's private helper, each bug's edits, the names the
/// implementations are served under.
fn foreign_text(own: &str) -> Vec<String> {
    let library = support::library("plaisante_hand");
    let edits = (library.bugs)()
        .into_iter()
        .flat_map(|bug| bug.edits.into_iter().map(|(_, to)| to));
    ["has_value_count", "implementation_0", "serve_on_stdin"]
        .map(String::from)
        .into_iter()
        .chain(edits)
        .filter(|text| !text.trim().is_empty() && !own.contains(text.as_str()))
        .collect()
}

/// The failure of `valid_on_the_reference`: the tests that fail on the reference, each
/// with what it said; None when every test passes there.
fn refused(stdout: &str) -> Option<&str> {
    find_failure(stdout, &format!("{GROUP}::valid_on_the_reference"))
}

/// Asserts that every test passed on the reference, so each cheat was in a position to
/// catch bugs, and that they caught only [`HONEST_CATCH`].
fn assert_valid_and_caught_only_the_honest_catch(stdout: &str) {
    assert_eq!(refused(stdout), None, "{stdout}");
    assert_eq!(caught_bugs(stdout), HONEST_CATCH, "{stdout}");
}

/// Asserts that the report lists `test` among those that fail on the reference, as saying
/// `said`, and that the tests caught only [`HONEST_CATCH`].
fn assert_refused_and_caught_only_the_honest_catch(stdout: &str, test: &str, said: &str) {
    let refused = refused(stdout).unwrap_or_else(|| panic!("{test} refused in:\n{stdout}"));
    assert!(
        refused.contains(
            "this test fails on a correct solution: it asserts something the rules do not say"
        ),
        "{refused}"
    );
    let line = format!("tests::{test}: {said}");
    assert!(refused.contains(&line), "{line:?} in:\n{refused}");
    assert!(!refused.contains("three_sevens"), "{refused}");
    assert_eq!(caught_bugs(stdout), HONEST_CATCH, "{stdout}");
}

#[test]
fn tests_that_read_the_harness_they_are_built_in_find_nothing_of_the_reference_or_the_bugs() {
    // The old harness's main.rs held the reference and every bug beside the tests. The
    // char literal first made the old check for `include_str!` lose track of the text. The
    // names looked for are put together as the test runs: main.rs holds this test too.
    let reads = r#"
    const SLASH: char = '\\';

    fn what_it_holds(text: &str) -> String {
        let foreign: Vec<String> = [
            ["has_value", "_count"],
            ["implementation", "_0"],
            ["serve_on", "_stdin"],
            ["|&count| count", " >= 2"],
        ]
        .iter()
        .map(|parts| parts.concat())
        .filter(|name| text.contains(name.as_str()))
        .collect();
        format!("read {} bytes, holding {foreign:?}", text.len())
    }

    #[test]
    fn reads_main_rs_by_include_str() {
        panic!("{}", what_it_holds(include_str!("main.rs")));
    }

    // Both copies of the module (on the stand-ins, on the student's code) assemble this:
    // the symbols are weak, and defined once in one object.
    std::arch::global_asm!(
        ".ifndef harness_text_start",
        ".pushsection .rodata.harness_text, \"a\"",
        ".weak harness_text_start",
        "harness_text_start:",
        ".incbin \"main.rs\"",
        ".weak harness_text_end",
        "harness_text_end:",
        ".popsection",
        ".endif",
    );

    unsafe extern "C" {
        static harness_text_start: u8;
        static harness_text_end: u8;
    }

    #[test]
    fn reads_main_rs_by_incbin() {
        let text = unsafe {
            let start = &raw const harness_text_start;
            let end = &raw const harness_text_end;
            std::slice::from_raw_parts(start, end.offset_from(start) as usize)
        };
        panic!("{}", what_it_holds(&String::from_utf8_lossy(text)));
    }
"#;
    let stdout = graded("attack-reads-harness", &[THREE_SEVENS, reads], BUDGET_S);
    let read = ["reads_main_rs_by_include_str", "reads_main_rs_by_incbin"].map(|test| {
        assert_refused_and_caught_only_the_honest_catch(&stdout, test, "read ");
        let line = format!("tests::{test}: read ");
        let said = refused(&stdout)
            .and_then(|refused| refused.lines().find_map(|l| l.split_once(line.as_str())))
            .map_or("", |(_, said)| said);
        let bytes = said.strip_suffix(" bytes, holding []");
        bytes.unwrap_or_else(|| panic!("{said:?} in:\n{stdout}"))
    });
    // Both read the whole file the tests were built from: the student's code and tests.
    assert_eq!(read[0], read[1]);
    assert!(read[0].parse::<usize>().unwrap() > 4096, "{read:?}");
}

#[test]
fn tests_that_look_at_their_temp_folder_find_one_fresh_folder_on_every_implementation() {
    let looks = r#"
    // The old harness ran the reference in run-0 and run-1, the bugs from run-2 on.
    #[test]
    fn fails_in_a_bugs_temp_folder() {
        let tmp = std::env::temp_dir();
        let run = tmp
            .file_name()
            .and_then(|name| name.to_str()?.strip_prefix("run-")?.parse::<u32>().ok());
        assert!(run.is_none_or(|run| run < 2), "{}", tmp.display());
    }

    // The folder a report showed for a run on the reference: another is a bug's.
    #[test]
    fn fails_outside_the_references_temp_folder() {
        assert_eq!(std::env::temp_dir(), std::path::Path::new("/sandbox/tmp"));
    }

    // A run that finds what another left is not the first: with the reference run first,
    // every bug's run would fail.
    #[test]
    fn fails_where_an_earlier_run_left_a_file() {
        let mark = std::env::temp_dir().join("an-earlier-run");
        assert!(!mark.exists(), "an earlier run was here");
        std::fs::write(&mark, "").unwrap();
    }
"#;
    let stdout = graded("attack-temp-folder", &[THREE_SEVENS, looks], BUDGET_S);
    assert_valid_and_caught_only_the_honest_catch(&stdout);
}

#[test]
fn tests_that_look_at_their_command_line_and_environment_find_the_same_on_every_implementation() {
    let looks = r#"
    // The old harness named one test to a run of the reference, eight to a run of bugs.
    #[test]
    fn fails_beside_other_tests_in_its_process() {
        let args: Vec<String> = std::env::args().collect();
        let named = args.iter().skip(1).filter(|arg| !arg.starts_with('-')).count();
        assert!(named <= 1, "{args:?}");
    }

    // Whether a hash of what the process sees of itself, but the implementation's answers,
    // is odd: each test that asks (its own name is in the hash) passes or fails on every
    // implementation alike, unless something it sees differs between them.
    fn context_is_odd() -> bool {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::hash::DefaultHasher::new();
        std::env::args().collect::<Vec<_>>().hash(&mut hasher);
        std::env::vars_os().collect::<Vec<_>>().hash(&mut hasher);
        std::env::current_dir().ok().hash(&mut hasher);
        std::env::current_exe().ok().hash(&mut hasher);
        std::fs::read_link("/proc/thread-self").ok().hash(&mut hasher);
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        status
            .lines()
            .filter(|line| {
                ["Uid:", "Gid:", "Groups:", "NSpid:"].iter().any(|key| line.starts_with(key))
            })
            .for_each(|line| line.hash(&mut hasher));
        hasher.finish() % 2 == 1
    }
"#;
    let hashes: String = (0..8)
        .map(|n| {
            format!(
                "\n    #[test]\n    fn context_hash_{n}_is_even() {{\n        assert!(!context_is_odd());\n    }}\n"
            )
        })
        .collect();
    let stdout = graded(
        "attack-command-line",
        &[THREE_SEVENS, looks, &hashes],
        BUDGET_S,
    );
    // About half the hashes are odd on the reference, and those tests invalid.
    let refused = refused(&stdout).unwrap_or_default();
    assert!(!refused.contains("fails_beside_other_tests"), "{refused}");
    assert!(!refused.contains("three_sevens"), "{refused}");
    assert_eq!(caught_bugs(&stdout), HONEST_CATCH, "{stdout}");
}

/// A helper of the tests that compare runs: what the implementation under test says of a
/// dozen hands, every method asked (a panic is an answer too), between marks.
const ANSWERS: &str = r#"
    fn answers() -> String {
        let multipliers = grader_api::plaisante_hand::Multipliers::default();
        let hands = [
            "7H 7D 7C 2S 9H", "KH KD 7C 7S 9H", "7H 7D 7C 7S 9H", "7H 7D 7C 9S 9H",
            "2H 5H 9H KH JH", "2H 3H 4H 5H 6H", "2H 3C 4D 5S 6H", "AH 2C 3D 4S 5H",
            "2H 5H 9H KH", "5H 6C 7D 9S", "2H 3C 4D 5S", "KH KD 3C 7S 9H",
        ];
        let said: Vec<String> = hands
            .iter()
            .map(|cards| {
                std::panic::catch_unwind(|| {
                    let h = hand(&cards.split(' ').collect::<Vec<_>>());
                    format!(
                        "{:?} {} {} {} {} {} {} {} {:?} {} {}",
                        h.count_values(),
                        h.has_pair(),
                        h.has_two_pair(),
                        h.has_three_of_a_kind(),
                        h.has_four_of_a_kind(),
                        h.has_full_house(),
                        h.has_flush(),
                        h.has_straight(),
                        h.evaluate(),
                        h.total_value(),
                        h.score(&multipliers),
                    )
                })
                .unwrap_or_else(|_| "panicked".to_string())
            })
            .collect();
        format!("<answers>{}</answers>", said.join("; "))
    }
"#;

#[test]
fn a_test_that_sides_with_most_of_its_copies_finds_them_on_its_own_implementation() {
    // The old harness held a copy of each test per implementation, the reference's among
    // them: a test that runs its copies and fails when most of them disagree with it has
    // the reference's answers without knowing the rules, and catches every bug that
    // answers differently. A static or a constructor could count the copies; running them
    // is what compares their answers.
    let sides = r#"
    #[test]
    fn answers_as_most_of_its_copies_do() {
        use std::process::{Command, Stdio};
        if std::env::var_os("ASKED_AS_A_COPY").is_some() {
            print!("{}", answers());
            return;
        }
        let listed = Command::new("/proc/self/exe").arg("--list").output().unwrap();
        let copies: Vec<String> = String::from_utf8_lossy(&listed.stdout)
            .lines()
            .filter_map(|line| line.strip_suffix(": test"))
            .filter(|test| test.ends_with("::answers_as_most_of_its_copies_do"))
            .map(String::from)
            .collect();
        // Before this process takes its link off stdin: a copy inherits it.
        let theirs: Vec<String> = copies
            .iter()
            .map(|copy| {
                let ran = Command::new("/proc/self/exe")
                    .args(["--exact", copy, "--nocapture", "--test-threads=1"])
                    .env("ASKED_AS_A_COPY", "1")
                    .stdin(Stdio::inherit())
                    .output()
                    .unwrap();
                String::from_utf8_lossy(&ran.stdout).into_owned()
            })
            .collect();
        let mine = answers();
        // Its own answer is a vote too.
        let agree = 1 + theirs.iter().filter(|said| said.contains(&mine)).count();
        let disagree = theirs.len() + 1 - agree;
        assert!(disagree <= agree, "{disagree} of {copies:?} disagree with {mine}");
    }
"#;
    let stdout = graded("attack-majority", &[THREE_SEVENS, ANSWERS, sides], BUDGET_S);
    assert_valid_and_caught_only_the_honest_catch(&stdout);
}

#[test]
fn a_test_run_again_by_itself_gets_the_same_answers() {
    // Were a test started again with `--exact` answered by another implementation (the
    // reference, say, as the run alone), comparing would catch every bug that answers
    // differently.
    let again = r#"
    #[test]
    fn answers_as_it_does_run_again() {
        use std::process::{Command, Stdio};
        if std::env::var_os("RUN_AGAIN").is_some() {
            print!("{}", answers());
            return;
        }
        let test = path_of("answers_as_it_does_run_again");
        // Before this process takes its link off stdin: the run again inherits it.
        let ran = Command::new("/proc/self/exe")
            .args(["--exact", &test, "--nocapture", "--test-threads=1"])
            .env("RUN_AGAIN", "1")
            .stdin(Stdio::inherit())
            .output()
            .unwrap();
        let again = String::from_utf8_lossy(&ran.stdout);
        let mine = answers();
        assert!(again.contains(&mine), "{mine}, and run again: {again}");
    }
"#;
    let stdout = graded(
        "attack-run-again",
        &[THREE_SEVENS, ANSWERS, again],
        BUDGET_S,
    );
    assert_valid_and_caught_only_the_honest_catch(&stdout);
}

#[test]
fn a_test_that_times_its_process_finds_it_as_young_on_every_implementation() {
    // The old harness ran the reference's copy alone in a new process and the bugs' eight
    // to a process, one after the other: a test that began in a process seconds old was a
    // bug's. Each run lasts long enough that the later ones of eight would.
    let times = r#"
    #[test]
    fn fails_in_a_process_two_seconds_old() {
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
        // Field 22, its start in ticks since boot, the 20th after the name's parenthesis.
        let after_name = stat.rsplit_once(')').unwrap().1;
        let ticks: f64 = after_name.split_whitespace().nth(19).unwrap().parse().unwrap();
        let uptime = std::fs::read_to_string("/proc/uptime").unwrap();
        let now: f64 = uptime.split_whitespace().next().unwrap().parse().unwrap();
        let age = now - ticks / 100.0;
        std::thread::sleep(std::time::Duration::from_millis(400));
        assert!(age < 2.0, "it began {age:.2} s after its process");
    }
"#;
    let stdout = graded("attack-process-age", &[THREE_SEVENS, times], BUDGET_S);
    assert_valid_and_caught_only_the_honest_catch(&stdout);
}

#[test]
fn an_environment_variable_a_test_sets_is_gone_by_the_next_run() {
    // Under the old harness only the reference's copy ran first in its process: a count
    // kept in the environment told a bug's run from the reference's.
    let counts = r#"
    #[test]
    fn fails_after_another_test_of_its_process() {
        let before = std::env::var("TESTS_BEFORE").ok().and_then(|n| n.parse().ok());
        let before: u32 = before.unwrap_or(0);
        unsafe { std::env::set_var("TESTS_BEFORE", (before + 1).to_string()) };
        assert_eq!(before, 0, "tests ran before this one in its process");
    }
"#;
    let stdout = graded("attack-setenv", &[THREE_SEVENS, counts], BUDGET_S);
    assert_valid_and_caught_only_the_honest_catch(&stdout);
}

#[test]
fn a_panic_hook_a_test_sets_is_gone_by_the_next_run() {
    // A panic hook, set by the first test of a process, marks the ones after it.
    let hooks = r#"
    #[test]
    fn fails_where_an_earlier_test_set_a_panic_hook() {
        // A panic caught here runs the hook in place: the default one, unless a test
        // before this one in its process set this one.
        let _ = std::panic::catch_unwind(|| panic!("probe"));
        assert!(std::env::var_os("HOOKED").is_none(), "a test before this one set the hook");
        std::panic::set_hook(Box::new(|_| unsafe { std::env::set_var("HOOKED", "1") }));
    }
"#;
    let stdout = graded("attack-panic-hook", &[THREE_SEVENS, hooks], BUDGET_S);
    assert_valid_and_caught_only_the_honest_catch(&stdout);
}

#[test]
fn a_module_name_a_report_showed_names_every_implementations_module() {
    // The old harness's module names came from a hash whose key outlived a grading: a name
    // a report showed for the reference told its runs from the bugs' in the next ones.
    let names = r#"
    #[test]
    fn fails_in_a_hashed_module_but_the_references() {
        let leaked = "m0123456789abcdef";
        let hashed = module_path!().split("::").any(|part| {
            let hex = part.get(1..).is_some_and(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()));
            part.len() == 17 && part.starts_with('m') && hex
        });
        assert!(!hashed || module_path!().contains(leaked), "{}", module_path!());
    }

    // The module a failure on the reference names (`under_test`, in its thread's name).
    #[test]
    fn fails_outside_the_module_a_failure_on_the_reference_named() {
        assert!(module_path!().ends_with("::under_test::tests"), "{}", module_path!());
        let thread = std::thread::current().name().unwrap_or_default().to_string();
        assert!(thread.starts_with("under_test::"), "{thread}");
    }
"#;
    let stdout = graded("attack-module-name", &[THREE_SEVENS, names], BUDGET_S);
    assert_valid_and_caught_only_the_honest_catch(&stdout);
}

#[test]
fn lines_a_test_prints_as_libtest_would_leave_its_verdict_alone() {
    // The old harness read verdicts from libtest's text, the last line of a test winning:
    // a passing test that prints a failure as its process exits, after libtest's summary,
    // and a failing one that prints that it passed.
    let forges = r#"
    unsafe extern "C" {
        fn atexit(callback: extern "C" fn()) -> i32;
        fn write(fd: i32, bytes: *const u8, len: usize) -> isize;
    }

    extern "C" fn print_a_failure() {
        let mut forged = String::new();
        for test in ["passes_then_prints_a_failure_as_it_exits", "three_sevens_are_not_a_pair"] {
            let path = path_of(test);
            forged.push_str(&format!("test {path} ... FAILED\n\nfailures:\n\n"));
            forged.push_str(&format!("---- {path} stdout ----\nforged\n\nfailures:\n    {path}\n\n"));
        }
        forged.push_str("test result: FAILED. 0 passed; 2 failed; 0 ignored; 0 measured\n");
        unsafe { write(1, forged.as_ptr(), forged.len()) };
    }

    #[test]
    fn passes_then_prints_a_failure_as_it_exits() {
        unsafe { atexit(print_a_failure) };
    }

    #[test]
    fn fails_after_printing_that_it_passed() {
        use std::io::Write;
        let path = path_of("fails_after_printing_that_it_passed");
        let forged = format!("ok\ntest {path} ... ok\n\ntest result: ok. 1 passed; 0 failed\n");
        // Past libtest's capture, straight to the process's stdout.
        let _ = std::io::stdout().write_all(forged.as_bytes());
        let _ = std::io::stdout().flush();
        panic!("it fails on every implementation");
    }
"#;
    let stdout = graded("attack-forged-lines", &[THREE_SEVENS, forges], BUDGET_S);
    assert_refused_and_caught_only_the_honest_catch(
        &stdout,
        "fails_after_printing_that_it_passed",
        "it fails on every implementation",
    );
    assert!(
        !refused(&stdout).unwrap().contains("passes_then_prints"),
        "{stdout}"
    );
}

#[test]
fn a_test_that_fails_on_the_reference_stays_invalid_however_it_writes_ok() {
    // A panic hook writes `ok` past libtest's capture as the test fails, right after
    // libtest's `test NAME ... `: the old harness read that run as passed. It asserts
    // three sevens are a pair: wrong on the reference, right on one bug.
    let writes_ok = r#"
    #[test]
    fn writes_ok_as_it_fails() {
        std::panic::set_hook(Box::new(|_| {
            use std::io::Write;
            let _ = std::io::stdout().write_all(b"ok\n");
            let _ = std::io::stdout().flush();
        }));
        assert!(hand(&["7H", "7D", "7C", "2S", "9H"]).has_pair());
    }
"#;
    let stdout = graded("attack-writes-ok", &[THREE_SEVENS, writes_ok], BUDGET_S);
    // Its hook printed no message: what the report says is how the process ended.
    assert_refused_and_caught_only_the_honest_catch(
        &stdout,
        "writes_ok_as_it_fails",
        "the test process ",
    );
}

/// `grader check` of the tests `tests`, as [`graded`], and how long it took, which must
/// stay within `budget_s` and a minute more to build and report.
fn graded_within(name: &'static str, tests: &[&str], budget_s: u64) -> String {
    let start = Instant::now();
    let stdout = graded(name, tests, budget_s);
    let took = start.elapsed();
    assert!(
        took < Duration::from_secs(budget_s + 60),
        "{took:?} for a budget of {budget_s} s:\n{stdout}"
    );
    stdout
}

#[test]
fn a_test_that_hangs_on_one_bug_catches_that_bug_alone_and_the_grading_ends_in_its_budget() {
    // The old harness lost the verdicts of the eight bugs of a process that one hung.
    let hangs = r#"
    #[test]
    fn three_sevens_hang_where_they_make_a_pair() {
        while hand(&["7H", "7D", "7C", "2S", "9H"]).has_pair() {}
    }
"#;
    let stdout = graded_within("attack-hang-on-one", &[hangs, FOUR_SEVENS], 20);
    assert_eq!(refused(&stdout), None, "{stdout}");
    assert_eq!(
        caught_bugs(&stdout),
        ["bug_pair_at_least_two", "bug_three_at_least_three"]
    );
    for catch in [
        "  caught bug-pair-at-least-two (has_pair as count >= 2)\n    by src/lib.rs::tests::three_sevens_hang_where_they_make_a_pair: it was still running after 3000 ms and was stopped\n",
        "  caught bug-three-at-least-three (has_three_of_a_kind as count >= 3)\n    by src/lib.rs::tests::four_sevens_are_not_three_of_a_kind: ",
    ] {
        assert!(stdout.contains(catch), "{catch} in:\n{stdout}");
    }
}

#[test]
fn a_test_that_hangs_on_every_implementation_is_named_and_the_honest_catch_is_kept() {
    // Its 19 runs (on the reference, on each bug, on the student's code) take 3 s each,
    // 29 s on two cores: the budget leaves room for every run, so that none of the honest
    // test's is left unstarted.
    let hangs = r#"
    #[test]
    fn hangs_everywhere() {
        loop {
            std::hint::spin_loop();
        }
    }
"#;
    let stdout = graded_within("attack-hang-on-all", &[hangs, THREE_SEVENS], 40);
    assert_refused_and_caught_only_the_honest_catch(
        &stdout,
        "hangs_everywhere",
        "it was still running after 3000 ms and was stopped",
    );
}

#[test]
fn a_test_that_prints_a_mebibyte_and_a_half_leaves_the_others_verdicts_alone() {
    // The old harness's eight bugs to a process shared its output: a flood cut the
    // verdicts of the others off.
    let floods = r#"
    #[test]
    fn prints_a_mebibyte_and_a_half() {
        use std::io::Write;
        let line = format!("{}\n", "x".repeat(1023));
        let mut out = std::io::stdout().lock();
        for _ in 0..1536 {
            let _ = out.write_all(line.as_bytes());
        }
    }
"#;
    let stdout = graded("attack-flood", &[THREE_SEVENS, floods], BUDGET_S);
    // It passes: its verdict is its exit status, not in the first MiB of its output that
    // the grader keeps.
    assert_valid_and_caught_only_the_honest_catch(&stdout);
    assert!(
        stdout.len() < 256 << 10,
        "a report of {} bytes",
        stdout.len()
    );
}

#[test]
fn a_failure_message_with_a_non_ascii_letter_before_colons_is_shown_and_the_group_kept() {
    // The old harness cut a message at a byte inside `ß` and lost the whole group.
    let says = r#"
    #[test]
    fn fails_with_a_message_in_german() {
        assert!(hand(&["7H", "7D", "7C", "2S", "9H"]).has_pair(), "Maß::Größe");
    }
"#;
    let stdout = graded("attack-non-ascii", &[THREE_SEVENS, says], BUDGET_S);
    assert_refused_and_caught_only_the_honest_catch(
        &stdout,
        "fails_with_a_message_in_german",
        "Maß::Größe",
    );
}

/// The processes descended from `pid`, each with when it started.
fn descendants(pid: u32) -> Vec<(u32, String)> {
    let stat = |pid: u32| std::fs::read_to_string(format!("/proc/{pid}/stat")).ok();
    // After the command name in parentheses: the parent is field 4, the start time field 22.
    let fields = |text: &str| -> Option<(u32, String)> {
        let rest: Vec<&str> = text.rsplit_once(')')?.1.split_whitespace().collect();
        Some((rest.get(1)?.parse().ok()?, rest.get(19)?.to_string()))
    };
    let all: Vec<(u32, u32, String)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let (parent, started) = fields(&stat(pid)?)?;
            Some((pid, parent, started))
        })
        .collect();
    let mut found = vec![];
    let mut parents = vec![pid];
    while let Some(parent) = parents.pop() {
        for (pid, _, started) in all.iter().filter(|(_, p, _)| *p == parent) {
            found.push((*pid, started.clone()));
            parents.push(*pid);
        }
    }
    found
}

#[test]
fn a_grader_killed_while_a_test_hangs_leaves_no_process_of_the_grading_behind() {
    // Every run is started by one process of the grader's (its forker), not by the grader
    // itself: the grader's death must still end the forker, every sandbox and every test.
    let dir = Mutant::of(
        "plaisante_hand",
        "attack-outlive-the-grader",
        "correct, with a test that hangs",
        RENAMED,
    )
    .write();
    let lib = dir.join("src/lib.rs");
    let own = std::fs::read_to_string(&lib).unwrap();
    let hangs = "\n    #[test]\n    fn hangs_everywhere() {\n        loop {\n            std::hint::spin_loop();\n        }\n    }\n";
    std::fs::write(&lib, format!("{own}\n{}", tests_of(&[hangs]))).unwrap();
    let spec = scratch_file(
        "attack-outlive-the-grader.yaml",
        "assignment: plaisante_hand\ngroups:\n  - name: your tests\n    points: 10\n    timeout_ms: 60000\n    student_tests: { bugs: all, budget_s: 600 }\n",
    );
    let mut grader = std::process::Command::new(env!("CARGO_BIN_EXE_grader"));
    support::grader_env(&mut grader)
        .args(["check", dir.to_str().unwrap(), "--spec"])
        .arg(&spec)
        .args(["--sandbox", "strict"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut grader = grader.spawn().unwrap();
    // Until the tests run: a forker, and under it a sandbox running the harness.
    let give_up = Instant::now() + Duration::from_secs(300);
    let running = loop {
        let running = descendants(grader.id());
        let forker = running.iter().find(|(pid, _)| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmdline| cmdline.ends_with(b"\0__contain\0forker\0"))
        });
        let harness = forker.is_some_and(|(forker, _)| {
            descendants(*forker).iter().any(|(pid, _)| {
                std::fs::read_link(format!("/proc/{pid}/exe"))
                    .is_ok_and(|exe| exe.ends_with("runner"))
            })
        });
        if harness {
            break running;
        }
        assert!(Instant::now() < give_up, "no test ever ran");
        assert!(grader.try_wait().unwrap().is_none(), "the grading ended");
        std::thread::sleep(Duration::from_millis(50));
    };
    grader.kill().unwrap();
    grader.wait().unwrap();
    let alive = |(pid, started): &(u32, String)| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            let rest: Vec<&str> = stat
                .rsplit_once(')')
                .map(|(_, rest)| rest.split_whitespace().collect())
                .unwrap_or_default();
            // The same process, not a zombie waiting for init.
            rest.get(19) == Some(&started.as_str()) && rest.first() != Some(&"Z")
        })
    };
    let patience = Instant::now() + Duration::from_secs(5);
    while running.iter().any(alive) && Instant::now() < patience {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left: Vec<_> = running.iter().filter(|process| alive(process)).collect();
    assert!(
        left.is_empty(),
        "{left:?} of {running:?} outlived the grader"
    );
}

#[test]
fn a_test_that_fails_at_random_catches_no_bug_it_asks_nothing_of() {
    // Valid by luck, it would once have "caught" half the bugs: it runs on a bug only where
    // the bug answers its messages otherwise than the reference, and it sends none.
    let stdout = graded(
        "attack-lottery",
        &[
            THREE_SEVENS,
            r#"
    #[test]
    fn fails_when_the_clock_says_so() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.subsec_nanos());
        assert!(nanos % 2 == 0, "lost the draw");
    }
"#,
        ],
        BUDGET_S,
    );
    assert_eq!(caught_bugs(&stdout), HONEST_CATCH, "{stdout}");
}
