//! Benchmarks the speed goals of `grader check`, side by side in one run:
//!
//! 1. the all-hands group graded through the runner against the honest baseline: the
//!    reference answering the same 2,598,960 hands in a process of its own with no other
//!    thread. Each round runs the two one after the other; medians of wall time and of CPU
//!    time (the grader's threads and the runner's processes together, and the grader's
//!    alone), and their ratios to the baseline. The group is graded on one runner and
//!    split across one runner per core, with the reference computing its answers and
//!    keeping them, as a first grading does, and with them kept; beside them, the wall
//!    time of two baselines at once, a process a core, which is what a first grading's
//!    floor (the reference and the runner each answering every hand on a core of its own)
//!    takes on the machine at hand;
//! 2. a warm full `grader check` of the reference, against the reference's own time for
//!    its tests over the cores, and, for the students' own tests, the crate's own test
//!    binary's time run once per implementation they are graded on, over the cores;
//! 3. a student's save: the example student graded by `grader check --watch`, every group,
//!    from saving one edited method to the report's last line, against `cargo build
//!    --release` of the same edit plus the reference's own time for the assignment's tests;
//! 4. a warm re-run after touching one file of the submission: time in the build (rustc)
//!    against time in the grader.
//!
//! Each goal (issue 39) is a ratio to a floor printed beside it, measured in the same run.
//!
//! The bench allocates with mimalloc, as the grader binary does: the reference computing
//! on the grader's threads allocates for every hand, and glibc's malloc slows down in a
//! process with threads (the reference on a second thread took 1.4x the CPU it took on the
//! main thread, side by side), so with the system's malloc the bench's first grading was
//! far slower than `grader check`'s. The baseline, a child of the same executable, then
//! allocates with mimalloc too, and is about 5% faster than the reference with the
//! system's malloc, as a student's runner allocates (medians of 1,034 and 1,095 ms of CPU,
//! issue 25): every ratio to it is that much stricter than one to the student's own time.
//!
//! Run: `cargo run --release --example bench [-- ROUNDS [all-hands]]`; `all-hands` stops
//! after the first part. `floor` and `own-tests-floor` print one floor for
//! scripts/bench-batch.sh.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use grader::answers::Store;
use grader::grade;
use grader::runner::Launcher;
use grader::sandbox::{self, Sandbox};
use grader::verdict::Verdict;
use grader::{compile, spec};
use grader_api::spec::Grading;
use grader_api::unit::Asked;

