#!/usr/bin/env bash
# Side-by-side benchmarks against the ffmpeg CLI, measured in one run on this machine.
# Prints a table of medians and ratios (tessera / ffmpeg). Usage: Benchmarks/run.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
OUT=${BENCH_OUT:-bench-out}
BIN=.build/release/tessera
mkdir -p "$OUT"
[ -x "$BIN" ] || { echo "build first: swift build -c release" >&2; exit 1; }

SRC="$OUT/src-1080p30-30s.mp4"
if [ ! -s "$SRC" ]; then
    echo "making $SRC (1080p30 H.264 + AAC, 30 s)"
    ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=30 \
        -f lavfi -i sine=frequency=440:sample_rate=48000:duration=30 \
        -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p -c:a aac -b:a 192k "$SRC"
fi

# measure NAME CMD...: appends "wall cpu maxrss_kb" for one run to $OUT/NAME.txt
measure() {
    local name=$1; shift
    /usr/bin/time -f "%e %U %S %M" -o "$OUT/time.tmp" "$@" >/dev/null 2>"$OUT/$name.stderr" || {
        echo "$name failed:"; tail -5 "$OUT/$name.stderr"; exit 1; }
    awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$OUT/time.tmp" >> "$OUT/$name.txt"
}

source Benchmarks/common.sh  # median, ratio, wall

rm -f "$OUT"/transcode-*.txt
echo "1080p30 H.264+AAC 30 s -> 1280x720 H.264 CRF 23 veryfast GOP 60 + AAC 128k, $RUNS runs each, alternating"
for i in $(seq "$RUNS"); do
    measure transcode-ffmpeg ffmpeg -hide_banner -nostdin -loglevel error -y -i "$SRC" -vf scale=1280:720 \
        -c:v libx264 -preset veryfast -crf 23 -g 60 -c:a aac -b:a 128k "$OUT/ffmpeg-720p.mp4"
    measure transcode-tessera "$BIN" transcode "$SRC" -o "$OUT/tessera-720p.mp4" --preset 1280x720 \
        --speed veryfast --audio-bitrate 128k --overwrite --quiet --backend cpu
    measure transcode-tessera-auto "$BIN" transcode "$SRC" -o "$OUT/tessera-auto-720p.mp4" --preset 1280x720 \
        --speed veryfast --audio-bitrate 128k --overwrite --quiet
done

row() {
    local label=$1 ours=$2 theirs=$3 target=$4
    local r
    r=$(awk -v a="$ours" -v b="$theirs" 'BEGIN {printf "%.3f", a / b}')
    printf "%-34s %12s %12s %8s  %s\n" "$label" "$ours" "$theirs" "$r" "$target"
}
col() { awk -v c="$2" '{print $c}' "$OUT/$1.txt" | median; }

for variant in "transcode-tessera:--backend cpu" "transcode-tessera-auto:--backend auto (default)"; do
    name=${variant%%:*}
    printf "\n%-34s %12s %12s %8s  %s\n" "tessera ${variant#*:} (median)" "tessera" "ffmpeg" "ratio" "target"
    row "wall seconds" "$(col "$name" 1)" "$(col transcode-ffmpeg 1)" "<= 1.00"
    row "CPU seconds (user+sys)" "$(col "$name" 2)" "$(col transcode-ffmpeg 2)" "<= 1.05"
    row "peak RSS KiB" "$(col "$name" 3)" "$(col transcode-ffmpeg 3)" "<= 1.50"
done

# Same job, same quality: both outputs against the source (independent check that the work is comparable).
psnr() {
    ffmpeg -hide_banner -i "$1" -i "$SRC" -filter_complex \
        "[1:v]scale=1280:720:flags=bicubic,settb=1/30,setpts=N[r];[0:v]settb=1/30,setpts=N[d];[d][r]psnr=shortest=1" \
        -f null - 2>&1 | grep -o 'average:[0-9.inf]*' | cut -d: -f2
}
printf "%-34s %12s %12s\n" "PSNR vs source (dB)" "$(psnr "$OUT/tessera-720p.mp4")" "$(psnr "$OUT/ffmpeg-720p.mp4")"
printf "%-34s %12s %12s\n" "output bytes" "$(stat -c %s "$OUT/tessera-720p.mp4")" "$(stat -c %s "$OUT/ffmpeg-720p.mp4")"
