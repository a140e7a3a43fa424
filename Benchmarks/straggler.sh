#!/usr/bin/env bash
# A slow worker must not hold a job's tail (issue 30). The same job on a real coordinator and worker
# processes, three ways, in turn, each on a fresh farm:
#   two    : two normal workers;
#   today  : the same two plus a third slowed from outside (SIGSTOP/SIGCONT, 0.1 s on in every 0.5 s:
#            about a fifth of its speed, still heartbeating), backup attempts off (--backup-multiplier 0);
#   backup : the same three with backup attempts on (the default).
# Target: backup / two <= 1.10 (wall seconds from submit to the verified output). Prints each run's
# ratios beside the medians, and the backup attempts started, won and wasted.
# Usage: Benchmarks/straggler.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
OUT=${BENCH_OUT:-bench-out}
BIN=.build/release/tessera
mkdir -p "$OUT"
[ -x "$BIN" ] || swift build -c release --product tessera >/dev/null
source Benchmarks/common.sh  # median, ratio, free_port
SRC="$OUT/straggler-src-1080p30-40s-gop60.mp4"
[ -s "$SRC" ] || ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=40 \
    -c:v libx264 -preset veryfast -crf 20 -g 60 -pix_fmt yuv420p "$SRC"

# run_farm NAME WORKERS SLOWED MULTIPLIER: one job on a fresh farm; appends its wall seconds to
# $OUT/straggler-NAME.txt and its backup counts to $OUT/straggler-NAME.backups.
run_farm() {
    local name=$1 workers=$2 slowed=$3 multiplier=$4 dir http zmq coordinator pids=() throttle=
    dir=$(mktemp -d "$OUT/straggler.XXXX")
    mkdir -p "$dir/out"
    http=$(free_port) zmq=$(free_port)
    "$BIN" coordinator --listen "tcp://127.0.0.1:$zmq" --http "127.0.0.1:$http" --data "$dir/data" \
        --media-root "$OUT" --output-root "$dir/out" --backup-multiplier "$multiplier" > "$dir/coordinator.log" 2>&1 &
    coordinator=$!
    export TESSERA_COORDINATOR="http://127.0.0.1:$http"
    for i in $(seq "$workers"); do
        "$BIN" worker --coordinator "tcp://127.0.0.1:$zmq" --id "w$i" --backend cpu --threads 1 \
            > "$dir/w$i.log" 2>&1 &
        pids+=($!)
    done
    for _ in $(seq 300); do
        [ "$("$BIN" workers --json 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))' \
            2>/dev/null || echo 0)" = "$workers" ] && break
        sleep 0.1
    done
    if [ "$slowed" = 1 ]; then
        local slow=${pids[$((workers - 1))]}
        ( while kill -STOP "$slow" 2>/dev/null; do sleep 0.4; kill -CONT "$slow" 2>/dev/null || break; sleep 0.1; done ) &
        throttle=$!
    fi
    /usr/bin/time -f "%e" -o "$dir/wall" "$BIN" submit "$(realpath "$SRC")" -o out.mp4 --preset 1280x720 \
        --speed veryfast --gop 60 --segment-duration 2 --wait --quiet > /dev/null 2> "$dir/submit.err" \
        || { echo "$name: the job failed:"; tail -5 "$dir/submit.err"; tail -20 "$dir/coordinator.log"; exit 1; }
    cat "$dir/wall" >> "$OUT/straggler-$name.txt"
    python3 - "$TESSERA_COORDINATOR" >> "$OUT/straggler-$name.backups" <<'PY'
import sys, urllib.request
text = urllib.request.urlopen(sys.argv[1] + "/metrics").read().decode()
counts = {o: 0 for o in ("started", "won", "wasted")}
for line in text.splitlines():
    if line.startswith("tessera_backup_attempts_total{"):
        outcome = line.split('outcome="')[1].split('"')[0]
        counts[outcome] = int(float(line.split()[-1]))
print(counts["started"], counts["won"], counts["wasted"])
PY
    [ -n "$throttle" ] && { kill "$throttle" 2>/dev/null; wait "$throttle" 2>/dev/null || true; }
    for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
    kill "$coordinator"; wait 2>/dev/null || true
    "$BIN" verify "$dir/out/out.mp4" --against "$SRC" > /dev/null \
        || { echo "$name: the output does not verify"; exit 1; }
    rm -rf "$dir"
}

rm -f "$OUT"/straggler-*.txt "$OUT"/straggler-*.backups
echo "== 1080p30 40 s -> 1280x720 veryfast, 2 s segments (20), workers --threads 1 --backend cpu; $RUNS runs =="
for _ in $(seq "$RUNS"); do
    run_farm two 2 0 1.5
    run_farm today 3 1 0
    run_farm backup 3 1 1.5
done
printf "%-44s %8s %8s %8s %12s %12s  %s\n" "wall seconds, submit to verified output" two today backup \
    "today/two" "backup/two" "target"
t=$(median < "$OUT/straggler-two.txt"); d=$(median < "$OUT/straggler-today.txt"); b=$(median < "$OUT/straggler-backup.txt")
printf "%-44s %8s %8s %8s %12s %12s  %s\n" "median of $RUNS" "$t" "$d" "$b" "$(ratio "$d" "$t")" "$(ratio "$b" "$t")" \
    "backup/two <= 1.10"
echo "run by run (today/two, backup/two): $(paste -d' ' "$OUT/straggler-two.txt" "$OUT/straggler-today.txt" \
    "$OUT/straggler-backup.txt" | awk '{printf "%.3f/%.3f ", $2 / $1, $3 / $1}')"
echo "backup attempts per run with backups on (started won wasted): $(paste -sd',' "$OUT/straggler-backup.backups")"
echo "backup attempts with them off: $(paste -sd',' "$OUT/straggler-today.backups")"
echo "load average now $(cut -d' ' -f1-3 /proc/loadavg)"
