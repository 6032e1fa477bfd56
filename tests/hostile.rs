//! The hostile battery: submissions that attack the grader at build time or in the runner,
//! graded by the real `grader check`. Each row of the table below names an attack of
//! `support::attacks()` (whose `bug` says what it does) and what the grader must do with
//! it: refuse it, build it without letting it reach anything, or fail its trigger in
//! tests/specs/attacks.yaml in words and grade the rest. Whatever the row, the grader must
//! end normally and in bounded time, and leave nothing of the submission running.
//!
//! The tests take turns: leftovers are found by name in /proc, and a fork or memory bomb
//! must not meet another test's runners.

mod support;

use std::io::{ErrorKind, Read};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use support::{Mutant, find_failure, find_result_line};

/// A check, build included, that takes longer has waited for something it should have killed.
const BOUND: Duration = Duration::from_secs(60);
/// When a grader still running is killed, so that a hang fails its test instead of the suite.
const GIVE_UP: Duration = Duration::from_secs(120);
/// How long a daemon of the submission would have had to rewrite the results.
const REWRITE_WINDOW: Duration = Duration::from_secs(4);

/// What the grader must make of an attack.
enum Outcome {
    /// Not built, refused or failed by the compiler: exit 3, stderr says each of these.
    NotBuilt(&'static [&'static str]),
    /// Built and graded in full as if nothing happened: exit 0, and ATTACK SUCCEEDED nowhere.
    Built,
    /// The trigger of this group fails, its report saying each of these (`{n}` stands
    /// for a number); every other test passes: exit 1.
    Fails(&'static str, &'static [&'static str]),
    /// Every attempt of this group's trigger failed, so it answered right like every
    /// other test: exit 0.
    Passes(&'static str),
}

/// What else the test checks after the grader ends.
#[derive(Clone, Copy, PartialEq)]
enum Also {
    Nothing,
    /// The attack's loopback listener accepted no connection.
    NoConnection,
    /// None of the attack's `support::written_by` files exists.
    NothingWritten,
    /// The JSON results, `REWRITE_WINDOW` after the grader ended, hold the score it printed.
    ResultsKept,
    /// The test's sockets under /tmp (`support::unix_sockets`) were neither connected to
    /// nor sent anything.
    NoUnixConnection,
    /// Nothing the grader printed holds this text.
    NotShown(&'static str),
    /// The attack's build folder keeps no target: a refused build's files are removed.
    NothingKept,
}

use Also::*;
use Outcome::*;

struct Attack {
    name: &'static str,
    outcome: Outcome,
    args: &'static [&'static str],
    also: Also,
    /// How long the whole check may take.
    bound: Duration,
    /// The sandbox layers (as `grader doctor` names them) the containment rests on.
    needs: &'static [&'static str],
}

fn attack(name: &'static str, outcome: Outcome) -> Attack {
    Attack {
        name,
        outcome,
        args: &[],
        also: Nothing,
        bound: BOUND,
        needs: &[],
    }
}

/// An attack by code run at build time, which is given 20 s.
fn at_build(name: &'static str) -> Attack {
    attack(name, Built).args(&["--build-timeout", "20"])
}

impl Attack {
    fn args(self, args: &'static [&'static str]) -> Attack {
        Attack { args, ..self }
    }

    fn also(self, also: Also) -> Attack {
        Attack { also, ..self }
    }

    /// Where one of `layers` is missing, the grader must say so; the attack is not held
    /// to what only that layer holds.
    fn needs(self, needs: &'static [&'static str]) -> Attack {
        Attack { needs, ..self }
    }

    /// A tighter bound than [`BOUND`], for a row whose failure is a wait.
    fn within(self, bound: Duration) -> Attack {
        Attack { bound, ..self }
    }
}

/// One test per row, named by what it shows.
macro_rules! battery {
    ($($test:ident: $attack:expr;)*) => {
        $(
            #[test]
            fn $test() {
                contained($attack);
            }
        )*
    };
}

const ONLY_GRADER_API: &str = "may depend only on grader-api";
const LEFT_PROCESSES: &str = "left {n} process";
const ALLOW_LIBC: &[&str] = &["--allow-dependency", "libc"];
const CGROUP: &[&str] = &["cgroup"];
const LANDLOCK: &[&str] = &["landlock"];
const NETWORK: &[&str] = &["network namespace"];
const MOUNTS: &[&str] = &["mount namespace"];
const NOT_TRUSTED: &str = "the runner your build made cannot be trusted";
/// Grading under the strict sandbox, with a build given 20 s.
const STRICT_BUILD: &[&str] = &["--build-timeout", "20", "--sandbox", "strict"];

