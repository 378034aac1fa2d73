"""A minimal MCP client over stdio that keeps each response line as the server wrote it."""

import json
import os
import select
import subprocess
import time

PROTOCOL_VERSION = "2025-06-18"


class Session:
    """One server process spoken to with JSON-RPC lines written by hand."""

    def __init__(self, argv, env=None, cwd=None, user=None):
        if user is not None:
            argv = ["runuser", "-u", user, "--"] + list(argv)
        full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp", "LANG": "C.UTF-8"}
        full_env.update(env or {})
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=full_env,
            cwd=cwd,
        )
        self.next_id = 1
        self.buffer = b""
        self.server_info = None

    def send(self, message):
        line = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        self.proc.stdin.write(line)
        self.proc.stdin.flush()

    def read_line(self, deadline):
        """The next line on stdout, without its newline, or None when the deadline passes."""
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def request(self, method, params, timeout):
        """Sends a request; returns the raw line of its response, or None on a local timeout."""
        request_id = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            line = self.read_line(deadline)
            if line is None:
                return None
            stripped = line.rstrip(b"\r")
            try:
                message = json.loads(stripped)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == request_id and (
                "result" in message or "error" in message
            ):
                return line
            if isinstance(message, dict) and "method" in message and "id" in message:
                # A request from the server (roots/list, sampling, ...): answer that we do not
                # support it, so the server goes on.
                self.send({"jsonrpc": "2.0", "id": message["id"],
                           "error": {"code": -32601, "message": "Method not found"}})

    def initialize(self, timeout=30):
        line = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "mcp-errors-corpus", "version": "0.1.0"},
            },
            timeout,
        )
        if line is None:
            raise RuntimeError("no answer to initialize")
        self.server_info = json.loads(line)["result"].get("serverInfo")
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
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
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
