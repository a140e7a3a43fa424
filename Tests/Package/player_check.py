"""The job page's player in a real browser: Debian's chromium, headless, driven by Playwright, against a real
coordinator holding a finished streaming package. Signs in, plays the first rendition through Media Source
Extensions to its end, then loads the page again and switches rendition at a segment boundary (the second
segment's request is held until the choice is made) to the next rendition the browser can play; one it cannot
(HEVC in Debian's chromium) must be listed, named and not choosable. Usage: player_check.py CONFIG RESULT, CONFIG a JSON file
{"url", "token", "job", "widths": [each rendition's width, in master.m3u8's order], "segments", "first": the
first rendition's folder}; RESULT gets
{"checks": [{"name", "ok", "detail"}], "figures": {...}}."""
import json
import sys
import urllib.error
import urllib.request

from playwright.sync_api import sync_playwright

config = json.load(open(sys.argv[1]))
base, token, job = config["url"], config["token"], config["job"]
checks, figures = [], {}


def check(name, ok, detail=""):
    checks.append({"name": name, "ok": bool(ok), "detail": str(detail)[:500]})
    print(("PASS " if ok else "FAIL ") + name + (f": {detail}" if detail != "" else ""), flush=True)


def fetch(path, auth=True):
    request = urllib.request.Request(base + path)
    if auth:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.headers.get("Content-Type"), r.read()
    except urllib.error.HTTPError as e:
        return e.code, None, b""


def player(page):
    return page.evaluate("""() => { const s = window.tesseraPlayer || {}; const v = document.getElementById('player');
        return {ready: !!s.ready, done: !!s.done, error: s.error, appended: s.appended || [], switches: s.switches || [],
                width: v ? v.videoWidth : 0, ended: v ? v.ended : false, time: v ? v.currentTime : 0,
                ranges: v ? v.buffered.length : -1, duration: v ? v.duration : 0} }""")


def play_to_end(page, timeout_ms=90000):
    page.evaluate("() => { const v = document.getElementById('player'); v.playbackRate = 2; return v.play(); }")
    page.wait_for_function("() => document.getElementById('player').ended", timeout=timeout_ms)


try:
    # The package over HTTP, behind the same auth.
    status, kind, body = fetch(f"/v1/jobs/{job}/package/master.m3u8")
    check("master.m3u8 is served with its HLS type", status == 200 and kind == "application/vnd.apple.mpegurl"
          and body.startswith(b"#EXTM3U"), (status, kind))
    status, kind, _ = fetch(f"/v1/jobs/{job}/package/manifest.mpd")
    check("manifest.mpd is served with its DASH type", status == 200 and kind == "application/dash+xml", (status, kind))
    check("the package needs credentials", fetch(f"/v1/jobs/{job}/package/master.m3u8", auth=False)[0] == 401)
    for bad in ["../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "nothing.m3u8", ".", "640x360/../../x"]:
        status = fetch(f"/v1/jobs/{job}/package/{bad}")[0]
        check(f"no file outside the package or missing ({bad}) is served", status in (400, 404), status)

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required"])
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(base + "/")
        page.fill("input#token", token)
        page.click("button[type=submit]")
        page.wait_for_selector("#workers")

        # The first rendition, played to its end.
        page.goto(f"{base}/jobs/{job}")
        page.wait_for_function("() => window.tesseraPlayer && (window.tesseraPlayer.done || window.tesseraPlayer.error)",
                               timeout=60000)
        s = player(page)
        check("the player appended every segment of the first rendition", s["error"] is None
              and [a["rendition"] for a in s["appended"]] == [0] * config["segments"], s)
        options = page.eval_on_selector_all("#rendition option",
                                            "os => os.map(o => ({text: o.textContent, disabled: o.disabled}))")
        check("the rendition choice lists every rendition", len(options) == len(config["widths"]), options)
        takes = page.evaluate("""() => window.tesseraPlayer.renditions.map(r =>
            MediaSource.isTypeSupported('video/mp4; codecs="' + r.codecs[0] + '"'))""")
        figures["browserTakes"] = takes
        check("a rendition this browser cannot play is listed, named, and cannot be chosen",
              len(takes) == len(options) and all(o["disabled"] == (not t) and ("not playable" in o["text"]) == (not t)
                                                  for o, t in zip(options, takes)), (options, takes))
        play_to_end(page)
        s = player(page)
        figures["firstPlay"] = s
        check("it plays to the end without a stall", s["ended"] and abs(s["time"] - s["duration"]) < 0.1, s)
        check("its pictures are the first rendition's width", s["width"] == config["widths"][0], s["width"])
        check("one buffered range", s["ranges"] == 1, s["ranges"])

        # Switching at a segment boundary: hold the first segment, choose the second rendition, let it go.
        held = []
        first = config["first"]
        page.route(f"**/package/{first}/seg_00001.m4s", lambda route: held.append(route))
        page.goto(f"{base}/jobs/{job}")
        page.wait_for_function("() => window.tesseraPlayer && window.tesseraPlayer.ready", timeout=30000)
        for _ in range(200):
            if held:
                break
            page.wait_for_timeout(50)
        check("the first segment's request was held", len(held) == 1, len(held))
        # The next rendition this browser plays (the HEVC one, where it cannot, is skipped).
        target = next(i for i in range(1, len(takes)) if takes[i])
        page.select_option("#rendition", str(target))
        held[0].continue_()
        page.wait_for_function("() => window.tesseraPlayer.done || window.tesseraPlayer.error", timeout=60000)
        s = player(page)
        check("the switch took effect at the next segment", s["switches"] == [{"segment": 1, "to": target}],
              s["switches"])
        check("segments came from the first rendition, then the chosen one",
              [a["rendition"] for a in s["appended"]] == [0] + [target] * (config["segments"] - 1), s["appended"])
        check("switching left a single buffered range", s["ranges"] == 1, s["ranges"])
        play_to_end(page)
        s = player(page)
        figures["switchedPlay"] = s
        check("the switched stream plays to the end", s["ended"], s)
        check("and shows the chosen rendition's pictures", s["width"] == config["widths"][target], s["width"])
        check("no script or CSP error on the page", not errors, errors)
        browser.close()
except Exception as e:  # noqa: BLE001 - the harness reports, the Swift test fails
    check("the harness ran to its end", False, repr(e))

json.dump({"checks": checks, "figures": figures}, open(sys.argv[2], "w"))
sys.exit(0 if all(c["ok"] for c in checks) else 1)
