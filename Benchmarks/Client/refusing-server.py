"""A server that answers /health as orders serve does, without naming a log, and
503 with Retry-After: 60 to every POST: `send` takes its input into the outbox and
delivers nothing, so that delivery alone can be timed from a full outbox.
Usage: refusing-server.py PORT_FILE"""
import http.server
import sys


class Refusing(http.server.BaseHTTPRequestHandler):
    def answer(self, status, body, extra=()):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.answer(200, b'{"status": "ok"}')

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.answer(503, b'{"error": "busy"}', [("Retry-After", "60")])

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Refusing)
with open(sys.argv[1], "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
