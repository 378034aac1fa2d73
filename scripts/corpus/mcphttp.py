"""A minimal MCP client over Streamable HTTP that keeps each response message as the server
wrote it: the body of a JSON answer, or the `data` of the SSE event that carries the response.

It has the interface of `mcpstdio.Session`; the server is a process started with `argv` that
listens on `url` (a loopback address) once it is up.
"""

import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from urllib.parse import urlparse

from mcpstdio import PROTOCOL_VERSION


class HttpSession:
    """One server process spoken to over Streamable HTTP with JSON-RPC written by hand."""

    def __init__(self, argv, url, env=None, cwd=None, user=None):
        if user is not None:
            argv = ["runuser", "-u", user, "--"] + list(argv)
        full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp", "LANG": "C.UTF-8"}
        full_env.update(env or {})
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, env=full_env, cwd=cwd)
        self.url = url
        self.next_id = 1
        self.session_id = None
        self.server_info = None
        parsed = urlparse(url)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection((parsed.hostname, parsed.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"no server listening at {url}")

    def post(self, message, timeout):
        """The raw bytes of the response to `message`, or None on a local timeout."""
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": PROTOCOL_VERSION}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        request = urllib.request.Request(self.url, data=json.dumps(message).encode(), headers=headers,
                                         method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                self.session_id = response.headers.get("Mcp-Session-Id") or self.session_id
                kind = response.headers.get("Content-Type", "")
                body = response.read()
        except urllib.error.HTTPError as e:
            return e.read()
        except (TimeoutError, socket.timeout):
            return None
        if "text/event-stream" not in kind:
            return body
        for event in body.split(b"\n\n"):
            data = b"\n".join(line[5:].lstrip(b" ") for line in event.splitlines() if line.startswith(b"data:"))
            if not data:
                continue
            try:
                parsed = json.loads(data)
            except ValueError:
                continue
            if isinstance(parsed, dict) and parsed.get("id") == message.get("id") and (
                "result" in parsed or "error" in parsed
            ):
                return data
        return None

    def request(self, method, params, timeout):
        request_id = self.next_id
        self.next_id += 1
        return self.post({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}, timeout)

    def initialize(self, timeout=30):
        line = self.request("initialize", {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                                           "clientInfo": {"name": "mcp-errors-corpus", "version": "0.1.0"}}, timeout)
        if line is None:
            raise RuntimeError("no answer to initialize")
        self.server_info = json.loads(line)["result"].get("serverInfo")
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, timeout)
        return self.server_info

    def list_tools(self, timeout=30):
        line = self.request("tools/list", {}, timeout)
        return json.loads(line)["result"]["tools"]

    def call(self, name, arguments, timeout=20):
        params = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return self.request("tools/call", params, timeout)

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
