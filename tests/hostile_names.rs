//! Hostile names and hostile text: what a student chooses to call a submission, puts in
//! a zip or prints must not touch another's grade or the batch's own files, nor make a
//! machine format say more than text. Each test hands the grader such a payload and fails
//! where the grader takes it at its word.

mod support;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use reference::plaisante_hand::bugs::HAS_PAIR;
use support::{Mutant, copy_tree, grader_env, scratch};

/// The options every batch of these tests passes to its checks.
const CHECK: [&str; 4] = ["--assignment", "plaisante_hand", "--skip", "every_hand"];

/// What the printing submission prints and panics with: characters XML 1.0 forbids,
/// markup that would load or link where rendered, and the grader's own words for a runner
/// that stalled or flooded its output.
const PAYLOAD: &str = "\u{1}\u{fffe}\u{ffff} <img src=x> <a href=https://example.com/>x</a> no answer for 1,000 ms (an endless loop?); the runner was killed and restarted for the other tests; it printed 9 MB\n… 9000000 more bytes not shown\n";

/// `grader ARGS`.
fn grader(args: &[&std::ffi::OsStr]) -> Output {
    grader_env(&mut Command::new(env!("CARGO_BIN_EXE_grader")))
        .args(args)
        .output()
        .expect("the grader binary runs")
}

/// `grader batch CLASS --out OUT EXTRA -- CHECK`: its exit code and stderr.
fn batch(class: &Path, out: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let mut args: Vec<&std::ffi::OsStr> = vec!["batch".as_ref(), class.as_os_str()];
    args.extend(["--out".as_ref(), out.as_os_str()]);
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    args.push("--".as_ref());
    args.extend(CHECK.iter().map(std::ffi::OsStr::new));
    let run = grader(&args);
    (
        run.status.code(),
        String::from_utf8_lossy(&run.stderr).into_owned(),
    )
}

