"""A local HTTP upstream on 127.0.0.1 that answers with the status a request asks for.

`/status/<code>` answers `<code>` (429 and 503 with `Retry-After`), `/slow/<seconds>` waits
before a 200, a path ending in `/version` is an Airflow 3 version. A path or query that
contains `slow<seconds>` as a word waits, then answers `{}`; one that contains `s<code>` (as a
GitLab project id or an Airflow DAG id can) answers that status with a JSON body. Anything
else is a small HTML page. `robots` chooses what `/robots.txt` says: `allow`, `disallow`, or a
status code.
"""

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RETRY_AFTER = {"429": "30", "503": "5"}
REASONS = {
    "400": "Bad Request", "401": "Unauthorized", "403": "Forbidden", "404": "Not Found",
    "409": "Conflict", "422": "Unprocessable Entity", "429": "Too Many Requests",
    "500": "Internal Server Error", "502": "Bad Gateway", "503": "Service Unavailable",
}


def make_handler(robots):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def answer(self, status, body, content_type, extra=None):
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for key, value in (extra or {}).items():
                self.send_header(key, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def handle_any(self):
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            path = self.path.split("?", 1)[0]
            if path == "/robots.txt":
                if robots == "allow":
                    return self.answer(200, "User-agent: *\nAllow: /\n", "text/plain")
                if robots == "disallow":
                    return self.answer(200, "User-agent: *\nDisallow: /\n", "text/plain")
                return self.answer(int(robots), "no robots here\n", "text/plain")
            match = re.match(r"^/status/(\d{3})", path)
            if match:
                code = match.group(1)
                extra = {"Retry-After": RETRY_AFTER[code]} if code in RETRY_AFTER else {}
                body = f"<html><body><h1>{code} {REASONS.get(code, '')}</h1></body></html>"
                return self.answer(int(code), body, "text/html", extra)
            match = re.match(r"^/slow/(\d+)", path)
            if match:
                time.sleep(int(match.group(1)))
                return self.answer(200, "<html><body>late</body></html>", "text/html")
            if path.endswith("/version"):
                return self.answer(200, json.dumps({"version": "3.0.2", "git_version": None}),
                                   "application/json")
            match = re.search(r"(?:^|[/_%.=&-])slow(\d+)(?:$|[/_%.=&-])", self.path)
            if match:
                time.sleep(int(match.group(1)))
                return self.answer(200, "{}", "application/json")
            match = re.search(r"(?:^|[/_%.=&-])s(\d{3})(?:$|[/_%.=&-])", self.path)
            if match:
                code = match.group(1)
                extra = {"Retry-After": RETRY_AFTER[code]} if code in RETRY_AFTER else {}
                body = json.dumps({"message": f"{code} {REASONS.get(code, '')}"})
                return self.answer(int(code), body, "application/json", extra)
            return self.answer(200, "<html><body><p>fixture page</p></body></html>", "text/html")

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = handle_any

    return Handler


class Fixture:
    """A fixture server on 127.0.0.1 and a free port, in a daemon thread."""

    def __init__(self, robots="allow"):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(robots))
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self):
        self.server.shutdown()