battery! {
    the_control_passes_and_leaves_nothing: attack("attack-control", Built);
    a_symbolic_link_is_refused_before_building:
        attack("attack-symlink", NotBuilt(&["src/answers.rs is a symbolic link"]));
    a_lib_path_outside_is_refused:
        attack("attack-lib-path", NotBuilt(&["outside your crate"]));
    // Within far less than the 30 s a runner has to say hello: its death is seen at once.
    a_panic_before_any_test_is_a_runner_that_did_not_start: attack(
        "attack-panic-at-start",
        NotBuilt(&[
            "the runner did not start: it panicked outside any test",
            "the set-up went wrong",
            "score: 0 (the runner did not start)",
        ]),
    )
    .within(Duration::from_secs(15));
    // The runner.
    a_fork_bomb_meets_the_process_limit:
        attack("attack-fork-bomb", Fails("fork_bomb", &["processes", "limit"])).needs(CGROUP);
    three_children_of_3_gib_run_out_of_memory:
        attack("attack-memory", Fails("memory", &["ran out of memory"])).needs(CGROUP);
    threads_left_spinning_are_reported:
        attack("attack-threads", Fails("threads", &["left {n} thread"])).needs(CGROUP);
    a_daemon_in_its_own_process_group_is_reported:
        attack("attack-daemon", Fails("daemon", &[LEFT_PROCESSES])).needs(CGROUP);
    a_child_outliving_its_runner_is_reported:
        attack("attack-orphan", Fails("orphan", &["exited with status 0", LEFT_PROCESSES]))
            .needs(CGROUP);
    the_runner_reads_nothing_of_the_graders:
        attack("attack-reads", Passes("reads")).needs(&["landlock", "PID namespace", "mount namespace"]);
    the_runner_writes_nothing_outside:
        attack("attack-writes", Passes("writes")).also(NothingWritten).needs(LANDLOCK);
    the_runner_has_no_network:
        attack("attack-tcp", Passes("tcp")).also(NoConnection).needs(NETWORK);
    the_runner_cannot_signal_the_grader:
        // libc allowed by a spec, as a course would, rather than on the command line.
        attack("attack-kill-parent", Passes("kill_parent"))
            .args(&["--spec", "tests/specs/allow-libc.yaml"])
            .needs(&["PID namespace"]);
    a_daemon_cannot_rewrite_the_results:
        attack("attack-rewrite-results", Fails("rewrite_results", &[LEFT_PROCESSES]))
            .also(ResultsKept)
            .needs(CGROUP);
    the_runner_finds_no_socket_in_tmp: attack("attack-socket", Passes("socket"));
    a_flood_of_answers_is_stopped_at_the_cap: attack(
        "attack-channel-flood",
        Fails("channel_flood", &["the runner sent more than 17 answers to a test that asks for 1"]),
    );
    garbage_on_the_channel_fails_its_test: attack(
        "attack-channel-garble",
        Fails("channel_garble", &["reply was not understood"]),
    );
    a_closed_channel_fails_its_test: attack(
        "attack-channel-close",
        Fails("channel_close", &["no answer: the runner process exited with status 1"]),
    );
    // The build.
    a_build_script_that_never_ends_is_stopped:
        attack("attack-build-loop", NotBuilt(&["did not finish within 5 s"]))
            .args(&["--build-timeout", "5"])
            .needs(&["PID namespace"]);
    a_build_script_reads_nothing_of_the_graders: at_build("attack-build-reads").needs(LANDLOCK);
    a_build_script_sees_nothing_of_the_graders_environment: at_build("attack-build-env");
    a_build_script_has_no_network:
        at_build("attack-build-tcp").also(NoConnection).needs(NETWORK);
    a_build_script_writes_nothing_outside:
        at_build("attack-build-writes").also(NothingWritten).needs(LANDLOCK);
    a_build_script_leaves_nothing_running:
        at_build("attack-build-daemon").needs(&["PID namespace"]);
    a_proc_macro_reads_nothing_of_the_graders: at_build("attack-proc-macro").needs(LANDLOCK);
    include_str_of_the_reference_is_denied:
        attack("attack-include-str", NotBuilt(&["No such file or directory"]))
            .needs(&["landlock", "mount namespace"]);
    a_path_module_of_the_reference_is_denied:
        attack("attack-path-mod", NotBuilt(&["No such file or directory"]))
            .needs(&["landlock", "mount namespace"]);
    // Builds never run as root, and see none of the machine's secrets.
    include_bytes_of_etc_shadow_finds_nothing: attack(
        "attack-shadow",
        NotBuilt(&["couldn't read `/etc/shadow`", "No such file or directory"]),
    )
    .args(STRICT_BUILD)
    .also(NotShown("root:"))
    .needs(MOUNTS);
    // A build cannot put another runner, or anything else, in place of its own.
    a_runner_swapped_for_a_symbolic_link_is_refused: attack(
        "attack-runner-swap-link",
        NotBuilt(&[NOT_TRUSTED, "is a symbolic link", "score: 0 (the build's runner was refused)"]),
    )
    .args(STRICT_BUILD);
    a_runner_swapped_for_a_hard_link_is_its_own_or_refused:
        attack("attack-runner-swap-hard-link", Fails("runner_swap", &["expected"]))
            .args(STRICT_BUILD)
            .needs(LANDLOCK);
    // No socket is reached by its path, from a build or a runner.
    a_build_script_reaches_no_socket_by_its_path:
        at_build("attack-build-unix-socket").args(STRICT_BUILD).also(NoUnixConnection);
    the_runner_reaches_no_socket_by_its_path:
        attack("attack-unix-socket", Passes("unix_socket"))
            .args(&["--sandbox", "strict"])
            .also(NoUnixConnection);
    // Disk: a build and a runner are bounded in all they write.
    a_build_that_fills_the_disk_is_stopped_and_removed:
        attack("attack-build-disk", NotBuilt(&["the build wrote more than 2048 MiB"]))
            .args(&["--build-timeout", "60", "--sandbox", "strict"])
            .also(NothingKept);
    a_runner_writes_at_most_its_temp_folders_size:
        attack("attack-disk", Passes("disk")).args(&["--sandbox", "strict"]).needs(MOUNTS);
    // What the runner can see of the machine.
    the_runner_sees_only_its_own_mounts_and_no_build_path:
        attack("attack-view", Passes("view")).args(&["--sandbox", "strict"]).needs(MOUNTS);
    // The manifest.
    a_dependency_on_the_reference_is_refused:
        attack("attack-dep-reference", NotBuilt(&[ONLY_GRADER_API, "cardgrade-reference"]));
    a_crates_io_dependency_is_refused:
        attack("attack-dep-registry", NotBuilt(&[ONLY_GRADER_API, "libc"]));
    a_build_dependency_is_refused:
        attack("attack-build-dependency", NotBuilt(&[ONLY_GRADER_API, "libc"]));
    a_target_dependency_is_refused:
        attack("attack-target-dependency", NotBuilt(&[ONLY_GRADER_API, "libc"]));
    an_allowed_name_at_a_path_outside_is_refused:
        attack("attack-dep-outside", NotBuilt(&["outside your crate"])).args(ALLOW_LIBC);
    a_patch_section_is_refused: attack("attack-patch", NotBuilt(&["[patch]"]));
    a_replace_section_is_refused: attack("attack-replace", NotBuilt(&["[replace]"]));
    a_links_key_is_refused: attack("attack-link-key", NotBuilt(&["links"]));
}

