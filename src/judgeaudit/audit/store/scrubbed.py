"""What reaches ``audit.db``'s content columns is scrubbed of key shapes once: a batch's rows
as the store writes them (:func:`grouped_rows`), rows prepared before their run
(``prepared.py``) and a pair's judge logs shared with the live log (:class:`Scrubbed`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judgeaudit.audit.store.schema import CONTENT_COLUMNS
from judgeaudit.credentials import scrub_content

#: Content up to this length is scrubbed once per batch of :func:`scrubbed_rows` (memory: one
#: batch's distinct short values).
MEMO_CHARS = 512


@dataclass(frozen=True)
class Scrubbed:
    """Rows of ``table`` whose content columns went through :func:`scrubbed_rows` already.

    Made only by :meth:`AuditStore.scrub`: the store writes them as they are, and the live judge
    log encodes the same values, so one pair's judge replies are scrubbed once, not once per
    writer (the live log's second scrub was a tenth of the audit's CPU, docs/benchmarks.md)."""

    table: str
    rows: tuple[dict[str, Any], ...]


def grouped_rows(
    rows: list[tuple[str, dict[str, Any], bool]],
) -> list[tuple[tuple[str, tuple[str, ...], bool], list[tuple[Any, ...]]]]:
    """Rows by (table, columns, scrubbed), in first-seen order, as value tuples for
    executemany; content not scrubbed yet is scrubbed here."""
    groups: dict[tuple[str, tuple[str, ...], bool], list[tuple[Any, ...]]] = {}
    for table, row, clean in rows:
        groups.setdefault((table, tuple(row), clean), []).append(tuple(row.values()))
    return [
        (key, values if key[2] else scrubbed_rows(key[0], key[1], values))
        for key, values in groups.items()
    ]


def scrubbed_rows(
    table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> list[tuple[Any, ...]]:
    """``rows`` with their content columns (:data:`CONTENT_COLUMNS`) scrubbed of key shapes."""
    content = CONTENT_COLUMNS.get(table, frozenset())
    at = [i for i, column in enumerate(columns) if column in content]
    if not at:
        return [tuple(row) for row in rows]
    out = []
    memo: dict[str, str] = {}  # short values repeat (a judge's verdicts): each scrubbed once
    for row in rows:
        values = list(row)
        for i in at:
            value = values[i]
            if not isinstance(value, str):
                continue
            if len(value) > MEMO_CHARS:
                values[i] = scrub_content(value)
            elif (done := memo.get(value)) is not None:
                values[i] = done
            else:
                values[i] = memo[value] = scrub_content(value)
        out.append(tuple(values))
    return out