fn main() {
    // The sandbox runs its stages by re-executing the binary that grades: this one.
    let mut arguments = std::env::args();
    if arguments.nth(1).as_deref() == Some(sandbox::CONTAIN_COMMAND) {
        sandbox::run_stage(&arguments.next().unwrap_or_default());
    }
    let reference = reference::submission();
    let suite = spec::load(&[], &[], None).expect("built-in specs load");
    let (group, test) = suite
        .tests()
        .find(|(_, t)| t.id == ALL_HANDS)
        .expect("the built-in spec has an every_hand group");
    if std::env::args().nth(1).as_deref() == Some(BASELINE) {
        let started = Instant::now();
        let inputs = count_in_process(&reference, &*test.request);
        assert_eq!(inputs, test.request.input_count());
        println!("{} {}", ms(started.elapsed()), ms(cpu_of(Who::Myself)));
        return;
    }
    // `floor [--assignment A] [--skip FILTER]`: the reference's own time, in ms, for every
    // test of the built-in specs those keep (scripts/bench-batch.sh prints a class's floor).
    if std::env::args().nth(1).as_deref() == Some(FLOOR) {
        let Kept { assignment, skip } = kept();
        let took = reference_time(&reference, &suite, |test| {
            assignment
                .as_deref()
                .is_none_or(|name| test.id.starts_with(&format!("{name}::")))
                && skip.as_deref().is_none_or(|skip| !test.id.contains(skip))
        });
        println!("{}", ms(took));
        return;
    }
    // `own-tests-floor CRATE [--assignment A] [--skip FILTER]`: the students'-tests floor
    // of the crate at CRATE, in ms of one core, for the groups those keep.
    if std::env::args().nth(1).as_deref() == Some(OWN_TESTS_FLOOR) {
        let Kept { assignment, skip } = kept();
        let arguments: Vec<String> = std::env::args().skip(2).collect();
        let crate_dir = Path::new(arguments.first().expect("own-tests-floor CRATE"));
        let took = own_tests_floor(&suite, crate_dir, 5, |group| {
            assignment
                .as_deref()
                .is_none_or(|name| group.assignment.name() == name)
                && skip
                    .as_deref()
                    .is_none_or(|skip| group.tests.iter().all(|test| !test.id.contains(skip)))
        });
        println!("{}", ms(took));
        return;
    }
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(5);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));

    let submission = compile::locate(&repo.join("reference")).expect("the reference is a crate");
    let sandbox = Sandbox::probe().expect("the sandbox probe runs");
    let shared = compile::shared_builds();
    let build = compile::Build {
        color: false,
        timeout: compile::DEFAULT_BUILD_TIMEOUT,
        allowed: &[],
        shared: shared.as_deref(),
        // As a course's grading builds it (a machine format, GitHub's, a class): once,
        // without incremental data. A student's own pretty report keeps it for the next save.
        incremental: false,
    };
    // The build folder stays locked while `built` lives: the graders started below build there.
    let launcher = {
        let built = compile::build(&submission, &sandbox, &build).expect("the reference builds");
        Launcher::new(sandbox, &built.runner).expect("the runner is set up")
    };
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut runners: Vec<_> = (0..cores)
        .map(|_| launcher.start().expect("the runner starts"))
        .collect();

    // Answers kept beforehand, as `grader cache build` keeps them.
    let kept = std::env::temp_dir().join(format!("cardgrade-bench-{}", std::process::id()));
    let store = Store::at(&kept);
    grade::grade_bulk(&mut runners, &reference, (Some(&store), false), group, test);
    // A first grading keeps the answers the reference computes, as `grader check` does:
    // into a store emptied before each run.
    let first = std::env::temp_dir().join(format!("cardgrade-bench-first-{}", std::process::id()));
    let first_store = Store::at(&first);

    let mut baseline_runs = Vec::new();
    let mut variants: Vec<Variant> = [1, cores]
        .into_iter()
        .flat_map(|split| {
            let on = match split {
                1 => "1 runner".to_string(),
                n => format!("{n} runners"),
            };
            [
                (
                    format!("graded on {on}, the reference answering"),
                    split,
                    &first_store,
                ),
                (format!("graded on {on}, the answers kept"), split, &store),
            ]
        })
        .map(|(label, split, store)| (label, split, store, Vec::new()))
        .collect();
    let mut pairs_at_once = Vec::new();
    for _ in 0..rounds {
        baseline_runs.push(baseline());
        pairs_at_once.push(two_baselines_at_once());
        for (_, split, store, runs) in &mut variants {
            let _ = std::fs::remove_dir_all(&first);
            let on = &mut runners[..*split];
            runs.push(graded(on, &reference, store, group, test));
        }
    }
    for dir in [&kept, &first] {
        let _ = std::fs::remove_dir_all(dir);
    }
    let inputs = test.request.describe_inputs().replace('\n', "; ");
    println!("{inputs}; {rounds} rounds, medians, as ratios to the reference alone:");
    let [wall, cpu] = medians(&baseline_runs);
    println!(
        "  {:<48} wall {:>8.1} ms   cpu {:>8.1} ms",
        "reference alone, one thread",
        ms(wall),
        ms(cpu)
    );
    let at_once = median(&mut pairs_at_once);
    println!(
        "  {:<48} wall {:>8.1} ms                       ({:.2}x: the floor of a first grading on this machine)",
        "the reference twice at once, a process a core",
        ms(at_once),
        ratio(at_once, wall)
    );
    for (label, _, _, runs) in &variants {
        let [graded_wall, graded_cpu, grader_cpu] = medians(runs);
        println!(
            "  {label:<48} wall {:>8.1} ms   cpu {:>8.1} ms   ({:.2}x and {:.2}x; the grader's own cpu {:.2}x)",
            ms(graded_wall),
            ms(graded_cpu),
            ratio(graded_wall, wall),
            ratio(graded_cpu, cpu),
            ratio(grader_cpu, cpu)
        );
    }

    // The last two variants are split across every core: the reference answering, then
    // the answers kept.
    let [first_split, kept_split] = [&variants[variants.len() - 2], &variants[variants.len() - 1]]
        .map(|(_, _, _, runs)| medians(runs));
    println!("  goals, each against its floor in this run:");
    goal_line(
        &format!("first grading, split on {cores}: wall"),
        first_split[0],
        "two references at once",
        at_once,
        1.08,
    );
    goal_line(
        &format!("kept answers, split on {cores}: wall"),
        kept_split[0],
        "half of two references at once",
        at_once / 2,
        1.08,
    );
    goal_line(
        &format!("kept answers, split on {cores}: cpu"),
        kept_split[1],
        "the reference alone's cpu",
        cpu,
        1.08,
    );

    if std::env::args().nth(2).as_deref() == Some(ALL_HANDS_ONLY) {
        return;
    }
    let grader_binary = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("grader")))
        .filter(|path| path.exists())
        .expect("build the grader binary first: cargo build --release");
    let cores_used = cores.min(2) as u32;
    // The students' own tests are graded by running them once for each implementation,
    // which the reference's time for the tests does not hold: they have a floor of their own.
    let student_tests: Vec<String> = suite
        .tests()
        .filter(|(_, test)| test.grading == Grading::StudentTests)
        .map(|(_, test)| test.id.clone())
        .collect();
    let floor = reference_time(&reference, &suite, |test| {
        test.grading != Grading::StudentTests
    }) / cores_used;
    let reference_dir = repo.join("reference");
    let mut checks: Vec<Duration> = (0..rounds)
        .map(|_| full_check(&grader_binary, &reference_dir, &student_tests))
        .collect();
    let check = median(&mut checks);
    let whole = median(
        &mut (0..rounds)
            .map(|_| full_check(&grader_binary, &reference_dir, &[]))
            .collect::<Vec<_>>(),
    );
    let own_tests = own_tests_floor(&suite, &reference_dir, rounds, |_| true) / cores_used;
    println!(
        "warm full `grader check reference` (every test, kept answers), {rounds} rounds, medians:"
    );
    println!(
        "  floor: the reference's own time for the tests but the students' own, over {cores_used} cores  {:>8.1} ms",
        ms(floor)
    );
    println!(
        "  floor of the students' own tests: the crate's own test binary run once per implementation, over {cores_used} cores  {:>8.1} ms",
        ms(own_tests)
    );
    goal_line(
        "grader check, but the students' own tests",
        check,
        "the reference's own time",
        floor,
        1.2,
    );
    goal_line(
        "grader check, every test",
        whole,
        "with the students' own tests' floor",
        floor + own_tests,
        1.5,
    );
    let (saves, builds) = edited_saves(&grader_binary, repo, rounds);
    let assignment_floor = reference_time(&reference, &suite, |test| {
        test.id.starts_with("plaisante_hand::") && test.grading != Grading::StudentTests
    });
    println!(
        "a student's save: the example student under `grader check --watch`, every group, from saving one edited method to the report's last line; {rounds} rounds, medians:"
    );
    println!(
        "  floor: `cargo build --release` of the same edit {:>8.1} ms + the reference's own time for the Plaisante hand's tests {:>8.1} ms",
        ms(builds),
        ms(assignment_floor)
    );
    goal_line(
        "the save, graded",
        saves,
        "that floor",
        builds + assignment_floor,
        1.3,
    );
    for (label, extra) in [
        ("all 63 Plaisante hand tests", None),
        ("without the all-hands group", Some("every_hand")),
    ] {
        let (build, rest) = warm_rerun(&grader_binary, repo, rounds, extra);
        println!(
            "warm re-run of `grader check reference` ({label}) after touching one file, {rounds} rounds, medians:"
        );
        println!("  building (cargo + rustc)      {:>8.1} ms", ms(build));
        println!("  everything else               {:>8.1} ms", ms(rest));
    }
}

