#!/usr/bin/env python3
"""Farm scheduling simulation: how long a two-hour film takes on N workers, from measured segments.

Reads the JSON that measure.py writes (or a `tessera transcode --segment-duration S --parallel 1 --json`
report carrying `segmentSeconds` and `planningSeconds`), builds a film of --film-seconds by drawing
measured segments at random (their mean and variance kept), and replays the coordinator's policy
event by event for each worker count. Prints makespan, speed-up against one worker and efficiency.
The model and its assumptions: README.md beside this file.

Usage: Benchmarks/farm-sim/farmsim.py Benchmarks/farm-sim/sample-input.json [--json] [options]
"""
import argparse
import collections
import heapq
import json
import random
import statistics
import sys

Segment = collections.namedtuple("Segment", "content encode input output")


def load(path, opts):
    """The measured run, normalised: segments and per-content-second costs of the serial phases."""
    with open(path) as f:
        data = json.load(f)
    cpu = "CPU" if opts.times == "cpu" else ""
    seconds = data.get(f"segment{cpu}Seconds")
    if not seconds or any(not isinstance(s, (int, float)) or s < 0 for s in seconds):
        sys.exit(f"{path}: segment{cpu}Seconds must be a non-empty list of non-negative numbers")
    n = len(seconds)
    content = data.get("segmentContentSeconds") or [data.get("segmentDuration", opts.segment_duration)] * n
    measured = data.get("contentSeconds") or sum(content)
    in_bytes = data.get("segmentInputBytes") or [c * opts.input_mbps * 125_000 for c in content]
    out_bytes = data.get("segmentOutputBytes") or [c * opts.output_mbps * 125_000 for c in content]
    if not n == len(content) == len(in_bytes) == len(out_bytes):
        sys.exit(f"{path}: the per-segment lists must have the same length")
    stitch_rate = data.get("stitchBytesPerSecond")
    if stitch_rate is None and data.get(f"stitch{cpu}Seconds"):
        stitch_rate = data.get("stitchedBytes", sum(out_bytes)) / data[f"stitch{cpu}Seconds"]
    per_second = lambda key: data.get(key + cpu + "Seconds", 0) / measured  # noqa: E731 (per content second)
    return {
        "segments": [Segment(*s) for s in zip(content, seconds, in_bytes, out_bytes)],
        "planning": per_second("planning"), "audio": per_second("audio"), "verify": per_second("verify"),
        "stitchRate": stitch_rate or float("inf"),
    }


def make_film(measured, seconds, seed, spread):
    """Measured segments drawn with replacement until `seconds` of content; `spread` scales each
    encode time's distance from the mean (1 keeps the measured variance)."""
    rng = random.Random(seed)
    mean = statistics.fmean(s.encode for s in measured)
    film, total = [], 0.0
    while total < seconds:
        s = rng.choice(measured)
        film.append(s._replace(encode=max(0.0, mean + spread * (s.encode - mean))))
        total += s.content
    return film


def balance_tail(film, workers, gop, decode_share):
    """The planner's tail re-cut (SegmentPlanner.balanceTail): the last `workers` segments' content is
    split again so every worker finishes together, given when each becomes free under in-order dispatch.
    A piece starting mid-GOP also decodes, at `decode_share` of the encode cost, the frames from the
    keyframe before it (half a GOP on average). Segments keep their bytes per content second."""
    if workers < 2 or len(film) < workers:
        return film
    head, tail = film[:-workers], film[-workers:]
    free = [0.0] * workers
    for s in head:
        i = free.index(min(free))
        free[i] += s.encode
    free.sort()
    content = sum(s.content for s in tail)
    rate = sum(s.encode for s in tail) / content  # encode seconds per content second
    lead = decode_share * rate * gop / 2
    finish = (sum(free) + sum(s.encode for s in tail) + lead * (workers - 1)) / workers
    shares = [max(0.0, finish - f - (lead if k else 0.0)) / rate for k, f in enumerate(free)]
    scale = content / sum(shares)
    per = lambda key: sum(getattr(s, key) for s in tail) / content  # noqa: E731
    pieces = [Segment(c * scale, c * scale * rate + (lead if k else 0.0), c * scale * per("input"),
                      c * scale * per("output")) for k, c in enumerate(shares) if c > 0]
    return head + pieces


def encode_phase(film, workers, slots, latency, rate, start):
    """Workers pull segments in order, `slots` at a time (one encoding, the rest prefetched); a
    request is answered after `latency`; payloads cross the coordinator's link one at a time each way.
    Returns when each segment is back at the coordinator and when the queue ran empty."""
    events, order = [], iter(range(10**12))
    push = lambda t, kind, w, i=-1: heapq.heappush(events, (t, next(order), kind, w, i))  # noqa: E731
    held = [collections.deque() for _ in range(workers)]
    encoding = [False] * workers
    done = [0.0] * len(film)
    next_segment, send_free, receive_free, queue_empty = 0, start, start, start

    def start_encode(w, t):
        if held[w] and not encoding[w]:
            i = held[w].popleft()
            encoding[w] = True
            push(t + film[i].encode, "encoded", w, i)

    for w in range(workers):
        for _ in range(slots):
            push(start, "request", w)
    while events:
        t, _, kind, w, i = heapq.heappop(events)
        if kind == "request":
            if next_segment == len(film):
                continue
            i, next_segment = next_segment, next_segment + 1
            if next_segment == len(film):
                queue_empty = t + latency
            send_free = max(t + latency, send_free) + film[i].input / rate
            push(send_free, "arrived", w, i)
        elif kind == "arrived":
            held[w].append(i)
            start_encode(w, t)
        else:  # encoded: the result goes back, the freed slot asks for the next segment
            encoding[w] = False
            receive_free = max(t, receive_free) + film[i].output / rate
            done[i] = receive_free + latency
            push(t, "request", w)
            start_encode(w, t)
    return done, queue_empty


