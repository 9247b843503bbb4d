#!/usr/bin/env python3
"""Adds to each NDJSON event what a real producer sends beyond the fold's
fields: a UUID `id` and two extras (`device`, `staff`), for measuring what
the record costs (Benchmarks/FINDINGS.md, "The record").

usage: with-record.py < events.ndjson > events-with-record.ndjson
Deterministic: the same input gives the same bytes.
"""
import random
import sys

rng = random.Random(20250916)
out = sys.stdout.buffer
devices = [b"kiosk-%d" % i for i in range(1, 41)] + [b"web", b"ios", b"android"]
staff = [b"kim", b"lee", b"park", b"choi", b"jung", b"kang", b"yoon", b"jang"]
for line in sys.stdin.buffer:
    line = line.rstrip(b"\r\n")
    if not line:
        continue
    # Drop export's seq: producers do not send one.
    if line.startswith(b'{"seq": '):
        line = b"{" + line[line.index(b", ") + 2:]
    h = b"%032x" % rng.getrandbits(128)
    uuid = b"-".join((h[0:8], h[8:12], b"4" + h[13:16], h[16:20], h[20:32]))
    out.write(b'{"id": "' + uuid + b'", ' + line[1:-1]
              + b', "device": "' + rng.choice(devices) + b'", "staff": "' + rng.choice(staff) + b'"}\n')