/// The layers `grader doctor` finds missing on this machine.
fn missing_layers() -> &'static [String] {
    static MISSING: OnceLock<Vec<String>> = OnceLock::new();
    MISSING.get_or_init(|| {
        let output = support::grader(&["doctor"]);
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| line.strip_prefix("no "))
            .filter_map(|line| line.trim().split(':').next().map(str::to_string))
            .collect()
    })
}

/// The one driver: grades the attack's submission against tests/specs/attacks.yaml and
/// checks everything its row and every row ask, naming every way it fell short.
fn contained(attack: Attack) {
    let _turn = one_at_a_time();
    warm_up();
    let mutant = attack_named(attack.name);
    let written = support::written_by(attack.name);
    let results = support::results_of(attack.name);
    for path in written.iter().chain([&results]) {
        let _ = std::fs::remove_file(path);
    }
    std::fs::create_dir_all(results.parent().unwrap()).unwrap();
    let dir = mutant.write();
    if !mutant.files.is_empty() {
        freshen(&dir);
    }
    let mut args = vec!["check", dir.to_str().unwrap()];
    args.extend(graded_against_attacks());
    if attack.also == ResultsKept {
        args.extend(["--format", "json", "--output", results.to_str().unwrap()]);
    }
    args.extend(attack.args);

    let leftovers = Leftovers::of(attack.name);
    let run = grade(&args);
    let missing: Vec<&str> = attack
        .needs
        .iter()
        .copied()
        .filter(|layer| missing_layers().iter().any(|missing| missing == layer))
        .collect();
    if !missing.is_empty() {
        // What rests on a layer this machine lacks cannot be asked; saying so can.
        for layer in missing {
            assert!(
                run.stderr.contains("sandbox without") && run.stderr.contains(layer),
                "{}: no warning that {layer} is missing:\n{}",
                attack.name,
                run.stderr
            );
        }
        return;
    }
    let left = leftovers.running();
    let mut wrong = run.common_faults(&left, attack.bound);
    let expected_code = match attack.outcome {
        NotBuilt(_) => 3,
        Built | Passes(_) => 0,
        Fails(..) => 1,
    };
    if run.code != Some(expected_code) {
        wrong.push(format!(
            "the grader ended with {:?}, not exit {expected_code}",
            run.code
        ));
    }
    let graded = run.stdout.contains("\ntest result: ");
    match attack.outcome {
        Fails(..) | Passes(_) if !graded => wrong.push("no test was graded".into()),
        NotBuilt(says) => {
            for words in says {
                if !run.stderr.contains(words) {
                    wrong.push(format!("stderr does not say `{words}`"));
                }
            }
        }
        Built => {
            if run.stdout.contains("ATTACK SUCCEEDED") || run.stderr.contains("ATTACK SUCCEEDED") {
                wrong.push("the attack succeeded".into());
            }
        }
        Fails(group, says) => {
            wrong.extend(run.graded(group, 1));
            match find_failure(&run.stdout, &trigger(group)) {
                None => wrong.push(format!("{} did not fail", trigger(group))),
                Some(block) => {
                    for pattern in says {
                        if !says_pattern(block, pattern) {
                            wrong.push(format!("the trigger's report does not say `{pattern}`"));
                        }
                    }
                }
            }
        }
        Passes(group) => {
            wrong.extend(run.graded(group, 0));
            if !passed(&run.stdout, &trigger(group)) {
                wrong.push(format!("{} did not pass", trigger(group)));
            }
        }
    }
    match attack.also {
        Nothing => {}
        NoConnection => {
            let listener = support::loopback(attack.name);
            loop {
                match listener.accept() {
                    Ok((_, from)) => wrong.push(format!("the listener accepted {from}")),
                    Err(error) if error.kind() == ErrorKind::WouldBlock => break,
                    Err(error) => panic!("the listener: {error}"),
                }
            }
        }
        NothingWritten => {
            for path in &written {
                if path.exists() {
                    wrong.push(format!("{} was written", path.display()));
                    let _ = std::fs::remove_file(path);
                }
            }
        }
        ResultsKept => {
            std::thread::sleep(REWRITE_WINDOW);
            wrong.extend(results_fault(&run.stdout, &results));
        }
        NoUnixConnection => {
            let (listener, inbox) = support::unix_sockets(attack.name);
            if let Ok((_, from)) = listener.accept() {
                wrong.push(format!("the stream socket accepted {from:?}"));
            }
            if let Ok((size, from)) = inbox.recv_from(&mut [0; 64]) {
                wrong.push(format!(
                    "the datagram socket received {size} bytes from {from:?}"
                ));
            }
        }
        NotShown(text) => {
            if run.stdout.contains(text) || run.stderr.contains(text) {
                wrong.push(format!("the grader printed `{text}`"));
            }
        }
        NothingKept => {
            for folder in build_folders_of(attack.name) {
                if folder.join("target").exists() {
                    wrong.push(format!("{} kept its target", folder.display()));
                }
            }
        }
    }
    drop(leftovers);
    assert!(
        wrong.is_empty(),
        "{}: {}\n  {}\n--- stdout\n{}\n--- stderr\n{}",
        attack.name,
        mutant.bug,
        wrong.join("\n  "),
        run.stdout,
        run.stderr
    );
}

