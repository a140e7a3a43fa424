#!/usr/bin/env bash
# Retiming (issue 16) beside the equivalent ffmpeg filter graph, in one run: a 240 fps 720p source with
# a slow-motion range (source 2-4 s lasts 16 s), exported at 30 fps, H.264 veryfast CRF 23 + AAC 128k,
# audio time-stretched with rubberband in both; and the same job on the farm's path (`tessera run --workers 2`,
# segments planned on the output timeline). Prints wall time, frames, and each output's A/V end gap.
# Usage: Benchmarks/retime.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
OUT=${BENCH_OUT:-bench-out}
BIN=${TESSERA_BIN:-.build/release/tessera}  # TESSERA_BIN=path times another build (a before/after pair)
mkdir -p "$OUT"
[ -n "${TESSERA_BIN:-}" ] || swift build -c release --product tessera >/dev/null  # incremental: never stale
source Benchmarks/common.sh  # median, ratio, wall, probe_ends
SRC="$OUT/src-720p240-8s.mp4"
[ -s "$SRC" ] || ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=1280x720:rate=240:duration=8 \
    -f lavfi -i sine=frequency=440:sample_rate=48000:duration=8 -c:v libx264 -preset veryfast -crf 18 -g 240 \
    -pix_fmt yuv420p -c:a aac -b:a 192k "$SRC"
GRAPH="[0:v]trim=0:2,setpts=PTS-STARTPTS[v0];[0:v]trim=2:4,setpts=(PTS-STARTPTS)*8[v1];\
[0:v]trim=4:8,setpts=PTS-STARTPTS[v2];[v0][v1][v2]concat=n=3:v=1:a=0,fps=30[v];\
[0:a]atrim=0:2,asetpts=PTS-STARTPTS[a0];[0:a]atrim=2:4,asetpts=PTS-STARTPTS,rubberband=tempo=0.125[a1];\
[0:a]atrim=4:8,asetpts=PTS-STARTPTS[a2];[a0][a1][a2]concat=n=3:v=0:a=1[a]"
rm -f "$OUT"/retime-*.txt
for i in $(seq "$RUNS"); do
    wall ffmpeg -hide_banner -nostdin -loglevel error -y -i "$SRC" -filter_complex "$GRAPH" -map "[v]" -map "[a]" \
        -c:v libx264 -preset veryfast -crf 23 -c:a aac -b:a 128k "$OUT/retime-ffmpeg.mp4" >> "$OUT/retime-ffmpeg.txt"
    wall "$BIN" transcode "$SRC" -o "$OUT/retime-tessera.mp4" --scale 2s-4s:16s --frame-rate 30 --time-pitch spectral \
        --speed veryfast --audio-bitrate 128k --backend cpu --overwrite --quiet >> "$OUT/retime-tessera.txt"
    wall "$BIN" run "$SRC" -o "$OUT/retime-farm.mp4" --workers 2 --segment-duration 4 --scale 2s-4s:16s \
        --frame-rate 30 --time-pitch spectral --speed veryfast --audio-bitrate 128k --backend cpu --overwrite \
        --quiet >> "$OUT/retime-farm.txt"
done
t=$(median < "$OUT/retime-tessera.txt"); f=$(median < "$OUT/retime-ffmpeg.txt"); r=$(median < "$OUT/retime-farm.txt")
read -r tf tv ta <<< "$(probe_ends "$OUT/retime-tessera.mp4")"
read -r rf rv ra <<< "$(probe_ends "$OUT/retime-farm.mp4")"
read -r ff fv fa <<< "$(probe_ends "$OUT/retime-ffmpeg.mp4")"
printf "%-10s %12s %8s %11s %11s %13s\n" "median of $RUNS" "wall s" frames "video end" "audio end" "A/V end gap"
printf "%-10s %12s %8s %11s %11s %13s\n" tessera "$t" "$tf" "$tv" "$ta" "$(awk -v a="$ta" -v v="$tv" 'BEGIN {printf "%+.3f", a - v}')"
printf "%-10s %12s %8s %11s %11s %13s\n" "run -w 2" "$r" "$rf" "$rv" "$ra" "$(awk -v a="$ra" -v v="$rv" 'BEGIN {printf "%+.3f", a - v}')"
printf "%-10s %12s %8s %11s %11s %13s\n" ffmpeg "$f" "$ff" "$fv" "$fa" "$(awk -v a="$fa" -v v="$fv" 'BEGIN {printf "%+.3f", a - v}')"
echo "tessera/ffmpeg wall: $(ratio "$t" "$f") (target <= 1.00); run by run: $(paste -d' ' "$OUT/retime-tessera.txt" \
    "$OUT/retime-ffmpeg.txt" | awk '{printf "%.3f ", $1 / $2}')"
echo "run -w 2/ffmpeg wall: $(ratio "$r" "$f"); run by run: $(paste -d' ' "$OUT/retime-farm.txt" \
    "$OUT/retime-ffmpeg.txt" | awk '{printf "%.3f ", $1 / $2}')"