/// Which tests a floor is for, from `--assignment A` and `--skip FILTER` after the
/// program's first argument, as `grader check` takes them.
struct Kept {
    assignment: Option<String>,
    skip: Option<String>,
}

fn kept() -> Kept {
    let arguments: Vec<String> = std::env::args().skip(2).collect();
    let given = |flag: &str| {
        arguments
            .windows(2)
            .find(|pair| pair[0] == flag)
            .map(|pair| pair[1].clone())
    };
    Kept {
        assignment: given("--assignment"),
        skip: given("--skip"),
    }
}

/// One goal's line: a figure, its floor measured in the same run, their ratio, the goal.
fn goal_line(figure: &str, took: Duration, floor_name: &str, floor: Duration, goal: f64) {
    let ratio = ratio(took, floor);
    println!(
        "    {figure:<48} {:>8.1} ms   / {floor_name} {:>8.1} ms = {ratio:.2}x (goal: at most {goal}x: {})",
        ms(took),
        ms(floor),
        if ratio <= goal { "met" } else { "not met" }
    );
}

/// The floor of grading the crate at `crate_dir`'s own tests as the students'-tests groups
/// of `suite` that `keep` takes do, on one core: its test binary (built with `cargo test
/// --release`) running the assignment's tests, its median over `rounds`, once on each
/// implementation a group grades them on (the reference, each bug, the student's own code).
fn own_tests_floor(
    suite: &grader::spec::Suite,
    crate_dir: &Path,
    rounds: usize,
    keep: impl Fn(&grader::spec::Group) -> bool,
) -> Duration {
    let groups: Vec<&grader::spec::Group> = suite
        .groups
        .iter()
        .filter(|group| group.student_tests.is_some() && keep(group))
        .collect();
    if groups.is_empty() {
        return Duration::ZERO;
    }
    let built = Command::new(env!("CARGO"))
        .args(["test", "--release", "--lib", "--no-run", "--quiet"])
        .args(["--message-format", "json"])
        .arg("--manifest-path")
        .arg(crate_dir.join("Cargo.toml"))
        .output()
        .expect("cargo runs");
    assert!(built.status.success(), "the crate's tests build: {built:?}");
    let executable = String::from_utf8_lossy(&built.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message["profile"]["test"] == true)
        .find_map(|message| message["executable"].as_str().map(String::from))
        .expect("cargo names the crate's test binary");
    groups
        .iter()
        .map(|group| {
            let assignment = group.assignment.name();
            // A crate of one assignment may keep its tests in lib.rs, outside any module of it.
            let filter = match crate_dir.join(format!("src/{assignment}.rs")).exists() {
                true => format!("{assignment}::"),
                false => String::new(),
            };
            let mut runs: Vec<Duration> = (0..rounds)
                .map(|_| {
                    let started = Instant::now();
                    // A student's tests may fail on their own code: their time is the floor.
                    // Without backtraces, as the grader runs them: a failing test's
                    // backtrace alone takes tens of milliseconds to print.
                    let ran = Command::new(&executable)
                        .env_remove("RUST_BACKTRACE")
                        .env_remove("RUST_LIB_BACKTRACE")
                        .args(["--quiet", &filter])
                        .stdout(std::process::Stdio::null())
                        .stderr(std::process::Stdio::null())
                        .status()
                        .expect("the crate's tests run");
                    assert!(ran.code().is_some(), "the crate's tests ended: {ran}");
                    started.elapsed()
                })
                .collect();
            let implementations = grader::student_tests::suite::bug_tests(group).len() as u32 + 2;
            median(&mut runs) * implementations
        })
        .sum()
}

