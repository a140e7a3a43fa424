#!/usr/bin/env bash
# Planning a long MP4 (issue 30): `tessera plan` by two builds, the source evicted from the page cache
# before every run (posix_fadvise DONTNEED), so each reads from the disk as a coordinator planning a film
# it has not seen does. Per build: wall and CPU seconds (medians) and the bytes it read (rchar, less what a
# command that does nothing reads). The source: a 60 s 1080p30 H.264 + AAC clip stream-copied MINUTES
# times over. Builds alternate run by run.
# Usage: Benchmarks/planning.sh BEFORE_BINARY AFTER_BINARY [runs] [minutes]
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=$1 AFTER=$2 RUNS=${3:-3} MINUTES=${4:-20}
OUT=${BENCH_OUT:-bench-out}
mkdir -p "$OUT"
source Benchmarks/common.sh  # median, ratio
CLIP="$OUT/src-1080p30-60s.mp4"
[ -s "$CLIP" ] || ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=60 \
    -f lavfi -i sine=frequency=440:sample_rate=48000:duration=60 \
    -c:v libx264 -preset veryfast -crf 20 -g 60 -pix_fmt yuv420p -c:a aac -b:a 192k "$CLIP"
SRC="$OUT/planning-${MINUTES}min.mp4"
[ -s "$SRC" ] || ffmpeg -hide_banner -loglevel error -y -stream_loop $((MINUTES - 1)) -i "$CLIP" -c copy "$SRC"

# one BINARY ARGS...: "wall cpu rchar" of one run, the source evicted first
one() {
    python3 - "$SRC" "$@" <<'PY'
import os, resource, subprocess, sys, time
src, args = sys.argv[1], sys.argv[2:]
fd = os.open(src, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)
before = resource.getrusage(resource.RUSAGE_CHILDREN)
start = time.perf_counter()
child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
err = child.stderr.read()
os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
wall = time.perf_counter() - start
rchar = int(dict(l.split(": ") for l in open(f"/proc/{child.pid}/io").read().splitlines())["rchar"])
if child.wait() != 0:
    sys.exit(f"{' '.join(args)} failed: {err[-500:]}")
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
print(f"{wall:.3f} {cpu:.3f} {rchar}")
PY
}
rm -f "$OUT"/planning-{before,after}.txt
for _ in $(seq "$RUNS"); do
    for build in before after; do
        bin=$BEFORE; [ "$build" = after ] && bin=$AFTER
        idle=$(one "$bin" presets | cut -d' ' -f3)
        one "$bin" plan "$SRC" --segment-duration 4 --json | awk -v idle="$idle" '{print $1, $2, $3 - idle}' \
            >> "$OUT/planning-$build.txt"
    done
done
cmp -s <("$BEFORE" plan "$SRC" --segment-duration 4 --json | grep -v planningSeconds) \
    <("$AFTER" plan "$SRC" --segment-duration 4 --json | grep -v planningSeconds) \
    && echo "(both builds plan the same segments)" || echo "(THE PLANS DIFFER)"
col() { cut -d' ' -f"$2" "$OUT/planning-$1.txt" | median; }
echo "== tessera plan, ${MINUTES} min of 1080p30 H.264 + AAC ($(stat -c %s "$SRC") bytes), cold cache, median of $RUNS =="
printf "%-14s %10s %10s %14s\n" "" "wall s" "CPU s" "bytes read"
for build in before after; do
    printf "%-14s %10s %10s %14s\n" "$build" "$(col "$build" 1)" "$(col "$build" 2)" "$(col "$build" 3)"
done
printf "%-14s %10s %10s %14s\n" "after/before" "$(ratio "$(col after 1)" "$(col before 1)")" \
    "$(ratio "$(col after 2)" "$(col before 2)")" "$(ratio "$(col after 3)" "$(col before 3)")"
