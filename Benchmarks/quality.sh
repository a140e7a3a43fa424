#!/usr/bin/env bash
# Quality measured per segment and asked for (issue 29), in one run, on a source whose complexity varies:
# 24 s of 1280x720 30 fps in four 6 s parts (a static card, the moving test pattern, the same with film-like
# grain, a zooming fractal),
# made once, nearly lossless. Every job runs on the farm path, `tessera run --workers 2`, in 2 s segments (SEGMENT),
# H.264 veryfast; each row's CPU is user + system seconds of the whole run.
#   timing        CRF 23, --verification timing: no segment decoded, nothing measured
#   measured      CRF 23, the default: each segment decoded as it is encoded and measured (PSNR, SSIM)
#   target        --target-quality ssim:0.97 (a CRF search per segment, in tenths, starting at 23; two
#                 samples of a third of a segment's frames first)
#   target-whole  the same with --no-quality-samples: every probe a whole encode (what sampling saves)
#   single-crf    the highest single whole CRF whose worst segment meets 0.97 (from the lowest CRF the
#                 target run chose, rounded down, lowered until it does): what a fixed-CRF user must pick
#                 to be safe
#   before        with BEFORE=path/to/an/older/tessera: the "measured" job on that build (what the decode
#                 check cost before it measured anything)
# Prints bytes, mean and worst segment SSIM, the CRFs, CPU and wall; then the ratios the issue asks for.
# Usage: Benchmarks/quality.sh   (SEGMENT=4 for 4 s segments, 2 by default; NOISE=4 for lighter grain, 12
# by default: the grain's share of the bytes decides how much a per-segment CRF can save)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${BENCH_OUT:-bench-out}
SEGMENT=${SEGMENT:-2}
BIN=.build/release/tessera
mkdir -p "$OUT"
swift build -c release --product tessera >/dev/null  # incremental: never a stale binary
NOISE=${NOISE:-12}
SRC="$(pwd)/$OUT/quality-varied-v3$([ "$NOISE" = 12 ] || echo "-noise$NOISE").mp4"
[ -s "$SRC" ] || ffmpeg -hide_banner -loglevel error -y \
    -f lavfi -i "smptebars=size=1280x720:rate=30:duration=6" \
    -f lavfi -i "testsrc2=size=1280x720:rate=30:duration=6" \
    -f lavfi -i "testsrc2=size=1280x720:rate=30:duration=6" \
    -f lavfi -i "mandelbrot=size=1280x720:rate=30" \
    -filter_complex "[2]noise=alls=$NOISE:allf=t[n];[3]trim=duration=6[m];[0][1][n][m]concat=n=4:v=1,format=yuv420p" \
    -c:v libx264 -preset veryfast -crf 8 -g 30 "$SRC"

# job NAME ARGS... : runs the farm job, writes $OUT/quality-NAME.json, prints "wall cpu"
job() {
    local name=$1; shift
    /usr/bin/time -f "%e %U %S" -o "$OUT/t.tmp" "${RUNBIN:-$BIN}" run "$SRC" -o "$OUT/quality-$name.mp4" --workers 2 \
        --segment-duration "$SEGMENT" --speed veryfast --overwrite --json "$@" > "$OUT/quality-$name.json" \
        2> "$OUT/last.stderr" || { tail -5 "$OUT/last.stderr"; exit 1; }
    awk '{printf "%.2f %.2f", $1, $2 + $3}' "$OUT/t.tmp"
}
# row NAME WALL CPU : the job's bytes, SSIM (mean, worst segment), CRFs
row() {
    python3 - "$OUT/quality-$1.json" "$1" "$2" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); q = r.get("quality") or {}
segs = q.get("segments", [])
worst = min((s["ssim"] for s in segs), default=float("nan"))
crfs = sorted({s.get("crf") for s in segs if s.get("crf") is not None})
crf = f"{crfs[0]:g}" if len(crfs) == 1 else f"{crfs[0]:g}-{crfs[-1]:g}" if crfs else "-"
err = q.get("worstSampleError")
print(f"{sys.argv[2]:<12} {r['bytes']:>11} {q.get('ssim', float('nan')):>8.4f} {worst:>8.4f} {crf:>9} "
      f"{q.get('encodesPerFrame', 1):>8.2f} {err if err is not None else '-':>9} {float(sys.argv[4]):>8.1f} "
      f"{float(sys.argv[3]):>7.1f}")
