//! The three stages of `grader __contain`, and the probe. Every stage reads its [`Jail`]
//! from the environment; a stage that cannot do what the jail asks says so on stderr and
//! exits with [`SETUP_FAILED`], so nothing runs with less than the grader was told.

use std::os::unix::process::CommandExt;
use std::process::Command;

use nix::mount::{MsFlags, mount};
use nix::sched::{CloneFlags, unshare};
use nix::sys::resource::{Resource, setrlimit};
use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::{Gid, Pid, Uid, getppid, setgroups, setresgid, setresuid, setsid};

use super::ending::{Ending, first_ended};
use super::jail::{Jail, NOBODY, PRIVATE_PROC, SETUP_FAILED};
use super::layers::Layers;
use super::{fence, filter, root};

pub const PROBE: &str = "probe";
pub const OUTSIDE: &str = "1";
/// The first words of a stage's message on stderr when it fails.
const SETUP_FAILED_PREFIX: &str = "cardgrade sandbox:";

pub(super) fn fail(message: &str) -> ! {
    eprintln!("{SETUP_FAILED_PREFIX} {message}");
    leave(SETUP_FAILED)
}

/// Ends a stage with `code`, without the exit handlers of the grader it was forked or
/// started from: they have nothing of a stage's to do, and the libraries' destructors
/// alone took 2% of the CPU of a grading of a student's tests, whose short runs end three
/// stages each. A stage writes only to stderr, which holds nothing back.
#[allow(unsafe_code)]
fn leave(code: i32) -> ! {
    // SAFETY: _exit(2) ends the process at once and asks nothing of its caller.
    unsafe { nix::libc::_exit(code) }
}

fn or_fail<T, E: std::fmt::Display>(what: &str, result: Result<T, E>) -> T {
    result.unwrap_or_else(|error| fail(&format!("{what}: {error}")))
}

/// Starts the next stage, `stage`, in a child forked from this process: stdio inherited,
/// this process's stdin handed over and none of it kept here, so the channel's only holders
/// are the grader and the program. A fork, not a fresh grader: the stages run on their one
/// thread, and a run of a student's test is many such starts, each an exec of the grader
/// saved.
#[allow(unsafe_code)]
fn fork_stage(stage: fn(&Jail) -> !, jail: &Jail) -> Pid {
    // SAFETY: every stage runs on its process's only thread (none starts another), so the
    // child may run any code, as the parent could.
    match or_fail("cannot start the next stage", unsafe {
        nix::unistd::fork()
    }) {
        nix::unistd::ForkResult::Child => stage(jail),
        nix::unistd::ForkResult::Parent { child } => {
            let empty = or_fail("/dev/null", std::fs::File::open("/dev/null"));
            or_fail("stdin", nix::unistd::dup2_stdin(&empty));
            child
        }
    }
}

/// Closes every file descriptor but stdin, stdout and stderr, so nothing the grader's own
/// caller left open reaches the program.
#[allow(unsafe_code)]
fn close_inherited_files() {
    // SAFETY: close_range takes no pointers; this process is single-threaded here and owns
    // no descriptor above 2 that any code still holds.
    let result = unsafe { nix::libc::syscall(nix::libc::SYS_close_range, 3u32, u32::MAX, 0u32) };
    if result != 0 {
        fail("cannot close the files the grader was given");
    }
}

/// Stage 1, in the grader's namespaces.
pub(super) fn outside(jail: &Jail) -> ! {
    close_inherited_files();
    let _ = setrlimit(Resource::RLIMIT_CORE, 0, 0);
    // Only stage 2 of this run may say how the program ended.
    let _ = std::fs::remove_file(&jail.status_file);
    let flags = jail.layers.namespaces();
    // Read before the unshare: inside a user namespace not yet mapped, every id is nobody's.
    let (uid, gid) = (Uid::current(), Gid::current());
    or_fail("cannot create the namespaces", unshare(flags));
    if flags.contains(CloneFlags::CLONE_NEWUSER) {
        map_own_user(uid, gid);
    }
    // Waited for below, with the grader watched while it runs.
    let stage_two = fork_stage(init, jail);
    // The grader may be killed outright; nothing of the submission may outlive it. After
    // the unshare this process can start no thread, so it waits for whichever ends first.
    let ends = |pid: i32| or_fail("cannot watch the sandbox", Ending::of(pid as u32));
    let (stage_ends, grader_ends) = (ends(stage_two.as_raw()), ends(jail.grader as i32));
    // Opened after the grader may have gone, and its pid been taken by another since.
    let grader_here = getppid() == Pid::from_raw(jail.grader as i32);
    let first = or_fail(
        "cannot watch the sandbox",
        first_ended(&[&stage_ends, &grader_ends], None),
    );
    if first != Some(0) || !grader_here {
        let _ = kill(stage_two, Signal::SIGKILL);
        kill_cgroups(jail);
        // Reaped here, or it would wait as a zombie for whatever init adopts it.
        let _ = waitpid(stage_two, None);
        leave(SETUP_FAILED);
    }
    let status = waitpid(stage_two, None);
    match (Recorded::read(&jail.status_file), status) {
        (Some(recorded), _) => end_like(recorded.ended),
        (None, Ok(WaitStatus::Exited(_, code))) => leave(code),
        (None, Ok(WaitStatus::Signaled(_, signal, _))) => end_like(Ended::Signal(signal as i32)),
        (None, other) => fail(&format!("lost the sandbox: {other:?}")),
    }
}

