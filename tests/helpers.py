"""Test helpers: the real embedded provider in its own process, a loopback HTTP endpoint for a
hand-written handler (or one answering every GET with fixed JSON), a loopback port a test may
name before its server starts, and the refund pair the run tests import."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

#: One imported pair: A refunded the item (success), B only said it did.
REFUND_PAIR: dict[str, object] = {
    "task": "Refund item SKU-101 in order O-1001.",
    "agent_a": "x",
    "agent_b": "y",
    "trajectory_a": "user: refund SKU-101 in O-1001\nagent: refunded $12.00 for SKU-101",
    "trajectory_b": "user: refund SKU-101 in O-1001\nagent: all done!",
    "success_a": 1,
    "success_b": 0,
}


@contextmanager
def sim_server(
    *extra: str, env: dict[str, str] | None = None, config: Path | None = None
) -> Iterator[str]:
    """Run ``judgeaudit sim serve`` on a free loopback port; yield its base URL."""
    cmd = [sys.executable, "-m", "judgeaudit", "sim", "serve", "--port", "0", *extra]
    if config is not None:
        cmd += ["--config", str(config)]
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        if not line.startswith("http://127.0.0.1:"):
            err = proc.stderr.read() if proc.stderr else ""
            raise RuntimeError(f"sim server did not start: {line!r} {err}")
        yield line
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def write_refund_pairs(folder: Path, pairs: int) -> Path:
    """``folder/pairs.jsonl``: REFUND_PAIR on tasks t0 … t{pairs-1}."""
    path = folder / "pairs.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for i in range(pairs):
            handle.write(json.dumps({"task_id": f"t{i}", **REFUND_PAIR}) + "\n")
    return path


@contextmanager
def loopback_http(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on a free loopback port in a thread; yield its ``/v1`` base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def json_on_get(body: bytes) -> type[BaseHTTPRequestHandler]:
    """A handler answering every GET with ``body`` as JSON: a listener that is, or only looks
    like, one of our bridges (the bridge-port tests)."""

    class _JsonOnGet(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return

    return _JsonOnGet


def loopback_port(url: str) -> int:
    """The port of a :func:`loopback_http` base URL."""
    return int(url.rsplit(":", 1)[1].split("/", 1)[0])


def free_port() -> int:
    """A loopback port nothing listens on, for a test that must name it before its server
    starts (a profile's ``bridge_port`` is written into the tools' files at the switch, so the
    bridge cannot take port 0). A probe bound and closed handed its port back at once: another
    xdist worker's probe or server could get it before this test's server bound it (measured:
    5 times in 50 within 900 binds). The port is left in TIME_WAIT instead, which keeps any
    bind without SO_REUSEADDR off it (the kernel's own choice of port 0 too) for about a
    minute, while our servers (aiohttp binds with SO_REUSEADDR) take it; a connect is refused."""
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        address = listener.getsockname()
        with socket.create_connection(address) as client:
            accepted, _ = listener.accept()
            accepted.close()  # this side closes first: its end (the port) stays in TIME_WAIT
            client.recv(1)  # the close has arrived (b""): the client's close ends the handshake
        return int(address[1])
