#!/usr/bin/env bash
# Side-by-side frames/s of TesseraCompute against ffmpeg's filters, in one run on this machine:
#
#   1080p yuv420p → 720p yuv420p bicubic, and 4K yuv420p10le → 1080p yuv420p bicubic:
#     tessera vulkan (frames in flight) and vulkan (one at a time) on the chosen Vulkan device,
#     ffmpeg scale_vulkan and libplacebo on the same device (hwupload/hwdownload included),
#     tessera cpu (a frame per core in flight, each through libswscale + Tessera's turning), the same
#     with libswscale's slice threads instead, and libswscale with one thread.
#
# Every figure starts and ends with frames in system memory. Prints a Markdown table.
# usage: Benchmarks/compute/run.sh [frames-1080p] [frames-4k]     (env WORK=dir for the raw inputs)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${WORK:-${TMPDIR:-/tmp}/tessera-compute-bench}"
n1080="${1:-240}"
n4k="${2:-96}"
mkdir -p "$work"

(cd "$root" && swift build -c release --product tessera-compute-bench >&2)
bench="$root/.build/release/tessera-compute-bench"

# Raw inputs, made once: 8 frames of testsrc2 at 1080p 8-bit, 4 frames at 4K 10-bit.
[ -s "$work/in1080.yuv" ] || ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=1920x1080:rate=30 \
    -frames:v 8 -pix_fmt yuv420p -f rawvideo "$work/in1080.yuv"
[ -s "$work/in2160p10.yuv" ] || ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=3840x2160:rate=30 \
    -frames:v 4 -pix_fmt yuv420p10le -f rawvideo "$work/in2160p10.yuv"

device="$(vulkaninfo --summary 2>/dev/null | sed -n 's/^[[:space:]]*deviceName[[:space:]]*= //p' | head -1)"

# ffmpeg_fps <frames> <input args...> -- <filter>: frames / wall time from ffmpeg's -benchmark rtime.
ffmpeg_fps() {
    local frames="$1"; shift
    local filter="${@: -1}"
    local inputs=("${@:1:$#-1}")
    local out
    if ! out="$(ffmpeg -hide_banner -nostats -benchmark -init_hw_device vulkan=vk:0 -filter_hw_device vk \
                -stream_loop -1 "${inputs[@]}" -frames:v "$frames" -vf "$filter" -f null - 2>&1)"; then
        echo "error"; return
    fi
    local rtime
    rtime="$(echo "$out" | sed -n 's/.*rtime=\([0-9.]*\)s.*/\1/p' | tail -1)"
    awk -v n="$frames" -v t="$rtime" 'BEGIN { printf "%.1f", n / t }'
}

tessera_fps() {  # label line from the bench binary → frames/s
    echo "$1" | awk -v l="$2" '$1 == "RESULT" && $2 == l { print ($3 == "error") ? "error" : $5 }'
}

row() { printf '| %-62s | %10s |\n' "$1" "$2"; }

echo "Device: ${device:-none}; $(nproc) CPU cores; load average $(cut -d" " -f1-3 /proc/loadavg) at start; $(date -u +%Y-%m-%dT%H:%MZ)"
echo
printf '| %-62s | %10s |\n' "1080p yuv420p → 720p yuv420p (bicubic)" "frames/s"
printf '|%s|%s|\n' "----------------------------------------------------------------" "------------"
r="$("$bench" "$work/in1080.yuv" 1920 1080 yuv420p 1280 720 yuv420p bicubic "$n1080" \
    vk:vulkan vks:vulkan-sync cpuf:cpu-frames cpu:cpu cpu1:cpu1)"
raw1080=(-f rawvideo -pix_fmt yuv420p -s 1920x1080 -i "$work/in1080.yuv")
row "tessera vulkan, 3 frames in flight" "$(tessera_fps "$r" vk)"
row "tessera vulkan, one frame at a time" "$(tessera_fps "$r" vks)"
row "ffmpeg scale_vulkan (bilinear: it has no bicubic)" \
    "$(ffmpeg_fps $((n1080 * 2)) "${raw1080[@]}" "hwupload,scale_vulkan=w=1280:h=720,hwdownload,format=yuv420p")"
row "ffmpeg libplacebo (catmull_rom)" \
    "$(ffmpeg_fps "$n1080" "${raw1080[@]}" \
        "hwupload,libplacebo=w=1280:h=720:downscaler=catmull_rom:format=yuv420p,hwdownload,format=yuv420p")"
row "tessera cpu ($(nproc) frames in flight, one per core)" "$(tessera_fps "$r" cpuf)"
row "tessera cpu as libswscale slice threads ($(nproc))" "$(tessera_fps "$r" cpu)"
row "libswscale, 1 thread" "$(tessera_fps "$r" cpu1)"

echo
printf '| %-62s | %10s |\n' "4K yuv420p10le → 1080p yuv420p (bicubic, dithered)" "frames/s"
printf '|%s|%s|\n' "----------------------------------------------------------------" "------------"
r="$("$bench" "$work/in2160p10.yuv" 3840 2160 yuv420p10le 1920 1080 yuv420p bicubic "$n4k" \
    vk:vulkan vks:vulkan-sync cpuf:cpu-frames cpu:cpu cpu1:cpu1)"
raw4k=(-f rawvideo -pix_fmt yuv420p10le -s 3840x2160 -i "$work/in2160p10.yuv")
row "tessera vulkan, 3 frames in flight" "$(tessera_fps "$r" vk)"
row "tessera vulkan, one frame at a time" "$(tessera_fps "$r" vks)"
row "ffmpeg scale_vulkan (bilinear, stays 10-bit: cannot convert)" \
    "$(ffmpeg_fps "$n4k" "${raw4k[@]}" "hwupload,scale_vulkan=w=1920:h=1080,hwdownload,format=yuv420p10le")"
row "ffmpeg libplacebo (catmull_rom, to yuv420p)" \
    "$(ffmpeg_fps "$n4k" "${raw4k[@]}" \
        "hwupload,libplacebo=w=1920:h=1080:downscaler=catmull_rom:format=yuv420p,hwdownload,format=yuv420p")"
row "tessera cpu ($(nproc) frames in flight, one per core)" "$(tessera_fps "$r" cpuf)"
row "tessera cpu as libswscale slice threads ($(nproc))" "$(tessera_fps "$r" cpu)"
row "libswscale, 1 thread" "$(tessera_fps "$r" cpu1)"
