#!/bin/sh
# Grading a student's tests against every bug of the library vs a plain `cargo test
# --release` of their crate, both warm: farm-bench's medians side by side and their ratio
# (issue 24's goal: at most 3x). The example student is copied to a scratch folder, so
# neither command writes in the checkout; the grader is the one built (GRADER overrides).
set -eu
# Both sides without backtraces, as the grader runs a student's tests: with RUST_BACKTRACE=1,
# `cargo test` of the example student (whose tests fail on its own code) takes 70 ms more
# printing them, which made the grader's ratio look better than it is.
unset RUST_BACKTRACE RUST_LIB_BACKTRACE
repo=$(cd "$(dirname "$0")/.." && pwd)
grader=${GRADER:-$repo/target/debug/grader}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$repo/tests/fixtures/example-student" "$work/student"
sed -i "s|path = \"../../../api\"|path = \"$repo/api\"|" "$work/student/Cargo.toml"
cat > "$work/your-tests.yaml" <<'YAML'
assignment: plaisante_hand
groups:
  - name: your tests
    points: 5
    student_tests: { bugs: all }
YAML
farm-bench -n 5 --warmup 1 --timeout 600 \
    --vs "cargo test --release --offline --quiet --manifest-path $work/student/Cargo.toml" \
    -- "$grader" check "$work/student" --spec "$work/your-tests.yaml" --format json
