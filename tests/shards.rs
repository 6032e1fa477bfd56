//! A class beyond one machine: shards cut by name, so a class that grows moves no one;
//! `--shard auto` under a job array's engine; the Kubernetes indexed Job that runs them.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use support::{actionlint, grader_env, repo, scratch};

/// Every variable `--shard auto` reads: unset in these tests but for those a test sets, so
/// a CI that runs them as a parallel job does not choose their shard.
const ENGINE_VARIABLES: [&str; 12] = [
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "SLURM_ARRAY_TASK_STEP",
    "SLURM_ARRAY_TASK_COUNT",
    "JOB_COMPLETION_INDEX",
    "AWS_BATCH_JOB_ARRAY_INDEX",
    "AWS_BATCH_JOB_ARRAY_SIZE",
    "CI_NODE_INDEX",
    "CI_NODE_TOTAL",
    "CARDGRADE_SHARD_INDEX",
    "CARDGRADE_SHARDS",
];

/// `grader ARGS`, with `variables` the only engine variables set.
fn grader(args: &[&std::ffi::OsStr], variables: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_grader"));
    grader_env(&mut command).args(args);
    for name in ENGINE_VARIABLES {
        command.env_remove(name);
    }
    command
        .envs(variables.iter().copied())
        .output()
        .expect("the grader runs")
}

/// A fresh class of folders that are not crates, graded at once as 0s.
fn class(name: &str, students: &[&str]) -> PathBuf {
    let dir = scratch().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for student in students {
        std::fs::create_dir_all(dir.join(student)).unwrap();
        std::fs::write(dir.join(student).join("notes.txt"), "no Cargo.toml here").unwrap();
    }
    dir
}

/// `grader batch CLASS --out OUT --shard SHARD`, which must succeed: OUT.
fn shard(class: &Path, out: &str, shard: &str, variables: &[(&str, &str)]) -> PathBuf {
    let out = scratch().join(out);
    let _ = std::fs::remove_dir_all(&out);
    let run = grader(
        &[
            "batch".as_ref(),
            class.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
            "--shard".as_ref(),
            shard.as_ref(),
        ],
        variables,
    );
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{said}");
    out
}

