"""The processes tests start hear Ctrl-C (`children_hear_ctrl_c` in tests/conftest.py).

CI starts the suite from a background job, where SIGINT is ignored, and pytest-xdist's workers
pass that on to every process a test starts: the tests that press Ctrl-C on a run
(`test_recorded_resume.py`'s SIGINT cases) failed on two workers and passed on one.
"""

from __future__ import annotations

import subprocess
import sys


def test_a_child_process_gets_the_default_ctrl_c() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import signal; print(signal.getsignal(signal.SIGINT))"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert "default_int_handler" in done.stdout, done.stdout + done.stderr
