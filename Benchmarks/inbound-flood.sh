#!/usr/bin/env bash
# Issue 26: what a flood of large frames from many peers costs the coordinator. PEERS ZeroMQ peers each
# send one MIB-MiB frame to its workers' port (no session is needed: libzmq reads a frame before the
# protocol sees it), and the coordinator's peak resident memory (VmHWM) is read before and after. Give
# two builds to compare them in one run (say, one from before protocol version 2 and one after).
# Needs pyzmq (PY=python with it; default /opt/tessera-tools/bin/python).
# Usage: Benchmarks/inbound-flood.sh [BINARY ...]        (default .build/release/tessera); PEERS=8 MIB=250
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${BENCH_OUT:-bench-out}
PEERS=${PEERS:-8} MIB=${MIB:-250} PY=${PY:-/opt/tessera-tools/bin/python}
mkdir -p "$OUT"
source Benchmarks/common.sh  # free_port
"$PY" -c 'import zmq' 2>/dev/null || { echo "needs pyzmq: $PY -m pip install pyzmq" >&2; exit 1; }
[ $# -gt 0 ] || set -- .build/release/tessera
kb() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/status"; }
printf "%-40s %6s %8s %14s %14s %12s\n" binary peers "MiB each" "peak before kB" "peak after kB" "grown MiB"
for bin in "$@"; do
    port=$(free_port)
    rm -rf "$OUT/flood-data"
    "$bin" coordinator --listen "tcp://127.0.0.1:$port" --http 127.0.0.1:0 --data "$OUT/flood-data" \
        > "$OUT/flood-coordinator.log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do grep -q "HTTP API on" "$OUT/flood-coordinator.log" && break; sleep 0.1; done
    sleep 1
    before=$(kb "$pid" VmHWM)
    "$PY" - "tcp://127.0.0.1:$port" "$PEERS" "$MIB" <<'PYEOF'
import sys, time, zmq
endpoint, peers, mib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
context = zmq.Context()
payload = bytes(mib << 20)
sockets, trackers = [], []
for _ in range(peers):
    s = context.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.connect(endpoint)
    sockets.append(s)
time.sleep(0.5)
for s in sockets:
    trackers.append(s.send(payload, copy=False, track=True))
deadline = time.time() + 60
for t in trackers:
    # Done when libzmq has sent the frame or dropped it with its connection.
    while not t.done and time.time() < deadline:
        time.sleep(0.05)
time.sleep(2)
for s in sockets:
    s.close()
PYEOF
    after=$(kb "$pid" VmHWM)
    kill "$pid"; wait "$pid" 2>/dev/null || true
    printf "%-40s %6s %8s %14s %14s %12s\n" "$bin" "$PEERS" "$MIB" "$before" "$after" \
        "$(awk -v a="$after" -v b="$before" 'BEGIN {printf "%.1f", (a - b) / 1024}')"
done
