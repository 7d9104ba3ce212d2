"""Reading JSONL input files with errors that name the file and line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgeaudit.audit.tasks.errors import TaskError
from judgeaudit.validate import iter_jsonl


def read_objects(path: Path, what: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield (``file:line``, object) for every non-blank line; raise TaskError on bad input.

    Strict: UTF-8 only (a bad byte is named by line and offset), no NaN/Infinity, no overflow.
    """
    for where, _line, row in iter_jsonl(path, what, TaskError):
        yield where, row
