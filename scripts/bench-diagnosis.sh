#!/bin/sh
# What diagnosis costs a grading (issue 37's goal: a failing check at most 10% more wall
# time, a passing one nothing): the example student graded with the known mistakes the
# audit keeps against the same answers store without them, farm-bench pair by pair, on a
# group it fails (all 2,598,960 hands) and on one it passes. The audit runs first, into a
# store of this script's own; the grader is the release build (GRADER overrides).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
grader=${GRADER:-$repo/target/release/grader}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CARDGRADE_ANSWERS_DIR="$work/known" "$grader" spec audit "$repo/specs/plaisante_hand.yaml" --jobs 2 >/dev/null
mkdir "$work/plain"
cp "$work/known"/*.lz4 "$work/plain/"
echo "known mistakes kept: $(ls "$work/known" | grep -c '\.known$') files"
for group in every_hand has_three_of_a_kind; do
    echo "== $group: with known mistakes (A) against without (B)"
    CARDGRADE_ANSWERS_DIR="$work/known" farm-bench -n 7 --warmup 1 --timeout 900 \
        --vs "env CARDGRADE_ANSWERS_DIR=$work/plain $grader check $repo/tests/fixtures/example-student --assignment plaisante_hand --staff-view plaisante_hand::$group --format json" \
        -- "$grader" check "$repo/tests/fixtures/example-student" --assignment plaisante_hand --staff-view "plaisante_hand::$group" --format json
done