fn manifest(out: &Path) -> serde_json::Value {
    let path = out.join("batch/manifest.json");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The submissions a shard's manifest says it graded.
fn graded(out: &Path) -> Vec<String> {
    serde_json::from_value(manifest(out)["submissions"].clone()).unwrap()
}

#[test]
fn adding_a_submission_to_a_class_moves_no_other_between_shards() {
    let students = [
        "ada", "bea", "cy", "dan", "eli", "fay", "gus", "hal", "ivy", "jo",
    ];
    let before = class("class-before-a-late-one", &students);
    let cut_before: Vec<Vec<String>> = (1..=3)
        .map(|k| {
            graded(&shard(
                &before,
                &format!("before-{k}"),
                &format!("{k}/3"),
                &[],
            ))
        })
        .collect();
    assert!(
        cut_before.iter().filter(|names| !names.is_empty()).count() >= 2,
        "ten names in at least two shards: {cut_before:?}"
    );
    // A late submission sorts first, where a cut by place in the listing moves everyone.
    let mut grown = students.to_vec();
    grown.insert(0, "aaron");
    let after = class("class-after-a-late-one", &grown);
    let shards_after: Vec<PathBuf> = (1..=3)
        .map(|k| shard(&after, &format!("after-{k}"), &format!("{k}/3"), &[]))
        .collect();
    for (k, (was, out)) in cut_before.iter().zip(&shards_after).enumerate() {
        let now: Vec<String> = graded(out).into_iter().filter(|n| n != "aaron").collect();
        assert_eq!(&now, was, "shard {} of 3", k + 1);
    }
    let merged = scratch().join("after-merged");
    let _ = std::fs::remove_dir_all(&merged);
    let mut args: Vec<&std::ffi::OsStr> = vec!["batch".as_ref(), "merge".as_ref()];
    args.extend(shards_after.iter().map(|s| s.as_os_str()));
    args.extend(["--out".as_ref(), merged.as_os_str()]);
    let run = grader(&args, &[]);
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{said}");
    assert!(said.contains("merged 11 submissions of 11"), "{said}");
}

#[test]
fn a_shard_cut_otherwise_is_refused_by_merge() {
    let students = ["ada", "bea", "cy", "dan"];
    let class = class("class-cut-otherwise", &students);
    let shards: Vec<PathBuf> = (1..=2)
        .map(|k| {
            shard(
                &class,
                &format!("cut-otherwise-{k}"),
                &format!("{k}/2"),
                &[],
            )
        })
        .collect();
    // A shard as a grader that cut by place in the listing wrote it: every other name.
    let path = shards[0].join("batch/manifest.json");
    let mut old = manifest(&shards[0]);
    old["submissions"] = serde_json::json!(["ada", "cy"]);
    if graded(&shards[0]) == ["ada", "cy"] {
        old["submissions"] = serde_json::json!(["bea", "dan"]);
    }
    std::fs::write(&path, old.to_string()).unwrap();
    let merged = scratch().join("cut-otherwise-merged");
    let mut args: Vec<&std::ffi::OsStr> = vec!["batch".as_ref(), "merge".as_ref()];
    args.extend(shards.iter().map(|s| s.as_os_str()));
    args.extend(["--out".as_ref(), merged.as_os_str(), "--partial".as_ref()]);
    let run = grader(&args, &[]);
    let said = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{said}");
    assert!(said.contains("it was cut otherwise"), "{said}");
    assert!(said.contains(&shards[0].display().to_string()), "{said}");
}

#[test]
fn shard_auto_grades_the_engines_shard_and_the_manifest_says_which() {
    let class = class("class-auto", &["ada", "bea", "cy", "dan", "eli"]);
    // sbatch --array=10-16:2: task 14 is the third of four.
    let slurm = [
        ("SLURM_ARRAY_TASK_ID", "14"),
        ("SLURM_ARRAY_TASK_MIN", "10"),
        ("SLURM_ARRAY_TASK_MAX", "16"),
        ("SLURM_ARRAY_TASK_STEP", "2"),
        ("SLURM_ARRAY_TASK_COUNT", "4"),
    ];
    let auto = shard(&class, "auto-slurm", "auto", &slurm);
    let given = shard(&class, "auto-given", "3/4", &[]);
    assert_eq!(graded(&auto), graded(&given));
    let recorded = &manifest(&auto)["shard"];
    assert_eq!(recorded["number"], 3, "{recorded}");
    assert_eq!(recorded["count"], 4, "{recorded}");
    assert_eq!(recorded["engine"], "slurm", "{recorded}");
    assert_eq!(
        recorded["variables"]["SLURM_ARRAY_TASK_ID"], "14",
        "{recorded}"
    );
    assert_eq!(manifest(&given)["shard"]["engine"], "--shard");

    let refused = |variables: &[(&str, &str)]| {
        let out = scratch().join("auto-refused");
        let run = grader(
            &[
                "batch".as_ref(),
                class.as_os_str(),
                "--out".as_ref(),
                out.as_os_str(),
                "--shard".as_ref(),
                "auto".as_ref(),
            ],
            variables,
        );
        assert!(!out.join("batch/manifest.json").exists());
        (
            run.status.code(),
            String::from_utf8_lossy(&run.stderr).into_owned(),
        )
    };
    let (code, said) = refused(&[]);
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("none of them is set"), "{said}");
    let (code, said) = refused(&[("JOB_COMPLETION_INDEX", "2")]);
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("CARDGRADE_SHARDS is not set (found JOB_COMPLETION_INDEX=2)"),
        "{said}"
    );
    let (code, said) = refused(&[
        ("CI_NODE_INDEX", "2"),
        ("CI_NODE_TOTAL", "4"),
        ("CARDGRADE_SHARD_INDEX", "0"),
        ("CARDGRADE_SHARDS", "4"),
    ]);
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("say different shards"), "{said}");
    assert!(
        said.contains(
            "CI_NODE_INDEX=2, CI_NODE_TOTAL=4, CARDGRADE_SHARD_INDEX=0, CARDGRADE_SHARDS=4"
        ),
        "{said}"
    );
}

/// `grader batch k8s-job ARGS`: its status, stdout and stderr.
fn k8s_job(args: &[&str]) -> (Option<i32>, String, String) {
    let mut all = vec!["batch", "k8s-job"];
    all.extend_from_slice(args);
    let args: Vec<&std::ffi::OsStr> = all.iter().map(std::ffi::OsStr::new).collect();
    let run = grader(&args, &[]);
    (
        run.status.code(),
        String::from_utf8_lossy(&run.stdout).into_owned(),
        String::from_utf8_lossy(&run.stderr).into_owned(),
    )
}

