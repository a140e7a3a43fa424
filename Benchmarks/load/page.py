"""The dashboard page in Debian's chromium (Playwright), for tessera-load-bench.

Usage: page.py BASE_URL TOKEN SOAK_SECONDS RESULT.json

First load: signs in (the token for a session cookie), opens `/` in a fresh page, and counts the bytes
transferred (every response's encoded length, as DevTools reports it; the event stream excluded, as it
never finishes) and the time from navigation start until the script has drawn the first snapshot
("Live; …").

Soak: the page stays open for SOAK_SECONDS while the farm runs. About 30 times along the way (at least
once a minute) it collects garbage and samples DevTools' Performance metrics: JS heap used, DOM nodes,
event listeners, and the main thread's task time (its CPU).
"""
import json
import sys
import time

from playwright.sync_api import sync_playwright

base, token, soak, result_path = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
result = {}

with sync_playwright() as p:
    browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    signed = context.request.post(base + "/v1/session", data={"token": token})
    assert signed.ok, signed.status
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Performance.enable")
    transferred = {}
    cdp.on("Network.loadingFinished", lambda e: transferred.__setitem__(e["requestId"], e["encodedDataLength"]))
    page.goto(base + "/", wait_until="load")
    page.wait_for_function("document.querySelector('#conn').textContent.startsWith('Live')", polling="raf",
                           timeout=30000)
    interactive = page.evaluate("performance.now()")
    nav = page.evaluate("JSON.stringify(performance.getEntriesByType('navigation')[0])")
    nav = json.loads(nav)
    time.sleep(1)
    result["firstLoad"] = {
        "bytes": sum(transferred.values()),
        "requests": len(transferred),
        "interactiveMs": interactive,
        "domContentLoadedMs": nav.get("domContentLoadedEventEnd"),
        "documentBytes": nav.get("encodedBodySize"),
    }
    print(f"first load: {result['firstLoad']}", flush=True)

    def sample():
        cdp.send("HeapProfiler.collectGarbage")
        metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        return {"at": time.monotonic(), "heapMB": metrics["JSHeapUsedSize"] / 2**20, "nodes": int(metrics["Nodes"]),
                "listeners": int(metrics["JSEventListeners"]), "taskSeconds": metrics["TaskDuration"]}

    samples = [sample()]
    step = max(1.0, min(60.0, soak / 30))
    start = time.monotonic()
    while time.monotonic() - start < soak:
        time.sleep(min(step, max(0.0, soak - (time.monotonic() - start))))
        samples.append(sample())
        s = samples[-1]
        print(f"soak {s['at'] - start:7.0f} s: heap {s['heapMB']:.1f} MB, {s['nodes']} nodes, "
              f"{s['listeners']} listeners", flush=True)
    live = page.evaluate("document.querySelector('#conn').textContent")
    elapsed = samples[-1]["at"] - samples[0]["at"]
    heaps = [s["heapMB"] for s in samples]
    nodes = [s["nodes"] for s in samples]
    result["soak"] = {
        "seconds": elapsed, "samples": len(samples),
        "heapFirstMB": heaps[0], "heapMaxMB": max(heaps), "heapLastMB": heaps[-1],
        "nodesFirst": nodes[0], "nodesMax": max(nodes), "nodesLast": nodes[-1],
        "listenersLast": samples[-1]["listeners"],
        "cpuFraction": (samples[-1]["taskSeconds"] - samples[0]["taskSeconds"]) / elapsed if elapsed > 0 else 0,
        "stillLive": live.startswith("Live"), "series": samples,
    }
    browser.close()

json.dump(result, open(result_path, "w"), indent=1)