def simulate(model, film, workers, opts):
    """Makespan and phase boundaries of one film on `workers` workers."""
    if opts.tail == "balance":
        film = balance_tail(film, workers, opts.gop_seconds, opts.decode_share)
    length = sum(s.content for s in film)
    planned = model["planning"] * length
    done, queue_empty = encode_phase(film, workers, opts.slots, opts.latency_ms / 1000, opts.transfer_rate,
                                     planned)
    audio_done = planned + model["audio"] * length  # the coordinator encodes audio while workers encode video
    if opts.stitch == "end":
        stitched = max(max(done), audio_done) + sum(s.output for s in film) / model["stitchRate"]
        finished = stitched + model["verify"] * length
    else:  # each segment stitched and verified as soon as it and all before it are back
        stitched = finished = audio_done
        for s, back in zip(film, done):
            stitched = max(stitched, back) + s.output / model["stitchRate"]
            finished = max(finished, stitched) + model["verify"] * s.content
    return {"workers": workers, "makespan": finished, "planning": planned, "queueEmpty": queue_empty,
            "lastSegmentBack": max(done), "idealEncode": sum(s.encode for s in film) / workers}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help="measured run (JSON)")
    parser.add_argument("--film-seconds", type=float, default=7200)
    parser.add_argument("--workers", default="1,2,4,8,16,32,64")
    parser.add_argument("--slots", type=int, default=2, help="segments a worker holds (1 encoding)")
    parser.add_argument("--latency-ms", type=float, default=1.0, help="dispatch latency")
    parser.add_argument("--transfer-rate", type=float, default=1e9, help="coordinator link, bytes/s")
    parser.add_argument("--stitch", choices=["end", "incremental"], default="end",
                        help="stitch and verify after the last segment, or each segment as it arrives")
    parser.add_argument("--verify", choices=["coordinator", "workers"], default="coordinator",
                        help="who decodes the output to verify it: the coordinator, or each worker its segment")
    parser.add_argument("--tail", choices=["balance", "keep"], default="balance",
                        help="re-cut the last round so the workers finish together (as built), or keep it")
    parser.add_argument("--gop-seconds", type=float, default=2.0, help="keyframe interval, for mid-GOP cuts")
    parser.add_argument("--decode-share", type=float, default=0.25,
                        help="decoding a frame only to drop it, as a share of the encode cost")
    parser.add_argument("--times", choices=["wall", "cpu"], default="wall",
                        help="segments' wall seconds, or CPU seconds where the measuring machine was shared")
    parser.add_argument("--spread", type=float, default=1.0, help="scale of the encode times' variance")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--segment-duration", type=float, default=4.0, help="if the input has no contents")
    parser.add_argument("--input-mbps", type=float, default=8.0, help="if the input has no payload sizes")
    parser.add_argument("--output-mbps", type=float, default=4.0, help="if the input has no payload sizes")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    opts = parser.parse_args()
    workers = [int(w) for w in opts.workers.split(",")]
    if opts.slots < 1 or opts.transfer_rate <= 0 or opts.film_seconds <= 0 or min(workers) < 1:
        sys.exit("--slots, --transfer-rate, --film-seconds and --workers must be positive")
    model = load(opts.input, opts)
    film = make_film(model["segments"], opts.film_seconds, opts.seed, opts.spread)
    if opts.verify == "workers":  # each worker decodes what it encoded; the coordinator checks timestamps only
        film = [s._replace(encode=s.encode + model["verify"] * s.content) for s in film]
        model["verify"] = 0.0
    runs = [simulate(model, film, n, opts) for n in sorted(set([1] + workers))]
    base = runs[0]["makespan"]
    for r in runs:
        r["speedup"] = base / r["makespan"]
        r["efficiency"] = r["speedup"] / r["workers"]
    runs = [r for r in runs if r["workers"] in workers]
    if opts.json:
        json.dump({"segments": len(film), "filmSeconds": sum(s.content for s in film), "runs": runs},
                  sys.stdout, indent=2)
        print()
        return
    encode = [s.encode for s in film]
    print(f"{len(film)} segments, {sum(s.content for s in film):.0f} s of content; encode s/segment: "
          f"mean {statistics.fmean(encode):.3f}, stdev {statistics.pstdev(encode):.3f}; "
          f"stitch+verify {opts.stitch}, verify on {opts.verify}")
    print(f"{'workers':>7} {'makespan s':>11} {'speed-up':>9} {'efficiency':>10} {'plan s':>8} "
          f"{'tail s':>8} {'after last segment s':>21}")
    for r in runs:
        print(f"{r['workers']:>7} {r['makespan']:>11.1f} {r['speedup']:>9.2f} {r['efficiency']:>10.1%} "
              f"{r['planning']:>8.1f} {r['lastSegmentBack'] - r['queueEmpty']:>8.1f} "
              f"{r['makespan'] - r['lastSegmentBack']:>21.1f}")


if __name__ == "__main__":
    main()
