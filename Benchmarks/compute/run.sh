#!/usr/bin/env bash
# Side-by-side frames/s of TesseraCompute against ffmpeg's filters, in one run on this machine:
#
#   1080p yuv420p → 720p yuv420p bicubic, and 4K yuv420p10le → 1080p yuv420p bicubic:
#     tessera vulkan (frames in flight) and vulkan (one at a time) on the chosen Vulkan device,
#     ffmpeg scale_vulkan and libplacebo on the same device (hwupload/hwdownload included),
#     tessera cpu (a frame per core in flight, each through libswscale + Tessera's turning), the same
#     with libswscale's slice threads instead, the CPU path on one thread, and libswscale alone with one
#     thread (the anchor). Where a job qualifies (8-bit planar YUV only resized) the CPU path runs
#     Tessera's own SIMD PlaneScaler, not libswscale.
#
# Every figure starts and ends with frames in system memory. Prints a Markdown table: the median of
# ROUNDS interleaved rounds (env, default 3) and every round's figure, so noise from other work on the
# same cores shows. The target ratios are taken round by round, numerator and anchor measured back to back.
# usage: Benchmarks/compute/run.sh [frames-1080p] [frames-4k]     (env WORK=dir for the raw inputs)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${WORK:-${TMPDIR:-/tmp}/tessera-compute-bench}"
n1080="${1:-240}"
n4k="${2:-96}"
ROUNDS="${ROUNDS:-3}"
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

row() { printf '| %-62s | %10s | %-26s |\n' "$1" "$2" "${3# }"; }
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {if (NR == 0) print "error"; else print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ratios() { paste -d' ' <(echo "$1" | tr ' ' '\n' | grep -v '^$') <(echo "$2" | tr ' ' '\n' | grep -v '^$') \
    | awk '{printf "%s%.2f", (NR > 1 ? " " : ""), $1 / $2}'; }

# case <title> <frames> <raw input args (an array name)> <bench args...> -- <scale_vulkan filter> <libplacebo filter>
# Runs $ROUNDS rounds, each Tessera's every variant then scale_vulkan, so both see the same load; libplacebo,
# far slower, once. Prints each figure's median and, for the two targets, every round's ratio.
run_case() {
    local title="$1" frames="$2" rawname="$3[@]"; shift 3
    local raw=("${!rawname}") args=() vk="" vks="" cpuf="" cpu="" cpu1="" sw1="" sv=""
    while [ "$1" != "--" ]; do args+=("$1"); shift; done
    shift
    local svfilter="$1" plfilter="$2" svframes="$3"
    for _ in $(seq "$ROUNDS"); do
        r="$("$bench" "${args[@]}" "$frames" vk:vulkan vks:vulkan-sync cpuf:cpu-frames cpu:cpu cpu1:cpu1 \
            sw1:swscale1)"
        vk+=" $(tessera_fps "$r" vk)"; vks+=" $(tessera_fps "$r" vks)"; cpuf+=" $(tessera_fps "$r" cpuf)"
        cpu+=" $(tessera_fps "$r" cpu)"; cpu1+=" $(tessera_fps "$r" cpu1)"
        sw1+=" $(tessera_fps "$r" sw1)"
        sv+=" $(ffmpeg_fps "$svframes" "${raw[@]}" "$svfilter")"
    done
    local pl; pl="$(ffmpeg_fps "$frames" "${raw[@]}" "$plfilter")"
    echo
    printf '| %-62s | %10s | %-26s |\n' "$title" "frames/s" "per round"
    printf '|%s|%s|%s|\n' "----------------------------------------------------------------" "------------" \
        "----------------------------"
    row "tessera vulkan, 3 frames in flight" "$(echo "$vk" | median)" "$vk"
    row "tessera vulkan, one frame at a time" "$(echo "$vks" | median)" "$vks"
    row "ffmpeg scale_vulkan ($SVNOTE)" "$(echo "$sv" | median)" "$sv"
    row "ffmpeg libplacebo (catmull_rom, to yuv420p; one round)" "$pl" ""
    row "tessera cpu ($(nproc) frames in flight, one per core)" "$(echo "$cpuf" | median)" "$cpuf"
    row "tessera cpu as libswscale slice threads ($(nproc))" "$(echo "$cpu" | median)" "$cpu"
    row "tessera cpu, 1 thread (PlaneScaler when the job qualifies)" "$(echo "$cpu1" | median)" "$cpu1"
    row "libswscale, 1 thread" "$(echo "$sw1" | median)" "$sw1"
    local rv rc r1
    rv="$(ratios "$vk" "$sv")"; rc="$(ratios "$cpuf" "$sw1")"; r1="$(ratios "$cpu1" "$sw1")"
    row "**vulkan ÷ scale_vulkan** (target ≥ 3 on lavapipe)" "$(echo "$rv" | median)" "$rv"
    row "**cpu ÷ libswscale 1 thread** (target ≥ 1.5)" "$(echo "$rc" | median)" "$rc"
    row "cpu 1 thread ÷ libswscale 1 thread" "$(echo "$r1" | median)" "$r1"
}

echo "Device: ${device:-none}; $(nproc) CPU cores; $ROUNDS rounds; load average $(cut -d" " -f1-3 /proc/loadavg) at start;" \
    "$(date -u +%Y-%m-%dT%H:%MZ)"
raw1080=(-f rawvideo -pix_fmt yuv420p -s 1920x1080 -i "$work/in1080.yuv")
SVNOTE="bilinear: it has no bicubic"
run_case "1080p yuv420p → 720p yuv420p (bicubic)" "$n1080" raw1080 \
    "$work/in1080.yuv" 1920 1080 yuv420p 1280 720 yuv420p bicubic -- \
    "hwupload,scale_vulkan=w=1280:h=720,hwdownload,format=yuv420p" \
    "hwupload,libplacebo=w=1280:h=720:downscaler=catmull_rom:format=yuv420p,hwdownload,format=yuv420p" \
    $((n1080 * 2))
raw4k=(-f rawvideo -pix_fmt yuv420p10le -s 3840x2160 -i "$work/in2160p10.yuv")
SVNOTE="bilinear, stays 10-bit: cannot convert"
run_case "4K yuv420p10le → 1080p yuv420p (bicubic, dithered)" "$n4k" raw4k \
    "$work/in2160p10.yuv" 3840 2160 yuv420p10le 1920 1080 yuv420p bicubic -- \
    "hwupload,scale_vulkan=w=1920:h=1080,hwdownload,format=yuv420p10le" \
    "hwupload,libplacebo=w=1920:h=1080:downscaler=catmull_rom:format=yuv420p,hwdownload,format=yuv420p" \
    "$n4k"
echo
echo "load average at the end: $(cut -d" " -f1-3 /proc/loadavg)"
