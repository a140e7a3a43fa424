#!/usr/bin/env bash
# Compositions (issue 16) beside the equivalent ffmpeg filter graph, in one run: a 720p30 clip and a
# 1080p60 clip into a 1280x720 30 fps render, the second clip's source 2-3 s slowed to 4 s (rubberband
# audio in both), a fade in from black and a fade out of the sound; H.264 veryfast CRF 23 + AAC 128k.
# By `tessera transcode --spec` (one pass), `tessera run --spec --workers 2` (each run of the timeline
# cut into segments that the workers render as layers) and the ffmpeg CLI. ffmpeg gets Tessera's GOP
# (2 s: keyint 60, keyint_min 6, as x264's options in both files show); its default of 250 frames costs
# fewer keyframes. Prints wall time, frames and each output's A/V end gap.
# Usage: Benchmarks/composition.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
OUT=${BENCH_OUT:-bench-out}
BIN=${TESSERA_BIN:-.build/release/tessera}  # TESSERA_BIN=path times another build (a before/after pair)
mkdir -p "$OUT"
[ -n "${TESSERA_BIN:-}" ] || swift build -c release --product tessera >/dev/null  # incremental: never stale
source Benchmarks/common.sh  # median, ratio, wall, probe_ends
A="$(pwd)/$OUT/comp-a-720p30.mp4" B="$(pwd)/$OUT/comp-b-1080p60.mp4"
[ -s "$A" ] || ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=1280x720:rate=30:duration=8 \
    -f lavfi -i sine=frequency=440:sample_rate=48000:duration=8 -c:v libx264 -preset veryfast -crf 18 -g 60 \
    -pix_fmt yuv420p -c:a aac -b:a 192k "$A"
[ -s "$B" ] || ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc=size=1920x1080:rate=60:duration=8 \
    -f lavfi -i sine=frequency=660:sample_rate=48000:duration=8 -c:v libx264 -preset veryfast -crf 18 -g 120 \
    -pix_fmt yuv420p -c:a aac -b:a 192k "$B"
SPEC="$OUT/composition.json"
cat > "$SPEC" <<JSON
{"assets": [{"id": "a", "path": "$A"}, {"id": "b", "path": "$B"}],
 "edits": [{"insert": {"asset": "a", "range": "0s-6s"}}, {"insert": {"asset": "b", "range": "1s-5s"}},
           {"scale": {"range": "7s-8s", "toDuration": "4s"}}],
 "videoComposition": {"renderSize": "1280x720", "frameRate": "30", "opacity": [{"range": "0s-1s", "from": 0, "to": 1}]},
 "audioMix": {"volume": [{"range": "12s-13s", "from": 1, "to": 0}], "timePitch": "spectral"},
 "settings": {"video": {"codec": "h264", "rateControl": {"crf": 23}, "speed": "veryfast"},
              "audio": {"codec": "aac", "bitRate": 128000, "sampleRate": 48000, "channelCount": 2},
              "passthrough": false, "optimizeForNetworkUse": false}}
JSON
GRAPH="[0:v]trim=0:6,setpts=PTS-STARTPTS,fps=30[v0];\
[1:v]trim=1:2,setpts=PTS-STARTPTS,scale=1280:720,setsar=1,fps=30[v1];\
[1:v]trim=2:3,setpts=(PTS-STARTPTS)*4,scale=1280:720,setsar=1,fps=30[v2];\
[1:v]trim=3:5,setpts=PTS-STARTPTS,scale=1280:720,setsar=1,fps=30[v3];\
[v0][v1][v2][v3]concat=n=4:v=1:a=0,fade=t=in:st=0:d=1[v];\
[0:a]atrim=0:6,asetpts=PTS-STARTPTS[a0];[1:a]atrim=1:2,asetpts=PTS-STARTPTS[a1];\
[1:a]atrim=2:3,asetpts=PTS-STARTPTS,rubberband=tempo=0.25[a2];[1:a]atrim=3:5,asetpts=PTS-STARTPTS[a3];\
[a0][a1][a2][a3]concat=n=4:v=0:a=1,afade=t=out:st=12:d=1[a]"
rm -f "$OUT"/comp-*.txt
for i in $(seq "$RUNS"); do
    wall ffmpeg -hide_banner -nostdin -loglevel error -y -i "$A" -i "$B" -filter_complex "$GRAPH" -map "[v]" \
        -map "[a]" -c:v libx264 -preset veryfast -crf 23 -g 60 -keyint_min 6 -c:a aac -b:a 128k "$OUT/comp-ffmpeg.mp4" \
        >> "$OUT/comp-ffmpeg.txt"
    wall "$BIN" transcode --spec "$SPEC" -o "$OUT/comp-tessera.mp4" --overwrite --quiet >> "$OUT/comp-tessera.txt"
    wall "$BIN" run --spec "$SPEC" -o "$OUT/comp-farm.mp4" --workers 2 --segment-duration 4 --overwrite \
        --quiet >> "$OUT/comp-farm.txt"
done
t=$(median < "$OUT/comp-tessera.txt"); f=$(median < "$OUT/comp-ffmpeg.txt"); r=$(median < "$OUT/comp-farm.txt")
read -r tf tv ta <<< "$(probe_ends "$OUT/comp-tessera.mp4")"
read -r rf rv ra <<< "$(probe_ends "$OUT/comp-farm.mp4")"
read -r ff fv fa <<< "$(probe_ends "$OUT/comp-ffmpeg.mp4")"
printf "%-10s %12s %8s %11s %11s %13s\n" "median of $RUNS" "wall s" frames "video end" "audio end" "A/V end gap"
for row in "transcode $t $tf $tv $ta" "run-w-2 $r $rf $rv $ra" "ffmpeg $f $ff $fv $fa"; do
    read -r name w n v a <<< "$row"
    printf "%-10s %12s %8s %11s %11s %13s\n" "$name" "$w" "$n" "$v" "$a" "$(awk -v a="$a" -v v="$v" 'BEGIN {printf "%+.3f", a - v}')"
done
echo "transcode --spec/ffmpeg wall: $(ratio "$t" "$f"); run by run: $(paste -d' ' "$OUT/comp-tessera.txt" \
    "$OUT/comp-ffmpeg.txt" | awk '{printf "%.3f ", $1 / $2}')"
echo "run --spec -w 2/ffmpeg wall: $(ratio "$r" "$f"); run by run: $(paste -d' ' "$OUT/comp-farm.txt" \
    "$OUT/comp-ffmpeg.txt" | awk '{printf "%.3f ", $1 / $2}')"