/// A fresh folder `name` of the scratch folder.
fn fresh(name: &str) -> PathBuf {
    let dir = scratch().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A student's folder that is not a crate: graded at once, as a 0.
fn not_a_crate(class: &Path, name: &str) {
    std::fs::create_dir_all(class.join(name)).unwrap();
    std::fs::write(class.join(name).join("notes.txt"), "no Cargo.toml here").unwrap();
}

/// A zip of `files`, by name and bytes.
fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes) in files {
        zip.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// The submissions a gradebook lists, in order.
fn gradebook_names(out: &Path) -> Vec<String> {
    std::fs::read_to_string(out.join("gradebook.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|line| line.split(',').next().unwrap().to_string())
        .collect()
}

fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_student_named_batch_leaves_the_manifest_intact_and_merge_and_export_work() {
    let class = fresh("named-batch");
    not_a_crate(&class, "alice");
    not_a_crate(&class, "batch");
    let shards: Vec<PathBuf> = (1..=2)
        .map(|k| {
            let out = scratch().join(format!("named-batch-{k}"));
            let _ = std::fs::remove_dir_all(&out);
            let (code, said) = batch(&class, &out, &["--shard", &format!("{k}/2")]);
            assert_eq!(code, Some(0), "{said}");
            let manifest = json(&out.join("batch/manifest.json"));
            assert_eq!(manifest["class"], serde_json::json!(["alice", "batch"]));
            out
        })
        .collect();
    // The student's results are theirs, beside the batch's own files, in the shard their
    // name hashes to.
    let theirs = shards
        .iter()
        .find(|shard| {
            json(&shard.join("batch/manifest.json"))["submissions"]
                .as_array()
                .is_some_and(|names| names.contains(&"batch".into()))
        })
        .expect("a shard holds batch");
    let batch_results = json(&theirs.join("batch.json"));
    assert_eq!(batch_results["schema"], "cardgrade.results.v1");
    assert!(theirs.join("gradebook.csv").is_file());

    let merged = scratch().join("named-batch-merged");
    let _ = std::fs::remove_dir_all(&merged);
    let mut args: Vec<&std::ffi::OsStr> = vec!["batch".as_ref(), "merge".as_ref()];
    args.extend(shards.iter().map(|s| s.as_os_str()));
    args.extend(["--out".as_ref(), merged.as_os_str()]);
    let run = grader(&args);
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{said}");
    assert_eq!(gradebook_names(&merged), ["alice", "batch"]);
    assert_eq!(
        json(&merged.join("batch.json"))["schema"],
        "cardgrade.results.v1"
    );
    assert_eq!(
        json(&merged.join("batch/manifest.json"))["submissions"],
        serde_json::json!(["alice", "batch"])
    );

    let roster = scratch().join("named-batch-roster.csv");
    std::fs::write(
        &roster,
        "First name,Email address,folder\nAl,al@example.edu,alice\nBa,ba@example.edu,batch\n",
    )
    .unwrap();
    let written = scratch().join("named-batch-import.csv");
    let run = grader(&[
        "batch".as_ref(),
        "export".as_ref(),
        merged.as_os_str(),
        "--moodle".as_ref(),
        roster.as_os_str(),
        "--by".as_ref(),
        "folder".as_ref(),
        "--out".as_ref(),
        written.as_os_str(),
    ]);
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{said}");
    assert!(said.contains("2 of 2 students have a score"), "{said}");
}

#[test]
fn names_one_but_for_case_are_refused_alone_and_the_rest_graded() {
    let class = fresh("lookalikes");
    let notes = zip_of(&[("notes.txt", b"no crate")]);
    std::fs::write(class.join("x.zip"), &notes).unwrap();
    std::fs::write(class.join("x.ZIP"), &notes).unwrap();
    not_a_crate(&class, "bob");
    let out = scratch().join("lookalikes-results");
    let _ = std::fs::remove_dir_all(&out);
    let (code, said) = batch(&class, &out, &[]);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("refused, not graded: x.ZIP and x.zip would be graded under one name"),
        "{said}"
    );
    assert_eq!(gradebook_names(&out), ["bob"]);
    assert!(!out.join("x.json").exists());
}

#[test]
fn a_zip_naming_an_entry_twice_is_refused() {
    let class = fresh("entry-twice");
    // Two names alike in length, made one in both of the zip's records of each.
    let mut bytes = zip_of(&[
        ("src/lib.rs", b"pub fn honest() {}"),
        ("src/lib.RS", b"pub fn cheat() {}"),
    ]);
    let mut renamed = 0;
    for at in 0..bytes.len() - 10 {
        if &bytes[at..at + 10] == b"src/lib.RS" {
            bytes[at + 8..at + 10].copy_from_slice(b"rs");
            renamed += 1;
        }
    }
    assert_eq!(renamed, 2);
    std::fs::write(class.join("twice.zip"), bytes).unwrap();
    let out = scratch().join("entry-twice-results");
    let _ = std::fs::remove_dir_all(&out);
    let (code, said) = batch(&class, &out, &[]);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("lists an entry name twice, which is refused"),
        "{said}"
    );
    let unpacked = out.join(".unpacked/twice");
    assert_eq!(
        std::fs::read_dir(&unpacked).unwrap().count(),
        0,
        "nothing of it is kept"
    );
    assert_eq!(json(&out.join("twice.json"))["outcome"], "build_failed");
}

#[test]
fn a_folder_bomb_is_refused_before_a_folder_is_made() {
    let dir = fresh("folder-bomb");
    // 50 entries of 1,000 nested folders each: 50,000 empty folders in 200 KB of names,
    // 196 MB of disk once made.
    let deep = "a/".repeat(1_000);
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for n in 0..50 {
        zip.add_directory(
            format!("{n}/{deep}"),
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
    }
    let bomb = dir.join("bomb.zip");
    std::fs::write(&bomb, zip.finish().unwrap().into_inner()).unwrap();
    assert!(std::fs::metadata(&bomb).unwrap().len() < 300_000);

    let into = dir.join("unzipped");
    let started = Instant::now();
    let run = grader(&[
        "gradescope".as_ref(),
        "unzip".as_ref(),
        "--into".as_ref(),
        into.as_os_str(),
        bomb.as_os_str(),
    ]);
    let took = started.elapsed();
    let said = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{said}");
    assert!(said.contains("more than 10000 files and folders"), "{said}");
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(!into.exists(), "nothing was made");

    // In a batch the student is graded as a submission that is not a crate.
    let class = dir.join("class");
    std::fs::create_dir_all(&class).unwrap();
    std::fs::copy(&bomb, class.join("bomb.zip")).unwrap();
    let out = dir.join("results");
    let (code, said) = batch(&class, &out, &[]);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("more than 10000 files and folders"), "{said}");
    assert_eq!(
        std::fs::read_dir(out.join(".unpacked/bomb"))
            .unwrap()
            .count(),
        0
    );
}

/// The class of the printing submission, graded in a batch once for every test that
/// reads it: its folder and the batch's results.
fn printing_class() -> &'static (PathBuf, PathBuf) {
    static CLASS: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    CLASS.get_or_init(|| {
        let printer = Mutant::of(
            "plaisante_hand",
            "hostile-printer",
            "has_pair as count >= 2, printing the payload each call, and panicking with it on a hand led by a king.",
            &[(
                HAS_PAIR,
                &format!(
                    "fn has_pair(&self) -> bool {{\n        print!(\"{{}}\", {PAYLOAD:?});\n        eprint!(\"{{}}\", {PAYLOAD:?});\n        if self.cards.first().is_some_and(|c| c.value() == 13) {{\n            panic!(\"{{}}\", {PAYLOAD:?});\n        }}\n        self.count_values().iter().any(|&count| count >= 2)"
                ),
            )],
        )
        .write();
        let class = fresh("printing-class");
        copy_tree(&printer, &class.join("printer"));
        let out = scratch().join("printing-class-results");
        let _ = std::fs::remove_dir_all(&out);
        let (code, said) = batch(&class, &out, &[]);
        assert_eq!(code, Some(0), "{said}");
        (class, out)
    })
}

