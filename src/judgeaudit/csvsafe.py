"""Spreadsheet-safe CSV cells: one owner for every CSV judgeaudit writes and reads back.

A reviewer opens ``review_sample.csv`` (and ``audit_pairs.csv``, the report's and the trend's
CSV) in a spreadsheet, which evaluates a cell starting with ``=``, ``+``, ``-``, ``@``, a tab
or a carriage return as a formula (CSV injection, OWASP). Agent names, task ids and every word
of a conversation come from users' files and logs, so such a text cell is written with a
leading ``'`` (shown as text, never run), and :func:`read_cell` takes it off again where
judgeaudit reads its own CSV back (a review sample's pair ids and labels). Numbers are written
as numbers: ``-0.5`` stays a number.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

#: What a spreadsheet reads as the start of a formula (OWASP's list).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
QUOTE = "'"


def cell(value: Any) -> Any:
    """``value`` as a CSV cell: a text that a spreadsheet would run, quoted with ``'``."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return QUOTE + value
    return value


def row(values: Iterable[Any]) -> list[Any]:
    """Each cell of a row through :func:`cell`."""
    return [cell(v) for v in values]


def read_cell(text: str) -> str:
    """A cell judgeaudit wrote, as it was before :func:`cell` (a reviewer's own text with a
    leading ``'`` before something else is theirs, and kept)."""
    if text.startswith(QUOTE) and text[1:].startswith(FORMULA_START):
        return text[1:]
    return text


if TYPE_CHECKING:
    _Writer = csv.DictWriter[str]
else:
    _Writer = csv.DictWriter  # not subscriptable at run time


class DictWriter(_Writer):
    """``csv.DictWriter`` whose every cell goes through :func:`cell`."""

    def writerow(self, rowdict: Mapping[str, Any]) -> Any:
        return super().writerow({k: cell(v) for k, v in rowdict.items()})

    def writerows(self, rowdicts: Iterable[Mapping[str, Any]]) -> None:
        for rowdict in rowdicts:
            self.writerow(rowdict)
