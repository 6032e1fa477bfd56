//! Killing a contained program: its stages in the order that leaves no zombie.

/// Kills a contained program started as `child`, and reaps it: see [`kill_stages`].
pub fn kill_tree(child: &mut std::process::Child) {
    if !matches!(child.try_wait(), Ok(None)) {
        return;
    }
    if let Ok(pid) = i32::try_from(child.id()) {
        kill_stages(pid, || !matches!(child.try_wait(), Ok(None)));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Kills a contained program whose stage 1 is `pid`, unless `ended` says it has: stage 2
/// first, whose end ends the namespace and lets stage 1 reap it and exit, then stage 1 and
/// its process group. Killing both stages at once would leave stage 2 a zombie for
/// whatever init adopts it. One already ended is left alone: once reaped, its number may
/// belong to another process.
pub(super) fn kill_stages(pid: i32, mut ended: impl FnMut() -> bool) {
    use nix::sys::signal::{Signal, kill, killpg};
    use nix::unistd::Pid;
    if ended() {
        return;
    }
    let stage_two =
        std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    for stage_two in stage_two.split_whitespace().filter_map(|p| p.parse().ok()) {
        let _ = kill(Pid::from_raw(stage_two), Signal::SIGKILL);
    }
    let patience = std::time::Instant::now() + STAGE_ONE_PATIENCE;
    while !ended() && std::time::Instant::now() < patience {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    if !ended() {
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    }
}

/// How long stage 1 may take to reap stage 2 and exit once stage 2 is killed.
pub(super) const STAGE_ONE_PATIENCE: std::time::Duration = std::time::Duration::from_millis(500);
