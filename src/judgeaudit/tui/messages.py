"""Typed messages screens send up to the app (which owns the run and the navigation)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.message import Message

from judgeaudit.fsutil import atomic_write_bytes


@dataclass(frozen=True)
class WrittenSpec:
    """A spec file Launch wrote into the output dir for a run, and what was there before (None:
    nothing): a run refused before it began puts that back (:meth:`undo`), so a refused Launch
    leaves the directory as it was."""

    path: Path
    previous: bytes | None

    def undo(self) -> None:
        if self.previous is None:
            self.path.unlink(missing_ok=True)
        else:
            atomic_write_bytes(self.path, self.previous)


class StartRun(Message):
    def __init__(self, spec: Path, out: Path, written: WrittenSpec | None = None) -> None:
        super().__init__()
        self.spec, self.out, self.written = spec, out, written


class OpenResults(Message):
    """Show a run in Results: ``run_id`` None means the directory's latest run."""

    def __init__(self, out: Path, run_id: str | None = None) -> None:
        super().__init__()
        self.out, self.run_id = out, run_id
