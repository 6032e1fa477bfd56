//! `grader gradescope package`: the autograder zip, read back by other zip readers, its
//! binary's glibc checked against Gradescope's images, the offline part of its setup.sh
//! run without a network, and its run_autograder run in a fake /autograder root without a
//! network and with a read-only source folder.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use grader::package::GRADESCOPE_GLIBC;
use support::{copy_tree, grader_env, repo, scratch};

/// Runs `command`, which must succeed; its stdout.
fn stdout_of(command: &mut Command) -> String {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?} cannot run: {e}"));
    assert!(
        out.status.success(),
        "{command:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Unpacks `zip` into `into` with Python's zipfile (a zip reader other than ours), keeping
/// each file's executable bit, after checking each entry is deflated and validly dated; lists
/// what it holds.
fn unpack(zip: &Path, into: &Path) -> Vec<String> {
    let script = "import os, sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nfor i in z.infolist():\n    y, mo, d, h, mi, s = i.date_time\n    assert y >= 1980 and 1 <= mo <= 12 and 1 <= d <= 31 and h < 24 and mi < 60 and s < 60, (i.filename, i.date_time)\n    assert i.compress_type == zipfile.ZIP_DEFLATED, i.filename\nz.extractall(sys.argv[2])\nfor i in z.infolist():\n    if (i.external_attr >> 16) & 0o111:\n        os.chmod(os.path.join(sys.argv[2], i.filename), 0o755)\nprint('\\n'.join(z.namelist()))\n";
    stdout_of(
        Command::new("python3")
            .args(["-c", script])
            .arg(zip)
            .arg(into),
    )
    .lines()
    .map(String::from)
    .collect()
}

/// The highest `GLIBC_x.y` version the ELF binary at `path` needs, as objdump lists its
/// dynamic symbols' versions.
fn highest_glibc(path: &Path) -> (u32, u32) {
    stdout_of(Command::new("objdump").arg("-T").arg(path))
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .filter_map(|word| word.strip_prefix("GLIBC_"))
        .filter_map(|version| {
            let (major, minor) = version.split_once('.')?;
            let minor = minor.split('.').next()?;
            Some((major.parse().ok()?, minor.parse().ok()?))
        })
        .max()
        .expect("the grader links glibc")
}

/// A cargo home with the toolchain's programs and nothing fetched: a build that needs a
/// crate not vendored fails there, since builds are offline.
fn empty_cargo_home(dir: &Path) -> PathBuf {
    let home = dir.join("cargo-home");
    std::fs::create_dir_all(home.join("bin")).unwrap();
    let rustup = which("rustup");
    // rustup's proxies tell by their name what to run.
    std::fs::hard_link(&rustup, home.join("bin/rustup"))
        .or_else(|_| std::fs::copy(&rustup, home.join("bin/rustup")).map(|_| ()))
        .unwrap();
    for proxy in ["cargo", "rustc"] {
        std::os::unix::fs::symlink("rustup", home.join("bin").join(proxy)).unwrap();
    }
    home
}

fn which(program: &str) -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
        .unwrap_or_else(|| panic!("{program} is not on PATH"))
}

/// Sets the toolchain as Gradescope's image has it after setup.sh, but with `cargo_home`,
/// which holds nothing fetched.
fn toolchain_env<'a>(command: &'a mut Command, cargo_home: &Path, home: &Path) -> &'a mut Command {
    let rustup_home = std::env::var_os("RUSTUP_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".rustup"));
    command
        .env("CARGO_HOME", cargo_home)
        .env("RUSTUP_HOME", rustup_home)
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", cargo_home.join("bin").display()),
        )
        .env("HOME", home)
        .env_remove("CARGO")
}

