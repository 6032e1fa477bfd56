//! `grader batch`: a class graded into a results folder and a gradebook, resumable after a
//! kill, every submission graded exactly once.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use reference::plaisante_hand::bugs::HAS_PAIR;
use support::batch::{batch_checking, class, gradebook, results, succeeds};
use support::{Mutant, copy_tree, grader_env, holding_env, repo, scratch};

/// The options every batch of these tests passes to its checks.
const CHECK: [&str; 4] = ["--assignment", "plaisante_hand", "--skip", "every_hand"];

fn batch(class: &Path, out: &Path, extra: &[&str]) -> Command {
    batch_checking(class, out, extra, &CHECK)
}

/// Runs the grader with `args`: its exit code and stderr.
fn grader(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
    let run = grader_env(&mut command).args(args).output().unwrap();
    (
        run.status.code(),
        String::from_utf8_lossy(&run.stderr).into_owned(),
    )
}

#[test]
fn a_class_is_graded_into_results_and_a_gradebook() {
    let class = class("class-of-two", 2);
    let out = scratch().join("class-of-two-results");
    let _ = std::fs::remove_dir_all(&out);
    let run = batch(&class, &out, &["--jobs", "2"]).output().unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let rows = gradebook(&out);
    assert_eq!(
        rows[0][..5],
        ["submission", "score", "max_score", "outcome", "seconds"]
    );
    assert!(
        rows[0].contains(&"plaisante_hand::has_pair".to_string()),
        "{rows:?}"
    );
    let row = |name: &str| rows.iter().find(|r| r[0] == name).unwrap().clone();
    for student in ["student-0", "student-1"] {
        // Checks right on every random hand earn their share of those groups' points, as
        // the bugs its own tests catch earn theirs.
        assert_eq!(row(student)[1..4], ["83.2", "105.0", "failed"], "{rows:?}");
    }
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        report.contains("aria-label=\"score histogram\""),
        "{report}"
    );
    // The crate that did not build is listed apart, and not in the pass rates.
    let dom = rendered(&out.join("report.html"));
    assert!(
        dom.contains(
            "<code>plaisante_hand::has_pair::three_kings_is_not_a_pair</code></td><td>0 of 2"
        ),
        "{dom}"
    );
    assert!(
        dom.contains("<h2 id=\"set-apart\">Not counted in the pass rates</h2>"),
        "{dom}"
    );
    assert!(
        dom.contains(
            "<tr><td><code>not-a-crate</code></td><td>did not build</td><td>0.0 / 105.0</td></tr>"
        ),
        "{dom}"
    );
    assert!(
        dom.contains("Pass rates of 2 of the 3 submissions; 1 left out"),
        "{dom}"
    );
    assert!(
        dom.contains("From the 2 submissions counted; the 1 left out are not drawn from."),
        "{dom}"
    );
    assert!(
        !dom.contains("as <code>not-a-crate</code> failed it"),
        "{dom}"
    );
    let ungradable = row("not-a-crate");
    assert_eq!(
        ungradable[1..4],
        ["0.0", "105.0", "build_failed"],
        "the same maximum as the class"
    );
    // The same folder again needs --resume, which then grades nothing.
    let again = batch(&class, &out, &[]).output().unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));
    let resumed = batch(&class, &out, &["--resume"]).output().unwrap();
    assert!(String::from_utf8_lossy(&resumed.stderr).contains("grading 0 submissions of 3"));
}