/// Two runners of one package name share a target dir; neither may take the other's place.
#[test]
fn two_submissions_of_one_package_name_at_once_keep_their_own_scores() {
    let _turn = one_at_a_time();
    let twins = support::twins();
    let dirs: Vec<PathBuf> = twins.iter().map(Mutant::write).collect();
    let leftovers = Leftovers::of("twin-");
    let score = |dir: &PathBuf| {
        let run = grade(&[
            "check",
            dir.to_str().unwrap(),
            "--format",
            "json",
            "--assignment",
            "plaisante_hand",
            "--skip",
            "every_hand",
        ]);
        let results: serde_json::Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|error| panic!("{error}:\n{}\n{}", run.stdout, run.stderr));
        results["score"].as_f64().expect("a score")
    };
    let apart: Vec<f64> = dirs.iter().map(score).collect();
    assert!(
        apart[0] > apart[1],
        "the buggy twin loses points: {apart:?}"
    );
    // Whichever finishes its build first, whenever the other starts its runner.
    for round in 0..5 {
        let together: Vec<f64> = std::thread::scope(|scope| {
            let graders: Vec<_> = dirs
                .iter()
                .map(|dir| scope.spawn(move || score(dir)))
                .collect();
            graders.into_iter().map(|g| g.join().unwrap()).collect()
        });
        assert_eq!(
            together, apart,
            "graded at once in round {round}, then each alone"
        );
    }
    assert_eq!(leftovers.running(), Vec::<String>::new());
}

