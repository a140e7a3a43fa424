#!/usr/bin/env bash
# The dashboard and metrics under load (issue 17), in one run on this machine: a real coordinator
# process with JOBS finished jobs in its store, WORKERS echo workers, 20 open dashboards against
# none, and a page in chromium (first load, then a soak of SOAK seconds). See Benchmarks/load/.
# Usage: Benchmarks/dashboard.sh   (WORKERS=200 JOBS=10000 SOAK=3600 WINDOWS=24 DASHBOARDS=20 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${BENCH_OUT:-bench-out}
for b in tessera tessera-load-bench; do
    [ -x ".build/release/$b" ] || swift build -c release --product "$b" >/dev/null
done
[ -x /usr/bin/chromium ] && [ -x /opt/tessera-tools/bin/python ] || {
    echo "needs chromium and the tools environment: Scripts/install-deps.sh" >&2; exit 1; }
.build/release/tessera-load-bench .build/release/tessera --workers "${WORKERS:-200}" --jobs "${JOBS:-10000}" \
    --soak "${SOAK:-3600}" --windows "${WINDOWS:-24}" --dashboards "${DASHBOARDS:-20}" --out "$OUT/load"
