#!/usr/bin/env python3
"""A page on another site tries to drive a coordinator through a real browser (Debian's chromium, Playwright).

Run by Tests/TesseraFarmTests/FarmCrossSiteTests.swift with the tools environment's python:

    cross_site_check.py COORDINATOR_URL SOURCE_PATH JOB_ID WORKER_ID RESULT.json

It serves an "evil" page from http://localhost:PORT (another site than http://127.0.0.1:…) whose script
sends what a browser lets any page send without asking first: no-cors fetches (a job as text/plain JSON,
a form-encoded job, a cancel, a drain) and an auto-submitted HTML form. RESULT gets what each attempt
saw from inside the page (nothing: no-cors answers are opaque) and the browser's own record of each
request's status, so the Swift test can check that each was refused and nothing changed.
"""
import http.server
import json
import sys
import threading

from playwright.sync_api import sync_playwright

coordinator, source, job, worker, result_path = sys.argv[1:6]
body = json.dumps({"source": source, "priority": 0, "overwrite": True, "output": "evil.mp4"})

page_html = f"""<!doctype html><html><body>
<form id="f" method="POST" action="{coordinator}/v1/jobs/{job}/cancel" target="sink"></form>
<iframe name="sink"></iframe>
<script>
const c = {json.dumps(coordinator)};
const attempts = [
  fetch(c + "/v1/jobs", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}},
                          body: {json.dumps(body)}}}),
  fetch(c + "/v1/jobs", {{method: "POST", mode: "no-cors",
                          headers: {{"Content-Type": "application/x-www-form-urlencoded"}}, body: "a=b"}}),
  fetch(c + "/v1/jobs/{job}/cancel", {{method: "POST", mode: "no-cors"}}),
  fetch(c + "/v1/workers/{worker}/drain", {{method: "POST", mode: "no-cors"}}),
];
Promise.allSettled(attempts).then(() => {{
  // Done once the form's answer has loaded in the iframe.
  document.querySelector("iframe").onload = () => {{ document.title = "done"; }};
  document.getElementById("f").submit();
}});
</script></body></html>"""


class Evil(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        data = page_html.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Evil)
threading.Thread(target=server.serve_forever, daemon=True).start()
evil = f"http://localhost:{server.server_address[1]}/"

seen = []
with sync_playwright() as pw:
    browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    page = browser.new_page()

    def on_response(response):
        if response.url.startswith(coordinator):
            seen.append({"method": response.request.method, "url": response.url, "status": response.status})

    page.on("response", on_response)
    page.goto(evil)
    page.wait_for_function("document.title === 'done'", timeout=30000)
    browser.close()
server.shutdown()
json.dump({"evilOrigin": evil, "responses": seen}, open(result_path, "w"))
