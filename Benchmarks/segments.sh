#!/usr/bin/env bash
# Segmentation benchmarks (issue 3), in one run: segmented vs one-pass transcode, stitching vs
# ffmpeg's concat demuxer on the same segment files, and planning time against asset length.
# Usage: Benchmarks/segments.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
OUT=${BENCH_OUT:-bench-out}
BIN=.build/release/tessera
mkdir -p "$OUT"
[ -x "$BIN" ] || { echo "build first: swift build -c release" >&2; exit 1; }
source Benchmarks/common.sh  # median, ratio, wall

SRC="$OUT/src-1080p30-30s.mp4"
if [ ! -s "$SRC" ]; then
    ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=30 \
        -f lavfi -i sine=frequency=440:sample_rate=48000:duration=30 \
        -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p -c:a aac -b:a 192k "$SRC"
fi
# A source with a keyframe every 2 s, as a camera or mezzanine file has, so 4 s segments exist.
GOPSRC="$OUT/src-1080p30-30s-gop60.mp4"
[ -s "$GOPSRC" ] || ffmpeg -hide_banner -loglevel error -y -i "$SRC" -c:v libx264 -preset veryfast -crf 20 -g 60 \
    -c:a copy "$GOPSRC"

echo "== segmented (4 s segments, 2 workers, verified) vs one pass: 1080p30 30 s -> 720p H.264 veryfast =="
seg=(); one=()
for i in $(seq "$RUNS"); do
    one+=("$(wall "$BIN" transcode "$GOPSRC" -o "$OUT/one.mp4" --preset 1280x720 --speed veryfast --overwrite -q)")
    seg+=("$(wall "$BIN" transcode "$GOPSRC" -o "$OUT/seg.mp4" --preset 1280x720 --speed veryfast --overwrite -q \
        --segment-duration 4 --parallel 2)")
done
s=$(printf "%s\n" "${seg[@]}" | median); o=$(printf "%s\n" "${one[@]}" | median)
printf "%-40s %10s %10s %8s  %s\n" "wall seconds (median)" "segmented" "one pass" "ratio" "target"
printf "%-40s %10s %10s %8s  %s\n" "" "$s" "$o" "$(ratio "$s" "$o")" "<= 1.00"
echo "segmented/one pass, run by run: $(paste -d' ' <(printf "%s\n" "${seg[@]}") <(printf "%s\n" "${one[@]}") \
    | awk '{printf "%s%.3f", (NR > 1 ? ", " : ""), $1 / $2}')"

echo
echo "== stitching the same segment files: tessera stitch vs ffmpeg -f concat -c copy =="
rm -f "$OUT"/part*.mp4
ffmpeg -hide_banner -loglevel error -y -i "$SRC" -c copy -f segment -segment_time 2 -reset_timestamps 1 "$OUT/part%03d.mp4"
PARTS=$(ls "$OUT"/part*.mp4 | sort)
: > "$OUT/parts.txt"; for p in $PARTS; do echo "file '$(realpath "$p")'" >> "$OUT/parts.txt"; done
MB=$(du -cm $PARTS | tail -1 | cut -f1)
ts=(); ff=()
for i in $(seq $((RUNS * 3))); do
    ts+=("$(wall "$BIN" stitch $PARTS -o "$OUT/stitched.mp4" --overwrite)")
    ff+=("$(wall ffmpeg -hide_banner -nostdin -loglevel error -y -f concat -safe 0 -i "$OUT/parts.txt" -c copy "$OUT/concat.mp4")")
done
t=$(printf "%s\n" "${ts[@]}" | median); f=$(printf "%s\n" "${ff[@]}" | median)
printf "%-40s %10s %10s %8s  %s\n" "$(echo $PARTS | wc -w) segments, ${MB} MB: wall s (median)" "tessera" "ffmpeg" "speed" "target"
printf "%-40s %10s %10s %8s  %s\n" "" "$t" "$f" "$(ratio "$f" "$t")x" ">= 1.0x"

echo
echo "== planning (packet index + plan, 4 s segments) against asset length =="
for minutes in 10 30 60; do
    LONG="$OUT/long-${minutes}min.mp4"
    [ -s "$LONG" ] || ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=160x120:rate=30:duration=$((minutes * 60))" \
        -f lavfi -i "sine=duration=$((minutes * 60))" -c:v libx264 -preset ultrafast -g 60 -c:a aac -b:a 32k "$LONG"
    p=(); for i in $(seq "$RUNS"); do p+=("$(wall "$BIN" plan "$LONG" --segment-duration 4)"); done
    segs=$("$BIN" plan "$LONG" --segment-duration 4 --json | grep -c '"index"')
    printf "%-40s %10s s  (%s segments)%s\n" "${minutes} min, $((minutes * 1800)) frames" \
        "$(printf "%s\n" "${p[@]}" | median)" "$segs" "$([ "$minutes" = 60 ] && echo '   target < 2 s' || true)"
done