/// Kills whatever is in the program's cgroups: without a PID namespace, what it started
/// does not end with stage 2.
fn kill_cgroups(jail: &Jail) {
    for procs in &jail.cgroup_join {
        let pids = std::fs::read_to_string(procs).unwrap_or_default();
        for pid in pids
            .lines()
            .filter_map(|line| line.trim().parse::<i32>().ok())
        {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}

/// Makes this process root of the new user namespace, as `uid` and `gid` outside it.
fn map_own_user(uid: Uid, gid: Gid) {
    let _ = std::fs::write("/proc/self/setgroups", "deny");
    or_fail(
        "cannot map the user namespace",
        std::fs::write("/proc/self/uid_map", format!("0 {uid} 1")),
    );
    or_fail(
        "cannot map the user namespace",
        std::fs::write("/proc/self/gid_map", format!("0 {gid} 1")),
    );
}

/// How the contained program ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ended {
    Code(i32),
    Signal(i32),
}

/// What stage 2 records in the status file: how the program ended, and how many of the
/// processes it started were still running then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recorded {
    ended: Ended,
    pub left: usize,
}

impl Recorded {
    pub fn read(status_file: &std::path::Path) -> Option<Recorded> {
        Recorded::parse(&std::fs::read_to_string(status_file).ok()?)
    }

    fn parse(text: &str) -> Option<Recorded> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let [kind, number, "left", left] = words[..] else {
            return None;
        };
        let number = number.parse().ok()?;
        let ended = match kind {
            "exit" => Ended::Code(number),
            "signal" => Ended::Signal(number),
            _ => return None,
        };
        Some(Recorded {
            ended,
            left: left.parse().ok()?,
        })
    }

    fn text(&self) -> String {
        let (kind, number) = match self.ended {
            Ended::Code(code) => ("exit", code),
            Ended::Signal(signal) => ("signal", signal),
        };
        format!("{kind} {number} left {}", self.left)
    }
}

/// Ends this process as the program ended, so the grader reads the program's own status.
fn end_like(ended: Ended) -> ! {
    match ended {
        Ended::Code(code) => leave(code),
        Ended::Signal(number) => {
            if let Ok(signal) = Signal::try_from(number) {
                let _ = kill(Pid::this(), signal);
            }
            // A signal this process ignores (SIGPIPE) ends it the shell's way instead.
            leave(128 + number)
        }
    }
}

/// Stage 2: the first process of the new PID namespace, when there is one.
fn init(jail: &Jail) -> ! {
    let mut jail = jail.clone();
    or_fail(
        "cannot tie the sandbox to the grader",
        nix::sys::prctl::set_pdeathsig(Signal::SIGKILL),
    );
    // Orphans of the program come to this process, which reaps them, when there is no
    // PID namespace to do it.
    let _ = nix::sys::prctl::set_child_subreaper(true);
    for file in &jail.cgroup_join {
        or_fail(
            &format!("cannot join {}", file.display()),
            std::fs::write(file, std::process::id().to_string()),
        );
    }
    if jail.layers.mount_namespace && !mount_private(&jail) {
        // Without a /proc of its own, the program gets none: the grader's would show.
        jail.read.retain(|path| path.as_os_str() != PRIVATE_PROC);
    }
    // Waited for by its pid below, among the orphans this process reaps.
    let program = fork_stage(program, &jail);
    let ended = loop {
        match waitpid(Pid::from_raw(-1), None) {
            Ok(WaitStatus::Exited(pid, code)) if pid == program => break Ended::Code(code),
            Ok(WaitStatus::Signaled(pid, signal, _)) if pid == program => {
                break Ended::Signal(signal as i32);
            }
            Ok(_) => {}
            Err(error) => fail(&format!("lost the program: {error}")),
        }
    };
    let recorded = Recorded {
        ended,
        left: left_behind(&jail),
    };
    or_fail(
        "cannot record how the program ended",
        std::fs::write(&jail.status_file, recorded.text()),
    );
    // As the namespace's first process, leaving ends everything the program left behind.
    leave(0)
}

/// The processes still running besides this one, which go when it does; counted in the
/// cgroup, or else in the namespace's own /proc, or not at all.
fn left_behind(jail: &Jail) -> usize {
    let listed = match jail.cgroup_join.last() {
        Some(procs) => std::fs::read_to_string(procs)
            .map(|text| text.lines().count())
            .unwrap_or(0),
        None if jail
            .read
            .iter()
            .any(|path| path.as_os_str() == PRIVATE_PROC) =>
        {
            std::fs::read_dir(PRIVATE_PROC)
                .map(|entries| {
                    entries
                        .flatten()
                        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
                        .count()
                })
                .unwrap_or(0)
        }
        None => 0,
    };
    listed.saturating_sub(1)
}

