"""The output directories opened in the app before, newest first, so the Runs screen can list
their runs on the next start (lazygit's recent repositories). Kept in the config directory as
``recent-dirs.json``; a directory that no longer holds an audit database is dropped."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from judgeaudit.fsutil import atomic_write_text

KEEP = 8
FILE = "recent-dirs.json"


def recent(config: Path) -> list[Path]:
    try:
        data = json.loads((config / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(data, list):
        return []
    dirs = [Path(d) for d in data if isinstance(d, str)]
    return [d for d in dirs if (d / "audit.db").is_file()][:KEEP]


def remember(config: Path, out: Path) -> None:
    """Put ``out`` first (as an absolute path); never fails the app over a config file."""
    if not (out / "audit.db").is_file():
        return
    here = out.resolve()
    dirs = [here, *(d for d in recent(config) if d.resolve() != here)][:KEEP]
    with contextlib.suppress(OSError):
        atomic_write_text(config / FILE, json.dumps([str(d) for d in dirs], indent=1) + "\n")
