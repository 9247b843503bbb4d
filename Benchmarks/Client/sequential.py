"""The yardstick for `orders send`: a bare HTTP/1.1 client on one kept-alive
connection, one request at a time (the order a log must keep), posting the
same NDJSON with a UUID4 id put into each line, N lines a request.

    python3 Benchmarks/Client/sequential.py URL FILE [N]
"""
import http.client
import sys
import time
import urllib.parse
import uuid

url, path = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
lines = [b'{"id":"' + str(uuid.uuid4()).encode() + b'",' + line[1:] for line in open(path, "rb") if line.strip()]
bodies = [b"".join(lines[i:i + n]) for i in range(0, len(lines), n)]
address = urllib.parse.urlsplit(url)
connection = http.client.HTTPConnection(address.hostname, address.port)
start = time.time()
for body in bodies:
    connection.request("POST", "/events", body, {"Content-Type": "application/x-ndjson"})
    answer = connection.getresponse()
    answer.read()
    assert answer.status == 200, answer.status
seconds = time.time() - start
print(f"sequential Python, {n:5d}-event batches: {seconds:6.2f} s, {len(lines) / seconds:7.0f} events/s (ids added before timing)")