/// Makes mounts private and binds the toolchain; returns whether a /proc of the PID
/// namespace's own was mounted.
fn mount_private(jail: &Jail) -> bool {
    let none: Option<&str> = None;
    or_fail(
        "cannot make mounts private",
        mount(none, "/", none, MsFlags::MS_REC | MsFlags::MS_PRIVATE, none),
    );
    for (source, target) in &jail.binds {
        let what = format!("cannot mount {} read-only", source.display());
        or_fail(
            &what,
            mount(
                Some(source),
                target,
                none,
                MsFlags::MS_BIND | MsFlags::MS_REC,
                none,
            ),
        );
        or_fail(
            &what,
            mount(
                none,
                target,
                none,
                MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY,
                none,
            ),
        );
    }
    if !jail.layers.pid_namespace {
        return false;
    }
    // Processes of other users, the sandbox's own stages among them, are not even listed.
    let flags = MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC;
    ["hidepid=invisible", "hidepid=2"].iter().any(|option| {
        mount(
            Some("proc"),
            PRIVATE_PROC,
            Some("proc"),
            flags,
            Some(*option),
        )
        .is_ok()
    })
}

/// Stage 3: the program's own process, restricted, then replaced by the program.
fn program(jail: &Jail) -> ! {
    let _ = setsid();
    if jail.layers.mount_namespace {
        or_fail(
            "cannot give the program a root of its own",
            root::enter(jail),
        );
    }
    set_limits(jail);
    if jail.layers.root {
        let gid = Gid::from_raw(NOBODY);
        let uid = Uid::from_raw(jail.uid);
        if uid.is_root() {
            // Root's owner bits alone would let the program read what no user may.
            fail("a contained program never runs as root");
        }
        or_fail("cannot drop groups", setgroups(&[gid]));
        or_fail("cannot switch group", setresgid(gid, gid, gid));
        or_fail("cannot switch user", setresuid(uid, uid, uid));
    }
    // After the switch of user, which clears it.
    or_fail(
        "cannot tie the program to the sandbox",
        nix::sys::prctl::set_pdeathsig(Signal::SIGKILL),
    );
    or_fail("no_new_privs", nix::sys::prctl::set_no_new_privs());
    or_fail(
        "no sockets out",
        filter::deny_sockets(!jail.layers.net_namespace),
    );
    let fenced = or_fail("landlock", fence::restrict(&jail.read, &jail.write));
    if fenced.is_none() && jail.layers.landlock.is_some() {
        fail("landlock was found but is not enforced");
    }
    let error = Command::new(&jail.program)
        .args(&jail.args)
        .env_clear()
        .envs(jail.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&jail.workdir)
        .exec();
    fail(&format!("cannot run {}: {error}", jail.program.display()))
}

fn set_limits(jail: &Jail) {
    let limits = &jail.limits;
    let all = [
        (Resource::RLIMIT_CORE, Some(0)),
        (Resource::RLIMIT_CPU, limits.cpu_seconds),
        (Resource::RLIMIT_AS, limits.address_space),
        (Resource::RLIMIT_FSIZE, limits.file_size),
        (Resource::RLIMIT_NOFILE, limits.open_files),
        (Resource::RLIMIT_NPROC, limits.processes),
    ];
    for (resource, limit) in all {
        if let Some(limit) = limit {
            or_fail(
                &format!("cannot limit {resource:?}"),
                setrlimit(resource, limit, limit),
            );
        }
    }
}

/// Tries each layer in this throwaway process and prints what worked, as JSON.
pub(super) fn probe() -> ! {
    let root = Uid::effective().is_root();
    let mut layers = Layers {
        root,
        ..Layers::default()
    };
    if !root {
        layers.user_namespace = unshare(CloneFlags::CLONE_NEWUSER).is_ok();
    }
    layers.pid_namespace = unshare(CloneFlags::CLONE_NEWPID).is_ok();
    layers.net_namespace = unshare(CloneFlags::CLONE_NEWNET).is_ok();
    layers.mount_namespace = unshare(CloneFlags::CLONE_NEWNS).is_ok();
    layers.ipc_namespace = unshare(CloneFlags::CLONE_NEWIPC).is_ok();
    layers.landlock = fence::restrict(&[], &[]).ok().flatten();
    println!(
        "{}",
        serde_json::to_string(&layers).unwrap_or_else(|_| "{}".into())
    );
    std::process::exit(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_status_reads_back_as_written() {
        for recorded in [
            Recorded {
                ended: Ended::Code(3),
                left: 0,
            },
            Recorded {
                ended: Ended::Signal(9),
                left: 2,
            },
        ] {
            assert_eq!(Recorded::parse(&recorded.text()), Some(recorded));
        }
        assert_eq!(Recorded::parse("exit 3"), None);
        assert_eq!(Recorded::parse("garbage"), None);
    }
}
