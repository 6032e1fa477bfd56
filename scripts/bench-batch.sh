#!/usr/bin/env bash
# A class of N copies of the example student (default 40), each a line different, graded two ways in one run:
# each alone with a fresh target dir (as a hand-written loop over `grader check` would),
# and all by `grader batch --jobs 2` with its shared dependency dir. Prints the
# per-submission median of the first and the batch's time per submission, and their ratio.
# By default the Plaisante hand tests but the all-hands group are graded; --every-test
# grades every test of the built-in specs but the students' own tests, with their kept
# answers computed first (as `grader cache build` computes them before a class is graded).
# The students' own tests run once for each implementation: their floor is a submission's
# own test binary run once per implementation (the bench's `own-tests-floor`). --reference makes the class
# of copies of the reference, which does every assignment, instead of the example student,
# who does the Plaisante hand only. --batch-only skips the submissions graded alone.
# --kinds grades, with every test, a class of 8 made of the reference: three correct, and
# one of each kind that costs a batch its time: a compile error, an empty folder, a
# `has_pair` that prints 400 lines a call, a `loop {}` in `has_four_of_a_kind`, and the
# student template (every method `todo!()`); it prints each one's outcome and seconds,
# and the batch's time (N is ignored). --warm-dependencies grades a class of one first, into
# the same folder of builds (CARDGRADE_TARGET_DIR), as a second batch on a machine finds
# grader-api and its dependencies compiled, and times the class after it.
# Usage: scripts/bench-batch.sh [N] [--every-test] [--reference] [--batch-only] [--kinds] [--warm-dependencies]
#   (build first: cargo build --release; GRADER=PATH grades with another grader binary)
set -euo pipefail
cd "$(dirname "$0")/.."
n=40
options=(--assignment plaisante_hand --skip every_hand)
batch_only=false
every_test=false
reference=false
kinds=false
warm_dependencies=false
for argument in "$@"; do
  case "$argument" in
    --warm-dependencies) warm_dependencies=true ;;
    --every-test) every_test=true; options=(--skip your_tests) ;;
    --reference) reference=true ;;
    --batch-only) batch_only=true ;;
    --kinds) kinds=true ;;
    *) n="$argument" ;;
  esac
done
grader="${GRADER:-$PWD/target/release/grader}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Builds run as users of their own, who must pass through to the shared target dir.
chmod 755 "$work"
# A crate of the reference's code in folder $1.
reference_crate() {
  mkdir -p "$1"
  cp -r reference/src "$1/"
  printf '[package]\nname = "student"\nversion = "0.1.0"\nedition = "2024"\npublish = false\n\n[dependencies]\ngrader-api = { path = "../../api" }\n\n[workspace]\n' \
    > "$1/Cargo.toml"
}
if $kinds; then
  class="$work/class"
  for i in 1 2 3; do reference_crate "$class/correct-$i"; done
  reference_crate "$class/compile-error"
  echo 'const BROKEN: u32 = "five";' >> "$class/compile-error/src/lib.rs"
  mkdir -p "$class/empty"
  reference_crate "$class/printer"
  perl -0pi -e 's/fn has_pair\(&self\) -> bool \{\n/fn has_pair(&self) -> bool {\n        for line in 0..400 { println!("checking for a pair, line {line}"); }\n/' \
    "$class/printer/src/plaisante_hand.rs"
  reference_crate "$class/loop"
  perl -0pi -e 's/fn has_four_of_a_kind\(&self\) -> bool \{\n/fn has_four_of_a_kind(&self) -> bool {\n        loop {}\n/' \
    "$class/loop/src/plaisante_hand.rs"
  mkdir -p "$class/todo"
  cp -r student_template/. "$class/todo/"
  export CARDGRADE_ANSWERS_DIR="$work/answers"
  "$grader" cache build --out "$CARDGRADE_ANSWERS_DIR" >/dev/null
  start=$(date +%s.%N)
  "$grader" batch "$class" --out "$work/results" --jobs 2 >/dev/null 2>&1
  took=$(echo "$(date +%s.%N) - $start" | bc)
  echo "a class of 8, every test of the built-in specs, grader batch --jobs 2:"
  python3 - "$work/results/gradebook.csv" <<'PY'
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    print(f"  {row['submission']:<14} {row['outcome']:<13} {row['score']:>7} / {row['max_score']:<6} {row['seconds']:>6} s  {row['note']}")
PY
  echo "  in all: $took s"
  exit 0
