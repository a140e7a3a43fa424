#!/usr/bin/env bash
# An AAC encode in chunks on every core (ChunkedAudioEncoder), in one run: a 10-minute stereo source
# (tones, bursts, clicks, noise) to AAC 128k in .m4a, an export with no video, where the chunks apply.
#   ffmpeg   the ffmpeg CLI: one encoder (the anchor)
#   before   a build that encodes with one encoder
#   after    a build that encodes in chunks on every core
# Runs alternate; prints the median wall and CPU seconds of each and the ratios, then each output's packet
# count and duration (they must be one encoder's).
# Usage: Benchmarks/audio.sh BEFORE_BINARY AFTER_BINARY [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=$1 AFTER=$2 RUNS=${3:-3}
OUT=${BENCH_OUT:-bench-out}
mkdir -p "$OUT"
source Benchmarks/common.sh  # median, ratio
SRC="$OUT/audio-10min.wav"
[ -s "$SRC" ] || ffmpeg -hide_banner -loglevel error -y -f lavfi -i \
    "aevalsrc=0.25*sin(2*PI*(220+60*mod(t\,9))*t)+0.2*sin(2*PI*3000*t)*lt(mod(t\,0.7)\,0.05)+0.05*(random(0)-0.5)|0.25*sin(2*PI*330*t)+0.3*lt(mod(t\,0.53)\,0.004)+0.03*(random(1)-0.5):s=48000:d=600" \
    -c:a pcm_s16le "$SRC"
timed() {  # timed NAME CMD... : appends "wall cpu" to $OUT/audio-NAME.txt
    local name=$1; shift
    /usr/bin/time -f "%e %U %S" -o "$OUT/t.tmp" "$@" >/dev/null 2>"$OUT/last.stderr" || { tail -5 "$OUT/last.stderr"; exit 1; }
    awk '{printf "%s %.2f\n", $1, $2 + $3}' "$OUT/t.tmp" >> "$OUT/audio-$name.txt"
}
rm -f "$OUT"/audio-{ffmpeg,before,after}.txt
for i in $(seq "$RUNS"); do
    timed ffmpeg ffmpeg -hide_banner -nostdin -loglevel error -y -i "$SRC" -c:a aac -b:a 128k "$OUT/audio-ffmpeg.m4a"
    timed before "$BEFORE" transcode "$SRC" -o "$OUT/audio-before.m4a" --audio-bitrate 128k --overwrite --quiet
    timed after "$AFTER" transcode "$SRC" -o "$OUT/audio-after.m4a" --audio-bitrate 128k --overwrite --quiet
done
col() { cut -d' ' -f"$2" "$OUT/audio-$1.txt" | median; }
printf "%-16s %8s %8s %8s %10s %10s %13s\n" "median of $RUNS" ffmpeg before after "before/ff" "after/ff" "after/before"
for m in "wall s:1" "CPU s:2"; do
    IFS=: read -r label c <<< "$m"
    f=$(col ffmpeg "$c"); b=$(col before "$c"); a=$(col after "$c")
    printf "%-16s %8s %8s %8s %10s %10s %13s\n" "$label" "$f" "$b" "$a" "$(ratio "$b" "$f")" "$(ratio "$a" "$f")" \
        "$(ratio "$a" "$b")"
done
echo "cores: $(nproc); load average now $(cut -d' ' -f1-3 /proc/loadavg)"
for n in ffmpeg before after; do
    printf "%-7s packets %s, ends at %s s\n" "$n" \
        "$(ffprobe -v error -select_streams a:0 -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$OUT/audio-$n.m4a")" \
        "$(ffprobe -v error -select_streams a:0 -show_entries packet=pts_time,duration_time -of csv=p=0 "$OUT/audio-$n.m4a" \
            | awk -F, '{e = $1 + $2; if (e > m) m = e} END {printf "%.6f", m}')"
done
