/// `GET /`: one self-contained page for people, built without a front-end
/// toolchain: the sales per currency of the latest day with sales and of all
/// days, each poll's ranking, the daily chart and the latest events, with
/// dates and times in one zone (`orders serve --tz`, or the page's `?tz=`).
///
/// The server writes the log's state as it stands into the page (the
/// answers of `/replay`, `/reports/daily`, `/tally` and the last events),
/// and the chart as `/reports/daily?format=svg` draws it, so that it opens
/// on the numbers; then it updates live over `/events/stream`, fetching
/// again only the answers an event can change, from the routes any client reads.
enum Page {
    /// The page, with `state` (a JSON object: `replay`, `daily`, `tally`,
    /// `events`, `head`, `zone`) and `chart` (an SVG, or nothing) written into it.
    static func html(state: [UInt8], chart: [UInt8]) -> [UInt8] {
        Array(head.utf8)
            + (chart.isEmpty
                ? Array(#"<div id="chart" class="muted">no sales yet</div>"#.utf8)
                : Array(#"<div id="chart">"#.utf8) + chart + Array("</div>".utf8))
            + Array(middle.utf8) + scriptSafe(state) + Array(tail.utf8)
    }

    /// JSON that cannot end the `<script>` element it stands in: every `</` written `<\/`, which JSON reads as `</`.
    static func scriptSafe(_ json: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(json.count)
        for (i, byte) in json.enumerated() {
            if byte == UInt8(ascii: "/"), i > 0, json[i - 1] == UInt8(ascii: "<") { out.append(UInt8(ascii: "\\")) }
            out.append(byte)
        }
        return out
    }

    private static let head = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>orders</title>
        <style>
          body { font: 15px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; background: #f5f5f7; color: #1d1d1f; }
          header { display: flex; flex-wrap: wrap; align-items: baseline; gap: .3rem 1rem; padding: 1rem 1.5rem; background: #fff; border-bottom: 1px solid #d2d2d7; }
          header h1 { font-size: 1.3rem; margin: 0; }
          #status, #zone { font-size: .85rem; color: #6e6e73; }
          #status.live::before { content: "● "; color: #1a9e3f; }
          main { display: flex; flex-direction: column; gap: 1rem; padding: 1rem 1.5rem; }
          .top { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 1rem; align-items: start; }
          section { background: #fff; border-radius: 12px; padding: 1rem 1.2rem; box-shadow: 0 1px 2px rgba(0,0,0,.06); min-width: 0; }
          h2 { font-size: 1rem; margin: 0 0 .6rem; color: #424245; }
          h3 { font-size: .85rem; margin: .8rem 0 .2rem; color: #6e6e73; font-weight: 600; }
          table { border-collapse: collapse; width: 100%; }
          td, th { padding: .25rem .4rem; text-align: left; vertical-align: baseline; }
          th { font-weight: 600; color: #6e6e73; font-size: .8rem; border-bottom: 1px solid #e5e5ea; }
          .n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
          .big { font-size: 1.6rem; font-weight: 600; white-space: nowrap; }
          #totals .big { font-size: 1.05rem; }
          #sales table { width: auto; }
          .muted { color: #6e6e73; font-size: .85rem; }
          ol { margin: .2rem 0 .8rem 1.2rem; padding: 0; }
          #chart { overflow-x: auto; }
          #chart svg { display: block; max-width: none; }
          #events { max-height: 24rem; overflow: auto; }
          #events table { table-layout: fixed; font-size: .85rem; }
          #events td { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; border-bottom: 1px solid #f2f2f7; }
          #events .seq { width: 4.5rem; } #events .time { width: 10.5rem; } #events .type { width: 9rem; }
          .anomaly { color: #b3261e; }
          @media (max-width: 600px) {
            header, main { padding-left: .8rem; padding-right: .8rem; }
            section { padding: .8rem; }
            #events .type, #events .date { display: none; }
            #events .seq { width: 3.5rem; } #events .time { width: 4.6rem; }
          }
        </style>
        </head>
        <body>
        <header><h1>orders</h1><span id="status"></span><span class="muted" id="counts"></span><span id="zone"></span></header>
        <main>
          <div class="top">
            <section><h2>Sales, <span id="day">the latest day</span></h2><div id="sales" class="muted">no sales yet</div></section>
            <section><h2>Polls</h2><div id="polls" class="muted">no votes yet</div></section>
          </div>
          <section><h2>Revenue</h2>
        """#

    private static let middle = #"""
        </section>
          <section><h2>Latest events</h2><div id="events" class="muted">no events yet</div></section>
        </main>
        <script id="state" type="application/json">
        """#

    private static let tail = #"""
        </script>
        <script>
        "use strict";
        const digits = { BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, VND: 0, VUV: 0,
                         XAF: 0, XOF: 0, XPF: 0, BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3 };
        const symbols = { KRW: "₩", USD: "$", EUR: "€", JPY: "¥", GBP: "£", INR: "₹", VND: "₫" };
        const money = (minor, currency) => {
          const d = digits[currency] ?? 2;
          const text = (minor / 10 ** d).toLocaleString("en", { minimumFractionDigits: d, maximumFractionDigits: d });
          return symbols[currency] ? symbols[currency] + text : currency + " " + text;
        };
        const count = n => Number(n).toLocaleString("en");
        const counted = (n, word) => `${count(n)} ${word}${n === 1 ? "" : "s"}`;
        const esc = s => String(s).replace(/[&<>"]/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
        const get = async path => { const r = await fetch(path); if (!r.ok) throw new Error(path + ": " + r.status); return r; };
        const $ = id => document.getElementById(id);
        const state = JSON.parse($("state").textContent);
        const zone = state.zone, tz = `tz=${encodeURIComponent(zone)}`;

        /// An instant as the date and the time of day in the page's zone; what is not one, as it is.
        const clock = new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit",
                                                         hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });
        function when(at) {
          const instant = new Date(at);
          if (isNaN(instant)) return ["", String(at)];
          const part = Object.fromEntries(clock.formatToParts(instant).map(p => [p.type, p.value]));
          return [`${part.year}-${part.month}-${part.day}`, `${part.hour}:${part.minute}:${part.second}`];
        }

        function summary(replay) {
          $("counts").textContent = [counted(replay.events, "event"), counted(replay.orders, "order"), counted(replay.votes, "vote"),
                                     counted(replay.open_carts, "open cart")].join(" · ");
        }

        /// The latest day's sales per currency, then every day's, from the answer of /reports/daily.
        function sales(daily) {
          const rows = daily.rows;
          if (!rows.length) return;
          const day = rows[rows.length - 1].date;
          const line = r => `<tr><td class="big n" data-revenue="${r.revenue}">${esc(money(r.revenue, r.currency))}</td>` +
            `<td class="muted">${counted(r.orders, "order")}, ${counted(r.units, "unit")}</td></tr>`;
          const dates = new Set(rows.map(r => r.date)).size;
          $("day").textContent = day;
          $("sales").className = "";
          $("sales").innerHTML = "<table>" + rows.filter(r => r.date === day).map(line).join("") + "</table>" +
            `<h3>all ${counted(dates, "day")} with sales</h3><table id="totals">` + daily.totals.map(line).join("") + "</table>";
        }

        function polls(tally) {
          if (!tally.polls.length) return;
          $("polls").className = "";
          $("polls").innerHTML = tally.polls.map(p =>
            `<div><strong>${esc(p.poll)}</strong> <span class="muted">${counted(p.votes, "vote")}</span><ol>` +
            p.ranking.map(c => `<li>${esc(c.candidate)} <span class="muted">${counted(c.votes, "vote")}</span></li>`).join("") + "</ol></div>").join("");
        }

        /// The server's chart (the SVG of /reports/daily?format=svg) at its own size, scrolled to its latest bars.
        function chart(svg) {
          if (svg !== undefined) { $("chart").className = ""; $("chart").innerHTML = svg; }
          $("chart").scrollLeft = $("chart").scrollWidth;
        }

        /// What an event is about, in a few words: its cart and product, order, or poll and vote.
        function about(e) {
          switch (e.type) {
            case "item_added": return `${e.cart}: ${e.product} × ${count(e.qty)} at ${money(e.price, e.currency)}`;
            case "quantity_changed": return `${e.cart}: ${e.product} to ${count(e.qty)}`;
            case "item_removed": return `${e.cart}: ${e.product} removed`;
            case "checked_out": return `${e.cart} → order ${e.order}`;
            case "vote_cast": return `${e.poll}: ${e.voter} for ${e.candidate}`;
            default: return Object.entries(e).filter(([k]) => !["seq", "id", "type", "at"].includes(k)).map(([k, v]) => `${k} ${JSON.stringify(v)}`).join(", ");
          }
        }

        let latest = [];
        function show() {
          if (!latest.length) return;
          $("events").className = "";
          $("events").innerHTML = `<table><thead><tr><th class="seq n">seq</th><th class="time">time (${esc(zone)})</th><th class="type">type</th><th>what</th></tr></thead><tbody>` +
            latest.map(line => {
              let e;
              try { e = JSON.parse(line); } catch { return `<tr><td colspan="4">${esc(line)}</td></tr>`; }
              const what = about(e), [date, time] = when(e.at);
              return `<tr><td class="seq n">${count(e.seq)}</td><td class="time" title="${esc(e.at)}"><span class="date">${esc(date)} </span>${esc(time)}</td>` +
                `<td class="type">${esc(e.type)}</td><td title="${esc(what)}">${esc(what)}</td></tr>`;
            }).join("") + "</tbody></table>";
        }

        /// The answers an event can change: every event the counts; a checkout the day's sales and the chart; a vote the polls.
        const fetches = {
          replay: () => get("replay").then(r => r.json()).then(summary),
          daily: () => Promise.all([get(`reports/daily?format=json&${tz}`).then(r => r.json()),
                                    get(`reports/daily?format=svg&${tz}`).then(r => r.text())]).then(([daily, svg]) => { sales(daily); chart(svg); }),
          tally: () => get("tally").then(r => r.json()).then(polls),
        };
        const changes = { checked_out: ["daily"], vote_cast: ["tally"], item_added: [], item_removed: [], quantity_changed: [] };
        let dirty = new Set(), pending = null;
        function changed(line) {
          let type;
          try { type = JSON.parse(line).type; } catch {}
          for (const what of ["replay", ...(changes[type] ?? ["daily", "tally"])]) dirty.add(what);
          if (!pending) pending = setTimeout(() => {
            const now = dirty;
            pending = null; dirty = new Set();
            Promise.all([...now].map(what => fetches[what]())).catch(() => {});
          }, 200);
        }

        // The state the server wrote into the page, drawn before the first paint; then live.
        summary(state.replay);
        sales(state.daily);
        polls(state.tally);
        chart();
        $("zone").textContent = `dates in ${zone}`;
        latest = state.events.map(e => JSON.stringify(e)).reverse();
        show();
        $("status").textContent = `as of seq ${count(state.head)}`;
        const stream = new EventSource(`events/stream?after=${state.head}`);
        stream.onopen = () => { $("status").textContent = "live"; $("status").className = "live"; };
        stream.onerror = () => { $("status").textContent = "reconnecting…"; $("status").className = ""; };
        stream.onmessage = e => { latest.unshift(e.data); latest.length = Math.min(latest.length, 20); show(); changed(e.data); };
        </script>
        </body>
        </html>

        """#
}
