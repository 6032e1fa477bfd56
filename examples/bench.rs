//! Benchmarks the two speed goals of `grader check`, side by side in one run:
//!
//! 1. the all-hands group graded through the runner against the reference answering the
//!    same 2,598,960 hands in-process (goal: within 3x);
//! 2. a warm re-run after touching one file of the submission: time in the build (rustc)
//!    against time in the grader.
//!
//! Run: `cargo run --release --example bench [-- ROUNDS]`

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use grader::grade;
use grader::runner::Launcher;
use grader::sandbox::{self, Sandbox};
use grader::verdict::Verdict;
use grader::{compile, spec};
use grader_api::assignment::Asked;

fn main() {
    // The sandbox runs its stages by re-executing the binary that grades: this one.
    let mut arguments = std::env::args();
    if arguments.nth(1).as_deref() == Some(sandbox::CONTAIN_COMMAND) {
        sandbox::run_stage(&arguments.next().unwrap_or_default());
    }
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(5);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let reference = reference::submission();
    let suite = spec::load(&[], &[], None).expect("built-in specs load");
    let (group, test) = suite
        .tests()
        .find(|(_, t)| t.id == "plaisante_hand::every_hand")
        .expect("the built-in spec has an every_hand group");

    let submission = compile::locate(&repo.join("reference")).expect("the reference is a crate");
    let sandbox = Sandbox::probe().expect("the sandbox probe runs");
    let build = compile::Build {
        color: false,
        timeout: compile::DEFAULT_BUILD_TIMEOUT,
        allowed: &[],
    };
    // The build folder stays locked while `built` lives: the graders started below build there.
    let launcher = {
        let built = compile::build(&submission, &sandbox, &build).expect("the reference builds");
        Launcher::new(sandbox, &built.executable, &built.source_root).expect("the runner is set up")
    };
    let mut runner = launcher.start().expect("the runner starts");

    let mut in_process = Vec::new();
    let mut through_runner = Vec::new();
    for _ in 0..rounds {
        let started = Instant::now();
        let inputs = count_in_process(&reference, &*test.request);
        in_process.push(started.elapsed());
        assert_eq!(inputs, test.request.input_count());

        let started = Instant::now();
        let (verdict, survived) = grade::grade_bulk(&mut runner, &reference, group, test);
        through_runner.push(started.elapsed());
        assert!(
            matches!(verdict, Verdict::Passed) && survived,
            "the reference must pass"
        );
    }
    let (inside, graded) = (median(&mut in_process), median(&mut through_runner));
    let inputs = test.request.describe_inputs().replace('\n', "; ");
    println!("{inputs}; {rounds} rounds, medians:");
    println!("  reference in-process          {:>8.1} ms", ms(inside));
    println!("  graded through the runner     {:>8.1} ms", ms(graded));
    println!(
        "  ratio                         {:>8.2}x   (goal: at most 3x)",
        ratio(graded, inside)
    );

    let grader_binary = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("grader")))
        .filter(|path| path.exists())
        .expect("build the grader binary first: cargo build --release");
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

fn count_in_process(reference: &grader_api::Submission, request: &dyn Asked) -> u64 {
    let mut inputs = 0u64;
    request.respond(reference, &mut |_, _| {
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
