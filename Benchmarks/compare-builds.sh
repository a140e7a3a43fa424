#!/usr/bin/env bash
# Before/after in one run: two builds of `tessera` on the farm benchmark's job (1080p30 H.264+AAC 30 s ->
# 1280x720 CRF 23 veryfast GOP 60 + AAC 128k), one-pass `transcode` and `run --workers 2`, with the
# ffmpeg CLI as the anchor. Runs alternate (ffmpeg, before, after, ...) so that each ratio compares
# neighbours in time on a shared machine.
# Usage: Benchmarks/compare-builds.sh BEFORE_BINARY AFTER_BINARY [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=$1 AFTER=$2 RUNS=${3:-3}
OUT=${BENCH_OUT:-bench-out}
mkdir -p "$OUT"
source Benchmarks/common.sh  # median, ratio, wall
SRC="$OUT/src-1080p30-30s-gop60.mp4"
[ -s "$SRC" ] || ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=30 \
    -f lavfi -i sine=frequency=440:sample_rate=48000:duration=30 \
    -c:v libx264 -preset veryfast -crf 20 -g 60 -pix_fmt yuv420p -c:a aac -b:a 192k "$SRC"
JOB=(--preset 1280x720 --speed veryfast --gop 60 --audio-bitrate 128k --backend cpu --overwrite --quiet)
rm -f "$OUT"/cmp-*.txt
for i in $(seq "$RUNS"); do
    wall ffmpeg -hide_banner -nostdin -loglevel error -y -i "$SRC" -vf scale=1280:720 -c:v libx264 -preset veryfast \
        -crf 23 -g 60 -c:a aac -b:a 128k "$OUT/cmp-ffmpeg.mp4" >> "$OUT/cmp-ffmpeg.txt"
    for build in before after; do
        bin=$BEFORE; [ "$build" = after ] && bin=$AFTER
        wall "$bin" transcode "$SRC" -o "$OUT/cmp-$build-1pass.mp4" "${JOB[@]}" >> "$OUT/cmp-$build-1pass.txt"
        wall "$bin" run "$SRC" -o "$OUT/cmp-$build-run.mp4" "${JOB[@]}" --workers 2 --segment-duration 4 \
            >> "$OUT/cmp-$build-run.txt"
    done
done
ff=$(median < "$OUT/cmp-ffmpeg.txt")
printf "%-22s %9s %9s %9s %11s %11s %12s\n" "median of $RUNS, wall s" before after ffmpeg "before/ff" "after/ff" "after/before"
for job in 1pass run; do
    b=$(median < "$OUT/cmp-before-$job.txt"); a=$(median < "$OUT/cmp-after-$job.txt")
    printf "%-22s %9s %9s %9s %11s %11s %12s\n" "$job" "$b" "$a" "$ff" "$(ratio "$b" "$ff")" "$(ratio "$a" "$ff")" \
        "$(ratio "$a" "$b")"
done
for job in 1pass run; do
    echo "$job after/before, run by run: $(paste -d' ' "$OUT/cmp-after-$job.txt" "$OUT/cmp-before-$job.txt" \
        | awk '{printf "%.3f ", $1 / $2}')"
done
