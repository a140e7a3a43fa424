#!/usr/bin/env python3
"""Drives the coordinator's dashboard in Debian's chromium (Playwright, headless) during a real farm job.

Run by Tests/TesseraFarmTests/FarmDashboardTests.swift with the venv's python (Scripts/install-deps.sh):

    dashboard_check.py CONFIG.json RESULT.json

CONFIG names the coordinator (url, token, pid, argv and log to restart it), the workers (id → pid), the
running job, the worker to kill, heartbeat × liveness, and a folder for screenshots. RESULT gets every
measured figure and a list of checks, each {name, ok, detail}; the exit status is 0 only when every check
passed. Figures, not verdicts, are what the Swift test asserts on again.
"""
import json
import re
import math
import os
import random
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import sync_playwright

config = json.load(open(sys.argv[1]))
# Events land at random points of the stream's one-second rhythm (during a job it sends every second):
# an event timed right after a send always waits the whole second, one right before it hardly at all.
seed = int(time.time())
rng = random.Random(seed)
result_path = sys.argv[2]
base = config["url"]
token = config["token"]
out = config["artefacts"]
checks, figures = [], {}


def check(name, ok, detail=""):
    checks.append({"name": name, "ok": bool(ok), "detail": str(detail)[:2000]})
    print(("PASS " if ok else "FAIL ") + name + (": " + str(detail)[:300] if detail else ""), flush=True)
    return ok


def api(path, method="GET", auth=True):
    req = urllib.request.Request(base + path, method=method)
    if auth:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, None


def p95(values):
    s = sorted(values)
    return s[max(0, math.ceil(0.95 * len(s)) - 1)] if s else None


def wait_for(predicate, timeout, step=0.05):
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        try:
            if predicate():
                return time.monotonic() - start
        except Exception:
            pass
        time.sleep(step)
    return None


def page_job(page, job):
    # One evaluation, so the figures come from one rendering of the row (the script replaces rows).
    return page.evaluate(
        """job => {
            const row = [...document.querySelectorAll("tr[data-job]")].find(r => r.dataset.job === job);
            if (!row) return null;
            return {done: Number(row.dataset.framesDone), total: Number(row.dataset.framesTotal),
                    pct: Number(row.querySelector(".pct").textContent),
                    state: row.querySelector(".badge").textContent.trim()};
        }""", job)


def worker_state(page, worker):
    cell = page.locator(f'tr[data-worker="{worker}"] td.state')
    return cell.inner_text().strip() if cell.count() else None


def write_result():
    json.dump({"checks": checks, "figures": figures, "seed": seed}, open(result_path, "w"), indent=2)


