"""The embedded provider in its own process for the benchmarks, with its CPU time readable, so a
benchmark can say whether the client or the server was the bottleneck."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


@dataclass
class SimProcess:
    url: str
    pid: int

    def cpu_s(self) -> float:
        """User + system CPU seconds the server process has used so far."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks


@contextmanager
def server_process(cmd: list[str], what: str) -> Iterator[SimProcess]:
    """A server child that prints its base URL first and exits when its standard input closes."""
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        if not url.startswith("http://"):
            raise SystemExit(f"{what} did not start: {url!r}")
        yield SimProcess(url, proc.pid)
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def sim_process(*extra: str, config: Path | None = None) -> Iterator[SimProcess]:
    cmd = [sys.executable, "-m", "judgeaudit", "sim", "serve", "--port", "0", "--stop-on-stdin-eof"]
    cmd += extra
    if config is not None:
        cmd += ["--config", str(config)]
    with server_process(cmd, "the embedded provider") as sim:
        yield sim