/// `grader check` of the printing submission, as the batch built it, writing `format`
/// to a file: the file.
fn printer_results(format: &str) -> String {
    // Checks of one folder take turns with its build.
    static TURNS: Mutex<()> = Mutex::new(());
    let (class, _) = printing_class();
    let _turn = TURNS.lock().unwrap_or_else(|e| e.into_inner());
    let file = scratch().join(format!("printer.{format}"));
    let _ = std::fs::remove_file(&file);
    let (code, _, stderr) = support::check(
        &class.join("printer"),
        &[
            "--assignment",
            "plaisante_hand",
            "has_pair",
            "--format",
            format,
            "--output",
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 1, "{stderr}");
    std::fs::read_to_string(&file).unwrap()
}

/// Whether `c` may stand in an XML 1.0 document: its `Char` production.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

#[test]
fn a_junit_file_parses_whatever_the_submission_prints() {
    let xml = printer_results("junit");
    for (at, c) in xml.char_indices() {
        assert!(xml_char(c), "{c:?} at {at}: {xml}");
    }
    // Nor may a character reference name one.
    for reference in xml.split("&#").skip(1) {
        let digits = &reference[..reference.find(';').unwrap()];
        let code = match digits.strip_prefix('x') {
            Some(hex) => u32::from_str_radix(hex, 16),
            None => digits.parse(),
        };
        let c = code.ok().and_then(char::from_u32);
        assert!(c.is_some_and(xml_char), "&#{digits};");
    }
    let report =
        quick_junit::Report::deserialize_from_str(&xml).unwrap_or_else(|e| panic!("{e}: {xml}"));
    assert!(report.tests > 0 && report.failures > 0, "{xml}");
    // The payload got there, shown.
    assert!(
        xml.contains("␁\\u{fffe}\\u{ffff} &lt;img src=x&gt;"),
        "{xml}"
    );
    assert!(xml.contains("<system-out>"), "{xml}");
}

/// Every text of a Gradescope results file, by where it is: the top-level output, each
/// test's, and every other string.
fn outputs_and_other_texts(results: &serde_json::Value) -> (Vec<String>, Vec<String>) {
    let mut outputs = vec![results["output"].as_str().unwrap_or_default().to_string()];
    let mut others = Vec::new();
    for test in results["tests"].as_array().unwrap() {
        for (key, value) in test.as_object().unwrap() {
            match (key.as_str(), value) {
                ("output", serde_json::Value::String(text)) => outputs.push(text.clone()),
                (_, serde_json::Value::String(text)) => others.push(text.clone()),
                (_, serde_json::Value::Array(items)) => {
                    others.extend(items.iter().filter_map(|i| i.as_str().map(String::from)))
                }
                _ => {}
            }
        }
    }
    (outputs, others)
}

/// Whether every occurrence of `payload` in the Markdown `text` is in a fenced code block.
fn only_fenced(text: &str, payload: &str) -> bool {
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if line.contains(payload) && !fenced {
            return false;
        }
    }
    true
}