job = config["job"]
workers = config["workers"]
victim = config["kill"]
restarted = None
with sync_playwright() as pw:
    browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    script_errors = []
    page.on("pageerror", lambda error: script_errors.append(str(error)))

    # Signing in: the token goes in a form body, never a URL; the cookie is HttpOnly and SameSite=Strict.
    status, _ = api("/v1/events", auth=False)
    check("the event stream refuses a request without credentials", status == 401, status)
    page.goto(base + "/")
    check("without a session the page is a sign-in form", page.locator("input#token").count() == 1)
    page.fill("input#token", token)
    page.click("button[type=submit]")
    page.wait_for_selector("#workers")
    cookies = context.cookies()
    session = [c for c in cookies if c["name"] == "tessera_session"]
    check(
        "the token was exchanged for an HttpOnly, SameSite=Strict cookie",
        session and session[0]["httpOnly"] and session[0]["sameSite"] == "Strict", session)

    # Every worker and the running job, as /v1 lists them.
    listed = lambda: {w for w in workers if worker_state(page, w) is not None}
    wait_for(lambda: listed() == set(workers) and page_job(page, job) is not None, 15)
    _, api_workers = api("/v1/workers")
    check("the page lists every worker", listed() == {w["id"] for w in api_workers}, (listed(), api_workers))
    check("the page lists the running job", page_job(page, job) is not None)
    # The running job's live map: one cell per segment, its summary in words adding up to them all (a
    # segment may be racing, or done by a backup, early in the job: one the stitching waits on is backed up
    # before queued work when a slow worker holds it).
    _, api_segments = api(f"/v1/jobs/{job}/segments")
    live = page.evaluate(
        """job => {
            const f = [...document.querySelectorAll("figure.map")].find(x => x.dataset.job === job);
            if (!f) return null;
            return {cells: f.querySelectorAll("ol.cells li").length, caption: f.querySelector("figcaption").textContent,
                    letters: [...f.querySelectorAll("ol.cells li")].map(li => li.className).join("")};
        }""", job)
    counted = sum(int(n) for n in re.findall(r"(\d+) (?:queued|running|done|failed|retried|racing|backup)",
                                             live["caption"])) \
        if live else -1
    check("the running job's map has a cell per segment and says what each is",
          live is not None and live["cells"] == len(api_segments) == counted and set(live["letters"]) <= set("qrdftab"),
          (live, len(api_segments)))

    # Without a script the first page already has the content (server-rendered).
    plain = browser.new_context(java_script_enabled=False)
    plain.add_cookies(session)
    bare = plain.new_page()
    first = bare.goto(base + "/")
    figures["firstLoadBytes"] = len(first.body())
    check("the first load is at most 500 KB (every asset inside the page)", figures["firstLoadBytes"] <= 500_000,
          figures["firstLoadBytes"])
    rendered = {w for w in workers if bare.locator(f'tr[data-worker="{w}"]').count() == 1}
    check("the server-rendered page lists the workers before any script", rendered == set(workers), rendered)
    plain.close()

    # Progress: the page never runs ahead of /v1 and catches up with it; its percent is its frames'.
    catch_up = []
    for _ in range(6):
        _, j = api(f"/v1/jobs/{job}")
        if j["state"] in ("completed", "failed", "cancelled"):
            break
        start = time.monotonic()
        waited = wait_for(lambda: page_job(page, job)["done"] >= j["framesDone"], 5)
        catch_up.append(waited if waited is not None else 5.0)
        shown = page_job(page, job)
        _, after = api(f"/v1/jobs/{job}")
        check(
            "the page's frames lie between /v1's before and after, its percent from them within one frame",
            j["framesDone"] - 1 <= shown["done"] <= after["framesDone"] + 1 and shown["total"] == j["framesTotal"]
            and abs(shown["pct"] / 100 * shown["total"] - shown["done"]) <= 1,
            (j["framesDone"], shown, after["framesDone"]))
        time.sleep(0.3)
    figures["progressCatchUpSeconds"] = catch_up

    # A worker killed with kill -9 shows "lost" within heartbeat × liveness + 1 s.
    time.sleep(rng.uniform(0, 1))
    os.kill(workers[victim], signal.SIGKILL)
    lost = wait_for(lambda: worker_state(page, victim) == "lost", config["lostWithinSeconds"] + 5, step=0.02)
    figures["lostSeconds"] = lost
    # States and orders are checked here; how fast they show is a figure (the test prints it), not a check.
    check("a worker killed with kill -9 shows lost", lost is not None, lost)

    # Event latency: a worker paused and resumed through /v1, until the page shows its new state.
    latencies = []
    toggler = [w for w in workers if w != victim][0]
    for i in range(10):
        for action, state in (("pause", "paused"), ("resume", None)):
            time.sleep(rng.uniform(0, 1))
            start = time.monotonic()
            code, _ = api(f"/v1/workers/{toggler}/{action}", method="POST")
            if code != 200:
                check(f"{action} {toggler} through /v1", False, code)
                continue
            expected = (lambda s: s == "paused") if state else (lambda s: s in ("idle", "busy"))
            waited = wait_for(lambda: expected(worker_state(page, toggler)), 10, step=0.02)
            check(f"{action} {toggler} shows in the page", waited is not None, waited)
            latencies.append(waited if waited is not None else 10.0)
    figures["eventLatencySeconds"] = latencies
    figures["eventLatencyP95"] = p95(latencies)

    # Controls from the page: confirmed, then sent with the session cookie.
    page.once("dialog", lambda d: d.accept())
    page.click(f'tr[data-worker="{toggler}"] button[data-act="pause"]')
    check("the page's Pause button, confirmed, pauses the worker",
          wait_for(lambda: worker_state(page, toggler) == "paused", 5) is not None)
    page.once("dialog", lambda d: d.dismiss())
    page.click(f'tr[data-worker="{toggler}"] button[data-act="resume"]')
    time.sleep(1.5)
    check("a dismissed confirmation sends nothing", worker_state(page, toggler) == "paused")
    api(f"/v1/workers/{toggler}/resume", method="POST")

    # The job ends at exactly 100 %, its map showing the retry, as /v1 does.
    wait_for(lambda: page_job(page, job)["state"] in ("completed", "failed"), 240, step=0.25)
    final = page_job(page, job)
    _, api_job = api(f"/v1/jobs/{job}")
    check("the job ends completed at exactly 100 % on the page and in /v1",
          final["state"] == "completed" and final["done"] == final["total"] == api_job["framesTotal"]
          and final["pct"] == 100.0 and api_job["framesDone"] == api_job["framesTotal"], (final, api_job))
    # The finished job's own page: every segment as /v1 has it, the retry shown, a thumbnail for each.
    _, api_segments = api(f"/v1/jobs/{job}/segments")
    page.click(f'tr[data-job="{job}"] th a')
    page.wait_for_selector("ol.segments")
    check("the job's link opens its page", page.url == f"{base}/jobs/{job}", page.url)
    cells = page.locator("ol.segments li.seg")
    shown_states = [cells.nth(i).get_attribute("data-state") for i in range(cells.count())]
    figures["segmentStates"] = shown_states
    check("the job's page shows every segment and the retry, as /v1/jobs/{id}/segments does",
          "retried" in shown_states and shown_states == [s["state"] for s in api_segments],
          (shown_states, [s["state"] for s in api_segments]))
    # The quality the workers measured: one bar per segment in the chart, one coloured cell in the map, and
    # the job's figures as /v1 has them.
    bars = page.locator("svg.quality rect.rate")
    check("the quality chart draws a bar for every segment", bars.count() == len(api_segments), bars.count())
    coloured = page.locator('ol.cells[aria-label="Segments by SSIM"] li')
    check("the SSIM map colours every measured segment",
          coloured.count() == len(api_segments)
          and all((coloured.nth(i).get_attribute("class") or "").startswith("q") for i in range(coloured.count())),
          coloured.count())
    check("the job's quality is on its page as in /v1",
          api_job.get("quality") is not None and f'SSIM {api_job["quality"]["ssim"]:.4f}' in page.content(),
          api_job.get("quality"))
    images = page.locator("ol.segments img")
    check("every segment of the completed job has a thumbnail", images.count() == len(api_segments), images.count())
    if images.count():
        images.nth(len(api_segments) // 2).scroll_into_view_if_needed()
        loaded = wait_for(lambda: images.nth(len(api_segments) // 2).evaluate("i => i.complete && i.naturalWidth > 0"),
                          20)
        check("a thumbnail loads in the page", loaded is not None)
        req = urllib.request.Request(f"{base}/v1/jobs/{job}/segments/0/thumbnail.png")
        req.add_header("Authorization", "Bearer " + token)
        with urllib.request.urlopen(req, timeout=20) as r:
            png = r.read()
        check("a thumbnail is a PNG", png[:8] == b"\x89PNG\r\n\x1a\n" and r.headers["Content-Type"] == "image/png",
              png[:8])
    job_shot = os.path.join(out, "job.png")
    page.screenshot(path=job_shot, full_page=True)
    figures["jobScreenshot"] = job_shot
    report = Axe().run(page)
    bad = [v for v in report.response["violations"] if v.get("impact") in ("serious", "critical")]
    check("axe finds no serious or critical issue on the job's page", not bad,
          [(v["id"], v["nodes"][0]["html"][:200]) for v in bad])
    page.go_back()
    page.wait_for_selector("#workers")
    check("the page asked nothing of any other host",
          all(u.startswith(base) for u in requests), [u for u in requests if not u.startswith(base)])

    # Screenshots and accessibility at 1280×800 and 360×800.
    axe = Axe()
    for width in (1280, 360):
        page.set_viewport_size({"width": width, "height": 800})
        time.sleep(0.5)
        shot = os.path.join(out, f"dashboard-{width}.png")
        page.screenshot(path=shot, full_page=True)
        figures[f"screenshot{width}"] = shot
        report = axe.run(page)
        bad = [v for v in report.response["violations"] if v.get("impact") in ("serious", "critical")]
        figures[f"axe{width}"] = [{"id": v["id"], "impact": v["impact"], "nodes": len(v["nodes"])} for v in
                                  report.response["violations"]]
        check(f"axe finds no serious or critical issue at {width}×800", not bad,
              [(v["id"], v["nodes"][0]["html"][:200]) for v in bad])
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        check(f"nothing overflows the page sideways at {width} px", overflow <= 0, overflow)
    page.set_viewport_size({"width": 1280, "height": 800})

    # Keyboard: the pause toggle is reachable and works from the keyboard.
    page.focus("#pause")
    page.keyboard.press("Enter")
    check("live updates pause from the keyboard", page.get_attribute("#pause", "aria-pressed") == "true")
    page.keyboard.press("Enter")

    check("the page's script raised no error", not script_errors, script_errors[:3])

    # The coordinator freezes (SIGSTOP: its connections stay open, nothing more arrives): "stale since"
    # within 3 s, and no live worker is shown lost meanwhile; it thaws: the banner goes by itself.
    live = [w for w in workers if w != victim]
    os.kill(config["coordinatorPid"], signal.SIGSTOP)
    shown_lost = []
    def frozen_stale():
        shown_lost.extend(w for w in live if worker_state(page, w) == "lost")
        return page.locator("#stale").is_visible()
    frozen = wait_for(frozen_stale, 10, step=0.02)
    os.kill(config["coordinatorPid"], signal.SIGCONT)
    figures["frozenStaleSeconds"] = frozen
    check("a frozen coordinator shows stale", frozen is not None, frozen)
    check("while the stream is quiet no live worker is shown lost", not shown_lost, sorted(set(shown_lost)))
    thawed = wait_for(lambda: not page.locator("#stale").is_visible(), 20, step=0.05)
    check("the banner goes when the coordinator thaws", thawed is not None, thawed)

    # The coordinator goes away: "stale since" within 3 s; back: the page reconnects by itself.
    os.kill(config["coordinatorPid"], signal.SIGKILL)
    stale = wait_for(lambda: page.locator("#stale").is_visible(), 10, step=0.02)
    figures["staleSeconds"] = stale
    check("a stale banner appears when the coordinator goes away", stale is not None, stale)
    check("the banner says since when", "Stale since" in page.locator("#stale").inner_text())
    time.sleep(1)
    log = open(config["coordinatorLog"], "ab")
    restarted = subprocess.Popen(config["coordinatorArgv"], stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    figures["restartedCoordinatorPid"] = restarted.pid
    write_result()
    back = wait_for(lambda: not page.locator("#stale").is_visible(), 30, step=0.05)
    figures["reconnectSeconds"] = back
    check("the page reconnects by itself when the coordinator is back", back is not None, back)
    check("after reconnecting it lists the workers again",
          wait_for(lambda: worker_state(page, toggler) in ("idle", "busy"), 10) is not None,
          worker_state(page, toggler))
    browser.close()

write_result()
sys.exit(0 if all(c["ok"] for c in checks) else 1)
