#!/usr/bin/env python3
"""The page at `GET /` of `orders serve`, in a real browser: headless
Chromium (Debian's package), driven over the DevTools protocol on a pipe
(no library). It loads the page, waits for it to show the log's numbers,
takes a screenshot, appends events over HTTP, and checks that the page, with
no reload, shows the new numbers (it updates over /events/stream); then a
second screenshot. Loopback only; every wait is bounded; the server and the
browser are stopped at the end.

usage: page_test.py ORDERS_BINARY OUTPUT_DIR
Prints 'page: 1 passed, 0 failed' (or the failure) and exits 0 only on success.
"""
import base64, json, os, subprocess, sys, tempfile, time, urllib.request

orders, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
work = tempfile.mkdtemp()
log = os.path.join(work, "page.log")
subprocess.run([orders, "import", log, "Fixtures/kiosk-day.ndjson"], check=True, capture_output=True)
server = subprocess.Popen([orders, "serve", log, "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
browser = None


def fail(message):
    print(f"page: 0 passed, 1 failed: {message}")
    sys.exit(1)


try:
    first = server.stdout.readline().decode().strip()
    if not first.startswith("listening on http://127.0.0.1:"):
        fail(f"the server did not start: {first!r}")
    url = first.split(" ")[-1]
    chromium = next((c for c in ("chromium", "chromium-browser", "google-chrome") if subprocess.run(["which", c], capture_output=True).returncode == 0), None)
    if not chromium:
        fail("no chromium: apt-get install chromium")
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()
    browser = subprocess.Popen(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--remote-debugging-pipe",
         "--window-size=1200,1000", "about:blank"],
        close_fds=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        # The protocol's pipe is the browser's fds 3 (in) and 4 (out).
        preexec_fn=lambda: (os.dup2(to_browser_r, 3), os.dup2(from_browser_w, 4)))
    os.close(to_browser_r)
    os.close(from_browser_w)
    reader = os.fdopen(from_browser_r, "rb")
    writer = os.fdopen(to_browser_w, "wb")
    buffered = b""
    next_id = 0

    def call(method, params=None, session=None):
        """Sends one DevTools command and returns its result, passing over events."""
        global next_id, buffered
        next_id += 1
        message = {"id": next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        writer.write(json.dumps(message).encode() + b"\0")
        writer.flush()
        while True:
            while b"\0" not in buffered:
                chunk = os.read(reader.fileno(), 1 << 20)
                if not chunk:
                    fail("the browser closed its pipe")
                buffered += chunk
            raw, buffered = buffered.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == next_id:
                if "error" in answer:
                    fail(f"{method}: {answer['error']}")
                return answer["result"]

    target = call("Target.createTarget", {"url": url + "/"})["targetId"]
    session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def text(element):
        result = call("Runtime.evaluate", {"expression": f"document.getElementById('{element}')?.textContent ?? ''"}, session)
        return result["result"].get("value", "")

    def wait_for(condition, what, seconds=20):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if condition():
                return
            time.sleep(0.2)
        fail(f"timed out waiting for {what}: counts {text('counts')!r}, status {text('status')!r}")

    def screenshot(name):
        data = call("Page.captureScreenshot", {"format": "png"}, session)["data"]
        with open(os.path.join(out, name), "wb") as f:
            f.write(base64.b64decode(data))

    wait_for(lambda: text("counts").startswith("17 events") and text("status") == "live", "the page to show 17 events, live")
    before = (text("counts"), text("sales"), text("polls"))
    if "3 orders" not in before[0] or "dark" not in before[2]:
        fail(f"the page shows {before}")
    screenshot("page-before.png")
    with open("Fixtures/zones.ndjson", "rb") as f:
        request = urllib.request.Request(url + "/events", data=f.read(), method="POST")
        answer = json.load(urllib.request.urlopen(request, timeout=20))
    if answer.get("appended") != 24:
        fail(f"the append answered {answer}")
    # No reload: the page hears of the events over /events/stream and fetches the numbers again.
    wait_for(lambda: text("counts").startswith("41 events"), "the page to show 41 events")
    after = (text("counts"), text("sales"), text("polls"))
    if after == before or "15 orders" not in after[0] or after[1] == before[1]:
        fail(f"the numbers did not change as they should: before {before}, after {after}")
    latest = text("events")
    if '"seq": 41' not in latest.split("\n")[0]:
        fail(f"the latest event is not the last appended: {latest[:200]!r}")
    screenshot("page-after.png")
    print(f"page: 1 passed, 0 failed (before: {before[0]}; after: {after[0]}; screenshots in {out})")
finally:
    if browser:
        browser.kill()
    server.terminate()
    server.wait(timeout=20)
