"""A run's *period* (the day, week or month its recorded verdicts were logged): the trend's x axis.

One owner for its format, so the import, the run manifest and the trend agree on what a period
is and how periods sort: an ISO 8601 date (``2026-11-03``), month (``2026-11``), week
(``2026-W45``) or date and time (``2026-11-03T06:00:00Z``). Periods of one granularity sort as
text; a run without a period sorts by its creation time.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any

_MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")
_WEEK = re.compile(r"^\d{4}-W(0[1-9]|[1-4]\d|5[0-3])$")
EXAMPLE = "an ISO date such as 2026-11-03 (or 2026-11, 2026-W45, 2026-11-03T06:00:00Z)"


class PeriodError(ValueError):
    """A period that is not one of the ISO forms (the caller adds file and line)."""


def parse_period(value: Any) -> str:
    """The period as given, once it is one of the accepted ISO forms."""
    if not isinstance(value, str) or not value.strip():
        raise PeriodError(f"must be {EXAMPLE}")
    text = value.strip()
    if _MONTH.match(text) or _WEEK.match(text):
        return text
    try:
        if len(text) == 10:
            date.fromisoformat(text)
        else:
            datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise PeriodError(f"{text!r} is not {EXAMPLE}") from None
    return text


def period_of_name(name: str) -> str | None:
    """A file stem that is itself a period (``2026-11-03.jsonl``), else None."""
    try:
        return parse_period(name)
    except PeriodError:
        return None


class OnePeriod:
    """All pairs of one run share one period (or none has one): a run is one point of the trend.

    Fed pair by pair while a file is validated; ``problem`` is the one-line refusal, or None."""

    def __init__(self) -> None:
        self.period: str | None = None
        self.first: str | None = None  # where the first pair was
        self.seen = False

    def add(self, period: str | None, where: str) -> str | None:
        if not self.seen:
            self.period, self.first, self.seen = period, where, True
            return None
        if period == self.period:
            return None
        return (
            f"{where}: period: {period!r} differs from {self.period!r} on {self.first}; one "
            "run holds one period: split the file by period and audit each (or drop the field)"
        )
