"""A push receiver for SubscribeTests: it fails a share of the requests it
gets (500 or 503, or a connection closed unanswered), and appends the
lines of each request it takes to OUT, after a line `# KEY` with its
Idempotency-Key. Usage: flaky_receiver.py PORT OUT FAILURE_SHARE SEED"""
import http.server
import random
import sys

port, out, share, seed = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
chance = random.Random(seed)


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        roll = chance.random()
        if roll < share / 3:
            self.close_connection = True
            return
        if roll < share:
            self.send_response(500 if roll < 2 * share / 3 else 503)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        with open(out, "ab") as f:
            f.write(b"# " + self.headers["Idempotency-Key"].encode() + b" " + self.headers["Subscription"].encode() + b"\n" + body)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *arguments):
        pass


http.server.HTTPServer(("127.0.0.1", port), Receiver).serve_forever()
