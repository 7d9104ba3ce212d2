"""`judgeaudit ... | head`: a reader that goes away is not a crash."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def _run_into_closed_pipe(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run with stdout a pipe whose reader is already closed, so the first write fails (EPIPE)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {**os.environ, "JUDGEAUDIT_LOG_DIR": str(tmp_path / "log")}
    try:
        return subprocess.run(
            [sys.executable, "-m", "judgeaudit", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)


def test_report_into_head_is_not_a_crash(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    subprocess.run(
        [sys.executable, "-m", "judgeaudit", "demo", "--no-tui", "--out", str(out)],
        capture_output=True,
        check=True,
        timeout=600,
    )
    done = _run_into_closed_pipe(["report", str(out), "--format", "json"], tmp_path)
    assert done.returncode == 141, done.stderr
    assert "unexpected error" not in done.stderr
    assert not (tmp_path / "log").exists()
