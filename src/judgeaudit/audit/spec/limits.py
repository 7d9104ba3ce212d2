"""The ranges and name rules of run-spec values, checked before anything is written.

``concurrency = 0`` deadlocks and ``trials = 2**63-1`` grows memory until it fails, so every
numeric key has a range; a name that is empty or holds a control character would make ids like
``run-/task/t0/``. Kept apart from :mod:`judgeaudit.audit.spec` so the spec reader stays short.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgeaudit import validate
from judgeaudit.errors import InputError
from judgeaudit.validate import INT64_MAX

#: Ranges, checked before anything is written: 0 deadlocks, 2**63-1 trials is a memory bomb.
RUN_LIMITS = {
    "trials": (1, 1000),
    "seed": (0, INT64_MAX),
    "concurrency": (1, 1024),
    "max_turns": (1, 100),
    "judge_retries": (0, 10),
}
ENDPOINT_LIMITS = {
    "concurrency": (1, 1024),
    "timeout_s": (0.1, 3600),
    "price_in": (0, 10_000),
    "price_out": (0, 10_000),
}
MODEL_LIMITS = {"temperature": (0, 2)}
#: Strings that name things: an empty one would make ids like ``run-/task/t0/``.
NAMES = ("name", "model", "endpoint", "tasks", "imported", "base_url", "key_env", "profile")


def check_value(
    path: Path,
    key: str,
    value: Any,
    full: str,
    limit: tuple[float, float] | None,
    error: type[InputError],
) -> None:
    """Ranges and non-empty one-line names, as ``file: key: ...`` lines."""
    where = f"{path}: {full}"
    if limit is not None:
        lo, hi = limit
        if isinstance(value, int) and isinstance(lo, int) and isinstance(hi, int):
            validate.integer(value, where, lo, hi, error)
        else:
            validate.number(value, where, lo, hi, error)
    if key in NAMES and isinstance(value, str):
        validate.string(value, where, error)
        if any(ch in value for ch in "\n\r\t\0"):
            raise error(f"{where}: holds a control character; write it on one line")
