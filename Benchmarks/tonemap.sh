#!/usr/bin/env bash
# HDR10 to SDR (issue 27): a 1080p HDR10 source (PQ, 1000 cd/m² master) to 720p 8-bit H.264 veryfast,
# tone-mapped. Two builds of `tessera transcode --backend cpu` side by side (BEFORE: whatever tone map
# that build has; AFTER: this one's), this build's Vulkan kernel (`--backend vulkan`), and the ffmpeg CLI
# on the CPU (zscale to linear light, Hable, zscale back, then scale: the chain Tessera ran before
# BT.2390 moved into its processors), alternating runs. Wall and CPU seconds, medians; and each output's
# PSNR against libplacebo's bt.2390 (the ffmpeg CLI on the Vulkan device) as the picture check.
# Usage: Benchmarks/tonemap.sh BEFORE_BINARY AFTER_BINARY [runs] [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=$1 AFTER=$2 RUNS=${3:-3} SECONDS_=${4:-10}
OUT=${BENCH_OUT:-bench-out}
mkdir -p "$OUT"
source Benchmarks/common.sh  # median, ratio, wall
SRC="$OUT/src-hdr10-1080p-${SECONDS_}s.mp4"
[ -s "$SRC" ] || ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$SECONDS_" \
    -vf "format=yuv444p,setparams=colorspace=bt709:color_trc=bt709:color_primaries=bt709:range=tv,zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=2020:t=smpte2084:m=2020_ncl:r=tv:npl=600,format=yuv420p10le" \
    -c:v libx265 -preset ultrafast -pix_fmt yuv420p10le \
    -x265-params "log-level=error:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400" \
    "$SRC"
REF="$OUT/tonemap-libplacebo.mkv"
[ -s "$REF" ] || ffmpeg -hide_banner -loglevel error -y -init_hw_device vulkan=vk:0 -filter_hw_device vk -i "$SRC" -vf \
    "format=yuv420p10le,hwupload,libplacebo=w=1280:h=720:tonemapping=bt.2390:tonemapping_mode=max:tonemapping_crosstalk=0:peak_detect=0:dithering=none:gamut_mode=clip:colorspace=bt709:color_primaries=bt709:color_trc=bt709:range=tv:format=yuv420p,hwdownload,format=yuv420p" \
    -c:v libx264 -qp 0 -preset ultrafast "$REF"
JOB=(--preset 1280x720 --speed veryfast --no-audio --overwrite --quiet)
# cpu NAME CMD...: appends "wall cpu" of one run to $OUT/tm-NAME.txt
cpu() {
    local name=$1; shift
    /usr/bin/time -f "%e %U %S" -o "$OUT/t.tmp" "$@" >/dev/null 2>"$OUT/last.stderr" || { tail -5 "$OUT/last.stderr"; exit 1; }
    awk '{printf "%s %.2f\n", $1, $2 + $3}' "$OUT/t.tmp" >> "$OUT/tm-$name.txt"
}
rm -f "$OUT"/tm-*.txt
for i in $(seq "$RUNS"); do
    cpu ffmpeg ffmpeg -hide_banner -nostdin -loglevel error -y -i "$SRC" -filter_threads 1 -vf \
        "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p,scale=1280:720" \
        -c:v libx264 -preset veryfast "$OUT/tm-ffmpeg.mp4"
    cpu before "$BEFORE" transcode "$SRC" -o "$OUT/tm-before.mp4" "${JOB[@]}" --backend cpu
    cpu after "$AFTER" transcode "$SRC" -o "$OUT/tm-after.mp4" "${JOB[@]}" --backend cpu
    cpu vulkan "$AFTER" transcode "$SRC" -o "$OUT/tm-vulkan.mp4" "${JOB[@]}" --backend vulkan
done
col() { awk -v c="$2" '{print $c}' "$OUT/tm-$1.txt" | median; }
# The median frame's PSNR: libplacebo on lavapipe in FFmpeg 5.1 hands back a few frames of a moving
# picture mixed with their neighbours, which pull an average down whatever is compared with them.
psnr() {
    ffmpeg -hide_banner -i "$1" -i "$REF" -lavfi "psnr=stats_file=$OUT/psnr.log" -f null - >/dev/null 2>&1
    sed 's/.*psnr_avg:\([0-9.inf]*\).*/\1/' "$OUT/psnr.log" | median
}
printf "%-26s %9s %9s %12s %12s\n" "median of $RUNS" "wall s" "CPU s" "CPU/ffmpeg" "dB vs placebo (median frame)"
for name in ffmpeg before after vulkan; do
    printf "%-26s %9s %9s %12s %12s\n" "$name" "$(col $name 1)" "$(col $name 2)" \
        "$(ratio "$(col $name 2)" "$(col ffmpeg 2)")" "$(psnr "$OUT/tm-$name.mp4")"
done
