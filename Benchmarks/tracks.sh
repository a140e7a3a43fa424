#!/usr/bin/env bash
# Every track carried (issue 18), in one run: tessera transcode vs the ffmpeg CLI on a 1080p30 20 s
# Matroska source with two AAC tracks, SubRip subtitles and chapters, to 720p H.264 veryfast in MP4:
# with one audio track chosen, and with every track (both audio tracks transcoded, the subtitles
# converted to mov_text, the chapters kept). ffmpeg is given the same work with -map.
# Usage: Benchmarks/tracks.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
OUT=${BENCH_OUT:-bench-out}
BIN=.build/release/tessera
mkdir -p "$OUT"
[ -x "$BIN" ] || { echo "build first: swift build -c release" >&2; exit 1; }
source Benchmarks/common.sh  # median, ratio, wall

SRC="$OUT/src-1080p30-20s-tracks.mkv"
if [ ! -s "$SRC" ]; then
    printf '1\n00:00:01,000 --> 00:00:04,000\nfirst\n\n2\n00:00:08,000 --> 00:00:12,500\nsecond\n\n3\n00:00:15,000 --> 00:00:19,000\nthird\n' > "$OUT/tracks.srt"
    printf ';FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=10000\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=10000\nEND=20000\ntitle=Two\n' > "$OUT/tracks.chapters"
    ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=20 \
        -f lavfi -i sine=frequency=440:sample_rate=48000:duration=20 -f lavfi -i sine=frequency=660:sample_rate=48000:duration=20 \
        -i "$OUT/tracks.srt" -i "$OUT/tracks.chapters" -map 0:v -map 1:a -map 2:a -map 3:s -map_chapters 4 \
        -c:v libx264 -preset veryfast -crf 20 -g 60 -pix_fmt yuv420p -c:a aac -b:a 192k -c:s srt \
        -metadata:s:a:0 language=eng -metadata:s:a:1 language=fre "$SRC"
fi

FF=(ffmpeg -hide_banner -nostdin -loglevel error -y -i "$SRC" -vf scale=1280:720 -c:v libx264 -preset veryfast -crf 23
    -c:a aac -b:a 128k)
printf "%-44s %10s %10s %8s\n" "1080p30 20 s -> 720p, wall s (median of $RUNS)" "tessera" "ffmpeg" "ratio"
for case in one every; do
    t=(); f=()
    for i in $(seq "$RUNS"); do
        if [ $case = one ]; then
            t+=("$(wall "$BIN" transcode "$SRC" -o "$OUT/tracks-t.mp4" --preset 1280x720 --speed veryfast --audio-track 1 --overwrite -q)")
            f+=("$(wall "${FF[@]}" -map 0:v -map 0:a:0 -sn -map_chapters -1 "$OUT/tracks-f.mp4")")
        else
            t+=("$(wall "$BIN" transcode "$SRC" -o "$OUT/tracks-t.mp4" --preset 1280x720 --speed veryfast --overwrite -q)")
            f+=("$(wall "${FF[@]}" -map 0 -c:s mov_text "$OUT/tracks-f.mp4")")
        fi
    done
    tm=$(printf "%s\n" "${t[@]}" | median); fm=$(printf "%s\n" "${f[@]}" | median)
    label=$([ $case = one ] && echo "one audio track" || echo "every track (2 audio, subtitles, chapters)")
    printf "%-44s %10s %10s %8s\n" "$label" "$tm" "$fm" "$(ratio "$tm" "$fm")"
    echo "  run by run (tessera/ffmpeg): $(paste -d' ' <(printf "%s\n" "${t[@]}") <(printf "%s\n" "${f[@]}") \
        | awk '{printf "%s%.3f", (NR > 1 ? ", " : ""), $1 / $2}')"
done
echo "streams written by tessera: $(ffprobe -v error -show_entries stream=codec_type,codec_name -of csv=p=0 "$OUT/tracks-t.mp4" | tr '\n' ' ')"
