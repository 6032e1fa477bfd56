#!/usr/bin/env bash
# Renders a batch's class report in headless Chromium (Debian's `chromium` package) and
# saves a screenshot beside it, to look at the charts as a browser draws them.
# Usage: scripts/check-class-report.sh RESULTS_DIR [SCREENSHOT.png]
set -euo pipefail
report="$(cd "$1" && pwd)/report.html"
shot="${2:-$1/report.png}"
[ -f "$report" ] || { echo "no report.html in $1: run grader batch first" >&2; exit 2; }
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --window-size=1200,1400 --screenshot="$shot" "file://$report" 2>/dev/null
echo "$shot"
