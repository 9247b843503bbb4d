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

    def evaluate(expression):
        return call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)["result"].get("value")

    # The server wrote the log's state into the page: it is there without a script, and the
    # first look, as soon as the document is parsed, already shows the numbers.
    html = urllib.request.urlopen(url + "/", timeout=20).read().decode()
    if '<script id="state" type="application/json">{"replay": {"events": 17,' not in html or '"head": 17}' not in html:
        fail("the page does not carry the log's state")
    wait_for(lambda: evaluate("document.getElementById('state') !== null && document.readyState !== 'loading'"), "the page to be parsed", seconds=10)
    first_look = (text("counts"), text("sales"), text("status"))
    if not first_look[0].startswith("17 events") or "no sales yet" in first_look[1] or "connecting" in first_look[2]:
        fail(f"the first look shows placeholders, not the numbers: {first_look}")
    screenshot("page-at-load.png")
    wait_for(lambda: text("counts").startswith("17 events") and text("status") == "live", "the page to show 17 events, live")
    before = (text("counts"), text("sales"), text("polls"))
    if "3 orders" not in before[0] or "dark" not in before[2]:
        fail(f"the page shows {before}")
    # What a person reads: plurals, grouped counts, amounts on one line, a scaled chart, one date for one day.
    if "1 votes" in before[2] or "1 vote" not in before[2] or "1 open cart" not in before[0]:
        fail(f"plurals: {before}")
    if evaluate("count(1234567) + '|' + counted(1, 'vote') + '|' + counted(2, 'vote')") != "1,234,567|1 vote|2 votes":
        fail("counts are not grouped, or plurals are wrong")
    one_line = evaluate("""[...document.querySelectorAll('#sales .big')].every(cell => {
        const range = document.createRange(); range.selectNodeContents(cell); return range.getClientRects().length === 1; })""")
    if not one_line or "₩2,788,000" not in before[1]:
        fail(f"a sales amount wraps, or is not shown: {before[1]!r}")
    chart = evaluate("[...document.querySelectorAll('#chart svg > text')].map(t => t.textContent)")
    if chart.count("2025-09-16") != 1 or "₩0" not in chart or "₩3,000,000" not in chart or "$400" not in chart:
        fail(f"the chart has no scale, or shows its one date twice: {chart!r}")
    header = evaluate("[...document.querySelectorAll('#events th')].map(th => th.textContent).join('|')")
    if header != "seq|time (UTC)|type|what":
        fail(f"the latest events are not a table: {header!r}")
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
    first_row = evaluate("[...document.querySelectorAll('#events tbody tr:first-child td')].map(td => td.textContent).join('|')")
    if not first_row or not first_row.startswith("41|"):
        fail(f"the latest event is not the last appended: {first_row!r}")
    fits = evaluate("[...document.querySelectorAll('#events td')].every(td => td.getBoundingClientRect().right <= document.documentElement.clientWidth)")
    if not fits:
        fail("the events table runs off the page")
    screenshot("page-after.png")
    print(f"page: 1 passed, 0 failed (before: {before[0]}; after: {after[0]}; screenshots in {out})")
finally:
    if browser:
        browser.kill()
    server.terminate()
    server.wait(timeout=20)
