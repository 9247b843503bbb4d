/// `GET /`: one self-contained page for people, built without a front-end
/// toolchain: the sales per currency of the latest day with sales, the
/// revenue per day, each poll's ranking and the latest events.
///
/// The server writes the log's state as it stands into the page (the
/// answers of `/replay`, `/reports/daily`, `/tally` and the last events),
/// and the page draws it before its first paint, so that it opens on the
/// numbers; then it updates live over `/events/stream`, reading the same
/// routes any client reads. One renderer, in the page, for both.
enum Page {
    /// The page, with `state` (a JSON object: `replay`, `daily`, `tally`,
    /// `events`, `head`) written into it.
    static func html(state: [UInt8]) -> [UInt8] {
        Array(head.utf8) + scriptSafe(state) + Array(tail.utf8)
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
          #status { font-size: .85rem; color: #6e6e73; }
          #status.live::before { content: "● "; color: #1a9e3f; }
          main { display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 1rem; padding: 1rem 1.5rem; }
          section { background: #fff; border-radius: 12px; padding: 1rem 1.2rem; box-shadow: 0 1px 2px rgba(0,0,0,.06); min-width: 0; }
          section.wide { grid-column: 1 / -1; }
          h2 { font-size: 1rem; margin: 0 0 .6rem; color: #424245; }
          table { border-collapse: collapse; width: 100%; }
          td, th { padding: .25rem .4rem; text-align: left; vertical-align: baseline; }
          th { font-weight: 600; color: #6e6e73; font-size: .8rem; border-bottom: 1px solid #e5e5ea; }
          .n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
          .big { font-size: 1.6rem; font-weight: 600; white-space: nowrap; }
          .muted { color: #6e6e73; font-size: .85rem; }
          ol { margin: .2rem 0 .8rem 1.2rem; padding: 0; }
          #events { max-height: 24rem; overflow: auto; }
          #events table { table-layout: fixed; font-size: .85rem; }
          #events td { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; border-bottom: 1px solid #f2f2f7; }
          #events .seq { width: 5.5rem; } #events .time { width: 12rem; } #events .type { width: 9rem; }
          .anomaly { color: #b3261e; }
          svg text { font-size: 11px; fill: #424245; }
        </style>
        </head>
        <body>
        <header><h1>orders</h1><span id="status"></span><span class="muted" id="counts"></span></header>
        <main>
          <section><h2>Sales, <span id="day">the latest day</span></h2><div id="sales" class="muted">no sales yet</div></section>
          <section><h2>Polls</h2><div id="polls" class="muted">no votes yet</div></section>
          <section class="wide"><h2>Revenue per day</h2><div id="chart" class="muted">no sales yet</div></section>
          <section class="wide"><h2>Latest events</h2><div id="events" class="muted">no events yet</div></section>
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
        const money = (minor, currency, whole) => {
          const d = digits[currency] ?? 2, shown = whole && minor % 10 ** d === 0 ? 0 : d;
          const text = (minor / 10 ** d).toLocaleString("en", { minimumFractionDigits: shown, maximumFractionDigits: shown });
          return symbols[currency] ? symbols[currency] + text : currency + " " + text;
        };
        const count = n => Number(n).toLocaleString("en");
        const counted = (n, word) => `${count(n)} ${word}${n === 1 ? "" : "s"}`;
        const esc = s => String(s).replace(/[&<>"]/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
        const get = async path => { const r = await fetch(path); if (!r.ok) throw new Error(path + ": " + r.status); return r; };
        const $ = id => document.getElementById(id);

        /// Everything but the latest events, from the answers of /replay, /reports/daily and /tally.
        function render(replay, daily, tally) {
          $("counts").textContent = [counted(replay.events, "event"), counted(replay.orders, "order"), counted(replay.votes, "vote"),
                                     counted(replay.open_carts, "open cart")].join(" · ");
          const rows = daily.rows;
          if (rows.length) {
            const day = rows[rows.length - 1].date;
            $("day").textContent = day;
            $("sales").className = "";
            $("sales").innerHTML = "<table>" + rows.filter(r => r.date === day).map(r =>
              `<tr><td class="big n" data-revenue="${r.revenue}">${esc(money(r.revenue, r.currency))}</td>` +
              `<td class="muted">${counted(r.orders, "order")}, ${counted(r.units, "unit")}</td></tr>`).join("") + "</table>";
            chart(rows);
          }
          if (tally.polls.length) {
            $("polls").className = "";
            $("polls").innerHTML = tally.polls.map(p =>
              `<div><strong>${esc(p.poll)}</strong> <span class="muted">${counted(p.votes, "vote")}</span><ol>` +
              p.ranking.map(c => `<li>${esc(c.candidate)} <span class="muted">${counted(c.votes, "vote")}</span></li>`).join("") + "</ol></div>").join("");
          }
        }

        /// The first tick of 1, 2 or 5 × 10ⁿ at or above `peak` in six steps or fewer, in whole units once the peak is a few of them.
        function axis(peak, currency) {
          const unit = 10 ** (digits[currency] ?? 2);
          let step = peak >= 5 * unit ? unit : 1;
          for (let magnitude = step; ; magnitude *= 10) {
            const found = [1, 2, 5].map(f => f * magnitude).find(s => Math.ceil(peak / s) <= 6);
            if (found) { step = found; break; }
          }
          return { step, top: Math.max(1, Math.ceil(peak / step)) * step };
        }

        /// Revenue per day, a row of bars a currency, each on its own scale with its top and middle ticks labelled.
        function chart(rows) {
          const currencies = [...new Set(rows.map(r => r.currency))].sort();
          const dates = [...new Set(rows.map(r => r.date))].sort();
          const rowHeight = 96, plot = 70, width = 900, left = 130, right = 12, barArea = width - left - right;
          const height = 28 + rowHeight * currencies.length;
          let svg = `<svg viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-label="revenue per day">`;
          currencies.forEach((currency, i) => {
            const top = 12 + i * rowHeight, series = rows.filter(r => r.currency === currency);
            const scale = axis(Math.max(...series.map(r => r.revenue), 1), currency);
            svg += `<text x="0" y="${top + plot / 2 + 4}" font-weight="600">${esc(currency)}</text>`;
            for (const value of [0, scale.top / 2, scale.top]) {
              const y = top + plot - plot * value / scale.top;
              svg += `<line x1="${left}" x2="${width - right}" y1="${y}" y2="${y}" stroke="${value ? "#e5e5ea" : "#8e8e93"}"/>`;
              svg += `<text x="${left - 6}" y="${y + 4}" text-anchor="end">${esc(money(value, currency, true))}</text>`;
            }
            const w = barArea / dates.length;
            dates.forEach((date, j) => {
              const row = series.find(r => r.date === date);
              if (!row) return;
              const h = Math.max(1, plot * row.revenue / scale.top), bar = Math.max(1, Math.min(w - 4, 40));
              svg += `<rect x="${left + j * w + (w - bar) / 2}" y="${top + plot - h}" width="${bar}" height="${h}" fill="#0071e3"><title>${esc(date)}: ${esc(money(row.revenue, currency))}</title></rect>`;
            });
          });
          const first = dates[0], last = dates[dates.length - 1];
          svg += dates.length === 1
            ? `<text x="${left + barArea / 2}" y="${height - 6}" text-anchor="middle">${esc(first)}</text>`
            : `<text x="${left}" y="${height - 6}">${esc(first)}</text><text x="${width - right}" y="${height - 6}" text-anchor="end">${esc(last)}</text>`;
          $("chart").className = "";
          $("chart").innerHTML = svg + "</svg>";
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
          $("events").innerHTML = `<table><thead><tr><th class="seq n">seq</th><th class="time">time (UTC)</th><th class="type">type</th><th>what</th></tr></thead><tbody>` +
            latest.map(line => {
              let e;
              try { e = JSON.parse(line); } catch { return `<tr><td colspan="4">${esc(line)}</td></tr>`; }
              const what = about(e);
              return `<tr><td class="seq n">${count(e.seq)}</td><td class="time">${esc(String(e.at).replace("T", " ").replace("Z", ""))}</td>` +
                `<td class="type">${esc(e.type)}</td><td title="${esc(what)}">${esc(what)}</td></tr>`;
            }).join("") + "</tbody></table>";
        }

        let pending = null;
        async function refresh() {
          const [replay, daily, tally] = await Promise.all([
            get("replay").then(r => r.json()), get("reports/daily?format=json").then(r => r.json()), get("tally").then(r => r.json())]);
          render(replay, daily, tally);
        }
        const soon = () => { if (!pending) pending = setTimeout(() => { pending = null; refresh().catch(() => {}); }, 200); };

        // The state the server wrote into the page, drawn before the first paint; then live.
        const state = JSON.parse($("state").textContent);
        render(state.replay, state.daily, state.tally);
        latest = state.events.map(e => JSON.stringify(e)).reverse();
        show();
        $("status").textContent = `as of seq ${count(state.head)}`;
        const stream = new EventSource(`events/stream?after=${state.head}`);
        stream.onopen = () => { $("status").textContent = "live"; $("status").className = "live"; };
        stream.onerror = () => { $("status").textContent = "reconnecting…"; $("status").className = ""; };
        stream.onmessage = e => { latest.unshift(e.data); latest.length = Math.min(latest.length, 20); show(); soon(); };
        </script>
        </body>
        </html>

        """#
}
