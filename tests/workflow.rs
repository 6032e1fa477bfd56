//! `grader github-workflow`: the GitHub Classroom workflow it prints, linted by actionlint
//! and run as a Classroom job runs it.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use grader::package::PINNED_TOOLCHAIN;
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
        "~/.cargo/registry/src/".into(),
        format!(
            "key: cardgrade-${{{{ runner.os }}}}-${{{{ runner.arch }}}}-rust-{PINNED_TOOLCHAIN}-{rev}-built\n"
        ),
        "if: steps.cache.outputs.cache-hit != 'true'".into(),
        "\"${as_root[@]}\" grader check . --format github --student-view --assignment blackjack\n"
            .into(),
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

/// A release asset of the course's repository, as --binary-url names one.
const ASSET_URL: &str =
    "https://github.com/a-course/cardgrade/releases/download/v1.0/grader-x86_64-unknown-linux-gnu";

/// A digest, as --sha256 takes one.
const SOME_SUM: &str = "0f343b0931126a20f133d67c2b018a3b5e5a3d8e2b1a2c3d4e5f60718293a4b5";

/// The workflow `grader github-workflow ARGS` prints in the repository's root.
fn printed(args: &[&str]) -> String {
    let out = print_workflow(repo(), args);
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// `grader github-workflow --release-workflow`, which takes no --repo.
fn release_workflow() -> Output {
    grader_env(&mut Command::new(env!("CARGO_BIN_EXE_grader")))
        .args(["github-workflow", "--release-workflow"])
        .output()
        .expect("the grader runs")
}

#[test]
fn every_printed_workflow_passes_actionlint() {
    let prebuilt = ["--binary-url", ASSET_URL, "--sha256", SOME_SUM];
    let mut linted = 0;
    for binary in [&[][..], &prebuilt[..]] {
        for strict in [&[][..], &["--strict-sandbox"][..]] {
            for pin in [&[][..], &["--tag", "v1.0"][..]] {
                let args: Vec<&str> = ["--assignment", "poker", "--spec", "specs/poker.yaml"]
                    .iter()
                    .chain(binary)
                    .chain(strict)
                    .chain(pin)
                    .copied()
                    .collect();
                let workflow = printed(&args);
                if let Err(said) = actionlint(&format!("classroom-{linted}"), &workflow) {
                    panic!("actionlint of {args:?}: {said}\n{workflow}");
                }
                linted += 1;
            }
        }
    }
    assert_eq!(linted, 8);
    let release = release_workflow();
    assert!(release.status.success(), "{}", text(&release.stderr));
    if let Err(said) = actionlint("cardgrade-release", &text(&release.stdout)) {
        panic!("actionlint: {said}\n{}", text(&release.stdout));
    }
    // It does lint: a step output no step gives is an error.
    let workflow = printed(&["--assignment", "poker"]);
    let broken = workflow.replace("steps.cardgrade.outputs", "steps.grading.outputs");
    let said = actionlint("broken", &broken).expect_err("actionlint finds the broken reference");
    assert!(said.contains("grading"), "{said}");
}

#[test]
fn the_workflows_install_the_pinned_toolchain_and_the_cache_is_keyed_by_it_and_the_grader() {
    let rev = "0123456789abcdef0123456789abcdef01234567";
    let install_rust = format!("Install Rust {PINNED_TOOLCHAIN}");
    let rustup = format!(
        "rustup toolchain install {PINNED_TOOLCHAIN} --profile minimal --no-self-update && rustup default {PINNED_TOOLCHAIN}"
    );
    for (args, key_ends) in [
        (
            vec!["--assignment", "poker", "--rev", rev],
            format!("-rust-{PINNED_TOOLCHAIN}-{rev}-built"),
        ),
        (
            vec![
                "--assignment",
                "poker",
                "--tag",
                "v1.0",
                "--binary-url",
                ASSET_URL,
                "--sha256",
                SOME_SUM,
            ],
            format!("-rust-{PINNED_TOOLCHAIN}-v1.0-prebuilt-{SOME_SUM}"),
        ),
    ] {
        let workflow = printed(&args);
        assert_eq!(script(&workflow, &install_rust), rustup);
        assert!(!workflow.contains("rust-toolchain"), "{workflow}");
        let cache = step(&workflow, "Cache cardgrade and the cargo registry");
        let key = cache["with"]["key"].as_str().unwrap();
        assert!(
            key.starts_with("cardgrade-${{ runner.os }}-${{ runner.arch }}-")
                && key.ends_with(&key_ends),
            "{key}"
        );
    }
    let release = text(&release_workflow().stdout);
    assert_eq!(script(&release, &install_rust), rustup);
}

#[test]
fn a_prebuilt_grader_replaces_cargo_install_and_sudo_and_strict_are_in_the_grading_step() {
    let workflow = printed(&[
        "--assignment",
        "poker",
        "--binary-url",
        ASSET_URL,
        "--sha256",
        &SOME_SUM.to_uppercase(),
        "--strict-sandbox",
    ]);
    assert!(!workflow.contains("cargo install"), "{workflow}");
    let env = workflow_env(&workflow);
    for (name, value) in [
        ("CARDGRADE_BINARY_URL", ASSET_URL),
        ("CARDGRADE_BINARY_SHA256", SOME_SUM),
    ] {
        assert!(
            env.iter().any(|(n, v)| n == name && v == value),
            "{name}={value} in {env:?}"
        );
    }
    for name in [
        "Download cardgrade",
        "Fetch the crates submissions build with",
    ] {
        assert_eq!(
            step(&workflow, name)["if"].as_str(),
            Some("steps.cache.outputs.cache-hit != 'true'"),
            "{name}"
        );
    }
    let grading = script(&workflow, "cardgrade");
    assert!(
        grading.contains("if sudo -n true 2>/dev/null; then")
            && grading.contains("::error title=cardgrade sandbox::")
            && grading.ends_with(
                "\"${as_root[@]}\" grader check . --format github --student-view --sandbox strict --assignment poker\n"
            ),
        "{grading}"
    );
    let source = printed(&["--assignment", "poker"]);
    assert!(!source.contains("Download cardgrade") && !source.contains("--sandbox strict"));
    assert!(script(&source, "cardgrade").contains("::warning title=cardgrade sandbox::"));
}

#[test]
fn binary_url_and_sha256_come_together_and_are_checked() {
    let refused = |args: &[&str], said: &str| {
        let out = print_workflow(repo(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
        assert!(
            text(&out.stderr).contains(said),
            "{args:?}: {}",
            text(&out.stderr)
        );
    };
    let poker = ["--assignment", "poker"];
    refused(
        &[&poker[..], &["--binary-url", ASSET_URL]].concat(),
        "the following required arguments were not provided:\n  --sha256 <SUM>",
    );
    refused(
        &[&poker[..], &["--sha256", SOME_SUM]].concat(),
        "the following required arguments were not provided:\n  --binary-url <URL>",
    );
    for sum in ["abc", &SOME_SUM[1..], &format!("{}g", &SOME_SUM[1..])] {
        refused(
            &[&poker[..], &["--binary-url", ASSET_URL, "--sha256", sum]].concat(),
            "a SHA-256 is 64 hex digits, the first word of the release's .sha256 asset",
        );
    }
    refused(
        &[
            &poker[..],
            &["--binary-url", "https://x.org/$(id)", "--sha256", SOME_SUM],
        ]
        .concat(),
        "--binary-url https://x.org/$(id): the workflow takes a URL with no space, quote, backslash, `$`, backquote or brace",
    );
    refused(
        &[
            &poker[..],
            &[
                "--binary-url",
                ASSET_URL,
                "--sha256",
                SOME_SUM,
                "--rev",
                "0c01c37",
            ],
        ]
        .concat(),
        "--rev 0c01c37: with --binary-url the workflow fetches the crates of that commit by its full hash",
    );
    let release = grader_env(&mut Command::new(env!("CARGO_BIN_EXE_grader")))
        .args([
            "github-workflow",
            "--release-workflow",
            "--assignment",
            "poker",
        ])
        .output()
        .unwrap();
    assert_eq!(release.status.code(), Some(2));
    assert!(
        text(&release.stderr).contains("'--release-workflow' cannot be used with"),
        "{}",
        text(&release.stderr)
    );
}

/// A file standing in for the prebuilt grader, and its SHA-256 as `sha256sum` gives it.
fn prebuilt_grader(name: &str) -> (PathBuf, String) {
    let file = scratch().join(name);
    std::fs::write(&file, "#!/bin/sh\necho \"prebuilt grader $*\"\n").unwrap();
    (file.clone(), digest(&file))
}

/// `sha256sum FILE`'s digest.
fn digest(file: &Path) -> String {
    let out = Command::new("sha256sum").arg(file).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)[..64].to_string()
}

/// Runs the workflow's download step offline, as a runner whose home is `home` would, with
/// the workflow's environment.
fn download(workflow: &str, home: &Path) -> Output {
    let _ = std::fs::remove_dir_all(home);
    std::fs::create_dir_all(home).unwrap();
    bash_step(&script(workflow, "Download cardgrade"))
        .envs(workflow_env(workflow))
        .env("HOME", home)
        .current_dir(home)
        .output()
        .unwrap()
}

/// The download step of the workflow that takes the grader at `url` with digest `sum`, run
/// in a home of its own called `name`: what it did, and the home.
fn download_of(url: &str, sum: &str, name: &str) -> (Output, PathBuf) {
    let workflow = printed(&[
        "--assignment",
        "poker",
        "--binary-url",
        url,
        "--sha256",
        sum,
    ]);
    let home = scratch().join(name);
    (download(&workflow, &home), home)
}

/// Fails the test with what `out`, a step's, said unless it succeeded.
fn assert_succeeded(out: &Output) {
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

#[test]
fn the_download_step_installs_the_grader_of_the_digest_and_nothing_else() {
    let (file, sum) = prebuilt_grader("prebuilt-grader");
    let url = format!("file://{}", file.display());
    let (out, home) = download_of(&url, &sum, "download-right");
    assert_succeeded(&out);
    let installed = home.join(".cargo/bin/grader");
    assert_eq!(
        std::fs::read(&installed).unwrap(),
        std::fs::read(&file).unwrap()
    );
    let ran = Command::new(&installed).arg("check").output().unwrap();
    assert_eq!(text(&ran.stdout), "prebuilt grader check\n");
    assert_eq!(
        std::fs::read_dir(home.join(".cargo/bin")).unwrap().count(),
        1,
        "nothing but the grader is left"
    );

    // Another file at the URL: the step fails, naming both digests, and installs nothing.
    let wrong = "ab".repeat(32);
    let (out, home) = download_of(&url, &wrong, "download-wrong");
    assert_eq!(out.status.code(), Some(1));
    let said = text(&out.stdout);
    assert!(
        said.contains(&format!(
            "::error title=cardgrade download::the file at {url} has SHA-256 {sum}, not {wrong} as this workflow names, so it is not run"
        )),
        "{said}{}",
        text(&out.stderr)
    );
    assert!(!home.join(".cargo/bin/grader").exists());
    assert!(!home.join(".cargo/bin/grader.download").exists());

    // No file at the URL: curl fails the step.
    let gone = format!("file://{}", scratch().join("no-such-grader").display());
    let (out, _) = download_of(&gone, &sum, "download-gone");
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("curl"), "{}", text(&out.stderr));
}

/// A `gh` that uploads a release's assets as GitHub serves them: `gh release upload TAG
/// FILE... --clobber` copies each FILE to `$RELEASES/TAG/`.
const GH: &str = r#"#!/bin/sh
[ "$1 $2" = "release upload" ] || { echo "gh: not a release upload: $*" >&2; exit 2; }
tag="$3"; shift 3
mkdir -p "$RELEASES/$tag"
for file in "$@"; do
  case "$file" in --clobber) ;; -*) echo "gh: $file" >&2; exit 2 ;; *) cp "$file" "$RELEASES/$tag/" ;; esac
