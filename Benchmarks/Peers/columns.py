#!/usr/bin/env python3
"""Turns NDJSON events (plain or zstd-compressed) into flat fixed-width
columns, every id numbered per role in order of first use, for c_fold.c:
the events as `orders` hands them to its fold after decoding a batch.

    python3 columns.py events.ndjson.zst DIR

Writes DIR/kind (u8: 0 item_added, 1 quantity_changed, 2 item_removed,
3 checked_out, 4 vote_cast), DIR/at (i64 ms), DIR/a and DIR/b and DIR/c
(u32: cart, product, - for cart events; cart, order, - for checkouts;
poll, voter, candidate for votes), DIR/qty and DIR/price (i64), DIR/currency
(u16, a number per code) and DIR/currencies (the codes, in that order).
Slow (about a minute for 10M events); the fold's timing does not include it.
"""
import array
import json
import sys
from datetime import datetime, timedelta, timezone

from daily_fold import open_events  # NDJSON, plain or zstd-compressed, as the other peer reads it

KINDS = {"item_added": 0, "quantity_changed": 1, "item_removed": 2, "checked_out": 3, "vote_cast": 4}
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def milliseconds(at):
    # `orders export` writes UTC with three fractional digits.
    stamp = datetime.fromisoformat(at.replace("Z", "+00:00"))
    return (stamp - EPOCH) // timedelta(milliseconds=1)


def main(path, out):
    numbers = {}  # role -> {id: its number, from 0 in order of first use}

    def number(role, name):
        ids = numbers.setdefault(role, {})
        return ids.setdefault(name, len(ids))

    currencies = {}
    cols = {name: array.array(code) for name, code in
            [("kind", "B"), ("at", "q"), ("a", "I"), ("b", "I"), ("c", "I"), ("qty", "q"), ("price", "q"), ("currency", "H")]}
    for line in open_events(path):
        if not line.strip():
            continue
        event = json.loads(line)
        kind = KINDS[event["type"]]
        cols["kind"].append(kind)
        cols["at"].append(milliseconds(event["at"]))
        if kind == 4:
            a, b, c = number("poll", event["poll"]), number("voter", event["voter"]), number("candidate", event["candidate"])
        elif kind == 3:
            a, b, c = number("cart", event["cart"]), number("order", event["order"]), 0
        else:
            a, b, c = number("cart", event["cart"]), number("product", event["product"]), 0
        cols["a"].append(a)
        cols["b"].append(b)
        cols["c"].append(c)
        cols["qty"].append(event.get("qty", 0))
        cols["price"].append(event.get("price", 0))
        cols["currency"].append(currencies.setdefault(event["currency"], len(currencies)) if kind == 0 else 0)
    for name, values in cols.items():
        with open(f"{out}/{name}", "wb") as f:
            values.tofile(f)
    with open(f"{out}/currencies", "w") as f:
        f.write("\n".join(currencies) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