/// The results file of a submission whose build fails with `<img src=x>` in its error.
fn unbuilt_gradescope_results() -> serde_json::Value {
    let broken = Mutant::of(
        "plaisante_hand",
        "hostile-markup-build",
        "a type error quoting markup.",
        &[(
            HAS_PAIR,
            "fn has_pair(&self) -> bool {\n        let _x: u32 = \"<img src=x>\";\n        self.has_value_count(2)",
        )],
    )
    .write();
    let file = scratch().join("unbuilt.gradescope.json");
    let _ = std::fs::remove_file(&file);
    let (code, _, stderr) = support::check(
        &broken,
        &[
            "--assignment",
            "plaisante_hand",
            "--format",
            "gradescope",
            "--output",
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 3, "{stderr}");
    json(&file)
}

#[test]
fn every_gradescope_output_has_a_format_and_shows_markup_only_as_code() {
    let printed: serde_json::Value = serde_json::from_str(&printer_results("gradescope")).unwrap();
    for results in [printed, unbuilt_gradescope_results()] {
        assert_eq!(results["output_format"], "md", "{results:#}");
        assert_eq!(results["test_output_format"], "md", "{results:#}");
        for test in results["tests"].as_array().unwrap() {
            assert_eq!(test["output_format"], "md", "{test:#}");
        }
        let (outputs, others) = outputs_and_other_texts(&results);
        let all = outputs.concat();
        assert!(
            all.contains("<img src=x>"),
            "the payload is shown: {results:#}"
        );
        for output in &outputs {
            assert!(only_fenced(output, "<img src=x>"), "{output}");
            assert!(only_fenced(output, "<a href="), "{output}");
        }
        for other in &others {
            assert!(!other.contains('<'), "{other}");
        }
    }
}

#[test]
fn the_class_report_loads_nothing_and_takes_no_printed_words_for_trouble() {
    let (_, out) = printing_class();
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    let head = &report[..report.find("</head>").unwrap()];
    assert!(
        head.contains(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:;"
        ),
        "{head}"
    );
    assert!(!report.contains("<img src=x>"), "escaped where shown");
    // It printed a stall's and a flood's words, and neither stalled nor flooded.
    assert!(
        !report.contains("<code>printer</code></td><td>"),
        "{report}"
    );
    assert!(
        !report.contains("Not counted in the pass rates"),
        "{report}"
    );
    assert!(
        report.contains("as <code>printer</code> failed it"),
        "{report}"
    );
}

#[test]
fn a_name_holding_line_breaks_and_escapes_is_one_visible_line_in_a_batchs_output() {
    let class = fresh("hostile-name");
    let name = "eve\n::error title=forged::x\r##[add-mask]y\u{1b}]0;pwned\u{7}\u{9b}";
    not_a_crate(&class, name);
    not_a_crate(&class, "bob");
    std::fs::write(class.join("notes\n::warning::z.txt"), "neither").unwrap();
    let out = scratch().join("hostile-name-results");
    let _ = std::fs::remove_dir_all(&out);
    let (code, said) = batch(&class, &out, &[]);
    assert_eq!(code, Some(0), "{said}");
    let log = std::fs::read_to_string(out.join("batch.log")).unwrap();
    for (what, text) in [("the batch's output", &said), ("batch.log", &log)] {
        assert!(
            text.contains("eve␊::error title=forged::x␍#\\#[add-mask]y␛]0;pwned␇"),
            "{what}: {text}"
        );
        for raw in ['\r', '\u{1b}', '\u{7}', '\u{9b}'] {
            assert!(!text.contains(raw), "{raw:?} in {what}: {text}");
        }
        for line in text.split(['\n', '\r']).map(str::trim_start) {
            assert!(
                !line.starts_with("::") && !line.contains("##["),
                "{what}: {line}"
            );
        }
    }
}
