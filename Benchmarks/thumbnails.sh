#!/usr/bin/env bash
# 1,000 concurrent thumbnail requests against a coordinator, one build or two side by side: the most
# threads the coordinator had during the burst, its resident memory at the peak and 5 s after, how many
# requests were answered 200 and 503, and the burst's wall time.
# Usage: Benchmarks/thumbnails.sh BINARY [BINARY ...]   (e.g. a build from before a change, then after)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${BENCH_OUT:-bench-out}
mkdir -p "$OUT"
source Benchmarks/common.sh  # free_port
SRC="$OUT/thumb-src-720p-20s.mp4"
[ -s "$SRC" ] || ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=1280x720:rate=30:duration=20 \
    -c:v libx264 -preset veryfast -g 30 -pix_fmt yuv420p "$SRC"
printf "%-40s %8s %10s %10s %6s %6s %8s\n" build threads "peak MiB" "after MiB" 200s 503s "wall s"
for BIN in "$@"; do
    dir=$(mktemp -d "$OUT/thumbs.XXXX")
    mkdir -p "$dir/out"
    http=$(free_port) zmq=$(free_port)
    "$BIN" coordinator --listen "tcp://127.0.0.1:$zmq" --http "127.0.0.1:$http" --data "$dir/data" \
        --media-root "$OUT" --output-root "$dir/out" > "$dir/coordinator.log" 2>&1 &
    coordinator=$!
    "$BIN" worker --coordinator "tcp://127.0.0.1:$zmq" --id w1 --backend cpu > "$dir/worker.log" 2>&1 &
    worker=$!
    export TESSERA_COORDINATOR="http://127.0.0.1:$http"
    for _ in $(seq 100); do "$BIN" status --json >/dev/null 2>&1 && break; sleep 0.1; done
    job=$("$BIN" submit "$(realpath "$SRC")" -o out.mp4 --segment-duration 1 --preset 640x480 --json --wait \
        | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
    kill "$worker"
    line=$(python3 - "$TESSERA_COORDINATOR" "$job" "$coordinator" <<'PY'
import sys, threading, time, urllib.request, urllib.error
base, job, pid = sys.argv[1], sys.argv[2], sys.argv[3]
def status(field):
    for l in open(f"/proc/{pid}/status"):
        if l.startswith(field): return int(l.split()[1])
codes, most, peak = {}, 0, 0
lock = threading.Lock()
def get(i):
    url = f"{base}/v1/jobs/{job}/segments/{i % 20}/thumbnail.png"
    try:
        code = urllib.request.urlopen(url, timeout=120).status
    except urllib.error.HTTPError as e:
        code = e.code
    except Exception:
        code = 0
    with lock: codes[code] = codes.get(code, 0) + 1
started = time.time()
threads = [threading.Thread(target=get, args=(i,)) for i in range(1000)]
for t in threads: t.start()
while any(t.is_alive() for t in threads):
    most = max(most, status("Threads:")); peak = max(peak, status("VmRSS:"))
    time.sleep(0.02)
wall = time.time() - started
time.sleep(5)
print(most, peak // 1024, status("VmRSS:") // 1024, codes.get(200, 0), codes.get(503, 0), f"{wall:.1f}")
PY
)
    kill "$coordinator"; wait "$coordinator" 2>/dev/null || true
    printf "%-40s %8s %10s %10s %6s %6s %8s\n" "$BIN" $line
    rm -rf "$dir"
done