#[test]
fn doctor_says_yes_or_no_for_each_layer() {
    let output = support::grader(&["doctor"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let layers: Vec<&str> = stdout.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(layers.len() >= 3, "{stdout}");
    for layer in layers {
        assert!(
            layer.starts_with("yes") || layer.starts_with("no "),
            "{layer}"
        );
    }
}

/// Strict grades where doctor finds every layer, and refuses to grade anywhere else.
#[test]
fn strict_grades_only_with_every_layer() {
    let _turn = one_at_a_time();
    let doctor = support::grader(&["doctor"]);
    let stdout = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        doctor.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&doctor.stderr)
    );
    let missing: Vec<&str> = stdout.lines().filter(|l| l.starts_with("no ")).collect();
    let dir = attack_named("attack-control").write();
    let mut args = vec!["check", dir.to_str().unwrap(), "--sandbox", "strict"];
    args.extend(graded_against_attacks());
    let run = grade(&args);
    if missing.is_empty() {
        assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    } else {
        assert!(
            !matches!(run.code, Some(0 | 1)) && !run.stdout.contains("\ntest "),
            "strict graded without {missing:?}:\n{}\n{}",
            run.stdout,
            run.stderr
        );
    }
}

/// A FIFO as Cargo.toml would hold any reader forever, before any time limit applies.
#[test]
fn a_fifo_as_the_manifest_is_refused_at_once_with_results_written() {
    let _turn = one_at_a_time();
    let dir = attack_named("attack-control").write();
    let fifo_crate = support::scratch()
        .join("mutants")
        .join("attack-fifo-manifest");
    let _ = std::fs::remove_dir_all(&fifo_crate);
    support::copy_tree(&dir, &fifo_crate);
    std::fs::remove_file(fifo_crate.join("Cargo.toml")).unwrap();
    nix::unistd::mkfifo(
        &fifo_crate.join("Cargo.toml"),
        nix::sys::stat::Mode::S_IRWXU,
    )
    .unwrap();
    let results = support::results_of("attack-fifo-manifest");
    std::fs::create_dir_all(results.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&results);
    let mut args = vec!["check", fifo_crate.to_str().unwrap()];
    args.extend(graded_against_attacks());
    args.extend(["--format", "json", "--output", results.to_str().unwrap()]);
    let run = grade(&args);
    let wrong = run.common_faults(&[], Duration::from_secs(10));
    assert!(wrong.is_empty(), "{wrong:?}\n{}", run.stderr);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("Cargo.toml") && run.stderr.contains("it is a FIFO"),
        "{}",
        run.stderr
    );
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
    assert_eq!(written["outcome"], "build_failed", "{written}");
    assert!(
        written["build_output"]
            .as_str()
            .is_some_and(|said| said.contains("FIFO")),
        "{written}"
    );
}