PY
}
read -r tw tc <<< "$(job timing --crf 23 --verification timing)"
read -r mw mc <<< "$(job measured --crf 23)"
read -r qw qc <<< "$(job target --crf 23 --target-quality ssim:0.97)"
read -r ww wc <<< "$(job target-whole --crf 23 --target-quality ssim:0.97 --no-quality-samples)"
# The single CRF that is safe everywhere: the highest whole CRF whose worst segment meets the target. From
# the lowest CRF the search chose (rounded down), down until one meets, else up while the next one meets.
crf=$(python3 -c "import json, math; print(math.floor(min(s['crf'] for s in json.load(open('$OUT/quality-target.json'))['quality']['segments'])))")
# single CRF : runs the job at CRF, exit status 0 when its worst segment meets the target
single() {
    read -r sw sc <<< "$(job single-crf-$1 --crf "$1")"
    local worst
    worst=$(python3 -c "import json; print(min(s['ssim'] for s in json.load(open('$OUT/quality-single-crf-$1.json'))['quality']['segments']))")
    echo "$sw $sc" > "$OUT/single-$1.t"
    awk -v w="$worst" 'BEGIN {exit !(w >= 0.968)}'
}
if single "$crf"; then
    while [ "$crf" -lt 51 ] && single $((crf + 1)); do crf=$((crf + 1)); done
else
    while [ "$crf" -gt 0 ] && ! single $((crf - 1)); do crf=$((crf - 1)); done
    crf=$((crf - 1))
fi
for f in json mp4; do cp "$OUT/quality-single-crf-$crf.$f" "$OUT/quality-single-crf.$f"; done
read -r sw sc < "$OUT/single-$crf.t"
if [ -n "${BEFORE:-}" ]; then read -r bw bc <<< "$(RUNBIN=$BEFORE job before --crf 23)"; fi
printf "%-12s %11s %8s %8s %9s %8s %9s %8s %7s\n" job bytes "SSIM" "worst" CRF "enc/fr" "samp.err" "CPU s" "wall s"
row timing "$tw" "$tc"; row measured "$mw" "$mc"; row target "$qw" "$qc"; row target-whole "$ww" "$wc"
row single-crf "$sw" "$sc"
if [ -n "${BEFORE:-}" ]; then
    row before "$bw" "$bc"
    echo "measured / before (the measurement's own cost): CPU $(awk -v a="$mc" -v b="$bc" 'BEGIN {printf "%.3f", a / b}'), wall $(awk -v a="$mw" -v b="$bw" 'BEGIN {printf "%.3f", a / b}')"
fi
bytes() { python3 -c "import json; print(json.load(open('$OUT/quality-$1.json'))['bytes'])"; }
echo "measurement's cost (measured / timing): CPU $(awk -v a="$mc" -v b="$tc" 'BEGIN {printf "%.3f", a / b}'), wall $(awk -v a="$mw" -v b="$tw" 'BEGIN {printf "%.3f", a / b}')"
echo "target / single CRF $crf: bytes $(awk -v a="$(bytes target)" -v b="$(bytes single-crf)" 'BEGIN {printf "%.3f", a / b}'), CPU $(awk -v a="$qc" -v b="$sc" 'BEGIN {printf "%.3f", a / b}')"
echo "target / target-whole (what samples save): bytes $(awk -v a="$(bytes target)" -v b="$(bytes target-whole)" 'BEGIN {printf "%.3f", a / b}'), CPU $(awk -v a="$qc" -v b="$wc" 'BEGIN {printf "%.3f", a / b}')"
echo "target / fixed CRF 23 (measured): CPU $(awk -v a="$qc" -v b="$mc" 'BEGIN {printf "%.3f", a / b}'), wall $(awk -v a="$qw" -v b="$mw" 'BEGIN {printf "%.3f", a / b}')"
