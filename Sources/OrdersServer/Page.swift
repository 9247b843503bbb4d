/// `GET /`: one self-contained page for people, built without a front-end
/// toolchain: the sales per currency of the latest day with sales, the
/// revenue per day, each poll's ranking and the latest events. It reads the
/// same routes any client reads, and updates live over `/events/stream`.
enum Page {
    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>orders</title>
    <style>
      body { font: 15px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; background: #f5f5f7; color: #1d1d1f; }
      header { display: flex; align-items: baseline; gap: 1rem; padding: 1rem 1.5rem; background: #fff; border-bottom: 1px solid #d2d2d7; }
      header h1 { font-size: 1.3rem; margin: 0; }
      #status { font-size: .85rem; color: #6e6e73; }
      #status.live::before { content: "● "; color: #1a9e3f; }
      main { display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 1rem; padding: 1rem 1.5rem; }
      section { background: #fff; border-radius: 12px; padding: 1rem 1.2rem; box-shadow: 0 1px 2px rgba(0,0,0,.06); }
      section.wide { grid-column: 1 / -1; }
      h2 { font-size: 1rem; margin: 0 0 .6rem; color: #424245; }
      table { border-collapse: collapse; width: 100%; }
      td, th { padding: .25rem .4rem; text-align: left; }
      td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
      .big { font-size: 1.6rem; font-weight: 600; }
      .muted { color: #6e6e73; font-size: .85rem; }
      ol { margin: .2rem 0 .8rem 1.2rem; padding: 0; }
      #events { font: 12px/1.5 ui-monospace, Menlo, monospace; max-height: 22rem; overflow: auto; white-space: pre; }
      svg text { font-size: 11px; fill: #424245; }
    </style>
    </head>
    <body>
    <header><h1>orders</h1><span id="status">connecting…</span><span class="muted" id="counts"></span></header>
    <main>
      <section><h2>Sales, <span id="day">the latest day</span></h2><div id="sales" class="muted">no sales yet</div></section>
      <section><h2>Polls</h2><div id="polls" class="muted">no votes yet</div></section>
      <section class="wide"><h2>Revenue per day</h2><div id="chart" class="muted">no sales yet</div></section>
      <section class="wide"><h2>Latest events</h2><div id="events"></div></section>
    </main>
    <script>
    "use strict";
    const digits = { KRW: 0, JPY: 0, CLP: 0, VND: 0, ISK: 0, HUF: 0 };
    const money = (minor, currency) => {
      const d = digits[currency] ?? 2;
      return (minor / 10 ** d).toLocaleString("en", { minimumFractionDigits: d, maximumFractionDigits: d }) + " " + currency;
    };
    const esc = s => String(s).replace(/[&<>"]/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
    const get = async path => { const r = await fetch(path); if (!r.ok) throw new Error(path + ": " + r.status); return r; };
    let latest = [];

    async function refresh() {
      const [replay, daily, tally] = await Promise.all([
        get("replay").then(r => r.json()), get("reports/daily?format=json").then(r => r.json()), get("tally").then(r => r.json())]);
      document.getElementById("counts").textContent =
        `${replay.events} events · ${replay.orders} orders · ${replay.votes} votes · ${replay.open_carts} open carts`;
      const rows = daily.rows;
      if (rows.length) {
        const day = rows[rows.length - 1].date;
        document.getElementById("day").textContent = day;
        document.getElementById("sales").className = "";
        document.getElementById("sales").innerHTML = "<table>" + rows.filter(r => r.date === day).map(r =>
          `<tr><td class="big n" data-revenue="${r.revenue}">${esc(money(r.revenue, r.currency))}</td>` +
          `<td class="muted">${r.orders} orders, ${r.units} units</td></tr>`).join("") + "</table>";
        chart(rows);
      }
      if (tally.polls.length) {
        document.getElementById("polls").className = "";
        document.getElementById("polls").innerHTML = tally.polls.map(p =>
          `<div><strong>${esc(p.poll)}</strong> <span class="muted">${p.votes} votes</span><ol>` +
          p.ranking.map(c => `<li>${esc(c.candidate)} <span class="muted">${c.votes}</span></li>`).join("") + "</ol></div>").join("");
      }
    }

    function chart(rows) {
      const currencies = [...new Set(rows.map(r => r.currency))];
      const dates = [...new Set(rows.map(r => r.date))];
      const width = 900, height = 70 + 90 * currencies.length, left = 150, barArea = width - left - 20;
      let svg = `<svg viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-label="revenue per day">`;
      currencies.forEach((currency, i) => {
        const top = 20 + i * 90, max = Math.max(...rows.filter(r => r.currency === currency).map(r => r.revenue), 1);
        svg += `<text x="0" y="${top + 40}">${esc(currency)}</text>`;
        dates.forEach((date, j) => {
          const row = rows.find(r => r.currency === currency && r.date === date), w = barArea / dates.length;
          const h = row ? Math.max(1, 70 * row.revenue / max) : 0;
          svg += `<rect x="${left + j * w + 2}" y="${top + 70 - h}" width="${Math.max(1, w - 4)}" height="${h}" fill="#0071e3"><title>${esc(date)}: ${esc(row ? money(row.revenue, currency) : "none")}</title></rect>`;
        });
      });
      svg += `<text x="${left}" y="${height - 5}">${esc(dates[0])}</text><text x="${width - 20}" y="${height - 5}" text-anchor="end">${esc(dates[dates.length - 1])}</text></svg>`;
      document.getElementById("chart").className = "";
      document.getElementById("chart").innerHTML = svg;
    }

    function show() { document.getElementById("events").textContent = latest.join("\n"); }

    let pending = null;
    const soon = () => { if (!pending) pending = setTimeout(() => { pending = null; refresh().catch(() => {}); }, 200); };

    async function start() {
      const replay = await get("replay").then(r => r.json());
      const after = Math.max(0, replay.events - 20);
      latest = (await get(`events?after=${after}&limit=20`).then(r => r.text())).split("\n").filter(Boolean).reverse();
      show();
      await refresh();
      const stream = new EventSource(`events/stream?after=${replay.events}`);
      const status = document.getElementById("status");
      stream.onopen = () => { status.textContent = "live"; status.className = "live"; };
      stream.onerror = () => { status.textContent = "reconnecting…"; status.className = ""; };
      stream.onmessage = e => { latest.unshift(e.data); latest.length = Math.min(latest.length, 20); show(); soon(); };
    }
    start().catch(e => { document.getElementById("status").textContent = "error: " + e.message; });
    </script>
    </body>
    </html>

    """#
}
