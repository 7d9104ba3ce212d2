"""Running the real CLI in a child process, as a user's shell would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def cli(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m judgeaudit ARGS`` with this environment plus ``env``; output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "judgeaudit", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )
