"""Typed messages screens send up to the app (which owns the run and the navigation)."""

from __future__ import annotations

from pathlib import Path

from textual.message import Message


class StartRun(Message):
    def __init__(self, spec: Path, out: Path) -> None:
        super().__init__()
        self.spec, self.out = spec, out


class OpenResults(Message):
    """Show a run in Results: ``run_id`` None means the directory's latest run."""

    def __init__(self, out: Path, run_id: str | None = None) -> None:
        super().__init__()
        self.out, self.run_id = out, run_id
