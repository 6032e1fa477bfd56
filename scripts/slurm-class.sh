#!/usr/bin/env bash
# A class graded on Slurm, for real: starts a one-node Slurm cluster on this machine
# (munged with a key of its own, slurmctld and slurmd on private ports, every file in a
# temporary folder), submits scripts/slurm-class.sbatch as a job array of 4 over a class of
# 8 (three copies of the reference, two of the example student, the student template, a
# crate that does not build, one that loops), merges the shards, and compares the merged
# gradebook with a one-machine `grader batch --jobs 2` of the same class: same rows, same
# scores. Prints both times. Every daemon it started is stopped when it ends, however it
# ends. Needs Debian's slurm-wlm and munge.
# Usage: scripts/slurm-class.sh   (build first: cargo build; GRADER=PATH grades with
#   another grader binary; KEEP=1 keeps the temporary folder)
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
grader="$(realpath "${GRADER:-target/debug/grader}")"
check_options=(--assignment plaisante_hand --skip every_hand)
# Debian puts the daemons in /usr/sbin, which a user's PATH may leave out.
export PATH="$PATH:/usr/sbin:/sbin"
for tool in munged mungekey slurmctld slurmd sbatch sinfo squeue scontrol scancel; do
  command -v "$tool" >/dev/null || {
    echo "slurm-class: $tool is not installed: apt-get install -y slurm-wlm munge" >&2
    exit 2
  }
done
[ -x "$grader" ] || { echo "slurm-class: no grader at $grader: cargo build first" >&2; exit 2; }

work="$(mktemp -d /tmp/cardgrade-slurm.XXXXXX)"
# Builds run as users of their own, who must pass through to the class and its results;
# munged wants its socket's folder searchable by all.
chmod 755 "$work"
# Every process this script starts, daemons and jobs, inherits this: what is left of
# them is found by it, and by nothing broader.
export CARDGRADE_SLURM_CLUSTER="$work"
export SLURM_CONF="$work/slurm.conf"

# The pids of processes whose environment holds this cluster's marker, but this shell's.
ours() {
  python3 - "$work" "$$" <<'PY'
import os, sys
marker = ("CARDGRADE_SLURM_CLUSTER=" + sys.argv[1]).encode()
skip = {os.getpid(), os.getppid(), int(sys.argv[2])}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            if marker in f.read().split(b"\0") and int(pid) not in skip:
                print(pid)
    except OSError:
        pass
PY
}

# Runs "$@" in the background and waits for it: a signal to this script then runs its trap
# at once, where bash would first wait for a command in the foreground to end.
waited() {
  "$@" &
  running=$!
  wait "$running"
}

