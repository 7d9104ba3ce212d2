"""Test helpers: start the real embedded provider in its own process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


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
