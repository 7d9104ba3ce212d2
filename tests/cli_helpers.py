"""Running the real CLI in a child process, as a user's shell would, in an isolated world.

:func:`world_env` is the one definition of that world (the isolation fixture ``isolated`` in
``tests/conftest.py`` sets the same variables in-process); :func:`cli` is the one runner.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

#: The directories of an isolated world, under its root.
WORLD_DIRS = ("cfg", "claude", "codex", "home", "work")


def world_env(root: Path) -> dict[str, str]:
    """Everything judgeaudit, Claude Code and Codex read their settings from, under ``root``:
    judgeaudit's config dir, CLAUDE_CONFIG_DIR, CODEX_HOME, both managed-settings files, HOME
    and the XDG directories (so nothing of the machine's own user leaks in or gets written)."""
    home = root / "home"
    return {
        "JUDGEAUDIT_CONFIG_DIR": str(root / "cfg"),
        "CLAUDE_CONFIG_DIR": str(root / "claude"),
        "CODEX_HOME": str(root / "codex"),
        "JUDGEAUDIT_CLAUDE_MANAGED_SETTINGS": str(root / "managed.json"),
        "JUDGEAUDIT_CODEX_MANAGED_CONFIG": str(root / "managed.toml"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
    }


def make_world(root: Path) -> Path:
    """Create the world's directories under ``root``; returns ``root``."""
    for name in WORLD_DIRS:
        (root / name).mkdir(parents=True, exist_ok=True)
    return root


def cli(
    *args: str,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    stdin: str | None = None,
    timeout: float = 600,
) -> subprocess.CompletedProcess[str]:
    """``python -m judgeaudit ARGS`` with this environment plus ``env``; output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "judgeaudit", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )
