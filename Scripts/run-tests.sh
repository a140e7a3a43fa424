#!/usr/bin/env bash
# Every test suite, one test at a time (see the Makefile). When a test fails, its issues are printed
# again at the very end, where the tail of a long CI log still shows them.
set -uo pipefail
SWIFT=${SWIFT:-swift}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$SWIFT" test --skip-build --no-parallel 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo "== what failed (repeated from above) =="
    grep -E -A4 "✘ Test .*(recorded an issue|failed)|error: " "$log" | grep -v "^--$" | tail -80
fi
exit "$status"
