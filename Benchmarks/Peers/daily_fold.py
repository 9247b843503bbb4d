#!/usr/bin/env python3
"""The daily report (`orders report daily --format csv`, UTC) by a plain
Python fold of the same rules, over NDJSON or NDJSON.zst.

A peer for the README's Performance table: the straightforward way to
compute the report in a scripting language. It applies every rule of
section 2 of EVENTS.md, so its output must equal ours byte for byte.

    python3 daily_fold.py events.ndjson.zst > daily.csv
"""
import io
import json
import sys
from datetime import datetime, timezone

import zstandard


def open_events(path):
    raw = open(path, "rb")
    if raw.read(4) == b"\x28\xb5\x2f\xfd":
        raw.seek(0)
        return io.TextIOWrapper(zstandard.ZstdDecompressor().stream_reader(raw), encoding="utf-8")
    raw.seek(0)
    return io.TextIOWrapper(raw, encoding="utf-8")


def day_of(at):
    # RFC 3339 with a Z or an offset; the day is the UTC date.
    stamp = datetime.fromisoformat(at.replace("Z", "+00:00"))
    return stamp.astimezone(timezone.utc).strftime("%Y-%m-%d")


def main(path):
    carts = {}  # cart -> [closed, currency, {product: [qty, price]}]
    used_orders = set()
    votes = set()
    daily = {}  # (date, currency) -> [orders, units, revenue]
    for line in open_events(path):
        if not line.strip():
            continue
        e = json.loads(line)
        kind = e["type"]
        if kind == "item_added":
            cart = carts.setdefault(e["cart"], [False, None, {}])
            if cart[0] or (cart[2] and cart[1] != e["currency"]):
                continue
            existing = cart[2].get(e["product"])
            if existing:
                if existing[0] + e["qty"] > 2**63 - 1:
                    continue
                existing[0] += e["qty"]
                existing[1] = e["price"]
            else:
                cart[2][e["product"]] = [e["qty"], e["price"]]
            cart[1] = e["currency"]
        elif kind in ("quantity_changed", "item_removed"):
            cart = carts.get(e["cart"])
            if cart is None or cart[0] or e["product"] not in cart[2]:
                continue
            if kind == "quantity_changed":
                cart[2][e["product"]][0] = e["qty"]
            else:
                del cart[2][e["product"]]
        elif kind == "checked_out":
            cart = carts.get(e["cart"])
            if (cart and cart[0]) or e["order"] in used_orders or not cart or not cart[2]:
                continue
            units = sum(q for q, _ in cart[2].values())
            total = sum(q * p for q, p in cart[2].values())
            if units > 2**63 - 1 or total > 2**63 - 1:
                continue
            used_orders.add(e["order"])
            cart[0] = True
            cart[2] = {}
            row = daily.setdefault((day_of(e["at"]), cart[1]), [0, 0, 0])
            row[0] += 1
            row[1] += units
            row[2] += total
        elif kind == "vote_cast":
            votes.add((e["poll"], e["voter"], e["candidate"]))
    out = sys.stdout
    out.write("date,currency,orders,units,revenue\n")
    for (date, currency), (orders, units, revenue) in sorted(daily.items()):
        out.write(f"{date},{currency},{orders},{units},{revenue}\n")


if __name__ == "__main__":
    main(sys.argv[1])