/// Under root, a folder of builds that other users cannot reach would once have been
/// built in as root; it is refused, naming the folder and the fix, and doctor says so.
#[test]
fn a_build_folder_other_users_cannot_reach_is_refused_not_built_in_as_root() {
    use std::os::unix::fs::PermissionsExt;
    if !nix::unistd::Uid::effective().is_root() {
        // Only root builds as other users, who could be shut out.
        return;
    }
    let _turn = one_at_a_time();
    let closed = support::scratch().join("closed-to-others");
    let builds = closed.join("builds");
    std::fs::create_dir_all(&builds).unwrap();
    std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o700)).unwrap();
    let dir = attack_named("attack-control").write();
    let mut args = vec!["check", dir.to_str().unwrap()];
    args.extend(graded_against_attacks());
    let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
    support::grader_env(&mut command).env("CARDGRADE_TARGET_DIR", &builds);
    let output = command.args(&args).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    let fix = format!("chmod o+x {}", closed.display());
    assert!(stderr.contains(&fix), "{stderr}");
    assert!(!String::from_utf8_lossy(&output.stdout).contains("\ntest "));

    let mut doctor = Command::new(env!("CARGO_BIN_EXE_grader"));
    support::grader_env(&mut doctor).env("CARDGRADE_TARGET_DIR", &builds);
    let said = doctor.arg("doctor").output().unwrap();
    let stdout = String::from_utf8_lossy(&said.stdout);
    assert_eq!(said.status.code(), Some(1), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|line| line.starts_with("no  builds:") && line.contains(&fix)),
        "{stdout}"
    );
}

/// A crate built among others sharing compiled grader-api (whose files belong to root and
/// are linked into its target), then checked alone in the same folder, as a student checks
/// a crate `grader spec audit` wrote: the second build cannot write those files, so it
/// starts afresh instead of failing with "Permission denied".
#[test]
fn a_folder_built_with_the_shared_cache_then_checked_alone_builds_afresh() {
    let _turn = one_at_a_time();
    let temp = support::scratch().join("shared-then-alone");
    let _ = std::fs::remove_dir_all(&temp);
    std::fs::create_dir_all(&temp).unwrap();
    let builds = grader::compile::own_builds_in(&temp).unwrap();
    let dir = attack_named("attack-control").write();
    let mut args = vec!["check", dir.to_str().unwrap()];
    args.extend(graded_against_attacks());
    let run = |shared: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
        support::grader_env(&mut command);
        if shared {
            command.env("CARDGRADE_TARGET_DIR", &builds);
        } else {
            command
                .env_remove("CARDGRADE_TARGET_DIR")
                .env("TMPDIR", &temp);
        }
        let output = command.args(&args).output().unwrap();
        let said = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(0), "shared: {shared}\n{said}");
    };
    run(true);
    run(false);
    let _ = std::fs::remove_dir_all(&temp);
}

fn attack_named(name: &str) -> Mutant {
    support::attacks()
        .into_iter()
        .find(|mutant| mutant.name == name)
        .unwrap_or_else(|| panic!("no attack {name}"))
}

/// The arguments after the path: the attacks' spec, one runner, short timeouts.
fn graded_against_attacks() -> [&'static str; 8] {
    static SPEC: OnceLock<String> = OnceLock::new();
    let spec = SPEC.get_or_init(|| {
        let path = support::repo().join("tests/specs/attacks.yaml");
        path.to_str().unwrap().to_string()
    });
    [
        "--spec",
        spec,
        "--color",
        "never",
        "--test-threads",
        "1",
        "--timeout-ms",
        "5000",
    ]
}

fn one_at_a_time() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Builds once what every submission shares (grader-api, in release) before any test
/// counts its time, and leaves a copy of the control's runner, which answers everything
/// right, where the runner-swap attacks point their links.
fn warm_up() {
    static WARM: OnceLock<()> = OnceLock::new();
    WARM.get_or_init(|| {
        let dir = attack_named("attack-control").write();
        let mut args = vec!["check", dir.to_str().unwrap()];
        args.extend(graded_against_attacks());
        grade(&args);
        let runner = build_folders_of("attack-control")
            .into_iter()
            .flat_map(|folder| {
                std::fs::read_dir(folder.join("target/release"))
                    .into_iter()
                    .flatten()
            })
            .flatten()
            .map(|entry| entry.path())
            .find(|path| {
                path.file_name()
                    .is_some_and(|name| name.to_string_lossy().starts_with("cardgrade-runner-"))
            })
            .expect("the control's runner is built");
        std::fs::copy(runner, support::decoy_runner()).expect("the decoy is written");
    });
}

