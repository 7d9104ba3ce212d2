"""Reading JSONL input files with errors that name the file and line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgeaudit.audit.tasks_errors import TaskError


def read_objects(path: Path, what: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield (``file:line``, object) for every non-blank line; raise TaskError on bad input."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise TaskError(f"{path}: cannot read {what}: {exc.strerror}") from None
    found = False
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TaskError(
                f"{where}: not valid JSON ({exc.msg}); one {what} object per line"
            ) from None
        if not isinstance(row, dict):
            raise TaskError(f"{where}: expected a JSON object per line")
        found = True
        yield where, row
    if not found:
        raise TaskError(f"{path}: no {what} in file")
