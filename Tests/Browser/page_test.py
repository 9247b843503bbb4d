#!/usr/bin/env python3
"""The page at `GET /` of `orders serve`, in a real browser: headless
Chromium (Debian's package), driven over the DevTools protocol on a pipe
(no library). It loads the page, waits for it to show the log's numbers,
takes a screenshot, appends events over HTTP, and checks that the page, with
no reload, shows the new numbers (it updates over /events/stream), fetching
again only what each event can change; then the same page in Asia/Seoul, at
1280 and at 390 px (a phone), with a screenshot of each. Loopback only;
every wait is bounded; the server and the browser are stopped at the end.

usage: page_test.py ORDERS_BINARY OUTPUT_DIR
Prints 'page: 1 passed, 0 failed' (or the failure) and exits 0 only on success.
"""
import base64, json, os, subprocess, sys, tempfile, time, urllib.error, urllib.request

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
        """The whole page, below the fold too."""
        size = call("Page.getLayoutMetrics", {}, session)["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        data = call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip}, session)["data"]
        with open(os.path.join(out, name), "wb") as f:
            f.write(base64.b64decode(data))

    def evaluate(expression):
        return call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)["result"].get("value")

    # The server wrote the log's state into the page: it is there without a script, and the
    # first look, as soon as the document is parsed, already shows the numbers.
    html = urllib.request.urlopen(url + "/", timeout=20).read().decode()
    if '<script id="state" type="application/json">{"replay": {"events": 17,' not in html or '"head": 17, "zone": "UTC"}' not in html:
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
    # The chart is the server's (/reports/daily?format=svg): a panel a currency, each with its one date once.
    chart = evaluate("[...document.querySelectorAll('#chart svg text')].map(t => t.textContent)")
    if chart.count("2025-09-16") != 2 or "₩0" not in chart or "₩3,000,000" not in chart or "$400" not in chart:
        fail(f"the chart has no scale, or does not show its one date once a panel: {chart!r}")
    served = urllib.request.urlopen(url + "/reports/daily?format=svg", timeout=20).read().decode()
    if evaluate("document.querySelector('#chart svg').outerHTML.length") < len(served) * 0.9:
        fail("the page's chart is not the server's")
    totals = text("sales")
    if "all 1 day with sales" not in totals:
        fail(f"the sales card has no totals of all days: {totals!r}")
    header = evaluate("[...document.querySelectorAll('#events th')].map(th => th.textContent).join('|')")
    if header != "seq|time (UTC)|type|what":
        fail(f"the latest events are not a table: {header!r}")
    screenshot("page-before.png")
    # Every fetch the page makes from here on is counted.
    evaluate("window.fetched = []; const plain = window.fetch; window.fetch = (path, ...rest) => { fetched.push(String(path).split('?')[0]); return plain(path, ...rest); }; true")

    def append(body):
        request = urllib.request.Request(url + "/events", data=body, method="POST")
        return json.load(urllib.request.urlopen(request, timeout=20))

    with open("Fixtures/zones.ndjson", "rb") as f:
        answer = append(f.read())
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
    # zones.ndjson has carts and checkouts, no votes: the polls are not fetched again.
    if sorted(set(evaluate("fetched"))) != ["replay", "reports/daily"]:
        fail(f"carts and checkouts refetched {evaluate('fetched')}")
    # An item added changes only the counts; a vote the polls too; neither the daily sales.
    for body, seen, refetched in [
        ('{"type": "item_added", "at": "2025-09-18T01:00:00Z", "cart": "new-1", "product": "p", "qty": 1, "price": 100, "currency": "USD"}', "42 events", ["replay"]),
        ('{"type": "vote_cast", "at": "2025-09-18T01:00:00Z", "poll": "kiosk-design", "voter": "v-new", "candidate": "dark"}', "43 events", ["replay", "tally"]),
    ]:
        evaluate("fetched = []; true")
        append(body.encode() + b"\n")
        wait_for(lambda: text("counts").startswith(seen), f"the page to show {seen}")
        time.sleep(0.5)
        if sorted(set(evaluate("fetched"))) != refetched:
            fail(f"after {body}: fetched {evaluate('fetched')}, not only {refetched}")

    def look(path, width, name):
        """The page at `path`, `width` px wide, as a phone (mobile) below 600 px; its screenshot."""
        call("Emulation.setDeviceMetricsOverride", {"width": width, "height": 900 if width > 600 else 844, "deviceScaleFactor": 1, "mobile": width < 600}, session)
        call("Page.navigate", {"url": url + path}, session)
        wait_for(lambda: evaluate("document.readyState") == "complete" and text("status") == "live", f"{path} at {width} px, live")
        screenshot(name)

    # Seoul, as a phone sees it: a day later, times in Seoul, the chart's text at its size, scrolled to its latest day.
    look("/?tz=Asia/Seoul", 390, "page-390.png")
    seoul = json.load(urllib.request.urlopen(url + "/reports/daily?tz=Asia/Seoul", timeout=20))["rows"][-1]["date"]
    if text("zone") != "dates in Asia/Seoul" or text("day") != seoul:
        fail(f"the page is not in Asia/Seoul: {text('zone')!r}, latest day {text('day')!r}")
    header = evaluate("[...document.querySelectorAll('#events th')].filter(th => th.offsetWidth > 0).map(th => th.textContent).join('|')")
    if header != "seq|time (Asia/Seoul)|what":
        fail(f"on a phone the events table shows {header!r}, not seq, time and what")
    first_time = evaluate("document.querySelector('#events tbody tr:first-child td.time').innerText")
    if first_time != "10:00:00":
        fail(f"the latest event's time in Seoul on a phone is {first_time!r}, not its time of day there")
    what = evaluate("document.querySelector('#events th:last-child').getBoundingClientRect().width")
    if what < 150:
        fail(f"the events' what column is {what} px wide on a phone")
    smallest = evaluate("Math.min(...[...document.querySelectorAll('#chart svg text')].map(t => t.getBoundingClientRect().height).filter(h => h > 0))")
    if smallest < 10:
        fail(f"the chart's text is {smallest} px high on a phone")
    scrolled = evaluate("(c => [c.scrollWidth > c.clientWidth, c.scrollLeft + c.clientWidth >= c.scrollWidth - 1])(document.getElementById('chart'))")
    if scrolled != [True, True]:
        fail(f"on a phone the chart does not scroll, or does not open on its latest day: {scrolled}")
    fits = evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    if not fits:
        fail("the page runs off a phone's screen")
    # A desktop: two cards side by side, no empty column; the chart at its size.
    look("/?tz=Asia/Seoul", 1280, "page-1280.png")
    cards = evaluate("[...document.querySelectorAll('.top > section')].map(s => Math.round(s.getBoundingClientRect().top))")
    width = evaluate("(r => r.right - r.left)(document.querySelector('.top').getBoundingClientRect())")
    halves = evaluate("[...document.querySelectorAll('.top > section')].map(s => s.getBoundingClientRect().width)")
    if len(cards) != 2 or cards[0] != cards[1] or min(halves) < width * 0.45:
        fail(f"the top row is not two cards side by side: tops {cards}, widths {halves} of {width}")
    bad = urllib.request.Request(url + "/?tz=Mars/Olympus")
    try:
        urllib.request.urlopen(bad, timeout=20)
        fail("a page in an unknown zone was answered")
    except urllib.error.HTTPError as error:
        if error.code != 400 or b'"parameter": "tz"' not in error.read():
            fail(f"a page in an unknown zone answered {error.code}")
    print(f"page: 1 passed, 0 failed (before: {before[0]}; after: {after[0]}; at 390 and 1280 px in Asia/Seoul; screenshots in {out})")
finally:
    if browser:
        browser.kill()
    server.terminate()
    server.wait(timeout=20)