/// The reference's own time, in this process on one thread, to answer every input of the
/// tests of `suite` that `keep` takes: what a check of those tests cannot do in less, on
/// one core.
fn reference_time(
    reference: &grader_api::Submission,
    suite: &grader::spec::Suite,
    keep: impl Fn(&grader::spec::TestCase) -> bool,
) -> Duration {
    let started = Instant::now();
    for (_, test) in suite.tests().filter(|(_, test)| keep(test)) {
        count_in_process(reference, &*test.request);
    }
    started.elapsed()
}

/// The wall time of a warm `grader check` of `crate_dir`, every test of the built-in specs
/// but those `skipped` names.
fn full_check(grader_binary: &Path, crate_dir: &Path, skipped: &[String]) -> Duration {
    let started = Instant::now();
    let status = Command::new(grader_binary)
        .args(["check", "--format", "json"])
        .arg(crate_dir)
        .args(skipped.iter().flat_map(|id| ["--skip", id.as_str()]))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("the grader runs");
    assert!(status.success(), "the reference passes every test");
    started.elapsed()
}

/// A student's save, `rounds` times: the example student under `grader check --watch`,
/// every group graded, from saving its `has_pair` edited to the report's last line; and
/// beside each, `cargo build --release` of a second copy after the same edit, warm. Their
/// medians.
fn edited_saves(grader_binary: &Path, repo: &Path, rounds: usize) -> (Duration, Duration) {
    use std::io::BufRead;
    let folder = std::env::temp_dir().join(format!("cardgrade-save-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a folder for the crates");
    let [watched, built] = ["watched", "built"].map(|copy| {
        let crate_dir = folder.join(copy);
        let copied = Command::new("cp")
            .arg("-r")
            .arg(repo.join("tests/fixtures/example-student"))
            .arg(&crate_dir)
            .status()
            .expect("cp runs");
        assert!(copied.success());
        let manifest = crate_dir.join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).expect("readable");
        let api = repo.join("api").display().to_string();
        std::fs::write(&manifest, text.replace("../../../api", &api)).expect("writable");
        crate_dir
    });
    // Builds run as users of their own, who must read the crate.
    let _ = Command::new("chmod")
        .args(["-R", "a+rX"])
        .arg(&folder)
        .status();
    let cargo_build = || {
        let started = Instant::now();
        let status = Command::new(env!("CARGO"))
            .args(["build", "--release", "--quiet", "--manifest-path"])
            .arg(built.join("Cargo.toml"))
            .status()
            .expect("cargo runs");
        assert!(status.success(), "the example student builds");
        started.elapsed()
    };
    cargo_build();
    let mut watching = Command::new(grader_binary)
        .args(["check", "--watch", "--color", "never"])
        .arg(&watched)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the grader runs");
    let mut lines = std::io::BufReader::new(watching.stdout.take().expect("piped")).lines();
    let mut until_total = || {
        lines
            .by_ref()
            .map_while(Result::ok)
            .find(|line| line.trim_start().starts_with("total "))
            .expect("a report with a total")
    };
    until_total();
    let edit = |crate_dir: &Path, round: usize| {
        let source = crate_dir.join("src/lib.rs");
        let text = std::fs::read_to_string(&source).expect("readable");
        let method = "fn has_pair(&self) -> bool {";
        assert!(text.contains(method), "the example student has {method}");
        let edited = text.replacen(method, &format!("{method}\n        // edit {round}"), 1);
        std::fs::write(&source, edited).expect("writable");
    };
    let (mut saves, mut builds) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        edit(&watched, round);
        let saved = Instant::now();
        until_total();
        saves.push(saved.elapsed());
        edit(&built, round);
        builds.push(cargo_build());
    }
    let _ = watching.kill();
    let _ = watching.wait();
    let _ = std::fs::remove_dir_all(&folder);
    (median(&mut saves), median(&mut builds))
}

