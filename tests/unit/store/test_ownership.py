"""Only the store package writes audit.db or reaches through a store's connection."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from judgeaudit.audit.store.bulk import COUNT_PAIRS

SRC = Path(__file__).parents[3] / "src" / "judgeaudit"
STORE = SRC / "audit" / "store"
#: Modules with SQLite files of their own (never audit.db), and why.
OTHER_DATABASES = {
    "llm/cache.py": "the response cache's own file",
    "audit/inputs/pair_checks.py": "a scratch file of seen digests while validating a big import",
    "audit/inputs/recorded_verdicts.py": "the same scratch file for recorded verdicts",
    "rollouts/recorded.py": "a scratch file for converting a recorded log",
    "rollouts/recorded_bulk.py": "the same scratch file, filled in batches for the bulk check",
    "profiles/ccswitch_read.py": "CC Switch's database, read-only",
}
WRITE_SQL = re.compile(
    r"INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|"
    r"CREATE\s+(?:TEMP\s+|UNIQUE\s+)?(?:TABLE|INDEX)|ALTER\s+TABLE|DROP\s+(?:TABLE|INDEX)"
)
REACH_THROUGH = re.compile(r"\bstore\.db\b|\bself\.store\.db\b")
CONNECT = re.compile(r"sqlite3\.connect\(")


def _modules() -> list[tuple[str, str]]:
    found = []
    for path in SRC.rglob("*.py"):
        if STORE in path.parents:
            continue
        found.append((path.relative_to(SRC).as_posix(), path.read_text(encoding="utf-8")))
    return found


def test_no_write_sql_outside_the_store() -> None:
    offenders = [
        name for name, text in _modules() if WRITE_SQL.search(text) and name not in OTHER_DATABASES
    ]
    assert offenders == []


def test_nothing_reaches_through_a_store_connection() -> None:
    assert [name for name, text in _modules() if REACH_THROUGH.search(text)] == []


def test_audit_db_is_opened_only_by_the_store() -> None:
    offenders = [
        name for name, text in _modules() if CONNECT.search(text) and name not in OTHER_DATABASES
    ]
    assert offenders == []


def test_the_allow_list_is_not_stale() -> None:
    texts = dict(_modules())
    assert all(
        CONNECT.search(texts[name]) or WRITE_SQL.search(texts[name]) for name in OTHER_DATABASES
    )


def _sql(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().upper()


def test_a_runs_count_of_pairs_is_the_stores_query_only() -> None:
    """``--engine auto`` counted audit.db's pairs and its Parquet copy's with its own twin of
    the query, as did the dry run and the style attribution: one owner now (bulk.COUNT_PAIRS)."""
    query = _sql(COUNT_PAIRS)
    twins = [
        path.relative_to(SRC).as_posix()
        for path in sorted(SRC.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        if _sql(node.value) == query
    ]
    assert twins == ["audit/store/bulk.py"]


def test_whether_a_table_exists_is_asked_in_one_place() -> None:
    """Seven readers each asked ``sqlite_master`` whether a table was there (the kept verdict
    counts, a source run's tasks, a history's kept records, a pair's prompts...): one owner now
    (``schema.has_table`` and ``schema.tables_of``)."""
    askers = [
        path.relative_to(SRC).as_posix()
        for path in sorted(SRC.rglob("*.py"))
        if "sqlite_master" in path.read_text(encoding="utf-8")
    ]
    assert askers == ["audit/store/schema.py"]


LABEL_TABLE = re.compile(r"\b(?:FROM|JOIN)\s+human_labels\b")
#: Modules that name ``human_labels`` in their SQL beside the one reader, and why.
LABEL_SQL = {
    "analysis/frame.py": "the one reader of the labels (stored_labels)",
    "analysis/aggregate.py": "whether any label is stored, before pandas is imported",
    "analysis/preferences.py": "the export's one streaming scan joins each pair's label",
    "day_stage.py": "whether a day's audit holds any label, before it is replaced",
    "day_labels.py": "a day's labels with their pairs' content, carried into a re-audit",
}


def test_human_labels_are_read_through_one_reader() -> None:
    """``label_conversations.split_pairs`` and ``stored_marks`` read ``human_labels`` with
    their own SQL beside ``stored_labels`` (moved from ``review`` to ``frame``): one reader
    now; the modules left name why they touch the table."""
    readers = sorted(
        path.relative_to(SRC).as_posix()
        for path in SRC.rglob("*.py")
        if STORE not in path.parents and LABEL_TABLE.search(path.read_text(encoding="utf-8"))
    )
    assert readers == sorted(LABEL_SQL)