/// The DOM of the page at `path` as headless Chromium (Debian's `chromium`) renders it.
fn rendered(path: &Path) -> String {
    let profile = scratch().join("chromium-profile");
    let run = Command::new("timeout")
        .args([
            "120",
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}", path.display()))
        .stdin(Stdio::null())
        .output()
        .expect("coreutils' timeout runs");
    assert_ne!(
        run.status.code(),
        Some(127),
        "chromium is not installed: `apt-get update && apt-get install -y chromium` (as scripts/test.sh does)"
    );
    assert!(
        run.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    String::from_utf8_lossy(&run.stdout).into_owned()
}

/// The processes whose environment names `parent` as their batch.
fn left_by(parent: u32) -> Vec<String> {
    holding_env(&format!("CARDGRADE_BATCH_PARENT={parent}"))
}

#[test]
fn a_batch_killed_mid_way_resumes_and_grades_each_submission_exactly_once() {
    let class = class("class-of-four", 4);
    let out = scratch().join("class-of-four-results");
    let _ = std::fs::remove_dir_all(&out);
    let mut first = batch(&class, &out, &["--jobs", "1"])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(240);
    let log = out.join("batch.log");
    while std::fs::read_to_string(&log).map_or(0, |l| l.lines().count()) < 1 {
        assert!(Instant::now() < deadline, "no submission was graded");
        assert!(
            first.try_wait().unwrap().is_none(),
            "the batch ended before the kill"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    first.kill().unwrap();
    first.wait().unwrap();
    // What the killed batch was grading dies with it.
    let gone = Instant::now() + Duration::from_secs(10);
    while !left_by(first.id()).is_empty() {
        assert!(
            Instant::now() < gone,
            "left running: {:?}",
            left_by(first.id())
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let graded_before = std::fs::read_to_string(&log).unwrap().lines().count();
    assert!(graded_before < 5, "killed mid-way, not at the end");

    let second = batch(&class, &out, &["--jobs", "2", "--resume"])
        .output()
        .unwrap();
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    let lines: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let mut names: Vec<&str> = lines
        .iter()
        .map(|line| line.split(':').next().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "not-a-crate",
            "student-0",
            "student-1",
            "student-2",
            "student-3"
        ],
        "each graded exactly once: {lines:?}"
    );
    assert_eq!(gradebook(&out).len(), 6);
}

#[test]
fn shards_graded_apart_merge_into_one_gradebook() {
    let class = class("class-in-shards", 2);
    let shards: Vec<PathBuf> = (1..=2)
        .map(|k| {
            let out = scratch().join(format!("class-in-shards-{k}"));
            let _ = std::fs::remove_dir_all(&out);
            let run = batch(&class, &out, &["--shard", &format!("{k}/2")])
                .output()
                .unwrap();
            assert!(
                run.status.success(),
                "{}",
                String::from_utf8_lossy(&run.stderr)
            );
            out
        })
        .collect();
    let sizes: Vec<usize> = shards.iter().map(|s| gradebook(s).len() - 1).collect();
    assert_eq!(
        sizes,
        [3, 0],
        "the three names hash to shard 1 of 2 (pinned in batch::shard's tests)"
    );
    let merged = scratch().join("class-in-shards-merged");
    let _ = std::fs::remove_dir_all(&merged);
    let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
    let run = grader_env(&mut command)
        .args(["batch", "merge"])
        .args(&shards)
        .arg("--out")
        .arg(&merged)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let names: Vec<String> = gradebook(&merged)[1..]
        .iter()
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(names, ["not-a-crate", "student-0", "student-1"]);
    assert!(merged.join("report.html").is_file());
    // One shard of two is not the class, even when it is the empty one: refused, naming
    // what is missing, unless --partial.
    let half = scratch().join("class-in-shards-half");
    let _ = std::fs::remove_dir_all(&half);
    let merge_second = |partial: &[&str]| {
        let mut args: Vec<&std::ffi::OsStr> = vec!["batch".as_ref(), "merge".as_ref()];
        args.push(shards[1].as_os_str());
        args.extend(["--out".as_ref(), half.as_os_str()]);
        args.extend(partial.iter().map(std::ffi::OsStr::new));
        grader(&args)
    };
    let (code, said) = merge_second(&[]);
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("missing shard 1/2 (not-a-crate, student-0, student-1)"),
        "{said}"
    );
    assert!(!half.join("gradebook.csv").exists());
    let (code, said) = merge_second(&["--partial"]);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("merged 0 submissions of 3"), "{said}");
    let rows = gradebook(&half);
    let missing = rows.iter().find(|r| r[0] == "student-0").unwrap();
    assert_eq!(missing[3], "not_graded", "{rows:?}");
    // A shard merged twice is refused, not counted twice.
    let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
    let twice = grader_env(&mut command)
        .args(["batch", "merge"])
        .args([&shards[0], &shards[0]])
        .arg("--out")
        .arg(scratch().join("class-in-shards-twice"))
        .output()
        .unwrap();
    assert_eq!(twice.status.code(), Some(2));
}

#[test]
fn a_resumed_batch_grades_again_what_other_options_graded_unless_told_to_keep_it() {
    let class = class("class-resumed-otherwise", 1);
    let out = scratch().join("class-resumed-otherwise-results");
    let _ = std::fs::remove_dir_all(&out);
    succeeds(&mut batch(&class, &out, &[]));
    let first = results(&out, "student-0");
    assert_eq!(
        first["graded_with"]["check_options"].as_array().unwrap()[..4],
        CHECK.map(serde_json::Value::from),
        "{first:#}"
    );
    let other: Vec<&str> = CHECK.into_iter().chain(["--skip", "has_pair"]).collect();
    let kept = succeeds(&mut batch_checking(
        &class,
        &out,
        &["--resume", "--resume-stale"],
        &other,
    ));
    assert!(
        kept.contains(
            "keeping 2 results graded under other check options, specs or submission times: not-a-crate, student-0"
        ),
        "{kept}"
    );
    assert!(kept.contains("grading 0 submissions of 2"), "{kept}");
    let regraded = succeeds(&mut batch_checking(&class, &out, &["--resume"], &other));
    assert!(regraded.contains("grading again 2 results"), "{regraded}");
    assert!(
        regraded.contains("grading 2 submissions of 2"),
        "{regraded}"
    );
    let second = results(&out, "student-0");
    assert!(
        second["graded_with"]["check_options"]
            .as_array()
            .unwrap()
            .contains(&"has_pair".into()),
        "{second:#}"
    );
    let skipped = second["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"].as_str().unwrap().contains("has_pair"))
        .all(|t| t["status"] == "not_run");
    assert!(skipped, "graded under the new options: {second:#}");
    // Other specs are other options too, though the words are the same.
    let spec = scratch().join("class-resumed-otherwise.yaml");
    std::fs::write(
        &spec,
        "assignment: plaisante_hand\ngroups:\n  - name: has_pair\n    points: 1\n    check: has_pair\n    cases:\n      - { name: kings, hand: [KH, KD, 3C, 7S, 9H] }\n",
    )
    .unwrap();
    let with_spec = ["--spec", spec.to_str().unwrap()];
    succeeds(&mut batch_checking(&class, &out, &["--resume"], &with_spec));
    std::fs::write(
        &spec,
        std::fs::read_to_string(&spec)
            .unwrap()
            .replace("points: 1", "points: 2"),
    )
    .unwrap();
    let edited = succeeds(&mut batch_checking(&class, &out, &["--resume"], &with_spec));
    assert!(edited.contains("grading again 2 results"), "{edited}");
}

/// A Plaisante hand whose `has_pair` takes 1.5 s, and 40 s on a hand led by a king.
fn slow_has_pair() -> PathBuf {
    Mutant::of(
        "plaisante_hand",
        "slow-has-pair",
        "has_pair takes 1.5 s, and 40 s when the first card is a king.",
        &[(
            HAS_PAIR,
            "fn has_pair(&self) -> bool {\n        let king = self.cards.first().is_some_and(|c| c.value() == 13);\n        std::thread::sleep(std::time::Duration::from_millis(if king { 40_000 } else { 1_500 }));\n        self.has_value_count(2)",
        )],
    )
    .write()
}

/// The built-in Plaisante hand spec with a has_pair group that waits as long as a test
/// lasts for its next answer: the slow crate is slow on purpose, not stuck.
fn patient_spec() -> PathBuf {
    let built_in = std::fs::read_to_string(repo().join("specs/plaisante_hand.yaml")).unwrap();
    let patient = built_in.replacen(
        "  - name: has_pair\n",
        "  - name: has_pair\n    stall_ms: 600000\n",
        1,
    );
    assert_ne!(patient, built_in, "the built-in spec has a has_pair group");
    support::scratch_file("patient-has-pair.yaml", patient)
}

/// A class of one: `crate_dir` as `slow`, its build warmed by a check of one test.
fn class_of_slow(name: &str) -> PathBuf {
    let crate_dir = slow_has_pair();
    let spec = patient_spec();
    let (code, said) = grader(&[
        "check".as_ref(),
        crate_dir.as_os_str(),
        "--spec".as_ref(),
        spec.as_os_str(),
        "--exact".as_ref(),
        "plaisante_hand::has_pair::pair_of_aces".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(code, Some(0), "{said}");
    let class = scratch().join(name);
    let _ = std::fs::remove_dir_all(&class);
    copy_tree(&crate_dir, &class.join("slow"));
    class
}

fn out_of_time(results: &serde_json::Value) -> Vec<&str> {
    results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| {
            t["status"] == "not_run" && t["output"] == "not run: the submission used its time"
        })
        .map(|t| t["name"].as_str().unwrap())
        .collect()
}

/// Grades the slow crate alone in a batch `name` with `budget`: how long the batch took,
/// the results folder and the crate's results.
fn graded_slowly(
    name: &str,
    budget: &str,
    check: &[&str],
) -> (Duration, PathBuf, serde_json::Value) {
    let class = class_of_slow(name);
    let out = scratch().join(format!("{name}-results"));
    let _ = std::fs::remove_dir_all(&out);
    let spec = patient_spec();
    let check: Vec<&str> = ["--spec", spec.to_str().unwrap()]
        .into_iter()
        .chain(check.iter().copied())
        .collect();
    let started = Instant::now();
    succeeds(&mut batch_checking(
        &class,
        &out,
        &["--submission-budget", budget],
        &check,
    ));
    let took = started.elapsed();
    let results = results(&out, "slow");
    (took, out, results)
}

#[test]
fn past_its_budget_a_submission_starts_no_test_and_the_gradebook_says_so() {
    // Eight tests of 1.5 s each (those of a king time out at 2 s), two at a time, take
    // six seconds past the build: some run in four, not all.
    let (took, out, results) = graded_slowly(
        "class-over-budget",
        "4",
        &["--assignment", "plaisante_hand", "has_pair"],
    );
    assert_eq!(results["outcome"], "out_of_time", "{results:#}");
    let unrun = out_of_time(&results);
    assert!(!unrun.is_empty() && unrun.len() < 8, "{results:#}");
    assert!(took < Duration::from_secs(20), "took {took:?}");
    let rows = gradebook(&out);
    assert_eq!(rows[0][5], "note");
    let row = rows.iter().find(|r| r[0] == "slow").unwrap();
    assert_eq!(row[3], "out_of_time", "{rows:?}");
    assert_eq!(
        row[5],
        format!(
            "{} tests not run: the submission used its time",
            unrun.len()
        )
    );
}

#[test]
fn a_test_still_running_past_the_budget_is_cut_and_the_results_are_written() {
    // A king's test takes 40 s and may: only the budget stops it, 10 s past it.
    let (took, _, results) = graded_slowly(
        "class-cut-short",
        "2",
        &[
            "--assignment",
            "plaisante_hand",
            "--timeout-ms",
            "60000",
            "kings",
        ],
    );
    assert!(took < Duration::from_secs(30), "took {took:?}");
    assert_eq!(results["outcome"], "out_of_time", "{results:#}");
    assert!(
        out_of_time(&results).contains(&"plaisante_hand::has_pair::pair_of_kings"),
        "{results:#}"
    );
}

/// `grader batch export RESULTS --LMS ROSTER --out CSV EXTRA` with `roster` as the roster
/// (written beside RESULTS): the exit code, stderr, and the CSV written.
fn export(
    results: &Path,
    lms: &str,
    roster: &str,
    extra: &[&str],
) -> (Option<i32>, String, String) {
    let roster_path = results.with_file_name(format!("{lms}-roster.csv"));
    std::fs::write(&roster_path, roster).unwrap();
    let written = results.with_file_name(format!("{lms}-import.csv"));
    let _ = std::fs::remove_file(&written);
    let mut args: Vec<&std::ffi::OsStr> =
        vec!["batch".as_ref(), "export".as_ref(), results.as_os_str()];
    let flag = format!("--{lms}");
    args.extend([
        flag.as_ref(),
        roster_path.as_os_str(),
        "--out".as_ref(),
        written.as_os_str(),
    ]);
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    let (code, said) = grader(&args);
    (
        code,
        said,
        std::fs::read_to_string(&written).unwrap_or_default(),
    )
}

/// Adds the files of `dir` (but `target/`) to `zip` under `prefix`.
fn zip_folder<W: std::io::Write + std::io::Seek>(
    zip: &mut zip::ZipWriter<W>,
    prefix: &str,
    dir: &Path,
) {
    use std::io::Write;
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != "target" {
                zip_folder(zip, &format!("{name}/"), &entry.path());
            }
        } else {
            zip.start_file(name, zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(&std::fs::read(entry.path()).unwrap())
                .unwrap();
        }
    }
}

/// A zip in memory, as `fill` writes it.
fn zip_bytes(fill: impl FnOnce(&mut zip::ZipWriter<std::io::Cursor<Vec<u8>>>)) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    fill(&mut zip);
    zip.finish().unwrap().into_inner()
}

fn example_student() -> PathBuf {
    repo().join("tests/fixtures/example-student")
}

#[test]
fn a_canvas_download_is_unpacked_graded_and_exported_to_canvas_and_moodle() {
    use std::io::Write;
    let dir = scratch().join("canvas-download");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Canvas names each file lastfirst_[LATE_]USERID_SUBMISSIONID_name.
    let good = zip_bytes(|zip| zip_folder(zip, "my-crate/", &example_student()));
    let linked = zip_bytes(|zip| {
        zip_folder(zip, "", &example_student());
        zip.add_symlink("secrets", "/etc", zip::write::SimpleFileOptions::default())
            .unwrap();
    });
    let archive = dir.join("submissions.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&archive).unwrap());
    let options = zip::write::SimpleFileOptions::default();
    for (name, bytes) in [
        ("smithjohn_12345_678_crate.zip", &good[..]),
        ("doejane_LATE_777_888_crate.zip", &linked[..]),
        ("smithjohn_12345_678_notes.txt", b"notes"),
    ] {
        zip.start_file(name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();

    let out = dir.join("results");
    let said = succeeds(&mut batch(&archive, &out, &[]));
    assert!(said.contains("symbolic link"), "{said}");
    assert!(
        said.contains("left out, being neither a folder nor a zip: smithjohn_12345_678_notes.txt"),
        "{said}"
    );
    let rows = gradebook(&out);
    let names: Vec<&str> = rows[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(
        names,
        ["doejane_LATE_777_888_crate", "smithjohn_12345_678_crate"]
    );
    assert_eq!(
        rows[1][3], "build_failed",
        "the link refused the zip: {rows:?}"
    );
    assert_eq!(rows[2][1..4], ["83.2", "105.0", "failed"], "{rows:?}");

    let (code, said, canvas) = export(
        &out,
        "canvas",
        "\u{feff}Student,ID,SIS User ID,SIS Login ID,Section,Poker (55)\n    Points Possible,,,,,100.00\n\"Smith, John\",12345,s1,jsmith,A,\n\"Doe, Jane\",777,s2,jdoe,A,\n\"Roe, Rick\",999,s3,rroe,B,\n",
        &["--column", "Poker (55)", "--points-possible", "100"],
    );
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("2 of 3 students have a score"), "{said}");
    assert!(said.contains("scaled from 105 to 100"), "{said}");
    // Canvas keeps a column's own points possible: the scores are scaled to it.
    assert_eq!(
        canvas,
        "Student,ID,SIS User ID,SIS Login ID,Section,Poker (55)\nPoints Possible,,,,,100\n\"Smith, John\",12345,s1,jsmith,A,79.24\n\"Doe, Jane\",777,s2,jdoe,A,0\n\"Roe, Rick\",999,s3,rroe,B,\n"
    );

    let roster = "First name,Last name,ID number,Institution,Department,Email address,folder\nJohn,Smith,,,,js@example.edu,smithjohn_12345_678_crate\nAnn,Lee,,,,al@example.edu,lee-ann\n";
    let (code, said, moodle) = export(&out, "moodle", roster, &["--by", "folder"]);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains(
            "no student of the roster has the submission doejane_LATE_777_888_crate (--by folder)"
        ),
        "{said}"
    );
    assert_eq!(
        moodle,
        "First name,Last name,ID number,Email address,folder,cardgrade\nJohn,Smith,,js@example.edu,smithjohn_12345_678_crate,83.2\nAnn,Lee,,al@example.edu,lee-ann,\n"
    );
    // A roster without the column asked for is refused, naming the columns it has.
    let (code, said, _) = export(&out, "moodle", roster, &["--by", "Username"]);
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("has no column `Username`"), "{said}");
}

#[test]
fn a_gradescope_export_and_a_folder_of_zips_are_graded_each_submission_once() {
    let dir = scratch().join("gradescope-export");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let archive = dir.join("export.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&archive).unwrap());
    zip.start_file(
        "assignment_9_export/submission_metadata.yml",
        zip::write::SimpleFileOptions::default(),
    )
    .unwrap();
    zip_folder(
        &mut zip,
        "assignment_9_export/submission_111/",
        &example_student(),
    );
    zip_folder(
        &mut zip,
        "assignment_9_export/submission_222/nested/crate/",
        &example_student(),
    );
    zip.finish().unwrap();
    let out = dir.join("results");
    let said = succeeds(&mut batch(&archive, &out, &["--jobs", "2"]));
    assert!(said.contains("grading 2 submissions of 2"), "{said}");
    let rows = gradebook(&out);
    assert_eq!(rows.len(), 3, "{rows:?}");
    for (row, name) in rows[1..].iter().zip(["submission_111", "submission_222"]) {
        assert_eq!(row[0], name);
        assert_eq!(row[1..4], ["83.2", "105.0", "failed"], "{rows:?}");
    }

    // Gradescope's own grade download names each student's Submission ID: a roster for Moodle.
    let (code, said, moodle) = export(
        &out,
        "moodle",
        "First Name,Last Name,SID,Email,Sections,Total Score,Max Points,Status,Submission ID\nAda,King,7,ak@example.edu,,0,100,Graded,111\nBo,Li,8,bl@example.edu,,0,100,Graded,222\n",
        &["--by", "Submission ID"],
    );
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(
        moodle,
        "First Name,Last Name,SID,Email,Submission ID,cardgrade\nAda,King,7,ak@example.edu,111,83.2\nBo,Li,8,bl@example.edu,222,83.2\n"
    );

    // A folder of per-student zips beside a folder: each is one submission.
    let class = dir.join("class");
    copy_tree(&example_student(), &class.join("alice"));
    std::fs::write(
        class.join("bob.zip"),
        zip_bytes(|zip| zip_folder(zip, "", &example_student())),
    )
    .unwrap();
    let out = dir.join("class-results");
    succeeds(&mut batch(&class, &out, &[]));
    let names: Vec<String> = gradebook(&out)[1..].iter().map(|r| r[0].clone()).collect();
    assert_eq!(names, ["alice", "bob"]);
    assert_eq!(results(&out, "bob")["score"], 83.2);
    // The same name twice, as a folder and a zip, is refused for that student alone.
    std::fs::write(class.join("alice.zip"), zip_bytes(|_| {})).unwrap();
    let twice = dir.join("twice");
    let (code, said) = grader(&[
        "batch".as_ref(),
        class.as_os_str(),
        "--out".as_ref(),
        twice.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("refused, not graded: alice and alice.zip would be graded under one name"),
        "{said}"
    );
    let names: Vec<String> = gradebook(&twice)[1..]
        .iter()
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(names, ["bob"]);
}