fi
for i in $(seq -w 1 "$n"); do
  mkdir -p "$work/class/student-$i"
  if $reference; then
    reference_crate "$work/class/student-$i"
  else
    cp -r tests/fixtures/example-student/. "$work/class/student-$i/"
  fi
  # Each student's own code, as in a real class: no two builds are the same.
  echo "// student $i" >> "$work/class/student-$i/src/lib.rs"
done
export CARDGRADE_ANSWERS_DIR="$work/answers"
if $every_test; then
  start=$(date +%s.%N)
  "$grader" cache build --out "$CARDGRADE_ANSWERS_DIR" >/dev/null
  echo "kept answers computed in $(echo "$(date +%s.%N) - $start" | bc) s"
fi
alone=()
for dir in "$work"/class/*/; do
  $batch_only && break
  start=$(date +%s.%N)
  CARDGRADE_TARGET_DIR="$work/fresh-$(basename "$dir")" "$grader" check "$dir" \
    --format json --output "$work/alone.json" --test-threads 2 ${options[@]+"${options[@]}"} >/dev/null 2>&1 || true
  alone+=("$(echo "$(date +%s.%N) - $start" | bc)")
  rm -rf "$work/fresh-$(basename "$dir")"
done
if $warm_dependencies; then
  export CARDGRADE_TARGET_DIR="$work/builds"
  mkdir -p "$work/warm-up"
  cp -r "$(find "$work/class" -mindepth 1 -maxdepth 1 -type d | sort | head -n 1)" "$work/warm-up/student-00"
  echo "// the warm-up's own" >> "$work/warm-up/student-00/src/lib.rs"
  "$grader" batch "$work/warm-up" --out "$work/warm-up-results" --jobs 2 -- ${options[@]+"${options[@]}"} >/dev/null 2>&1
  echo "dependencies compiled before the class, by a batch of one into the same CARDGRADE_TARGET_DIR"
fi
start=$(date +%s.%N)
"$grader" batch "$work/class" --out "$work/results" --jobs 2 -- ${options[@]+"${options[@]}"} >/dev/null 2>&1
batch=$(echo "$(date +%s.%N) - $start" | bc)
median_of() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# Each check's own wall time in the batch, from its results (two run at once).
# Each submission's results, not the batch's own manifest.
results_files() { find "$work/results" -maxdepth 1 -name '*.json'; }
in_batch=$(for f in $(results_files); do
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["execution_time_ms"] / 1000)' "$f"
done | median_of)
per=$(echo "scale=3; $batch / $n" | bc)
# What the batch graded: each score, with how many submissions got it.
scores=$(for f in $(results_files); do
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("%g of %g" % (r["score"], r["max_score"]))' "$f"
done | sort | uniq -c | awk '{count=$1; $1=""; print count " ×" $0}' | paste -sd ';' -)
echo "class of $n submissions, scored: $scores"
# Where the batch's time went, from each check's results and the gradebook's wall times,
# and the class's floor: a student's own warm compile, the reference's own time for every
# test, and the students' own tests' floor, for each submission, over the cores.
reference_ms=$(cargo run -q --release --example bench -- floor ${options[@]+"${options[@]}"})
# Every submission is a copy of one crate, so one's floor of its own tests is each one's:
# measured on a copy of the first, its grader-api found where this checkout has it.
first=$(find "$work/class" -mindepth 1 -maxdepth 1 -type d | sort | head -n 1)
cp -r "$first" "$work/own-tests"
sed -i "s|path = \"[./]*api\"|path = \"$PWD/api\"|" "$work/own-tests/Cargo.toml"
own_tests_ms=$(cargo run -q --release --example bench -- own-tests-floor "$work/own-tests" ${options[@]+"${options[@]}"})
# A warm compile, measured apart from the batch (whose checks build their students' tests
# beside the submission, so their build times are no floor): the first submission's crate,
# its dependencies built once, rebuilt by `cargo build --release` after a one-line edit, as
# each copy of the class differs from the others; the median of three.
cp -r "$first" "$work/compile-floor"
sed -i "s|path = \"[./]*api\"|path = \"$PWD/api\"|" "$work/compile-floor/Cargo.toml"
floor_build() { cargo build -q --release --offline --manifest-path "$work/compile-floor/Cargo.toml"; }
floor_build
warm_ms=$(for edit in 1 2 3; do
  echo "// edit $edit" >> "$work/compile-floor/src/lib.rs"
  began=$(date +%s%N)
  floor_build
  echo $(( ($(date +%s%N) - began) / 1000000 ))
done | median_of)
# The same edit compiled with the crate's own tests too, as grading them needs: their own
# compile, as `cargo test --release --no-run` makes it; the median of three.
cargo test -q --release --offline --no-run --manifest-path "$work/compile-floor/Cargo.toml" 2>/dev/null
with_tests_ms=$(for edit in 1 2 3; do
  echo "// tests edit $edit" >> "$work/compile-floor/src/lib.rs"
  began=$(date +%s%N)
  cargo test -q --release --offline --no-run --manifest-path "$work/compile-floor/Cargo.toml" 2>/dev/null
  echo $(( ($(date +%s%N) - began) / 1000000 ))
done | median_of)
python3 - "$work/results" "$batch" "$reference_ms" "$(nproc)" "$own_tests_ms" "$warm_ms" "$with_tests_ms" <<'PY'
import csv, json, os, statistics, sys
results, batch, reference_ms, cores = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
own_tests_ms, warm_floor_ms, with_tests_ms = float(sys.argv[5]), float(sys.argv[6]), float(sys.argv[7])
rows = {row["submission"]: row for row in csv.DictReader(open(os.path.join(results, "gradebook.csv")))}
checks = []
for name in rows:
    path = os.path.join(results, name + ".json")
    if os.path.exists(path):
        checks.append((json.load(open(path)), float(rows[name]["seconds"]) * 1000))
builds = [r["build_time_ms"] for r, _ in checks]
warm = statistics.median(builds)
dependencies = max(builds) - warm
starts = sum(r.get("runner_start_ms", 0) for r, _ in checks)
grading = sum(r["execution_time_ms"] - r["build_time_ms"] for r, _ in checks)
writing = sum(wall - r["execution_time_ms"] for r, wall in checks)
n = len(checks)
floor = (warm_floor_ms + reference_ms + own_tests_ms) * n / cores / 1000
print(f"  where the time went (added over the class; two checks run at once):")
print(f"    dependency builds (the first build less a warm one)  {dependencies/1000:8.1f} s")
print(f"    the students' compiles                               {(sum(builds)-dependencies)/1000:8.1f} s  (median {warm/1000:.2f} s each)")
print(f"    runner start-ups (on the test threads)               {starts/1000:8.1f} s")
print(f"    grading, less the start-ups                          {(grading-starts)/1000:8.1f} s")
print(f"    writing results and the grader's own start and exit  {writing/1000:8.1f} s")
print(f"  floor: a warm compile each ({warm_floor_ms/1000:.2f} s, `cargo build --release` after a one-line edit), the reference's own time for every test ({reference_ms/1000:.2f} s) and the students' own tests run once per implementation ({own_tests_ms/1000:.2f} s), over {cores} cores: {floor:.1f} s")
ratio = batch / floor
print(f"  grader batch --jobs 2 took {batch:.1f} s: {ratio:.2f}x the floor (goal: at most 1.1x: {'met' if ratio <= 1.1 else 'not met'})")
with_tests = (with_tests_ms + reference_ms + own_tests_ms) * n / cores / 1000
print(f"  beside it, a floor with each crate's tests compiled too ({with_tests_ms/1000:.2f} s, `cargo test --release --no-run` after a one-line edit): {with_tests:.1f} s, {batch / with_tests:.2f}x")
PY
$batch_only || median=$(printf '%s\n' "${alone[@]}" | median_of)
$batch_only || echo "  each alone, fresh target dir: median $median s per submission"
echo "  in grader batch --jobs 2:     median $in_batch s per submission (two at once)"
echo "  grader batch --jobs 2:        $batch s in all, $per s of wall time per submission"
$batch_only || echo "  ratio batch / alone:          $(echo "scale=3; $per / $median" | bc) (wall time per submission)"