/// The build folders of the submission named `name` in the tests' folder of builds.
fn build_folders_of(name: &str) -> Vec<PathBuf> {
    std::fs::read_dir(support::runners())
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .to_str()
                .and_then(|folder| folder.strip_prefix(name)?.strip_prefix('-'))
                .is_some_and(|hash| hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()))
        })
        .map(|entry| entry.path())
        .collect()
}

/// Cargo runs build scripts and expands proc macros again only for a crate that changed.
fn freshen(dir: &Path) {
    let lib = dir.join("src/lib.rs");
    let mut text = std::fs::read_to_string(&lib).unwrap();
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    text.push_str(&format!("// graded at {now:?}\n"));
    std::fs::write(&lib, text).unwrap();
}

fn trigger(group: &str) -> String {
    format!("plaisante_hand::{group}::trigger")
}

fn passed(stdout: &str, test: &str) -> bool {
    find_result_line(stdout, test).is_some_and(|line| line.ends_with(" ok"))
}

/// Whether `text` says `pattern`, where `{n}` in it stands for a number.
fn says_pattern(text: &str, pattern: &str) -> bool {
    let Some((before, after)) = pattern.split_once("{n}") else {
        return text.contains(pattern);
    };
    text.match_indices(before).any(|(at, _)| {
        let rest = &text[at + before.len()..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        digits > 0 && rest[digits..].starts_with(after)
    })
}

/// What is wrong with the results file: it must parse and hold the score the terminal said.
fn results_fault(stdout: &str, results: &Path) -> Option<String> {
    let printed = stdout
        .lines()
        .find_map(|line| line.trim().strip_prefix("total "))
        .and_then(|total| total.split(" / ").next()?.trim().parse::<f64>().ok());
    let Some(printed) = printed else {
        return Some("the report prints no total".into());
    };
    let text = std::fs::read_to_string(results).unwrap_or_default();
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(parsed) if parsed["score"].as_f64() == Some(printed) => None,
        Ok(parsed) => Some(format!(
            "the results say score {} where the report said {printed}",
            parsed["score"]
        )),
        Err(error) => Some(format!("the results do not parse ({error}): {text:?}")),
    }
}

/// How a grader ended and what it said.
struct Run {
    /// The exit code; `None` if it was killed for taking longer than `GIVE_UP`.
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

impl Run {
    /// What every row asks: bounded time, nothing left running, no panic of the grader.
    fn common_faults(&self, left: &[String], bound: Duration) -> Vec<String> {
        let mut wrong = Vec::new();
        if self.elapsed >= bound {
            wrong.push(format!("the check took {:?}", self.elapsed));
        }
        if !left.is_empty() {
            let shown = left[..left.len().min(10)].join("\n    ");
            wrong.push(format!("left {} running:\n    {shown}", left.len()));
        }
        if self.stderr.contains("panicked at src/") {
            wrong.push("the grader panicked".into());
        }
        wrong
    }

