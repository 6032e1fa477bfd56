//! A class graded on Slurm for real: `scripts/slurm-class.sh` starts a one-node cluster,
//! grades a class of 8 as a job array of 4 with `grader batch --shard auto`, merges, and
//! compares with a one-machine batch. Needs Debian's slurm-wlm and munge
//! (`scripts/test.sh` installs them).

mod support;

use std::os::unix::process::CommandExt as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use support::{grader_env, holding_env, repo, scratch};

/// Past this the script is stopped, as its own trap stops the cluster: a class of 8 takes
/// two to four minutes on two busy cores.
const LIMIT: Duration = Duration::from_secs(600);

#[test]
fn a_job_array_of_four_grades_a_class_as_one_machine_does_and_leaves_nothing_running() {
    let (stdout, stderr) = (scratch().join("slurm.out"), scratch().join("slurm.err"));
    // Inherited by every process the script starts, the daemons' jobs included.
    let marker = format!("CARDGRADE_SLURM_TEST={}", std::process::id());
    let (name, value) = marker.split_once('=').unwrap();
    let mut script = Command::new(repo().join("scripts/slurm-class.sh"));
    let mut child = grader_env(&mut script)
        .env("GRADER", env!("CARGO_BIN_EXE_grader"))
        .env(name, value)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout).unwrap())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .process_group(0)
        .spawn()
        .expect("bash runs the script");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > LIMIT {
            // The script's trap cancels the jobs and stops the daemons; a minute for that.
            let group = Pid::from_raw(child.id() as i32);
            let _ = killpg(group, Signal::SIGTERM);
            let stopping = Instant::now();
            while child.try_wait().unwrap().is_none() && stopping.elapsed() < LIMIT / 10 {
                std::thread::sleep(Duration::from_millis(200));
            }
            let _ = killpg(group, Signal::SIGKILL);
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let said = std::fs::read_to_string(&stdout).unwrap();
    let complained = std::fs::read_to_string(&stderr).unwrap();
    let left = holding_env(&marker);
    for pid in &left {
        // Ours by the marker: killed so that a failed run leaves nothing either.
        if let Ok(pid) = pid.parse() {
            let _ = nix::sys::signal::kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
    assert!(
        left.is_empty(),
        "left running: {left:?}\n{said}\n{complained}"
    );
    let status = status
        .unwrap_or_else(|| panic!("stopped after {} s:\n{said}\n{complained}", LIMIT.as_secs()));
    assert!(status.success(), "{status}:\n{said}\n{complained}");
    for k in 1..=4 {
        assert!(
            said.contains(&format!("grading shard {k}/4, as SLURM_ARRAY_TASK_COUNT=4")),
            "shard {k}:\n{said}"
        );
    }
    assert!(
        said.contains(
            "the merged gradebook of the job array is the one-machine batch's: 8 rows, same scores"
        ),
        "{said}\n{complained}"
    );
    for row in [
        "does-not-build  build_failed",
        "loops           failed",
        "reference-1     failed",
        "template        failed",
    ] {
        assert!(said.contains(row), "{row}:\n{said}");
    }
    assert!(said.contains("job array of 4 on"), "{said}");
    assert!(
        said.contains("one machine, grader batch --jobs 2:"),
        "{said}"
    );
}
