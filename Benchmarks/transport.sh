#!/usr/bin/env bash
# Workers that read the source themselves (issue 30): the same job on a real coordinator and one worker
# process, its tasks sent with their source packets, then by reference to a worker started with
# --media-root (a shared mount; here the same folder), then by reference to a worker started with
# --media-url (reading byte ranges over the coordinator's HTTP API). Per segment: the bytes of the task
# messages the coordinator sent (tessera_task_bytes_sent_total), the source bytes it served over HTTP
# (tessera_media_bytes_served_total), its CPU seconds over the job, of which its result checks' CPU
# seconds (tessera_result_check_cpu_seconds_total; SegmentResultCheck decodes the result and the source's
# frames at the segment's ends, whatever the transport), the rest, and the wall seconds of each check.
# Target: bytes per segment by reference <= 1/100 of with packets; coordinator CPU per segment <= 0.5x.
# Usage: Benchmarks/transport.sh [runs]   (a 4K HEVC 10-bit source, 8 s, made once)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
OUT=${BENCH_OUT:-bench-out}
BIN=.build/release/tessera
mkdir -p "$OUT"
[ -x "$BIN" ] || swift build -c release --product tessera >/dev/null
source Benchmarks/common.sh  # median, ratio, free_port
SRC="$OUT/transport-src-2160p-hevc10-8s.mp4"
[ -s "$SRC" ] || ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=3840x2160:rate=30:duration=8 \
    -c:v libx265 -preset ultrafast -x265-params log-level=error:keyint=30 -pix_fmt yuv420p10le -tag:v hvc1 "$SRC"
cpu_of() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# one NAME [WORKER ARGS...]: one job on a fresh coordinator and worker; appends "bytes/segment cpu/segment"
one() {
    local name=$1; shift
    local dir http zmq coordinator worker before after job
    dir=$(mktemp -d "$OUT/transport.XXXX"); mkdir -p "$dir/out"
    http=$(free_port) zmq=$(free_port)
    "$BIN" coordinator --listen "tcp://127.0.0.1:$zmq" --http "127.0.0.1:$http" --data "$dir/data" \
        --media-root "$(realpath "$OUT")" --output-root "$dir/out" > "$dir/coordinator.log" 2>&1 &
    coordinator=$!
    export TESSERA_COORDINATOR="http://127.0.0.1:$http"
    "$BIN" worker --coordinator "tcp://127.0.0.1:$zmq" --id w1 --backend cpu "${@/@HTTP@/http://127.0.0.1:$http}" \
        > "$dir/worker.log" 2>&1 &
    worker=$!
    for _ in $(seq 300); do "$BIN" workers --json 2>/dev/null | grep -q '"w1"' && break; sleep 0.1; done
    before=$(cpu_of "$coordinator")
    job=$("$BIN" submit "$(realpath "$SRC")" -o out.mp4 --preset 1920x1080 --speed superfast --segment-duration 1 \
        --no-audio --json --wait | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
    after=$(cpu_of "$coordinator")
    python3 - "$TESSERA_COORDINATOR" "$job" "$before" "$after" "$(getconf CLK_TCK)" "$dir/coordinator.log" \
        >> "$OUT/transport-$name.txt" <<'PY'
import json, re, statistics, sys, urllib.request
base, job, before, after, tck = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
checks = [float(m) for m in re.findall(r"checked in ([0-9.]+) s", open(sys.argv[6]).read())]
text = urllib.request.urlopen(base + "/metrics").read().decode()
def total(prefix):  # a metric's samples added up (every label)
    return sum(float(l.split()[-1]) for l in text.splitlines() if l.startswith(prefix))
sent, served = total("tessera_task_bytes_sent_total{"), total("tessera_media_bytes_served_total")
check = total("tessera_result_check_cpu_seconds_total")
segments = json.load(urllib.request.urlopen(base + "/v1/jobs/" + job))["segmentsTotal"]
print(f"{sent / segments:.0f} {(after - before) / tck / segments:.4f} {statistics.median(checks) if checks else 0:.3f}"
      f" {served / segments:.0f} {check / segments:.4f}")
PY
    kill "$worker" "$coordinator"; wait 2>/dev/null || true
    rm -rf "$dir"
}

rm -f "$OUT"/transport-*.txt
echo "== 3840x2160 HEVC Main10 8 s -> 1920x1080 H.264 superfast, 1 s segments, one worker; $RUNS runs =="
for _ in $(seq "$RUNS"); do
    one packets
    one reference --media-root "$(realpath "$OUT")"
    one http --media-url @HTTP@
done
printf "%-34s %14s %14s %10s  %s\n" "per segment (median of $RUNS)" packets reference ratio target
p=$(cut -d' ' -f1 "$OUT/transport-packets.txt" | median); r=$(cut -d' ' -f1 "$OUT/transport-reference.txt" | median)
printf "%-34s %14s %14s %10s  %s\n" "task bytes sent by the coordinator" "$p" "$r" "$(ratio "$r" "$p")" "<= 0.010"
p=$(cut -d' ' -f2 "$OUT/transport-packets.txt" | median); r=$(cut -d' ' -f2 "$OUT/transport-reference.txt" | median)
printf "%-34s %14s %14s %10s  %s\n" "coordinator CPU seconds" "$p" "$r" "$(ratio "$r" "$p")" "<= 0.5"
p=$(cut -d' ' -f5 "$OUT/transport-packets.txt" | median); r=$(cut -d' ' -f5 "$OUT/transport-reference.txt" | median)
printf "%-34s %14s %14s\n" "of which the result checks (CPU s)" "$p" "$r"
# The rest: the coordinator's CPU less its checks' (each run's own difference), the transport's own cost.
p=$(awk '{printf "%.4f\n", $2 - $5}' "$OUT/transport-packets.txt" | median)
r=$(awk '{printf "%.4f\n", $2 - $5}' "$OUT/transport-reference.txt" | median)
printf "%-34s %14s %14s %10s\n" "the rest (CPU s)" "$p" "$r" "$(ratio "$r" "$p")"
p=$(cut -d' ' -f3 "$OUT/transport-packets.txt" | median); r=$(cut -d' ' -f3 "$OUT/transport-reference.txt" | median)
printf "%-34s %14s %14s\n" "each result's check (wall s)" "$p" "$r"
h=$(cut -d' ' -f1 "$OUT/transport-http.txt" | median); s=$(cut -d' ' -f4 "$OUT/transport-http.txt" | median)
c=$(cut -d' ' -f2 "$OUT/transport-http.txt" | median)
echo "over HTTP (--media-url): task bytes $h, source bytes served $s, coordinator CPU seconds $c per segment"
echo "(the check decodes the result and the source's frames at the segment's ends, whatever the transport)"
echo "load average now $(cut -d' ' -f1-3 /proc/loadavg)"