/// Runs the package's run_autograder on the fake root without a network, its source folder
/// bind-mounted read-only in a mount namespace of its own; its exit code and results.json.
fn run_autograder(root: &Path, cargo_home: &Path) -> (Option<i32>, serde_json::Value) {
    let _ = std::fs::remove_dir_all(root.join("results"));
    let script = r#"set -e
mount --bind "$1/source" "$1/source"
mount -o remount,bind,ro "$1/source"
if touch "$1/source/.written" 2>/dev/null; then echo "the source folder is writable" >&2; exit 97; fi
exec bash "$1/source/run_autograder""#;
    let mut command = Command::new("unshare");
    command
        .args(["--mount", "--net", "--", "bash", "-c", script, "run"])
        .arg(root);
    let out = toolchain_env(grader_env(&mut command), cargo_home, &root.join("home"))
        .env("AUTOGRADER_ROOT", root)
        .env("CARDGRADE_TARGET_DIR", root.join("builds"))
        .output()
        .unwrap();
    assert_ne!(
        out.status.code(),
        Some(97),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results = std::fs::read_to_string(root.join("results/results.json"))
        .expect("run_autograder always writes results.json");
    let parsed = serde_json::from_str(&results)
        .unwrap_or_else(|e| panic!("results.json is not JSON ({e}): {results}"));
    (out.status.code(), parsed)
}

/// Makes `root/submission` hold only what `fill` puts there.
fn submit(root: &Path, fill: impl FnOnce(&Path)) {
    let submission = root.join("submission");
    let _ = std::fs::remove_dir_all(&submission);
    std::fs::create_dir_all(&submission).unwrap();
    fill(&submission);
}

/// The example student's crate, copied to `to`, its api path pointing nowhere.
fn example_crate(to: &Path) {
    copy_tree(&repo().join("tests/fixtures/example-student"), to);
    let manifest = to.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let moved = text.replace("path = \"../../../api\"", "path = \"/no/such/api\"");
    assert_ne!(text, moved, "the fixture's api path moved");
    std::fs::write(&manifest, moved).unwrap();
}

/// Zips the folder `dir` as a student would, with Python's zipfile, each path under `prefix`;
/// `extra` adds an entry of that name.
fn zip_folder(dir: &Path, prefix: &str, zip: &Path, extra: Option<&str>) {
    let script = "import os, sys, zipfile\nz = zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED)\nfor base, dirs, files in os.walk(sys.argv[1]):\n    for f in files:\n        p = os.path.join(base, f)\n        z.write(p, os.path.join(sys.argv[3], os.path.relpath(p, sys.argv[1])))\nif len(sys.argv) > 4:\n    z.writestr(sys.argv[4], 'planted')\nz.close()\n";
    let mut command = Command::new("python3");
    command.args(["-c", script]).arg(dir).arg(zip).arg(prefix);
    command.args(extra);
    assert!(command.status().unwrap().success());
}

fn score(results: &serde_json::Value) -> f64 {
    results["score"]
        .as_f64()
        .unwrap_or_else(|| panic!("no score: {results}"))
}

#[test]
fn the_autograder_is_offline_runs_on_gradescope_images_and_grades_every_kind_of_upload() {
    let dir = scratch().join("gradescope");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let zip = dir.join("autograder.zip");
    let made = Command::new(env!("CARGO_BIN_EXE_grader"))
        .args([
            "gradescope",
            "package",
            "--assignment",
            "plaisante_hand",
            "--out",
        ])
        .arg(&zip)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let said = String::from_utf8_lossy(&made.stdout);
    let counted: usize = said
        .split(" tests, ")
        .next()
        .and_then(|before| before.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count of tests in: {said}"));

    let tested = stdout_of(Command::new("unzip").arg("-t").arg(&zip));
    assert!(tested.contains("No errors detected"), "{tested}");

    let root = dir.join("root");
    let files = unpack(&zip, &root.join("source"));
    for file in [
        "setup.sh",
        "run_autograder",
        "grader",
        "api/Cargo.toml",
        "api/Cargo.lock",
        "api/src/lib.rs",
        "vendor/nix/Cargo.toml",
        "vendor/nix/.cargo-checksum.json",
        "specs/plaisante_hand.yaml",
    ] {
        assert!(
            files.iter().any(|f| f == file),
            "{file} missing from the zip"
        );
    }
    // The reference's answers to the three bulk groups, so no submission waits for them.
    let kept = files
        .iter()
        .filter(|f| f.starts_with("answers/plaisante_hand-"));
    assert_eq!(kept.clone().filter(|f| f.ends_with(".lz4")).count(), 3);
    // The known mistakes the audit kept (tests/diagnosis.rs grades with them), or a word
    // that they are missing.
    let known = kept.filter(|f| f.ends_with(".known")).count();
    assert_eq!(
        known > 0,
        !said.contains("known mistakes for 0 of"),
        "{known} files of known mistakes: {said}"
    );

    let glibc = highest_glibc(&root.join("source/grader"));
    assert!(
        said.contains(&format!("needs glibc {}.{}", glibc.0, glibc.1)),
        "the package's word on glibc is not objdump's {glibc:?}: {said}"
    );
    assert!(
        glibc <= GRADESCOPE_GLIBC,
        "the packaged grader needs GLIBC_{}.{}, newer than Gradescope's Ubuntu 22.04 has",
        glibc.0,
        glibc.1
    );

    // setup.sh past the toolchain's install, with no network and nothing fetched: grader-api
    // builds offline, at its locked versions, from the vendored sources alone.
    let cargo_home = empty_cargo_home(&dir);
    let setup = std::fs::read_to_string(root.join("source/setup.sh")).unwrap();
    let (_, offline) = setup
        .split_once(grader::package::SETUP_OFFLINE_MARK)
        .expect("setup.sh marks its offline part");
    let mut command = Command::new("unshare");
    command
        .args(["--net", "--", "bash", "-c"])
        .arg(format!("set -euo pipefail\nSOURCE=\"$1\"\n{offline}"))
        .arg("setup")
        .arg(root.join("source"));
    stdout_of(toolchain_env(&mut command, &cargo_home, &dir));
    assert!(
        !cargo_home.join("registry").exists(),
        "setup.sh fetched into the cargo home"
    );

    // A crate where Gradescope puts it.
    submit(&root, example_crate);
    let (code, results) = run_autograder(&root, &cargo_home);
    assert_eq!(code, Some(0));
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(
        tests.len(),
        counted,
        "the package said it grades {counted} tests"
    );
    assert!(
        tests.iter().all(|t| t["tags"][0] == "plaisante_hand"),
        "--assignment is kept"
    );
    let graded = score(&results);
    assert!(graded > 50.0 && graded < 100.0, "{results}");

    // The same crate one folder down.
    submit(&root, |submission| {
        example_crate(&submission.join("my-work"))
    });
    let (code, results) = run_autograder(&root, &cargo_home);
    assert_eq!((code, score(&results)), (Some(0), graded), "{results}");

    // The same crate uploaded as a zip, itself one folder down in it.
    let zipped = dir.join("crate");
    example_crate(&zipped);
    submit(&root, |submission| {
        zip_folder(&zipped, "hand-in", &submission.join("hand-in.zip"), None)
    });
    let (code, results) = run_autograder(&root, &cargo_home);
    assert_eq!((code, score(&results)), (Some(0), graded), "{results}");

    // A zip reaching outside is refused whole, saying so.
    submit(&root, |submission| {
        zip_folder(
            &zipped,
            "",
            &submission.join("sneaky.zip"),
            Some("../escaped.rs"),
        )
    });
    let (code, results) = run_autograder(&root, &cargo_home);
    assert_eq!((code, score(&results)), (Some(0), 0.0), "{results}");
    let output = results["output"].as_str().unwrap();
    assert!(
        output.contains("`../escaped.rs` would be written outside"),
        "{output}"
    );

    // Nothing at all still gets results, and a 0.
    submit(&root, |_| {});
    let (code, results) = run_autograder(&root, &cargo_home);
    assert_eq!((code, score(&results)), (Some(0), 0.0), "{results}");
    assert!(
        results["output"].as_str().unwrap().contains("Cargo.toml"),
        "{results}"
    );
}
