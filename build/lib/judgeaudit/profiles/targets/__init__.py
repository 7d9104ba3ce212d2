"""Per-app targets. Each one parses a live file (or refuses), and plans its new content."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class FilePlan:
    """One file a switch will write: what it held when read, and what it will hold."""

    path: Path
    before: bytes | None  # None: the file does not exist yet
    after: bytes
    secret: bool = False  # holds a key inline: written 0600
    owned: list[str] = field(default_factory=list)  # the keys judgeaudit now owns in it
    warnings: list[str] = field(default_factory=list)
