"""Bulk writes and small reads for the paths that go around the unit-at-a-time writer: a
recorded-verdicts run fills capability gaps in SQL, exports scan a run's pairs.
Kept in the store so nothing outside it holds SQL against ``audit.db``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from judgeaudit.audit.store.db import AuditStore
from judgeaudit.audit.store.schema import (
    DECISIVE_SQL,
    EDIT_TRIGGERS,
    EDITS_TABLE,
    MISSELECTED_COUNT_SQL,
    column_list,
)

#: A run's count of pairs: the one query, on audit.db and on the relation ``audit_pairs`` a
#: report engine reads from Parquet (``--engine auto`` holds the one against the other).
COUNT_PAIRS = "SELECT COUNT(*) FROM audit_pairs WHERE run_id = ?"


class Executes(Protocol):
    """audit.db's connection, or a report engine's pairs relation (analysis.engines.Pairs)."""

    def execute(self, sql: str, params: Sequence[Any], /) -> Any: ...


def pairs_in(db: Executes, run_id: str) -> int:
    """How many pairs of ``run_id`` ``db`` holds (:data:`COUNT_PAIRS`)."""
    return int(db.execute(COUNT_PAIRS, (run_id,)).fetchone()[0])


def count_pairs(store: AuditStore, run_id: str) -> int:
    store.flush("audit_pairs")
    return pairs_in(store.db, run_id)


def has_pair(store: AuditStore, pair_id: str) -> bool:
    """Whether a pair with this id is stored (a recorded run's resume checks where it stopped)."""
    store.flush("audit_pairs")
    found = store.db.execute("SELECT 1 FROM audit_pairs WHERE pair_id = ?", (pair_id,))
    return found.fetchone() is not None


def pair_counts(store: AuditStore, run_id: str) -> tuple[int, int, int]:
    """The run's pairs, decisive pairs and misselections, counted in SQL (a recorded run's
    resume, stop or discard writes no file from the rows; reading each only to count it was a
    sorted scan of every pair)."""
    store.flush("audit_pairs")
    pairs, decisive, misselected = store.db.execute(
        f"SELECT count(*), SUM({DECISIVE_SQL}), SUM({MISSELECTED_COUNT_SQL}) FROM audit_pairs"
        " WHERE run_id = ?",
        (run_id,),
    ).fetchone()
    return int(pairs), int(decisive or 0), int(misselected or 0)


#: Past this many (agent pair, task) groups a resumed run's start sends totals per agent pair
#: only: its event stays a few hundred kB (a 1M-task run's was a 63 MB line the app read for
#: minutes), and the app's table shows no live interval for those pairs until the report.
STORED_GROUPS_MAX = 5000


def pair_counts_by_task(
    store: AuditStore, run_id: str
) -> list[tuple[str, str, str, int, int, int]]:
    """(agent_a, agent_b, task_id, pairs, decisive, misselected) per agent pair and task: what a
    resumed run had stored, for the app's live table (the report's counting rules, in SQL); per
    agent pair with task_id "" past :data:`STORED_GROUPS_MAX` groups."""
    store.flush("audit_pairs")
    counts = f"count(*), SUM({DECISIVE_SQL}), SUM({MISSELECTED_COUNT_SQL})"
    rows = store.db.execute(
        f"SELECT agent_a, agent_b, task_id, {counts} FROM audit_pairs WHERE run_id = ?"
        " GROUP BY agent_a, agent_b, task_id ORDER BY agent_a, agent_b, task_id LIMIT ?",
        (run_id, STORED_GROUPS_MAX + 1),
    ).fetchall()
    if len(rows) > STORED_GROUPS_MAX:
        rows = store.db.execute(
            f"SELECT agent_a, agent_b, '', {counts} FROM audit_pairs WHERE run_id = ?"
            " GROUP BY agent_a, agent_b ORDER BY agent_a, agent_b",
            (run_id,),
        ).fetchall()
    return [(a, b, str(task), int(n), int(d or 0), int(m or 0)) for a, b, task, n, d, m in rows]


def stored_any(store: AuditStore, run_id: str, pairs_only: bool = False) -> bool:
    """Whether the run stored any unit (without loading millions of ids to find out)."""
    store.flush()
    row = store.db.execute(
        "SELECT (NOT ? AND EXISTS (SELECT 1 FROM trajectories WHERE run_id = ?))"
        " OR EXISTS (SELECT 1 FROM audit_pairs WHERE run_id = ?)",
        (pairs_only, run_id, run_id),
    ).fetchone()
    return bool(row[0])


def pair_batches(
    store: AuditStore, run_id: str, columns: Sequence[str], with_rowid: bool = False
) -> Iterator[list[tuple[Any, ...]]]:
    """The run's ``audit_pairs`` rows in pair-id order, in batches (streamed, for the derived
    files), as plain tuples of ``columns`` in that order (and the rowid last, ``with_rowid``):
    the CSV writes them as they come, no lookup by name per value."""
    from judgeaudit.audit.store.parquet_out import BATCH

    store.flush("audit_pairs")
    names = column_list(columns) + (", rowid" if with_rowid else "")
    cursor = store.db.cursor()
    cursor.row_factory = None
    cursor.execute(f"SELECT {names} FROM audit_pairs WHERE run_id = ? ORDER BY pair_id", (run_id,))
    while rows := cursor.fetchmany(BATCH):
        yield rows


def trajectory_tasks(store: AuditStore, run_id: str) -> list[tuple[str, str]]:
    """(traj_id, task_id) of every trajectory of the run, in traj-id order."""
    store.flush("trajectories")
    rows = store.db.execute(
        "SELECT traj_id, task_id FROM trajectories WHERE run_id = ? ORDER BY traj_id", (run_id,)
    )
    return [(str(r[0]), str(r[1])) for r in rows]


class FinalExports:
    """What a finished run keeps for fast reports: the Parquet copy (DuckDB writes it, when it
    is installed), the index, verdict counts. The caller feeds :meth:`add` the batches of
    :func:`pair_batches` (``with_rowid``) it writes the CSV from, so the rows are read once."""

    def __init__(self, store: AuditStore, run_id: str, parquet_path: Path) -> None:
        from judgeaudit.audit.store.parquet_out import PairsTable, pairs_edits, writer_available

        store.flush()
        self.store, self.run_id = store, run_id
        self.edits = pairs_edits(store.db)  # before the rows: an edit in between looks stale
        self.table = PairsTable(parquet_path) if writer_available() else None

    def add(self, rows: list[tuple[Any, ...]]) -> None:
        """One batch of the run's rows, the rowid last (for the Parquet; nothing without it)."""
        if self.table is not None:
            self.table.add(rows)

    def finish(self) -> bool:
        """The index, the verdict counts and the Parquet file; whether the Parquet was
        written (False: DuckDB is not installed)."""
        from judgeaudit.audit.store.verdict_counts import keep_verdict_counts

        try:
            self.store.index_for_report()
            keep_verdict_counts(self.store.db, self.run_id)
            count_streamed_tasks(self.store.db, self.run_id)
            if self.table is None:
                return False
            self.table.write(self.run_id, self.edits)
            return True
        finally:
            self.abandon()

    def abandon(self) -> None:
        """Drop the Parquet table and its work directory (written or not)."""
        if self.table is not None:
            self.table.close()


def fill_capability(store: AuditStore, run_id: str, gap_expr: str) -> None:
    """Capability = each agent's success rate over the run's trajectories; ``reward_gap`` from
    it by ``gap_expr``, the SQL of the one gap definition (:mod:`judgeaudit.audit.units.gap`),
    passed in so the store stays below the rooms that own the formula."""
    store.flush()
    db = store.db
    db.execute("BEGIN IMMEDIATE")
    try:
        for name in EDIT_TRIGGERS:  # counted once below, not per row (schema.EDITS_TABLE)
            db.execute(f"DROP TRIGGER IF EXISTS {name}")
        db.execute("DROP TABLE IF EXISTS temp.capability")
        db.execute("CREATE TEMP TABLE capability (agent TEXT PRIMARY KEY, rate REAL)")
        db.execute(
            "INSERT INTO temp.capability SELECT agent, AVG(success) FROM trajectories"
            " WHERE run_id = ? GROUP BY agent",
            (run_id,),
        )
        db.execute(
            "UPDATE audit_pairs SET"
            " capability_a = ROUND((SELECT rate FROM temp.capability WHERE agent = agent_a), 6),"
            " capability_b = ROUND((SELECT rate FROM temp.capability WHERE agent = agent_b), 6)"
            " WHERE run_id = ?",
            (run_id,),
        )
        db.execute(
            f"UPDATE audit_pairs SET reward_gap = {gap_expr}"
            " WHERE run_id = ? AND gap_source = 'capability'",
            (run_id,),
        )
        db.execute(f"UPDATE {EDITS_TABLE} SET edits = edits + 1")
        for trigger in EDIT_TRIGGERS.values():
            db.execute(trigger)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def tasks_hash(tasks: Iterable[tuple[str, str]]) -> str:
    """The manifest's ``task_set.tasks_hash``: of the run's tasks alone, as the ``tasks`` table
    stores them ((task id, task JSON), in task id order, keys masked as stored), so two runs of
    the same tasks share it whatever their conversations, labels or verdicts (``task_set.hash``
    is of the whole input file, verdicts included). ``compare`` lists it among the changes."""
    import hashlib
    import json

    from judgeaudit.credentials import scrub_content

    rows = sorted((task_id, scrub_content(text)) for task_id, text in tasks)
    blob = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def with_tasks_hash(manifest: dict[str, Any], tasks: dict[str, str]) -> dict[str, Any]:
    """``manifest`` with ``task_set.tasks_hash`` of ``tasks`` (task id -> stored JSON), when the
    run knows its tasks as it starts (a recorded run's are hashed at its final export)."""
    task_set = manifest.get("task_set")
    if not tasks or not isinstance(task_set, dict):
        return manifest
    return {**manifest, "task_set": {**task_set, "tasks_hash": tasks_hash(tasks.items())}}


def count_streamed_tasks(db: Any, run_id: str) -> None:
    """A run that streams its pairs (recorded verdicts) knows no task before it starts, so its
    manifest's ``task_set.count`` was 0 and it had no ``tasks_hash``: the run's distinct task
    ids and the hash of its stored tasks, again at every final export (a resumed run stores
    more)."""
    import json

    (text,) = db.execute("SELECT manifest FROM runs WHERE run_id = ?", (run_id,)).fetchone()
    manifest = json.loads(text)
    task_set = manifest.get("task_set")
    settings = manifest.get("settings")  # the store reads no spec: the manifest's own word
    recorded = isinstance(settings, dict) and settings.get("judge_source") == "recorded"
    if not isinstance(task_set, dict) or not recorded:
        return
    query = "SELECT COUNT(DISTINCT task_id) FROM audit_pairs WHERE run_id = ?"
    counted = db.execute(query, (run_id,)).fetchone()[0]
    stored = db.execute("SELECT task_id, task_json FROM tasks WHERE run_id = ?", (run_id,))
    hashed = tasks_hash(stored)
    if counted != task_set.get("count") or hashed != task_set.get("tasks_hash"):
        task_set["count"] = counted
        task_set["tasks_hash"] = hashed
        db.execute(
            "UPDATE runs SET manifest = ? WHERE run_id = ?",
            (json.dumps(manifest, ensure_ascii=False), run_id),
        )
