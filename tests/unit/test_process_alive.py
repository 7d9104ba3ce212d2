"""The one liveness rule the temp-file sweeps share (exec layers, a recorded run's rows)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from judgeaudit.audit.inputs.recorded_verdicts import ROWS_PREFIX, Rows
from judgeaudit.fsutil import process_alive


def test_only_a_pid_that_does_not_exist_is_dead() -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert process_alive(os.getpid())
    assert not process_alive(gone.pid)
    assert process_alive(10**30)  # no process can have it: left alone, not a crash


def test_a_rows_folder_named_with_an_impossible_pid_is_left_alone(tmp_path: Path) -> None:
    odd = Path(tempfile.gettempdir()) / f"{ROWS_PREFIX}{10**30}-x"
    odd.mkdir(exist_ok=True)
    try:
        Rows().close()  # sweeps on creation; before, os.kill raised OverflowError here
        assert odd.is_dir()
    finally:
        odd.rmdir()
