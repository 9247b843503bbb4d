"""Replays an orders dataset on Apache Spark with the answers of the CLI.

The `orders` binary does every part's work; Spark schedules it, retries it
and carries the small texts the passes hand each other. See
docs/datasets.md and `python -m orders_spark --help`.
"""