#[test]
fn the_kubernetes_job_has_what_kubernetes_requires_of_an_indexed_job() {
    let (code, yaml, said) = k8s_job(&[
        "--shards",
        "6",
        "--image",
        "ghcr.io/a-course/grader:2026",
        "--parallelism",
        "3",
        "--",
        "--assignment",
        "blackjack",
    ]);
    assert_eq!(code, Some(0), "{said}");
    let job: serde_yaml::Value =
        serde_yaml::from_str(&yaml).unwrap_or_else(|e| panic!("{e}:\n{yaml}"));
    let field = |path: &str| {
        path.split('.')
            .try_fold(&job, |value, key| match key.parse::<usize>() {
                Ok(index) => value.get(index),
                Err(_) => value.get(key),
            })
            .unwrap_or_else(|| panic!("no {path} in:\n{yaml}"))
    };
    let text = |path: &str| {
        field(path)
            .as_str()
            .unwrap_or_else(|| panic!("{path} is not a string in:\n{yaml}"))
            .to_string()
    };
    assert_eq!(text("apiVersion"), "batch/v1");
    assert_eq!(text("kind"), "Job");
    assert!(!text("metadata.name").is_empty());
    assert_eq!(text("spec.completionMode"), "Indexed");
    // An indexed Job needs its completions; Kubernetes takes them as integers.
    assert_eq!(field("spec.completions").as_u64(), Some(6), "{yaml}");
    assert_eq!(field("spec.parallelism").as_u64(), Some(3), "{yaml}");
    // A Job's pods may only be restarted Never or OnFailure.
    assert_eq!(text("spec.template.spec.restartPolicy"), "Never");
    let container = "spec.template.spec.containers.0";
    assert_eq!(text(&format!("{container}.name")), "grader");
    assert_eq!(
        text(&format!("{container}.image")),
        "ghcr.io/a-course/grader:2026"
    );
    let command: Vec<String> = field(&format!("{container}.command"))
        .as_sequence()
        .unwrap()
        .iter()
        .map(|part| part.as_str().expect("a command of strings").to_string())
        .collect();
    let auto = command.windows(2).any(|pair| pair == ["--shard", "auto"]);
    assert!(auto, "{command:?}");
    assert_eq!(command[..2], ["grader", "batch"]);
    assert_eq!(
        command[command.len() - 3..],
        ["--", "--assignment", "blackjack"]
    );
    // Env values are strings to Kubernetes: a bare 6 is refused.
    let env = field(&format!("{container}.env")).as_sequence().unwrap();
    let shards = env
        .iter()
        .find(|var| var.get("name").and_then(|n| n.as_str()) == Some("CARDGRADE_SHARDS"))
        .unwrap_or_else(|| panic!("no CARDGRADE_SHARDS in:\n{yaml}"));
    assert_eq!(shards.get("value").and_then(|v| v.as_str()), Some("6"));
    // The volume the container mounts is one the pod has.
    let mounted = text(&format!("{container}.volumeMounts.0.name"));
    assert_eq!(text("spec.template.spec.volumes.0.name"), mounted);
    assert_eq!(
        text("spec.template.spec.volumes.0.persistentVolumeClaim.claimName"),
        "cardgrade"
    );

    let (code, _, said) = k8s_job(&["--shards", "2", "--image", "x", "--name", "Grading_Job"]);
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("--name `Grading_Job` is not a Kubernetes name"),
        "{said}"
    );
}

/// The README's fenced blocks of `language` after the line starting `marker`, up to the
/// next heading.
fn readme_blocks(marker: &str, language: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = readme
        .lines()
        .skip_while(|line| !line.starts_with(marker))
        .take_while(|line| !line.starts_with("### CI formats"));
    let mut blocks = Vec::new();
    let mut block: Option<String> = None;
    for line in section {
        match (&mut block, line.trim_end()) {
            (None, fence) if fence == format!("```{language}") => block = Some(String::new()),
            (Some(text), "```") => {
                blocks.push(std::mem::take(text));
                block = None;
            }
            (Some(text), line) => text.push_str(&format!("{line}\n")),
            _ => {}
        }
    }
    blocks
}

#[test]
fn the_readmes_sbatch_script_is_the_one_that_ran() {
    let script = std::fs::read_to_string(repo().join("scripts/slurm-class.sbatch")).unwrap();
    let quoted = readme_blocks("**Slurm.**", "bash");
    let quoted = quoted
        .first()
        .unwrap_or_else(|| panic!("no sbatch script under **Slurm.** in the README"));
    // The README leaves out the script's comments; every line it shows is the script's,
    // in the script's order.
    let mut lines = script.lines();
    for line in quoted.lines() {
        assert!(
            lines.any(|of_script| of_script == line),
            "the README's `{line}` is not scripts/slurm-class.sbatch's, or not in its order"
        );
    }
}

#[test]
fn the_readmes_actions_matrix_maps_its_index_into_env_and_passes_actionlint() {
    let matrix = readme_blocks("**GitHub Actions.**", "yaml");
    let matrix = matrix
        .first()
        .unwrap_or_else(|| panic!("no workflow under **GitHub Actions.** in the README"));
    for mapped in [
        "CARDGRADE_SHARD_INDEX: ${{ strategy.job-index }}",
        "CARDGRADE_SHARDS: ${{ strategy.job-total }}",
        "--shard auto",
    ] {
        assert!(matrix.contains(mapped), "{mapped}:\n{matrix}");
    }
    let workflow = format!("name: grade a class\non: workflow_dispatch\n{matrix}");
    if let Err(said) = actionlint("readme-shards", &workflow) {
        panic!("actionlint: {said}\n{workflow}");
    }
}