/// Touches a file of the reference, runs the grader on it, and splits the wall time into
/// the build the grader reports and the rest.
fn warm_rerun(
    grader_binary: &Path,
    repo: &Path,
    rounds: usize,
    skip: Option<&str>,
) -> (Duration, Duration) {
    let touched = repo.join("reference/src/plaisante_hand.rs");
    let mut builds = Vec::new();
    let mut grading = Vec::new();
    for _ in 0..rounds {
        let text = std::fs::read_to_string(&touched).expect("readable");
        std::fs::write(&touched, text).expect("writable");
        let output = Command::new(grader_binary)
            .args([
                "check",
                "--color",
                "never",
                "--format",
                "json",
                "--test-threads",
                "2",
                "--assignment",
                "plaisante_hand",
            ])
            .arg(repo.join("reference"))
            .args(skip.map(|filter| ["--skip", filter]).into_iter().flatten())
            .output()
            .expect("the grader runs");
        let results: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("the grader prints its results as JSON");
        let millis =
            |field: &str| Duration::from_millis(results[field].as_u64().expect("a time in ms"));
        let build = millis("build_time_ms");
        builds.push(build);
        grading.push(millis("execution_time_ms").saturating_sub(build));
    }
    (median(&mut builds), median(&mut grading))
}

/// A way of grading the group: its label, the runners it is split across, the store it
/// reads the answers from or, empty, keeps them in, and its runs' times, as [`graded`]
/// gives them.
type Variant<'a> = (String, usize, &'a Store, Vec<[Duration; 3]>);

/// One graded run of the group: its wall time, the CPU time of the grader's threads and
/// the runner's processes, and the grader's alone.
fn graded(
    runners: &mut [grader::runner::Runner],
    reference: &grader_api::Submission,
    store: &Store,
    group: &grader::spec::Group,
    test: &grader::spec::TestCase,
) -> [Duration; 3] {
    let (grader_before, runner_before) = (cpu_of(Who::Myself), cpu_of(Who::Descendants));
    let started = Instant::now();
    let (verdict, survived) =
        grade::grade_bulk(runners, reference, (Some(store), false), group, test);
    let wall = started.elapsed();
    let (grader_cpu, runner_cpu) = (
        cpu_of(Who::Myself) - grader_before,
        cpu_of(Who::Descendants) - runner_before,
    );
    let cpu = grader_cpu + runner_cpu;
    assert!(
        matches!(verdict, Verdict::Passed) && survived.iter().all(|&alive| alive),
        "the reference must pass"
    );
    [wall, cpu, grader_cpu]
}

