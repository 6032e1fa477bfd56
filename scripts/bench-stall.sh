#!/usr/bin/env bash
# What a stuck or a flooding submission costs a class, side by side with a correct one in
# one run: three copies of the reference graded on every Plaisante hand test, one as it is,
# one whose has_four_of_a_kind loops forever, and one whose count_values prints 400 lines a
# call. Prints each one's median wall time over ROUNDS runs (default 3) and what the
# stuck and the flooding one cost more than the correct one.
# Usage: scripts/bench-stall.sh [ROUNDS]   (build first: cargo build --release;
#   GRADER=PATH grades with another grader binary)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
grader="${GRADER:-$PWD/target/release/grader}"
work="$(mktemp -d)"
# Builds run as unprivileged users, who must pass through it.
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
for kind in correct loop printer; do
  mkdir -p "$work/$kind"
  cp -r reference/src "$work/$kind/"
  printf '[package]\nname = "student-%s"\nversion = "0.1.0"\nedition = "2024"\npublish = false\n\n[dependencies]\ngrader-api = { path = "../../api" }\n\n[workspace]\n' \
    "$kind" > "$work/$kind/Cargo.toml"
done
perl -0pi -e 's/(fn has_four_of_a_kind\(&self\) -> bool \{\n)/$1        loop {\n            std::hint::spin_loop();\n        }\n        #[allow(unreachable_code)]\n/' \
  "$work/loop/src/plaisante_hand.rs"
perl -0pi -e 's/(fn count_values\(&self\) -> Vec<u32> \{\n)/$1        for line in 0..400 {\n            println!("count_values, debug line {line} of 400");\n        }\n/' \
  "$work/printer/src/plaisante_hand.rs"
for kind in loop printer; do
  if cmp -s reference/src/plaisante_hand.rs "$work/$kind/src/plaisante_hand.rs"; then
    echo "the $kind edit did not apply to reference/src/plaisante_hand.rs" >&2
    exit 2
  fi
done
export CARDGRADE_TARGET_DIR="$work/builds"
median_of() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
declare -A times
for round in $(seq 1 "$rounds"); do
  for kind in correct loop printer; do
    # Built once before the first timed round: the build is not what is compared.
    if [ "$round" = 1 ]; then
      "$grader" check "$work/$kind" --list >/dev/null 2>&1 || true
    fi
    start=$(date +%s.%N)
    "$grader" check "$work/$kind" --assignment plaisante_hand --staff-view --test-threads 2 \
      --format json --output "$work/$kind.json" >/dev/null 2>&1 || true
    times[$kind]+="$(echo "$(date +%s.%N) - $start" | bc) "
  done
done
declare -A median
for kind in correct loop printer; do
  median[$kind]=$(echo "${times[$kind]}" | tr ' ' '\n' | grep . | median_of)
  score=$(grep -o '"score": *[0-9.]*' "$work/$kind.json" | head -1 | grep -o '[0-9.]*$')
  printf '%-8s median %6.1f s over %s rounds (runs: %s), score %s\n' "$kind" "${median[$kind]}" "$rounds" "${times[$kind]% }" "$score"
done
for kind in loop printer; do
  printf '%-8s costs %+.1f s more than the correct one (goal: at most 30 s)\n' "$kind" \
    "$(echo "${median[$kind]} - ${median[correct]}" | bc)"
done
