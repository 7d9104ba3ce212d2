"""Formatting rates and intervals the same way in the HTML report and the app."""

from __future__ import annotations

from typing import Any


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def ci(row: dict[str, Any]) -> str:
    """A row's 95% interval as ``lo–hi%``, or a dash when it has none."""
    if row.get("ci_low") is None:
        return "—"
    return f"{row['ci_low'] * 100:.1f}–{row['ci_high'] * 100:.1f}%"
