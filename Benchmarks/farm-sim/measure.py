#!/usr/bin/env python3
"""Measures the scheduling model's input on this machine, from a real segmented run.

Plans a source with `tessera plan` (its time, and the bytes it reads), transcodes each segment alone
(`tessera transcode --time-range`, one process at a time, video only, as a worker does), stitches the
segments with `tessera stitch`, runs the source as a job on a real coordinator with two workers for the
coordinator's own stitch rate (its tessera_stitch_* metrics),
verifies the result with `tessera verify`, and times an audio encode of the whole source with the
ffmpeg CLI (the same libavcodec AAC encoder the coordinator uses). Prints the JSON the scheduling model (`tessera-farm-model`) reads.

Usage: Benchmarks/farm-sim/measure.py [--source FILE] [--runs 3] > Benchmarks/farm-sim/sample-input.json
Without --source it makes a 60 s 1080p30 H.264 + AAC file (testsrc2 + sine, a keyframe every 2 s).
"""
import argparse
import json
import os
import platform
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request


def run(args, capture=True):
    """Runs a command; returns (wall seconds, CPU seconds of the child, stdout). Exits on failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(args, stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                          stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)} exited {done.returncode}: {done.stderr[-1500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout if capture else ""


def bytes_read(args):
    """Bytes the command read from files (its rchar, read from /proc once it has exited, before it is
    reaped). Exits on failure."""
    child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    child.stderr.read()
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
    with open(f"/proc/{child.pid}/io") as f:
        rchar = int(dict(line.split(": ") for line in f.read().splitlines())["rchar"])
    if child.wait() != 0:
        sys.exit(f"{' '.join(args)} exited {child.returncode}")
    return rchar


def median_run(args, runs):
    """The median wall and CPU seconds of `runs` runs."""
    results = [run(args, capture=False) for _ in range(runs)]
    return statistics.median(r[0] for r in results), statistics.median(r[1] for r in results)


def make_source(path):
    run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
         "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=60",
         "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=60",
         "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-g", "60", "-pix_fmt", "yuv420p",
         "-c:a", "aac", "-b:a", "192k", path])


def probe(path):
    """Duration, first video stream, and the video packets' sizes in decode order."""
    info = json.loads(run(["ffprobe", "-v", "error", "-print_format", "json", "-show_format",
                           "-show_streams", "-select_streams", "v:0", path])[2])
    sizes = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size",
                 "-of", "csv=p=0", path])[2]
    return float(info["format"]["duration"]), info["streams"][0], [int(s) for s in sizes.split()]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def coordinator_stitch(tb, source, preset, segment_duration, work):
    """The coordinator's own stitch rate: a real `tessera coordinator` and two `tessera worker` processes
    transcode the source (video only), and the coordinator's metrics say how many bytes of results it
    read back from its spool and wrote into the output, in how many seconds (waits for results excluded).
    Returns (bytes, seconds)."""
    folder = tempfile.mkdtemp(dir=work)
    http, zmq = free_port(), free_port()
    os.makedirs(os.path.join(folder, "out"))
    env = dict(os.environ, TESSERA_COORDINATOR=f"http://127.0.0.1:{http}")
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    media = os.path.dirname(os.path.abspath(source))
    coordinator = subprocess.Popen(
        [tb, "coordinator", "--listen", f"tcp://127.0.0.1:{zmq}", "--http", f"127.0.0.1:{http}",
         "--data", os.path.join(folder, "data"), "--media-root", media, "--output-root",
         os.path.join(folder, "out")], **quiet)
    workers = [subprocess.Popen([tb, "worker", "--coordinator", f"tcp://127.0.0.1:{zmq}", "--id", f"w{i}",
                                 "--backend", "cpu"], env=env, **quiet) for i in (1, 2)]
    try:
        for _ in range(300):
            listed = subprocess.run([tb, "workers", "--json"], env=env, capture_output=True, text=True)
            if listed.returncode == 0 and '"w2"' in listed.stdout and '"w1"' in listed.stdout:
                break
            time.sleep(0.1)
        run(["env", f"TESSERA_COORDINATOR=http://127.0.0.1:{http}", tb, "submit", os.path.abspath(source),
             "-o", "out.mp4", "--preset", preset, "--segment-duration", str(segment_duration), "--no-audio",
             "--wait"])
        text = urllib.request.urlopen(f"http://127.0.0.1:{http}/metrics").read().decode()
        values = {line.split()[0]: float(line.split()[-1]) for line in text.splitlines()
                  if line.startswith(("tessera_stitched_bytes_total", "tessera_stitch_seconds_total"))}
        return values["tessera_stitched_bytes_total"], values["tessera_stitch_seconds_total"]
    finally:
        for p in workers + [coordinator]:
            p.terminate()
            p.wait()
        shutil.rmtree(folder, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", help="source file (default: a generated 60 s 1080p30 clip)")
    parser.add_argument("--binary", default=".build/release/tessera")
    parser.add_argument("--work", default="bench-out/farm-sim", help="scratch folder")
    parser.add_argument("--segment-duration", type=float, default=4)
    parser.add_argument("--preset", default="1280x720")
    parser.add_argument("--runs", type=int, default=3, help="runs per measurement (median kept)")
    opts = parser.parse_args()
    os.makedirs(opts.work, exist_ok=True)
    source = opts.source or os.path.join(opts.work, "src-1080p30-60s.mp4")
    if not opts.source and not os.path.exists(source):
        make_source(source)
    duration, stream, packet_sizes = probe(source)
    tb = opts.binary

    plan_runs = [run([tb, "plan", source, "--segment-duration", str(opts.segment_duration), "--json"])
                 for _ in range(opts.runs)]
    plan = json.loads(plan_runs[0][2])
    # Planning has a fixed part (opening the file, probing its streams) and a part that grows with the
    # content (every packet read): the same clip looped ten times, stream-copied, gives the rate.
    looped = os.path.join(opts.work, "looped-10x.mp4")
    if not os.path.exists(looped):
        run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-stream_loop", "9", "-i", source,
             "-c", "copy", looped])
    looped_duration = probe(looped)[0]
    plan_long = median_run([tb, "plan", looped, "--segment-duration", str(opts.segment_duration), "--json"],
                           opts.runs)
    # What planning reads of the file (an MP4's sample tables, not its samples), less what starting up reads.
    idle = bytes_read([tb, "presets"])
    plan_read = bytes_read([tb, "plan", source, "--segment-duration", str(opts.segment_duration), "--json"]) - idle
    plan_long_read = bytes_read([tb, "plan", looped, "--segment-duration", str(opts.segment_duration),
                                 "--json"]) - idle
    base = plan["timeBase"]["numerator"] / plan["timeBase"]["denominator"]
    starts = [s["presentationRange"][0] * base for s in plan["segments"]]
    ends = starts[1:] + [duration]

    seconds, cpu, content, in_bytes, out_bytes, parts = [], [], [], [], [], []
    for seg, start, end in zip(plan["segments"], starts, ends):
        part = os.path.join(opts.work, f"segment-{seg['index']:04d}.mp4")
        wall, used = median_run([tb, "transcode", source, "-o", part, "--time-range",
                                 f"{start:.6f}s-{end:.6f}s", "--preset", opts.preset, "--no-audio",
                                 "--backend", "cpu", "--overwrite", "--quiet"], opts.runs)
        first, last = seg["decodePackets"]
        seconds.append(round(wall, 4)); cpu.append(round(used, 4)); content.append(round(end - start, 6))
        in_bytes.append(sum(packet_sizes[first:last])); out_bytes.append(os.path.getsize(part))
        parts.append(part)
        print(f"segment {seg['index']}: {end - start:.2f} s of content in {wall:.3f} s", file=sys.stderr)

    stitched = os.path.join(opts.work, "stitched.mp4")
    stitch = median_run([tb, "stitch", *parts, "-o", stitched, "--overwrite"], opts.runs)
    # The coordinator is a long-running process: what a short command spends starting up is not part of
    # its planning. A command that does nothing gives it.
    startup = median_run([tb, "presets"], opts.runs)
    # The stitch rate is the coordinator's own (its spool read back, packets written), not `tessera stitch`'s,
    # which opens each segment file with libavformat (a few milliseconds a file, most of its time here).
    stitched_bytes, stitch_seconds = coordinator_stitch(tb, source, opts.preset, opts.segment_duration, opts.work)
    stitch_rate = stitched_bytes / max(1e-6, stitch_seconds)
    verify = median_run([tb, "verify", stitched], opts.runs)
    audio = median_run(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-i", source,
                                "-vn", "-c:a", "aac", "-b:a", "128k", os.path.join(opts.work, "audio.m4a")],
                               opts.runs)
    report = {
        "description": "Measured by Benchmarks/farm-sim/measure.py: each segment transcoded alone "
                       "(tessera transcode --time-range, video only, --backend cpu, --parallel 1 equivalent), "
                       f"median of {opts.runs} runs.",
        "machine": {"cpus": os.cpu_count(), "loadAverage1m": round(os.getloadavg()[0], 2),
                    "system": platform.platform()},
        "source": {"width": stream["width"], "height": stream["height"], "codec": stream["codec_name"],
                   "frameRate": stream["r_frame_rate"], "bytes": os.path.getsize(source)},
        "preset": opts.preset,
        "contentSeconds": round(duration, 6),
        "segmentDuration": opts.segment_duration,
        "planningSeconds": round(statistics.median(r[0] for r in plan_runs), 4),
        "planningCPUSeconds": round(statistics.median(r[1] for r in plan_runs), 4),
        "planningLongSeconds": round(plan_long[0], 4),
        "planningLongContentSeconds": round(looped_duration, 6),
        "planningReadBytes": max(0, plan_read),
        "planningLongReadBytes": max(0, plan_long_read),
        "segmentSeconds": seconds,
        "segmentCPUSeconds": cpu,
        "segmentContentSeconds": content,
        "segmentInputBytes": in_bytes,
        "segmentOutputBytes": out_bytes,
        "startupSeconds": round(startup[0], 4),
        "stitchBytesPerSecond": round(stitch_rate),
        "coordinatorStitchedBytes": round(stitched_bytes),
        "coordinatorStitchSeconds": round(stitch_seconds, 4),
        "stitchSeconds": round(stitch[0], 4),
        "stitchCPUSeconds": round(stitch[1], 4),
        "stitchedBytes": os.path.getsize(stitched),
        "verifySeconds": round(verify[0], 4),
        "verifyCPUSeconds": round(verify[1], 4),
        "audioSeconds": round(audio[0], 4),
        "audioCPUSeconds": round(audio[1], 4),
        # The share of an audio encode that chunks do not spread (reading, decoding, converting, muxing):
        # measured once with perf on Benchmarks/audio.sh's encode, where libavcodec's AAC encoder is 80 %.
        "audioSerialShare": 0.2,
    }
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