done
"#;

#[test]
fn a_release_uploads_the_grader_that_the_workflow_it_names_downloads() {
    let out = release_workflow();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let release = text(&out.stdout);
    let yaml = parsed(&release);
    assert_eq!(
        serde_yaml::to_string(&yaml["permissions"]).unwrap(),
        "contents: write\n"
    );
    assert_eq!(
        serde_yaml::to_string(&yaml["on"]).unwrap(),
        "release:\n  types:\n  - published\n"
    );
    assert_eq!(
        script(&release, "Build the grader"),
        "cargo build --release --locked --target x86_64-unknown-linux-gnu --bin grader"
    );
    assert!(
        text(&out.stderr).contains("as .github/workflows/cardgrade-release.yml"),
        "{}",
        text(&out.stderr)
    );

    // The upload step, after a build: the grader where cargo leaves it.
    let checkout = scratch().join("release-checkout");
    let _ = std::fs::remove_dir_all(&checkout);
    let built = checkout.join("target/x86_64-unknown-linux-gnu/release");
    std::fs::create_dir_all(&built).unwrap();
    let (grader, sum) =
        prebuilt_grader("release-checkout/target/x86_64-unknown-linux-gnu/release/grader");
    assert!(grader.starts_with(&built));
    let bin = scratch().join("release-gh");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("gh"), GH).unwrap();
    std::fs::set_permissions(
        bin.join("gh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let course = scratch().join("release-course");
    let _ = std::fs::remove_dir_all(&course);
    let summary = scratch().join("release-summary.md");
    std::fs::write(&summary, "").unwrap();
    let out = bash_step(&script(&release, "Upload the grader and its SHA-256"))
        .current_dir(&checkout)
        .env("PATH", path_with(&[bin]))
        .env("RELEASES", course.join("releases/download"))
        .env("REPOSITORY", format!("file://{}", course.display()))
        .env("TAG", "v1.0")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_succeeded(&out);
    let assets = course.join("releases/download/v1.0");
    let asset = assets.join("grader-x86_64-unknown-linux-gnu");
    assert_eq!(
        std::fs::read(&asset).unwrap(),
        std::fs::read(&grader).unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(assets.join("grader-x86_64-unknown-linux-gnu.sha256")).unwrap(),
        format!("{sum}  grader-x86_64-unknown-linux-gnu\n")
    );

    // The command the job's summary gives staff prints a workflow that takes that asset.
    let summary = std::fs::read_to_string(&summary).unwrap();
    let command: Vec<&str> = summary
        .lines()
        .find_map(|line| line.trim().strip_prefix("grader github-workflow "))
        .unwrap_or_else(|| panic!("no command in:\n{summary}"))
        .split_whitespace()
        .map(|word| if word == "NAME" { "poker" } else { word })
        .collect();
    let repository = format!("file://{}", course.display());
    assert_eq!(command[..4], ["--repo", &repository, "--tag", "v1.0"]);
    let out = grader_env(&mut Command::new(env!("CARGO_BIN_EXE_grader")))
        .arg("github-workflow")
        .args(&command)
        .output()
        .unwrap();
    assert!(out.status.success(), "{command:?}: {}", text(&out.stderr));
    let workflow = text(&out.stdout);
    let home = scratch().join("release-download");
    let out = download(&workflow, &home);
    assert_succeeded(&out);
    assert_eq!(
        std::fs::read(home.join(".cargo/bin/grader")).unwrap(),
        std::fs::read(&grader).unwrap()
    );
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

/// What the runner's `sudo` does in a test of the grading step.
#[derive(Clone, Copy)]
enum Sudo {
    /// Passwordless, as on GitHub's hosted runners: runs the command as the test's own user,
    /// and writes it to the file `sudo.log` beside it.
    Passwordless,
    /// Refuses, as where the runner's user has no passwordless sudo.
    Refused,
}

impl Sudo {
    /// A folder holding this `sudo`, to put first on PATH.
    fn folder(self, name: &str) -> PathBuf {
        let folder = scratch().join(format!("{name}-sudo"));
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir_all(&folder).unwrap();
        let script = match self {
            Sudo::Passwordless => format!(
                "#!/bin/sh\nif [ \"$1\" = -n ]; then exit 0; fi\nif [ \"$1\" = -E ]; then shift; fi\nprintf '%s\\n' \"$*\" >> {}\nexec \"$@\"\n",
                folder.join("sudo.log").display()
            ),
            Sudo::Refused => "#!/bin/sh\necho 'sudo: a password is required' >&2\nexit 1\n".into(),
        };
        let sudo = folder.join("sudo");
        std::fs::write(&sudo, script).unwrap();
        std::fs::set_permissions(&sudo, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        folder
    }
}

/// PATH with `folders` first.
fn path_with(folders: &[PathBuf]) -> std::ffi::OsString {
    std::env::join_paths(folders.iter().cloned().chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap()
}

/// The workflow's YAML, as GitHub reads it.
fn parsed(workflow: &str) -> serde_yaml::Value {
    serde_yaml::from_str(workflow).unwrap_or_else(|e| panic!("not YAML ({e}):\n{workflow}"))
}

/// The step called `name` of the workflow's one job.
fn step(workflow: &str, name: &str) -> serde_yaml::Value {
    let yaml = parsed(workflow);
    let jobs = yaml["jobs"].as_mapping().expect("jobs");
    assert_eq!(jobs.len(), 1, "one job:\n{workflow}");
    let job = jobs.values().next().unwrap();
    // Every step's script is run as bash runs a `shell: bash` step, below.
    assert_eq!(job["defaults"]["run"]["shell"].as_str(), Some("bash"));
    job["steps"]
        .as_sequence()
        .expect("steps")
        .iter()
        .find(|step| step["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("no step `{name}` in:\n{workflow}"))
        .clone()
}

/// The shell script of the step called `name`.
fn script(workflow: &str, name: &str) -> String {
    step(workflow, name)["run"]
        .as_str()
        .unwrap_or_else(|| panic!("`{name}` runs no script:\n{workflow}"))
        .to_string()
}

/// The workflow's own environment, which every step's script reads.
fn workflow_env(workflow: &str) -> Vec<(String, String)> {
    parsed(workflow)["env"]
        .as_mapping()
        .expect("env")
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().unwrap().to_string(),
                value.as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `script` as a GitHub runner runs a step's script with `shell: bash`.
fn bash_step(script: &str) -> Command {
    let mut bash = Command::new("bash");
    bash.args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script]);
    bash
}

/// Runs `script`, the workflow's grading step, in `checkout` as a GitHub Actions job
/// does, with the grader under test first on PATH and `sudo` doing as it says.
fn run_step(checkout: &Path, script: &str, name: &str, sudo: Sudo) -> Job {
    let summary = scratch().join(format!("{name}-summary.md"));
    let outputs = scratch().join(format!("{name}-outputs"));
    for file in [&summary, &outputs] {
        std::fs::write(file, "").unwrap();
    }
    let grader = PathBuf::from(env!("CARGO_BIN_EXE_grader"));
    let path = path_with(&[sudo.folder(name), grader.parent().unwrap().to_path_buf()]);
    let out = grader_env(&mut bash_step(script))
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
    let step = script(&workflow, "cardgrade");

    let job = run_step(&checkout, &step, "classroom-student", Sudo::Passwordless);
    // As root, with the toolchain of the job's user.
    let ran = std::fs::read_to_string(scratch().join("classroom-student-sudo/sudo.log")).unwrap();
    assert!(
        ran.starts_with("env PATH=")
            && ran.contains(" CARGO_HOME=")
            && ran.contains(" RUSTUP_HOME=")
            && ran.contains(" grader check . --format github --student-view --assignment plaisante_hand --spec course/plaisante_hand.yaml\n"),
        "{ran}"
    );
    assert!(!job.log.contains("::warning"), "{}", job.log);
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
        Sudo::Refused,
    );
    // Without sudo it grades all the same, and says what it lacks.
    assert!(
        staff.log.contains("::warning title=cardgrade sandbox::no passwordless sudo on this runner: grading without the sandbox layers only root gives"),
        "{}",
        staff.log
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