stop() {
  local status=$?
  trap - EXIT INT TERM
  if [ -n "${running:-}" ]; then
    kill "$running" 2>/dev/null || true
  fi
  # Jobs first, while slurmctld can still cancel them; then the daemons, newest first.
  if [ -f "$work/slurmctld.pid" ]; then
    scancel --full --quiet --jobname=cardgrade 2>/dev/null || true
    for _ in $(seq 50); do
      [ -z "$(squeue --noheader 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  for daemon in slurmd slurmctld munged; do
    if [ -f "$work/$daemon.pid" ]; then
      kill "$(cat "$work/$daemon.pid")" 2>/dev/null || true
    fi
  done
  for _ in $(seq 50); do
    [ -z "$(ours)" ] && break
    sleep 0.2
  done
  # No pipe here: a command it runs would carry the marker itself.
  left="$(ours)"
  left="${left//$'\n'/ }"
  if [ -n "$left" ]; then
    echo "slurm-class: killing what outlived its daemons: $left" >&2
    # shellcheck disable=SC2086 # one pid a word
    kill -9 $left 2>/dev/null || true
    status=1
  fi
  if [ "${KEEP:-}" = 1 ]; then
    echo "slurm-class: kept $work" >&2
  else
    rm -rf "$work"
  fi
  exit "$status"
}
trap stop EXIT
trap 'exit 130' INT TERM

# Two free ports on the loopback, for slurmctld and slurmd.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in sockets))')

mungekey --create --keyfile="$work/munge.key"
munged --force --socket="$work/munge.socket" --key-file="$work/munge.key" \
  --pid-file="$work/munged.pid" --log-file="$work/munged.log" --seed-file="$work/munged.seed"

node="$(hostname -s)"
mkdir -p "$work/state" "$work/spool" "$work/logs"
cat > "$SLURM_CONF" <<EOF
ClusterName=cardgrade
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
AuthInfo=socket=$work/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
# No cgroups: a container may not delegate them; processes are tracked by parent pid.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
# A task takes a CPU, not the node: as many tasks run at once as the node has CPUs.
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=grading Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld
slurmd
for _ in $(seq 150); do
  [ "$(sinfo --noheader --format=%t 2>/dev/null)" = idle ] && break
  sleep 0.2
done
[ "$(sinfo --noheader --format=%t 2>/dev/null)" = idle ] || {
  echo "slurm-class: the node did not come up:" >&2
  tail -n 20 "$work/slurmctld.log" "$work/slurmd.log" >&2
  exit 1
}
echo "a one-node Slurm cluster: $node, $(nproc) CPUs, slurmctld on port $ctld_port, slurmd on $slurmd_port"

# The class: each kind of submission that costs a batch differently.
class="$work/class"
reference_crate() {
  mkdir -p "$1"
  cp -r reference/src "$1/"
  printf '[package]\nname = "student"\nversion = "0.1.0"\nedition = "2024"\npublish = false\n\n[dependencies]\ngrader-api = { path = "%s/api" }\n\n[workspace]\n' \
    "$repo" > "$1/Cargo.toml"
}
for i in 1 2 3; do reference_crate "$class/reference-$i"; done
for i in 1 2; do
  mkdir -p "$class/example-$i"
  cp -r tests/fixtures/example-student/. "$class/example-$i/"
done
mkdir -p "$class/template"
cp -r student_template/. "$class/template/"
reference_crate "$class/does-not-build"
echo 'const BROKEN: u32 = "five";' >> "$class/does-not-build/src/lib.rs"
reference_crate "$class/loops"
perl -0pi -e 's/fn has_four_of_a_kind\(&self\) -> bool \{\n/fn has_four_of_a_kind(&self) -> bool {\n        loop {}\n/' \
  "$class/loops/src/plaisante_hand.rs"
grep -q 'loop {}' "$class/loops/src/plaisante_hand.rs"

# The job array: 4 tasks, each `grader batch --shard auto` on its shard.
export GRADER="$grader"
start=$(date +%s.%N)
job=$(sbatch --parsable --array=0-3 --output="$work/logs/shard-%a.log" --chdir="$work" \
  scripts/slurm-class.sbatch "$class" "$work/slurm" "${check_options[@]}")
# Polled every half second: sbatch --wait looks ever more seldom, and its time came out
# 106.0 s run after run.
deadline=$(($(date +%s) + 900))
while queued=$(squeue --noheader --jobs="$job" --format=%i) && [ -n "$queued" ]; do
  [ "$(date +%s)" -lt "$deadline" ] || { echo "slurm-class: the job array ran past 900 s" >&2; exit 1; }
  sleep 0.5
done
array_took=$(echo "$(date +%s.%N) - $start" | bc)
# Each task's end, while slurmctld keeps the records of ended jobs (MinJobAge, 300 s).
states=$(scontrol show job "$job" | grep -o 'JobState=[A-Z_]*' | sort -u)
if [ "$states" != JobState=COMPLETED ]; then
  echo "slurm-class: the job array's tasks ended ${states//$'\n'/, }" >&2
  tail -n 20 "$work"/logs/shard-*.log >&2
  exit 1
fi
for log in "$work"/logs/shard-*.log; do
  echo "  $(basename "$log" .log): $(grep -m1 '^grading shard' "$log" || echo "no shard line")"
done
"$grader" batch merge "$work"/slurm/shard-* --out "$work/slurm-merged"

start=$(date +%s.%N)
waited "$grader" batch "$class" --out "$work/one-machine" --jobs 2 -- "${check_options[@]}" \
  2>"$work/logs/one-machine.log"
one_took=$(echo "$(date +%s.%N) - $start" | bc)

# Same rows, same scores: every column but each submission's seconds.
python3 - "$work/slurm-merged/gradebook.csv" "$work/one-machine/gradebook.csv" <<'PY'
import csv, sys
def rows(path):
    with open(path, newline="") as f:
        return [{k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(f)]
merged, alone = rows(sys.argv[1]), rows(sys.argv[2])
for row in merged:
    print(f"  {row['submission']:<15} {row['outcome']:<13} {row['score']:>6} / {row['max_score']}")
if merged != alone:
    print("the merged gradebook differs from the one-machine batch's:", file=sys.stderr)
    for a, b in zip(merged, alone):
        if a != b:
            print(f"  job array: {a}\n  one machine: {b}", file=sys.stderr)
    if len(merged) != len(alone):
        print(f"  {len(merged)} rows against {len(alone)}", file=sys.stderr)
    sys.exit(1)
print(f"the merged gradebook of the job array is the one-machine batch's: {len(merged)} rows, same scores")
PY
echo "job array of 4 on $(nproc) CPUs, submitted to ended: $array_took s"
echo "one machine, grader batch --jobs 2:        $one_took s"
