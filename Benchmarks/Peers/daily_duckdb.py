#!/usr/bin/env python3
"""Runs daily_duckdb.sql over an NDJSON or NDJSON.zst file and prints CSV.

    python3 daily_duckdb.py events.ndjson.zst > daily.csv
"""
import pathlib
import sys

import duckdb

query = (pathlib.Path(__file__).parent / "daily_duckdb.sql").read_text()
connection = duckdb.connect()
connection.execute("SET VARIABLE events = ?", [sys.argv[1]])
rows = connection.execute(query).fetchall()
print("date,currency,orders,units,revenue")
for date, currency, orders, units, revenue in rows:
    print(f"{date},{currency},{orders},{units},{revenue}")
