"""Every column of ``audit.db`` checked against the schema before anything reads the file.

A hand-edited or damaged file (``UPDATE audit_pairs SET success_a = 'x'``, a NULL where the
schema says NOT NULL, a fraction in an integer column, a preference other than A/B/tie) used to
crash the readers deep in pandas or the report's SQL (exit 70), or worse, be counted. Here it is
refused in one line naming the file, the table, the column, the first offending row and what to
do. What a column may hold comes from :mod:`judgeaudit.audit.store.schema` alone: its declared
type and NOT NULL (read from the migrated schema, so a new column is checked without an edit
here), :data:`~judgeaudit.audit.store.schema.DOMAINS` and the rules across a row's columns
(:data:`~judgeaudit.audit.store.schema.ROW_RULES`: ``misselected`` agrees with its pair).

One scan per table (every column's test in one ``WHERE``), once per state of the file: a report
opens ``audit.db`` several times and pays for one check, and a pass is remembered across
processes for a state no edit can keep (:mod:`judgeaudit.audit.store.check_memo`). Measured on
1M pairs (2M judge logs, 2M trajectories): about 2.7 s of CPU, in docs/security.md.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from judgeaudit.audit.store import check_memo
from judgeaudit.audit.store.schema import (
    DOMAINS,
    MIGRATIONS,
    ROW_RULES,
    SchemaError,
    columns_of,
    tables_of,
)

#: The column that names a row in the message, and what a row of the table is called.
ROW_NAMES = {
    "runs": ("run_id", "run"),
    "trajectories": ("traj_id", "trajectory"),
    "audit_pairs": ("pair_id", "pair"),
    "judge_logs": ("log_id", "judge log"),
    "tasks": ("task_id", "task"),
    "prompts": ("prompt_hash", "prompt"),
    "calls": ("call_id", "call"),
    "human_labels": ("pair_id", "label of pair"),
    "verdict_counts": ("run_id", "verdict counts of run"),
    "verdict_tasks": ("run_id", "verdict counts per task of run"),
}
#: Tables of one row per conversation, judge call or model call (millions on a large run):
#: only their numbers and flags are checked, the columns readers count with. Their text is
#: names and content that readers parse themselves (a damaged JSON is one line there), and a
#: test per text column would cost the report more than its aggregation (docs/security.md).
LOG_TABLES = frozenset({"trajectories", "judge_logs", "calls"})
WHAT_TO_DO = (
    "the database was edited by hand or damaged; restore the output directory from a backup, "
    "or re-run the audit (or the import) into a fresh --out"
)


class ColumnTypeError(SchemaError):
    """A value in ``audit.db`` that its column cannot hold (exit 2, one line)."""


@dataclass(frozen=True)
class ColumnRule:
    """What one column may hold: ``bad`` is SQL that is true for a value it must not hold."""

    column: str
    bad: str
    expected: str


def quoted(column: str) -> str:
    return '"' + column.replace('"', '""') + '"'


def _rule(
    column: str, declared: str, not_null: bool, domain: tuple[object, ...] | None
) -> ColumnRule:
    q = quoted(column)
    missing = f"{q} IS NULL OR " if not_null else ""
    if domain is not None:  # NOT IN is NULL (not bad) for a NULL: only NOT NULL refuses it
        values = ", ".join(repr(v) for v in domain)
        *first, last = [str(v) for v in domain]
        shown = f"{', '.join(first)} or {last}"
        return ColumnRule(column, f"{missing}{q} NOT IN ({values})", shown)
    allowed = "" if not_null else ", 'null'"
    if declared == "INTEGER":
        return ColumnRule(column, f"typeof({q}) NOT IN ('integer'{allowed})", "an integer")
    if declared == "REAL":  # a number (an integer too); `+ 0` changes text and blobs, not numbers
        return ColumnRule(column, f"{missing}{q} + 0 IS NOT {q}", "a number")
    return ColumnRule(column, f"typeof({q}) NOT IN ('text'{allowed})", "text")


@functools.cache
def rules() -> dict[str, tuple[ColumnRule, ...]]:
    """Per table, a rule for each column, from the schema as the migrations build it."""
    model = sqlite3.connect(":memory:")
    try:
        for migration in MIGRATIONS:
            migration.apply(model)
        tables = tables_of(model)
        out: dict[str, tuple[ColumnRule, ...]] = {}
        for table in tables:
            found = []
            for _cid, name, declared, not_null, _default, pk in model.execute(
                f"PRAGMA table_info({table})"
            ):
                if pk and declared == "INTEGER":
                    continue  # the rowid itself: always an integer
                domain = DOMAINS.get(table, {}).get(name)
                if table in LOG_TABLES and domain is None and declared.upper() == "TEXT":
                    continue
                found.append(_rule(name, declared.upper(), bool(not_null or pk), domain))
            found += [ColumnRule(*rule) for rule in ROW_RULES.get(table, ())]
            out[table] = tuple(found)
        return out
    finally:
        model.close()


@functools.cache
def rules_text() -> str:
    """The rules as text: part of a remembered pass's key (a release that checks more or
    otherwise checks again)."""
    return repr(sorted(rules().items()))


_checked: set[str] = set()
_lock = threading.Lock()


def check_columns(db: sqlite3.Connection, path: Path) -> None:
    """Refuse ``db`` (at ``path``) in one line if a column holds what the schema does not allow."""
    started = check_memo.now_ns()
    state, newest = check_memo.file_state(path)
    key = check_memo.digest(state, rules_text())
    if key in _checked:
        return
    if not check_memo.remembered(key):
        present = set(tables_of(db))
        for table, table_rules in rules().items():
            if table not in present:
                continue
            have = columns_of(db, table)
            checked = [rule for rule in table_rules if rule.column in have]
            if checked:
                _check_table(db, path, table, checked)
        if check_memo.file_state(path)[0] == state:  # not written to while it was checked
            check_memo.remember(key, newest, started)
    with _lock:
        _checked.add(key)


def _check_table(db: sqlite3.Connection, path: Path, table: str, checked: list[ColumnRule]) -> None:
    where = " OR ".join(f"({rule.bad})" for rule in checked)
    row = db.execute(f"SELECT rowid FROM {table} WHERE {where} ORDER BY rowid LIMIT 1").fetchone()
    if row is None:
        return
    rowid = row[0]
    tests = ", ".join(f"({rule.bad})" for rule in checked)
    flags = db.execute(f"SELECT {tests} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
    rule = next(r for r, bad in zip(checked, flags, strict=True) if bad)
    raise ColumnTypeError(
        f"{path}: {table}.{rule.column} of {_row_name(db, table, rowid, rule.column)} holds "
        f"{_value(db, table, rowid, rule.column)} where {rule.expected} is expected; {WHAT_TO_DO}"
    )


def _row_name(db: sqlite3.Connection, table: str, rowid: int, column: str) -> str:
    from judgeaudit.validate import shown_name

    key, noun = ROW_NAMES.get(table, ("rowid", "row"))
    value = None
    if key != column:
        value = db.execute(f"SELECT {quoted(key)} FROM {table} WHERE rowid = ?", (rowid,))
        value = value.fetchone()[0]
    if isinstance(value, str | int) and not isinstance(value, bool):
        return f"{noun} {shown_name(str(value))}"
    return f"row {rowid}"


def _value(db: sqlite3.Connection, table: str, rowid: int, column: str) -> str:
    """The offending value, short and masked (a key pasted into a column stays hidden)."""
    from judgeaudit.validate import shown_name

    q = quoted(column)
    kind, value = db.execute(
        f"SELECT typeof({q}), CASE WHEN typeof({q}) = 'blob' THEN NULL"
        f" WHEN typeof({q}) = 'text' THEN substr({q}, 1, 100) ELSE {q} END"
        f" FROM {table} WHERE rowid = ?",
        (rowid,),
    ).fetchone()
    if kind == "null":
        return "nothing (NULL)"
    if kind == "blob":
        return "a blob"
    if kind == "text":
        return f"the text {shown_name(str(value))}"
    return f"the {'integer' if kind == 'integer' else 'number'} {value!r}"
