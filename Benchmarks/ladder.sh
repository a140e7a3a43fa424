#!/usr/bin/env bash
# A three-rendition HLS ladder (issue 28), side by side in one run, from a 1080p30 30 s H.264 + AAC source
# (keyframes every 2 s, as a mezzanine or a broadcast file has them):
#   tessera   `tessera run --workers 2 --package hls` with renditions 1920x1080:5M, 1280x720:3M, 640x360:800k,
#             6 s segments, x264 veryfast: one decode per 2 s farm segment, three encodes, CMAF + playlists;
#             each encode decoded again and measured (verification decode, the default)
#   timing    the same with --verification timing: nothing decoded after encoding (ffmpeg's work)
#   ffmpeg    one ffmpeg command: split, three scales, three x264 veryfast encodes at the same rates, caps
#             (max rate 1.5x, one-second buffer) and keyframe interval (2 s), the HLS muxer in fMP4
# Prints wall, CPU (user + system), peak RSS; then for each package every variant's declared BANDWIDTH and
# AVERAGE-BANDWIDTH beside the rates measured from its files (video + audio segment by segment), and where
# its audio is heard to start and end (decoded, first and last sample above silence) against its video's
# first frame and end.
# Usage: Benchmarks/ladder.sh
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${BENCH_OUT:-bench-out}
BIN=.build/release/tessera
PY=${TOOLS_PYTHON:-/opt/tessera-tools/bin/python}
mkdir -p "$OUT"
swift build -c release --product tessera >/dev/null  # incremental: never a stale binary
SRC="$(pwd)/$OUT/ladder-src-g60.mp4"
[ -s "$SRC" ] || ffmpeg -hide_banner -loglevel error -y \
    -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=30" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=30" \
    -c:v libx264 -preset veryfast -crf 18 -g 60 -pix_fmt yuv420p -c:a aac -b:a 160k -ac 2 "$SRC"

measure() {  # measure NAME CMD... : wall, CPU and peak RSS (MB) of CMD
    local name=$1; shift
    /usr/bin/time -f "%e %U %S %M" -o "$OUT/t.tmp" "$@" >"$OUT/ladder-$name.log" 2>&1 || { tail -5 "$OUT/ladder-$name.log"; exit 1; }
    awk '{printf "%.2f %.2f %.0f", $1, $2 + $3, $4 / 1024}' "$OUT/t.tmp"
}

rm -rf "$OUT/ladder-tessera" "$OUT/ladder-timing" "$OUT/ladder-ffmpeg"
LADDER=(--package hls --rendition 1920x1080:5M --rendition 1280x720:3M --rendition 640x360:800k --package-segment 6
    --speed veryfast --audio-bitrate 128k --quiet)
read -r tw tc tm <<< "$(measure tessera "$BIN" run "$SRC" -o "$OUT/ladder-tessera" --workers 2 "${LADDER[@]}")"
read -r vw vc vm <<< "$(measure timing "$BIN" run "$SRC" -o "$OUT/ladder-timing" --workers 2 --verification timing "${LADDER[@]}")"
mkdir -p "$OUT/ladder-ffmpeg"
read -r fw fc fm <<< "$(measure ffmpeg ffmpeg -hide_banner -loglevel error -y -i "$SRC" \
    -filter_complex "[0:v]split=3[a][b][c];[a]scale=1920:1080[v0];[b]scale=1280:720[v1];[c]scale=640:360[v2]" \
    -map "[v0]" -map "[v1]" -map "[v2]" -map 0:a -c:v libx264 -preset veryfast -g 60 -keyint_min 60 \
    -b:v:0 5M -maxrate:v:0 7.5M -bufsize:v:0 7.5M -b:v:1 3M -maxrate:v:1 4.5M -bufsize:v:1 4.5M \
    -b:v:2 800k -maxrate:v:2 1.2M -bufsize:v:2 1.2M -c:a aac -b:a 128k \
    -f hls -hls_time 6 -hls_playlist_type vod -hls_segment_type fmp4 -master_pl_name master.m3u8 \
    -var_stream_map "v:0,agroup:aud v:1,agroup:aud v:2,agroup:aud a:0,agroup:aud" \
    -hls_segment_filename "$OUT/ladder-ffmpeg/v%v/seg_%05d.m4s" "$OUT/ladder-ffmpeg/v%v/playlist.m3u8")"