/// The median of each of the runs' figures, each on its own.
fn medians<const N: usize>(runs: &[[Duration; N]]) -> [Duration; N] {
    std::array::from_fn(|figure| {
        median(&mut runs.iter().map(|run| run[figure]).collect::<Vec<_>>())
    })
}

const ALL_HANDS: &str = "plaisante_hand::every_hand";
/// The argument that makes this program the baseline: one round, then its figures.
const BASELINE: &str = "baseline";
/// The argument, after the rounds, that stops this program after the all-hands group.
const ALL_HANDS_ONLY: &str = "all-hands";
/// The argument that makes this program print the reference's own time for some tests.
const FLOOR: &str = "floor";
/// The argument that makes this program print the students'-tests floor of a crate.
const OWN_TESTS_FLOOR: &str = "own-tests-floor";

/// The command that runs one round of the baseline, in a process of its own.
fn baseline_command() -> Command {
    let mut command = Command::new(std::env::current_exe().expect("this program's path"));
    command.arg(BASELINE);
    command
}

/// Two rounds of the baseline at once, a process each: the wall time until both end. It
/// is the floor of a first grading, in which the reference and the runner each answer
/// every hand on a core of their own, as this machine gives it: two such processes do not
/// take quite the time of one, even on idle cores.
fn two_baselines_at_once() -> Duration {
    let started = Instant::now();
    let both: Vec<_> = (0..2)
        .map(|_| {
            baseline_command()
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("the baseline runs")
        })
        .collect();
    for mut baseline in both {
        assert!(baseline.wait().expect("the baseline ends").success());
    }
    started.elapsed()
}

/// One round of the baseline, in a process of its own: its wall and CPU time.
fn baseline() -> [Duration; 2] {
    let output = baseline_command().output().expect("the baseline runs");
    let text = String::from_utf8_lossy(&output.stdout);
    let figures: Vec<f64> = text
        .split_whitespace()
        .map(|figure| figure.parse().expect("the baseline prints milliseconds"))
        .collect();
    let [wall, cpu] = figures[..] else {
        panic!("the baseline printed {text:?}");
    };
    let millis = |ms: f64| Duration::from_secs_f64(ms / 1000.0);
    [millis(wall), millis(cpu)]
}

enum Who {
    Myself,
    /// The processes below this one that still run: the runner and its sandbox stages.
    Descendants,
}

/// CPU time used so far, user and system.
fn cpu_of(who: Who) -> Duration {
    match who {
        Who::Myself => {
            let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_SELF)
                .expect("getrusage works");
            let time = |t: nix::sys::time::TimeVal| {
                Duration::new(t.tv_sec() as u64, t.tv_usec() as u32 * 1000)
            };
            time(usage.user_time()) + time(usage.system_time())
        }
        Who::Descendants => descendants(std::process::id())
            .into_iter()
            .map(process_cpu)
            .sum(),
    }
}

/// Every process below `pid`, from /proc.
fn descendants(pid: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let child: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // The parent is the second field after the command, which may hold spaces.
            let after_command = &stat[stat.rfind(')')? + 2..];
            let parent = after_command.split(' ').nth(1)?.parse().ok()?;
            Some((child, parent))
        })
        .collect();
    let mut found = vec![pid];
    let mut index = 0;
    while index < found.len() {
        let parent = found[index];
        found.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(c, _)| *c),
        );
        index += 1;
    }
    found.remove(0);
    found
}

/// A process's user and system time, from /proc/PID/stat.
fn process_cpu(pid: u32) -> Duration {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return Duration::ZERO;
    };
    let Some(close) = stat.rfind(')') else {
        return Duration::ZERO;
    };
    let fields: Vec<&str> = stat[close + 2..].split(' ').collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command.
    let ticks: u64 = fields[11..13]
        .iter()
        .filter_map(|f| f.parse::<u64>().ok())
        .sum();
    let per_second = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .unwrap_or(100) as u64;
    Duration::from_secs_f64(ticks as f64 / per_second as f64)
}

fn count_in_process(reference: &grader_api::Submission, request: &dyn Asked) -> u64 {
    let mut inputs = 0u64;
    request.respond(reference, &mut |_| {
        inputs += 1;
        true
    });
    inputs
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

// Why: the file's documentation.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
