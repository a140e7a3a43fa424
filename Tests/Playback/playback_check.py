"""Outputs played in a real browser: Debian's chromium, headless, driven by Playwright, each file served
from a local HTTP server (so its pictures can be read back from a canvas). For each file: it plays to
its end, its picture has the size asked, the browser presented the frames asked (within 5 %), and each
pixel asked, read from the first frame drawn on a canvas, is the colour asked within a tolerance (what
the browser shows, not only what the file says). Usage: playback_check.py CONFIG RESULT, CONFIG a JSON
file {"dir", "files": [{"name", "width", "height", "frames", "pixels": [{"x", "y", "rgb"?: [r, g, b]}], "tolerance"}]};
RESULT gets {"checks": [{"name", "ok", "detail"}], "shown": {name: [[r, g, b] per pixel asked]}}."""
import functools
import http.server
import json
import sys
import threading

from playwright.sync_api import sync_playwright

config = json.load(open(sys.argv[1]))
checks, shown = [], {}


def check(name, ok, detail=""):
    checks.append({"name": name, "ok": bool(ok), "detail": str(detail)[:500]})
    print(("PASS " if ok else "FAIL ") + name + (f": {detail}" if detail != "" else ""), flush=True)


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


handler = functools.partial(Quiet, directory=config["dir"])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
base = f"http://127.0.0.1:{server.server_address[1]}/"

try:
    with open(config["dir"] + "/play.html", "w") as page_file:
        page_file.write("<!doctype html><video id=v muted playsinline></video><canvas id=c></canvas>")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium",
                                     args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required"])
        page = browser.new_page()
        for f in config["files"]:
            name = f["name"]
            page.goto(base + "play.html")
            page.evaluate("""(src) => new Promise((done, fail) => {
                const v = document.getElementById('v');
                v.onloadeddata = () => done(); v.onerror = () => fail(String(v.error && v.error.message));
                v.src = src; })""", base + name)
            size = page.evaluate("() => { const v = document.getElementById('v'); return [v.videoWidth, v.videoHeight] }")
            check(f"{name}: decoded at {f['width']}x{f['height']}", size == [f["width"], f["height"]], size)
            for p in f.get("pixels", []):
                rgb = page.evaluate("""([x, y]) => { const v = document.getElementById('v'), c = document.getElementById('c');
                    c.width = v.videoWidth; c.height = v.videoHeight; const g = c.getContext('2d');
                    g.drawImage(v, 0, 0); return Array.from(g.getImageData(x, y, 1, 1).data.slice(0, 3)); }""",
                                    [p["x"], p["y"]])
                shown.setdefault(name, []).append(rgb)
                if "rgb" in p:
                    worst = max(abs(a - b) for a, b in zip(rgb, p["rgb"]))
                    check(f"{name}: the pixel at {p['x']},{p['y']} shows {p['rgb']}", worst <= f.get("tolerance", 10),
                          f"shown {rgb}")
            page.evaluate("() => { const v = document.getElementById('v'); v.playbackRate = 1; return v.play(); }")
            page.wait_for_function("() => document.getElementById('v').ended", timeout=60000)
            quality = page.evaluate("""() => { const q = document.getElementById('v').getVideoPlaybackQuality();
                return [q.totalVideoFrames, q.droppedVideoFrames]; }""")
            check(f"{name}: played to its end, {f['frames']} frames presented",
                  abs(quality[0] - f["frames"]) <= max(2, f["frames"] // 20), f"total {quality[0]}, dropped {quality[1]}")
        browser.close()
except Exception as e:  # a harness that stops early says why
    check("the harness ran to its end", False, repr(e))
finally:
    server.shutdown()
    json.dump({"checks": checks, "shown": shown}, open(sys.argv[2], "w"))
