#!/usr/bin/env bash
# End-to-end smoke test of the container deployment: the image of Deploy/docker/Dockerfile and the
# compose project of Deploy/compose.yaml with two workers, speaking CURVE to the coordinator. A test
# clip (made here with ffmpeg) is uploaded through the API and transcoded on the workers; the result is
# fetched and checked with ffprobe. Everything the project's containers do runs inside them: the
# client is the image's own `tessera`, run in the coordinator's container.
#
#   Deploy/docker/smoke.sh                      # docker compose; builds the image first
#   COMPOSE=podman-compose Deploy/docker/smoke.sh
#   SKIP_BUILD=1 Deploy/docker/smoke.sh         # use an image already built as tessera:local
#
# Needs: docker compose (or podman-compose), ffmpeg and ffprobe on the host. Leaves nothing behind:
# the project's containers and volumes are removed at the end, also on failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
COMPOSE=${COMPOSE:-docker compose}
project=tessera-smoke
work=$(mktemp -d)
ENGINE=${ENGINE:-$(case "$COMPOSE" in podman*) echo podman ;; *) echo docker ;; esac)}
compose() { $COMPOSE -p "$project" -f Deploy/compose.yaml "$@"; }
in_coordinator() { compose exec -T coordinator "$@"; }
cleanup() {
    if [ "${KEEP:-0}" != 1 ]; then
        compose down -v >/dev/null 2>&1 || true
        # podman-compose's down can miss scaled replicas (and then the volumes they hold).
        leftovers=$($ENGINE ps -aq --filter "label=com.docker.compose.project=$project" 2>/dev/null || true)
        [ -z "$leftovers" ] || $ENGINE rm -f $leftovers >/dev/null 2>&1 || true
        for v in data media output coordinator-keys worker-keys; do
            $ENGINE volume rm -f "${project}_$v" >/dev/null 2>&1 || true
        done
    fi
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "smoke: FAILED: $*" >&2; compose logs --tail 30 >&2 || true; exit 1; }

[ "${SKIP_BUILD:-0}" = 1 ] || compose build
compose up -d --scale worker=2 || fail "compose up"

echo "smoke: waiting for the coordinator's /healthz"
for _ in $(seq 60); do
    in_coordinator curl -fsS -o /dev/null http://127.0.0.1:8080/healthz 2>/dev/null && break
    sleep 1
done
in_coordinator curl -fsS -o /dev/null http://127.0.0.1:8080/healthz || fail "the coordinator never became healthy"

token=(--token-file /etc/tessera/coordinator/api-token)
echo "smoke: waiting for two CURVE-authenticated workers"
for _ in $(seq 60); do
    [ "$(in_coordinator tessera workers "${token[@]}" --json | grep -o '"id"' | wc -l)" -ge 2 ] && break
    sleep 1
done
[ "$(in_coordinator tessera workers "${token[@]}" --json | grep -o '"id"' | wc -l)" -ge 2 ] \
    || fail "fewer than two workers joined"

ffmpeg -hide_banner -loglevel error -f lavfi -i testsrc2=size=640x360:rate=30:duration=6 \
    -f lavfi -i sine=frequency=440:sample_rate=48000:duration=6 -c:v libx264 -preset veryfast -g 30 \
    -pix_fmt yuv420p -c:a aac "$work/clip.mp4"
in_coordinator sh -c 'cat > /tmp/clip.mp4' < "$work/clip.mp4"
echo "smoke: submitting (upload) and waiting"
job=$(in_coordinator tessera submit /tmp/clip.mp4 --upload --preset 640x480 --segment-duration 1 \
      "${token[@]}" --wait --quiet) || fail "the job failed"
job=$(echo "$job" | tr -d '\r' | head -1)
in_coordinator tessera fetch "$job" -o /tmp/out.mp4 "${token[@]}" || fail "fetch $job"
in_coordinator cat /tmp/out.mp4 > "$work/out.mp4"

frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$work/out.mp4")
audio=$(ffprobe -v error -select_streams a:0 -show_entries stream=codec_name -of csv=p=0 "$work/out.mp4")
[ "$frames" = 180 ] || fail "the output has $frames frames, not 180"
[ "$audio" = aac ] || fail "the output has no AAC audio"
# Both workers took part (segmentsDone per worker, from the coordinator).
done_per_worker=$(in_coordinator tessera workers "${token[@]}" --json | tr -d '\r' \
    | python3 -c 'import json, sys; print(" ".join(str(w["segmentsDone"]) for w in json.load(sys.stdin)))')
for n in $done_per_worker; do [ "$n" -ge 1 ] || fail "a worker encoded nothing (segments per worker: $done_per_worker)"; done
echo "smoke: OK: job $job: 180 frames + AAC fetched; segments per worker: $done_per_worker"