    /// What is wrong with the grading of everything but `group`'s trigger, given how many
    /// tests fail in all.
    fn graded(&self, group: &str, failures: usize) -> Vec<String> {
        let mut wrong = Vec::new();
        let after = format!("plaisante_hand::{group}::after");
        if !passed(&self.stdout, &after) {
            wrong.push(format!("{after} did not pass"));
        }
        let failed = self
            .stdout
            .lines()
            .filter(|line| line.starts_with("test ") && line.ends_with(" FAILED"))
            .count();
        if failed != failures {
            wrong.push(format!("{failed} tests failed, not {failures}"));
        }
        wrong
    }
}

/// Runs the grader with the grader's secret in its environment, under a shell of its own
/// in a process group of its own: an attack that kills the grader's parent kills that
/// shell, not this test, and a grader still running after `GIVE_UP` is killed with its
/// group.
fn grade(args: &[&str]) -> Run {
    let mut shell = Command::new("sh");
    shell
        .arg("-c")
        .arg(r#""$0" "$@"; exit $?"#)
        .arg(env!("CARGO_BIN_EXE_grader"))
        .args(args)
        .env(support::SECRET.0, support::SECRET.1)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    support::grader_env(&mut shell);
    let started = Instant::now();
    let mut child = shell.spawn().expect("sh starts");
    let stdout = drain(child.stdout.take().unwrap());
    let stderr = drain(child.stderr.take().unwrap());
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > GIVE_UP {
            let _ = killpg(Pid::from_raw(child.id() as i32), Signal::SIGKILL);
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let elapsed = started.elapsed();
    // What the grader printed; a process it left behind may hold the pipes open.
    let patience = Instant::now() + Duration::from_secs(5);
    Run {
        code: status.and_then(|status| status.code()),
        stdout: text(&stdout, patience),
        stderr: text(&stderr, patience),
        elapsed,
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> Receiver<Vec<u8>> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut chunk = vec![0; 1 << 16];
        while let Ok(read @ 1..) = pipe.read(&mut chunk) {
            if sender.send(chunk[..read].to_vec()).is_err() {
                break;
            }
        }
    });
    receiver
}

/// What came through `pipe` until it closed or `deadline` passed.
fn text(pipe: &Receiver<Vec<u8>>, deadline: Instant) -> String {
    let mut bytes = Vec::new();
    while let Ok(chunk) = pipe.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        bytes.extend(chunk);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The processes of a submission named `word` started since this was made: those whose
/// command line or environment names it (its runners `cardgrade-runner-<name>`, their
/// children, build scripts, compilers, sandbox stages carrying its paths). Dropped, it
/// kills by pid those still running, whether the test passed or not.
struct Leftovers {
    word: &'static str,
    since: u64,
}

/// The kernel's unit of process start times, `USER_HZ`, which Linux fixes at 100 a second.
const TICKS_PER_SECOND: f64 = 100.0;

impl Leftovers {
    fn of(word: &'static str) -> Leftovers {
        let uptime = std::fs::read_to_string("/proc/uptime").unwrap();
        let seconds: f64 = uptime.split_whitespace().next().unwrap().parse().unwrap();
        Leftovers {
            word,
            since: (seconds * TICKS_PER_SECOND) as u64,
        }
    }

    /// Each one's pid and command line, and the grader's own processes left as zombies for
    /// init to reap: a stage of the sandbox whose parent went before reaping it.
    fn running(&self) -> Vec<String> {
        self.find()
            .into_iter()
            .map(|(pid, cmdline)| format!("{pid} {cmdline}"))
            .chain(
                self.zombies()
                    .into_iter()
                    .map(|pid| format!("{pid} [grader] <defunct>")),
            )
            .collect()
    }

    /// The zombies named `grader` whose parent is init, started since this was made in this
    /// test's session (a grader run by anyone else on the machine is not this test's).
    fn zombies(&self) -> Vec<i32> {
        let session = nix::unistd::getsid(None)
            .map_or(0, |sid| sid.as_raw())
            .to_string();
        std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
            .filter(|&pid| {
                let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                    return false;
                };
                let Some((name, rest)) =
                    stat.split_once(" (").and_then(|(_, r)| r.rsplit_once(')'))
                else {
                    return false;
                };
                let fields: Vec<&str> = rest.split_whitespace().collect();
                // After the name: state, parent, process group, session.
                name == "grader"
                    && fields.first() == Some(&"Z")
                    && fields.get(1) == Some(&"1")
                    && fields.get(3) == Some(&session.as_str())
                    && started_at(pid).is_some_and(|at| at >= self.since)
            })
            .collect()
    }

    fn find(&self) -> Vec<(i32, String)> {
        let own = std::process::id() as i32;
        let word = self.word.as_bytes();
        let names = |bytes: &[u8]| bytes.windows(word.len()).any(|w| w == word);
        std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
            .filter(|&pid| pid != own && started_at(pid).is_some_and(|at| at >= self.since))
            .filter_map(|pid| {
                let read = |what: &str| std::fs::read(format!("/proc/{pid}/{what}"));
                let cmdline = read("cmdline").unwrap_or_default();
                let named = names(&cmdline) || names(&read("environ").unwrap_or_default());
                named.then(|| (pid, String::from_utf8_lossy(&cmdline).replace('\0', " ")))
            })
            .collect()
    }
}

impl Drop for Leftovers {
    fn drop(&mut self) {
        for (pid, _) in self.find() {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}

/// When `pid` started, in ticks since boot; `None` once it is gone.
fn started_at(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command name in parentheses: state is field 3, the start time field 22.
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(19)?
        .parse()
        .ok()
}
