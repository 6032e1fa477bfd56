//! `grader github-workflow`: the GitHub Classroom workflow it prints, linted by actionlint
//! and run as a Classroom job runs it.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use support::{actionlint, copy_tree, grader_env, repo, scratch};

const COURSE_REPO: &str = "https://github.com/a-course/cardgrade";

/// `grader github-workflow ARGS` run in `dir`, the template repository's root.
fn print_workflow(dir: &Path, args: &[&str]) -> Output {
    grader_env(&mut Command::new(env!("CARGO_BIN_EXE_grader")))
        .args(["github-workflow", "--repo", COURSE_REPO])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the grader runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_workflow_installs_this_graders_commit_once_and_grades_the_assignment_as_students_see_it() {
    let out = print_workflow(repo(), &["--assignment", "blackjack"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let workflow = text(&out.stdout);
    let install = workflow
        .lines()
        .find_map(|line| line.trim().strip_prefix("run: cargo install "))
        .unwrap_or_else(|| panic!("no install step in:\n{workflow}"));
    let rev = install
        .strip_prefix("--locked --git \"$CARDGRADE_REPO\" --rev ")
        .and_then(|rest| rest.strip_suffix(" grader"))
        .unwrap_or_else(|| panic!("not a pinned, locked install: {install}"));
    assert!(
        rev.len() == 40 && rev.chars().all(|c| c.is_ascii_hexdigit()),
        "{rev}"
    );
    let known = Command::new("git")
        .args(["cat-file", "-e", &format!("{rev}^{{commit}}")])
        .current_dir(repo())
        .status()
        .unwrap();
    assert!(known.success(), "{rev} is a commit of this repository");
    for needed in [
        format!("CARDGRADE_REPO: \"{COURSE_REPO}\""),
        "uses: actions/cache@v4".into(),
        "~/.cargo/bin/grader".into(),
        "~/.cargo/registry/cache/".into(),
        format!("key: cardgrade-${{{{ runner.os }}}}-${{{{ runner.arch }}}}-{rev}"),
        "if: steps.cache.outputs.cache-hit != 'true'".into(),
        "run: grader check . --format github --student-view --assignment blackjack\n".into(),
        "uses: classroom-resources/autograding-grading-reporter@v1".into(),
        "CARDGRADE_RESULTS: \"${{ steps.cardgrade.outputs.result }}\"".into(),
        "runners: cardgrade".into(),
    ] {
        assert!(workflow.contains(&needed), "{needed} in:\n{workflow}");
    }
    assert!(
        text(&out.stderr).contains(&format!(
            "grades blackjack out of 100 points, with the grader of {COURSE_REPO} at --rev {rev}"
        )),
        "{}",
        text(&out.stderr)
    );
    let tagged = print_workflow(repo(), &["--assignment", "blackjack", "--tag", "v0.1.0"]);
    assert!(
        text(&tagged.stdout).contains("--git \"$CARDGRADE_REPO\" --tag v0.1.0 grader"),
        "{}",
        text(&tagged.stdout)
    );
}

#[test]
fn a_workflow_grading_every_assignment_is_printed_only_when_asked() {
    let out = print_workflow(repo(), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    let said = text(&out.stderr);
    assert!(
        said.contains("--assignment NAME")
            && said.contains(&format!(
                "every assignment of the specs ({} of them, {} points)",
                grader_api::ASSIGNMENTS.len(),
                support::built_in_points() as f64 / 100.0
            ))
            && said.contains("--all"),
        "{said}"
    );
    let all = print_workflow(repo(), &["--all"]);
    assert!(all.status.success(), "{}", text(&all.stderr));
    let every: Vec<String> = grader_api::ASSIGNMENTS
        .iter()
        .map(|unit| format!("--assignment {}", unit.name()))
        .collect();
    assert!(
        text(&all.stdout).contains(&format!("--student-view {}\n", every.join(" "))),
        "{}",
        text(&all.stdout)
    );
    assert_eq!(
        print_workflow(repo(), &["--all", "--assignment", "poker"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn spec_paths_are_the_template_repositorys_and_must_load() {
    let specs = print_workflow(
        repo(),
        &[
            "--assignment",
            "poker",
            "--spec",
            "specs/poker.yaml",
            "--add-spec",
            "specs/draw_poker.yaml",
        ],
    );
    assert!(specs.status.success(), "{}", text(&specs.stderr));
    assert!(
        text(&specs.stdout).contains(
            "--assignment poker --spec specs/poker.yaml --add-spec specs/draw_poker.yaml\n"
        ),
        "{}",
        text(&specs.stdout)
    );
    for (path, said) in [
        ("../specs", "with no `..`"),
        ("/etc/specs", "with no `..`"),
        ("no/such.yaml", "no/such.yaml"),
        (
            "specs/$(id).yaml",
            "so the workflow's shell reads it as it is",
        ),
    ] {
        let out = print_workflow(repo(), &["--assignment", "poker", "--spec", path]);
        assert_eq!(out.status.code(), Some(2), "{path}");
        assert!(
            text(&out.stderr).contains(said),
            "{path}: {}",
            text(&out.stderr)
        );
    }
    let missing = print_workflow(
        repo(),
        &["--assignment", "blackjack", "--spec", "specs/poker.yaml"],
    );
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        text(&missing.stderr).contains("--assignment blackjack: no spec grades it"),
        "{}",
        text(&missing.stderr)
    );
}

#[test]
fn the_printed_workflow_passes_actionlint() {
    let out = print_workflow(
        repo(),
        &["--assignment", "poker", "--spec", "specs/poker.yaml"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let workflow = text(&out.stdout);
    if let Err(said) = actionlint("classroom", &workflow) {
        panic!("actionlint: {said}\n{workflow}");
    }
    // It does lint: a step output no step gives is an error.
    let broken = workflow.replace("steps.cardgrade.outputs", "steps.grading.outputs");
    let said = actionlint("broken", &broken).expect_err("actionlint finds the broken reference");
    assert!(said.contains("grading"), "{said}");
}

/// A group of the course's spec, each case a name and a hand.
struct CourseGroup {
    name: &'static str,
    points: f64,
    visibility: &'static str,
    cases: &'static [(&'static str, &'static str)],
}

/// The course's one assignment: thirds of points that add up in hundredths, and a hidden
/// group whose cases the example student fails one of (it says `has_pair` of three of a
/// kind).
const COURSE: [CourseGroup; 3] = [
    CourseGroup {
        name: "pairs",
        points: 10.0,
        visibility: "visible",
        cases: &[
            ("pair of kings", "[KH, KD, 3C, 7S, 9H]"),
            ("three kings is not a pair", "[KH, KD, KC, 7S, 9H]"),
            ("no pair", "[2H, 5D, 8C, JS, AH]"),
        ],
    },
    CourseGroup {
        name: "more pairs",
        points: 6.67,
        visibility: "visible",
        cases: &[
            ("pair of twos", "[2H, 2D, 3C, 7S, 9H]"),
            ("pair of aces", "[AH, AD, 3C, 7S, 9H]"),
            ("two pair", "[AH, AD, 3C, 3S, 9H]"),
        ],
    },
    CourseGroup {
        name: "secret",
        points: 3.33,
        visibility: "hidden",
        cases: &[
            ("zebra queens", "[QS, QD, QC, 4H, 8C]"),
            ("zebra pair", "[QS, QD, 5C, 4H, 8C]"),
        ],
    },
];

/// What the hidden group is called, and what its cases are or say, none of which a student
/// may read.
const HIDDEN: [&str; 7] = [
    "secret",
    "zebra",
    "Q♠ Q♦ Q♣",
    "QS, QD",
    "Q♠ Q♦ 5♣",
    "4♥ 8♣",
    "queens",
];

fn course_spec() -> String {
    let mut spec = String::from("assignment: plaisante_hand\ngroups:\n");
    for CourseGroup {
        name,
        points,
        visibility,
        cases,
    } in COURSE
    {
        spec.push_str(&format!(
            "  - name: {name}\n    points: {points}\n    visibility: {visibility}\n    check: has_pair\n    cases:\n"
        ));
        for (case, hand) in cases {
            spec.push_str(&format!("      - {{ name: {case}, hand: {hand} }}\n"));
        }
    }
    spec
}

/// What one run of the workflow's grading step left for the student to read: the log
/// (stdout and stderr), the job summary, and the `result` output, decoded.
struct Job {
    log: String,
    summary: String,
    result: String,
}

/// Runs `command`, the workflow's grading step, in `checkout` as a GitHub Actions job
/// does, with the grader under test first on PATH.
fn run_step(checkout: &Path, command: &str, name: &str) -> Job {
    let summary = scratch().join(format!("{name}-summary.md"));
    let outputs = scratch().join(format!("{name}-outputs"));
    for file in [&summary, &outputs] {
        std::fs::write(file, "").unwrap();
    }
    let grader = PathBuf::from(env!("CARGO_BIN_EXE_grader"));
    let path = std::env::join_paths(
        std::iter::once(grader.parent().unwrap().to_path_buf()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )),
    )
    .unwrap();
    let out = grader_env(&mut Command::new("sh"))
        .args(["-c", command])
        .current_dir(checkout)
        .env("PATH", path)
        .env("CI", "true")
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    Job {
        log: text(&out.stdout) + &text(&out.stderr),
        summary: std::fs::read_to_string(&summary).unwrap(),
        result: written_result(&outputs, &out.stderr),
    }
}

/// The `result` a grading step wrote to `$GITHUB_OUTPUT` at `outputs`, decoded; `stderr`,
/// the step's, says why when there is none.
fn written_result(outputs: &Path, stderr: &[u8]) -> String {
    let written = std::fs::read_to_string(outputs).unwrap();
    let encoded = written
        .strip_prefix("result=")
        .unwrap_or_else(|| panic!("no `result` output in {written:?}: {}", text(stderr)))
        .trim_end();
    let decoded = Command::new("python3")
        .args([
            "-c",
            "import base64, sys; sys.stdout.write(base64.b64decode(sys.argv[1]).decode())",
            encoded,
        ])
        .output()
        .unwrap();
    assert!(decoded.status.success(), "{}", text(&decoded.stderr));
    text(&decoded.stdout)
}

/// The `score` numbers of the result's tests, read as JavaScript's JSON.parse reads them
/// (correctly rounded), in order.
fn scores_as_written(result: &str) -> Vec<f64> {
    result
        .split("\"score\":")
        .skip(1)
        .map(|rest| {
            let number: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || ".eE+-".contains(*c))
                .collect();
            number
                .parse()
                .unwrap_or_else(|_| panic!("a number: {rest}"))
        })
        .collect()
}

#[test]
fn a_one_assignment_courses_workflow_under_ci_shows_no_hidden_case_and_totals_what_the_grader_prints()
 {
    // The template repository: the starter crate (here, a student's work) with the course's
    // specs in it.
    let checkout = scratch().join("classroom-template");
    let _ = std::fs::remove_dir_all(&checkout);
    copy_tree(&repo().join("tests/fixtures/example-student"), &checkout);
    std::fs::create_dir_all(checkout.join("course")).unwrap();
    std::fs::write(checkout.join("course/plaisante_hand.yaml"), course_spec()).unwrap();
    let printed = print_workflow(
        &checkout,
        &[
            "--assignment",
            "plaisante_hand",
            "--spec",
            "course/plaisante_hand.yaml",
        ],
    );
    assert!(printed.status.success(), "{}", text(&printed.stderr));
    let workflow = text(&printed.stdout);
    let step = workflow
        .lines()
        .find_map(|line| line.trim().strip_prefix("run: grader check "))
        .map(|rest| format!("grader check {rest}"))
        .unwrap_or_else(|| panic!("no grading step in:\n{workflow}"));

    let job = run_step(&checkout, &step, "classroom-student");
    for (what, read) in [
        ("the log", &job.log),
        ("the job summary", &job.summary),
        ("the result", &job.result),
    ] {
        for hidden in HIDDEN {
            assert!(!read.contains(hidden), "{hidden} in {what}:\n{read}");
        }
    }
    let result: serde_json::Value = serde_json::from_str(&job.result).unwrap();
    let tests = result["tests"].as_array().unwrap();
    let secret: Vec<&serde_json::Value> = tests
        .iter()
        .filter(|t| {
            t["name"]
                .as_str()
                .unwrap()
                .starts_with("plaisante_hand::hidden_")
        })
        .collect();
    assert_eq!(secret.len(), 2, "the hidden tests count: {tests:?}");
    assert!(
        secret.iter().any(|t| t["status"] == "fail"
            && t["message"]
                .as_str()
                .unwrap()
                .contains("this hidden test failed")),
        "{secret:?}"
    );

    // Classroom's reporter: `Points ${totalScore}/${maxScore}`, each a sum from 0, in order.
    let total = scores_as_written(&job.result)
        .iter()
        .fold(0.0_f64, |sum, score| sum + score);
    let max = 0.0 + result["max_score"].as_f64().unwrap();
    let printed_total = job
        .log
        .lines()
        .find_map(|line| line.trim().strip_prefix("total "))
        .unwrap_or_else(|| panic!("no total in:\n{}", job.log));
    assert_eq!(format!("{total} / {max}"), printed_total);
    let course_points: f64 = COURSE.iter().map(|group| group.points).sum();
    assert_eq!(
        max,
        (course_points * 100.0).round() / 100.0,
        "out of the assignment's points"
    );
    assert!(total > 0.0 && total < max, "{total}");
    assert!(
        job.log
            .contains(&format!("::notice title=cardgrade score::{printed_total}")),
        "{}",
        job.log
    );

    // The same step in staff's view shows the hidden case: what is looked for above is there
    // to be found.
    let staff = run_step(
        &checkout,
        &step.replace("--student-view", "--staff-view"),
        "classroom-staff",
    );
    assert!(
        staff.log.contains("Q♠ Q♦ Q♣") && staff.result.contains("zebra_queens"),
        "{}",
        staff.log
    );
}

/// The commands a GitHub runner takes from a job's log, modelled on its source: each line
/// (broken at LF and CR) is trimmed of leading whitespace; one starting `::` is a command,
/// as is one holding `##[`; `::stop-commands::TOKEN` stops them until `::TOKEN::`.
fn commands_the_runner_takes(log: &str) -> Vec<String> {
    let mut taken = Vec::new();
    let mut stopped_until: Option<String> = None;
    for line in log.split(['\n', '\r']).map(str::trim_start) {
        if let Some(token) = &stopped_until {
            if line == format!("::{token}::") {
                stopped_until = None;
            }
            continue;
        }
        if let Some(token) = line.strip_prefix("::stop-commands::") {
            stopped_until = Some(token.to_string());
            taken.push(line.to_string());
        } else if line.starts_with("::") || line.contains("##[") {
            taken.push(line.to_string());
        }
    }
    taken
}

/// `grader check DIR --format github` as a Classroom job's grading step runs it: the log
/// (stdout then stderr) and the `result` output, decoded.
fn classroom_step(dir: &Path, name: &str) -> (String, serde_json::Value) {
    let outputs = scratch().join(format!("{name}-outputs"));
    let summary = scratch().join(format!("{name}-summary.md"));
    for file in [&outputs, &summary] {
        std::fs::write(file, "").unwrap();
    }
    let out = grader_env(&mut Command::new(env!("CARGO_BIN_EXE_grader")))
        .args(["check", dir.to_str().unwrap(), "--format", "github"])
        .args(["--assignment", "plaisante_hand", "--student-view"])
        .env("CI", "true")
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs)
        .output()
        .unwrap();
    let result = serde_json::from_str(&written_result(&outputs, &out.stderr)).unwrap();
    (text(&out.stdout) + &text(&out.stderr), result)
}

/// What autograding-grading-reporter prints in its step, from its source: each `error`
/// test's message, then its two notices with the points it adds up.
fn classroom_reporter(result: &serde_json::Value) -> String {
    let tests = result["tests"].as_array().unwrap();
    let mut printed = String::new();
    for test in tests.iter().filter(|test| test["status"] == "error") {
        printed.push_str(&format!("Error: {}\n", test["message"].as_str().unwrap()));
    }
    let total: f64 = tests
        .iter()
        .map(|test| test["score"].as_f64().unwrap())
        .sum();
    let max = result["max_score"].as_f64().unwrap();
    printed.push_str(&format!(
        "::notice title=Autograding complete::Points {total}/{max}\n::notice title=Autograding report::{{\"totalPoints\":{total},\"maxPoints\":{max}}}\n"
    ));
    printed
}

/// The forgery of issue 36: Classroom's notices and a stop to every command after them.
const FORGED: &str = "\n::notice title=Autograding complete::Points 105/105\n  ::notice title=Autograding report::{\"totalPoints\":105,\"maxPoints\":105}\n##[error]forged\r::add-mask::secret\n::stop-commands::x";

#[test]
fn a_forged_classroom_grade_is_inert_in_the_log_and_the_real_score_is_the_last_word() {
    let escaped = FORGED
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
        .replace('\r', "\\r");
    // A crate that does not build, its one error the forgery; and one that builds and says
    // it in a panic and on stdout.
    let broken = support::Mutant::of(
        "plaisante_hand",
        "classroom-forged-build",
        "forges a grade",
        &[],
    )
    .with_file("src/lib.rs", &format!("compile_error!(\"{escaped}\");\n"))
    .write();
    let printing = support::Mutant::of(
        "plaisante_hand",
        "classroom-forged-output",
        "forges a grade",
        &[(
            "    fn has_pair(&self) -> bool {\n",
            &format!("    fn has_pair(&self) -> bool {{\n        println!(\"{{}}\", \"{escaped}\");\n        if self.cards.len() == 1 {{ panic!(\"{{}}\", \"{escaped}\"); }}\n"),
        )],
    )
    .write();
    for (dir, name) in [(&broken, "forged-build"), (&printing, "forged-output")] {
        let (log, result) = classroom_step(dir, name);
        let reporter = classroom_reporter(&result);
        let taken = commands_the_runner_takes(&format!("{log}{reporter}"));
        for command in &taken {
            assert!(
                command.starts_with("::error title=")
                    || command.starts_with("::notice title=cardgrade score::")
                    || command.starts_with("::notice title=Autograding "),
                "a command of the student's was taken: {command}\nof:\n{taken:#?}"
            );
            // cardgrade's own annotation quotes the build error, encoded as one message.
            if command.starts_with("::notice title=Autograding ") {
                assert!(
                    !command.contains("105/105") && !command.contains(":105,"),
                    "{command}"
                );
            }
        }
        let complete = taken
            .iter()
            .rfind(|command| command.starts_with("::notice title=Autograding complete::"))
            .unwrap_or_else(|| panic!("no score in:\n{taken:#?}"));
        let total: f64 = result["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|test| test["score"].as_f64().unwrap())
            .sum();
        assert!(total < 105.0, "{total}");
        assert!(
            complete.ends_with(&format!("Points {total}/105")),
            "{complete}"
        );
        // What the student wrote is still there to read, made visible.
        assert!(
            log.contains("\\::notice title=Autograding complete::Points 105/105"),
            "{log}"
        );
    }
}