printf "%-8s %8s %8s %8s\n" "" "wall s" "CPU s" "RSS MB"
printf "%-8s %8s %8s %8s\n" tessera "$tw" "$tc" "$tm"
printf "%-8s %8s %8s %8s\n" timing "$vw" "$vc" "$vm"
printf "%-8s %8s %8s %8s\n" ffmpeg "$fw" "$fc" "$fm"
echo "tessera / ffmpeg: wall $(awk -v a="$tw" -v b="$fw" 'BEGIN {printf "%.3f", a / b}'), CPU $(awk -v a="$tc" -v b="$fc" 'BEGIN {printf "%.3f", a / b}') (targets: wall <= 0.95, CPU <= 1.0)"
echo "timing / ffmpeg: wall $(awk -v a="$vw" -v b="$fw" 'BEGIN {printf "%.3f", a / b}'), CPU $(awk -v a="$vc" -v b="$fc" 'BEGIN {printf "%.3f", a / b}')"

"$PY" - "$OUT/ladder-tessera" "$OUT/ladder-ffmpeg" <<'PY'
import os, subprocess, sys
import m3u8

def track(playlist_path):
    """A media playlist's init + segments: (init path, [(segment path, duration)])."""
    pl = m3u8.load(playlist_path)
    base = os.path.dirname(playlist_path)
    init = os.path.join(base, pl.segment_map[0].uri) if pl.segment_map else None
    return init, [(os.path.join(base, s.uri), s.duration) for s in pl.segments]

def joined(init, segments, name):
    path = f"/tmp/ladder-{name}.mp4"
    with open(path, "wb") as out:
        for p in ([init] if init else []) + [s for s, _ in segments]:
            out.write(open(p, "rb").read())
    return path

def heard(path):
    """Seconds of the first and last audible sample (|x| > 1000 of 32767), decoded at 48 kHz, on the file's
    timeline: the decoded samples start at the stream's start time (negative where an edit list cuts an
    encoder's priming)."""
    start = float(subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
                                  "stream=start_time", "-of", "csv=p=0", path],
                                 capture_output=True, text=True, check=True).stdout.strip() or 0)
    pcm = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-ac", "1", "-ar", "48000", "-"],
                         capture_output=True, check=True).stdout
    samples = [int.from_bytes(pcm[i:i + 2], "little", signed=True) for i in range(0, len(pcm) - 1, 2)]
    loud = [i for i, x in enumerate(samples) if abs(x) > 1000]
    return start + loud[0] / 48000, start + (loud[-1] + 1) / 48000

def video_span(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "packet=pts_time,duration_time", "-of", "csv=p=0", path],
                         capture_output=True, text=True, check=True).stdout.split()
    pts = [(float(a), float(b)) for a, b in (l.split(",")[:2] for l in out)]
    return min(p for p, _ in pts), max(p + d for p, d in pts)

for folder in sys.argv[1:]:
    name = os.path.basename(folder).replace("ladder-", "")
    master = m3u8.load(os.path.join(folder, "master.m3u8"))
    audio_uri = next((m.uri for m in master.media if m.type == "AUDIO" and m.uri), None)
    a_init, a_segs = track(os.path.join(folder, audio_uri)) if audio_uri else (None, [])
    print(f"\n{name}: {len(master.playlists)} variants, {len(a_segs)} audio segments")
    print(f"  {'variant':<26} {'BANDWIDTH':>10} {'measured':>10} {'ratio':>6}   {'AVERAGE':>9} {'measured':>9} {'ratio':>6}")
    for p in master.playlists:
        if not p.stream_info.resolution:
            continue  # an audio-only variant
        v_init, v_segs = track(os.path.join(folder, p.uri))
        peak, total_bytes, total_s = 0.0, 0, 0.0
        for k, (seg, d) in enumerate(v_segs):
            b = os.path.getsize(seg) + (os.path.getsize(a_segs[k][0]) if k < len(a_segs) else 0)
            peak = max(peak, b * 8 / d)
            total_bytes += b
            total_s += d
        extra = sum(os.path.getsize(s) for s, _ in a_segs[len(v_segs):])
        average = (total_bytes + extra) * 8 / total_s
        declared, declared_avg = p.stream_info.bandwidth, p.stream_info.average_bandwidth
        print(f"  {p.uri:<26} {declared:>10} {peak:>10.0f} {declared / peak:>6.3f}   "
              f"{declared_avg or '-':>9} {average:>9.0f} {(declared_avg / average if declared_avg else float('nan')):>6.3f}")
    v_init, v_segs = track(os.path.join(folder, master.playlists[0].uri))
    v0, v1 = video_span(joined(v_init, v_segs, name + "-v"))
    if a_segs:
        h0, h1 = heard(joined(a_init, a_segs, name + "-a"))
        print(f"  video {v0:.3f}-{v1:.3f} s; audio heard {h0:.3f}-{h1:.3f} s: starts {1000 * (h0 - v0):+.0f} ms, "
              f"ends {1000 * (h1 - v1):+.0f} ms from the video")
PY
