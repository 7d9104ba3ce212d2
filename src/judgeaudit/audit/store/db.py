"""The audit store: ``OUT/audit.db`` (SQLite, WAL while a store has it open; one file again
when it closes). One writer; a unit is never split across transactions.

Units are written behind, in batches (one transaction per FLUSH_AT units or FLUSH_EVERY_S,
whichever comes first): a commit per unit cost as much CPU as the model call itself. Reads
flush what they depend on first, so the runner never sees a stale table; a crash loses at most
the last batch, which a rerun simply does again (nothing is half-written or duplicated).

``audit_pairs`` and ``judge_logs`` keep the seed's column names and meanings; everything after
``created_at`` is an addition documented in the README.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from judgeaudit.audit.store.damage import refusing_damage
from judgeaudit.audit.store.out_lock import LOCKED, STOPPED
from judgeaudit.audit.store.readonly import RUN_ORDER
from judgeaudit.audit.store.schema import (
    REPORT_INDEX,
    column_list,
    migrate,
)
from judgeaudit.audit.store.scrubbed import Scrubbed, grouped_rows, scrubbed_rows
from judgeaudit.credentials import scrub_content

FLUSH_AT = 64
FLUSH_EVERY_S = 0.2
#: Tables whose rows are keyed by content (the same rendered prompt from many calls).
STORED_ONCE = ("prompts",)
#: Prompt hashes a store remembers as queued (bounded: cleared when full).
PROMPTS_REMEMBERED = 65_536


class AuditStore:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        with contextlib.suppress(FileExistsError):  # created private, like its derived files
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        try:
            with refusing_damage(path):  # a damaged file: one line, and left as it is
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
                migrate(self.db, path)
        except BaseException:
            self.db.close()
            raise
        #: (table, row, whether its content is scrubbed already) per pending row
        self._pending: list[tuple[str, dict[str, Any], bool]] = []
        self._pending_tables: set[str] = set()
        self._pending_units = 0
        self._last_flush = time.monotonic()
        self._prompts: set[str] = set()  # prompt hashes queued so far (:meth:`_new_prompt`)
        self._closed = False

    def close(self) -> None:
        """Write what is pending and close (again: nothing, as a closed connection does)."""
        if self._closed:
            return
        try:
            self.flush()
            self._one_file()
        finally:
            self._closed = True
            self.db.close()

    def _one_file(self) -> None:
        """Leave ``audit.db`` one self-contained file, when no other connection has it open:
        WAL is for the readers of a run being written. A read-only connection to a WAL database
        creates ``-wal`` and ``-shm`` beside it and, unable to write, can never remove them
        (every report after a run left both, and a copied OUT needed all three files); a file in
        rollback-journal mode is read without them. The next store turns WAL on again; while
        another connection has the file open, the switch is refused at once and it stays WAL."""
        self.db.execute("PRAGMA busy_timeout = 0")
        with contextlib.suppress(sqlite3.OperationalError):  # "database is locked": in use
            self.db.execute("PRAGMA journal_mode = DELETE")

    def flush(self, *tables: str) -> None:
        """Write the pending units (only if one of ``tables`` is pending, when given)."""
        if not self._pending or (tables and self._pending_tables.isdisjoint(tables)):
            return
        with self._txn():
            self._write(self._pending)
        self._pending.clear()
        self._pending_tables.clear()
        self._pending_units = 0
        self._last_flush = time.monotonic()

    def _write(self, pending: list[tuple[str, dict[str, Any], bool]]) -> None:
        """Insert ``pending`` (inside the caller's transaction): one ``executemany`` per table
        and column set, content scrubbed unless it is already."""
        for (table, columns, _), rows in grouped_rows(pending):
            names = column_list(columns)
            marks = ", ".join("?" for _ in columns)
            verb = "INSERT OR IGNORE" if table in STORED_ONCE else "INSERT"
            self.db.executemany(f"{verb} INTO {table} ({names}) VALUES ({marks})", rows)

    def _queue(self, rows: list[tuple[str, dict[str, Any], bool]]) -> None:
        self._pending.extend(rows)
        self._pending_tables.update(table for table, _, _ in rows)
        self._pending_units += 1
        if self._pending_units >= FLUSH_AT or time.monotonic() - self._last_flush >= FLUSH_EVERY_S:
            self.flush()

    # --- runs ----------------------------------------------------------------------------------
    def runs(self) -> list[sqlite3.Row]:
        self.flush()
        return self.db.execute(f"SELECT * FROM runs {RUN_ORDER}").fetchall()

    def run(self, run_id: str) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self.db.execute(
            "SELECT * FROM runs WHERE run_id = ?", (run_id,)
        ).fetchone()
        return row

    def create_run(
        self,
        run_id: str,
        spec_hash: str,
        manifest: dict[str, Any],
        tasks: dict[str, str] | None = None,
    ) -> None:
        """The run and its tasks (task_id -> JSON, so a re-judge can read them back)."""
        self.flush()
        with self._txn():
            self.db.execute(
                "INSERT INTO runs (run_id, spec_hash, manifest) VALUES (?, ?, ?)",
                (run_id, spec_hash, scrub_content(json.dumps(manifest, ensure_ascii=False))),
            )
            self.db.executemany(
                "INSERT OR IGNORE INTO tasks (run_id, task_id, task_json) VALUES (?, ?, ?)",
                [(run_id, task_id, scrub_content(text)) for task_id, text in (tasks or {}).items()],
            )

    def discard_run(self, run_id: str) -> None:
        """Remove a run and its rows (flush first: a row buffered still would outlive it)."""
        with self._txn():
            for table in ("calls", "judge_logs", "audit_pairs", "trajectories", "tasks", "runs"):
                self.db.execute(f"DELETE FROM {table} WHERE run_id = ?", (run_id,))

    def set_status(self, run_id: str, status: str) -> None:
        """Only the process holding OUT's lock sets a run ``running``: any other run still
        marked so was stopped without closing (killed), and is marked :data:`STOPPED`."""
        self.flush()
        finished = "CURRENT_TIMESTAMP" if status == "finished" else "NULL"
        self.db.execute(
            f"UPDATE runs SET status = ?, finished_at = {finished} WHERE run_id = ?",
            (status, run_id),
        )
        if status == "running" and LOCKED:
            stale = "UPDATE runs SET status = ? WHERE status = 'running' AND run_id != ?"
            self.db.execute(stale, (STOPPED, run_id))

    def manifest(self, run_id: str) -> dict[str, Any]:
        row = self.run(run_id)
        return json.loads(row["manifest"]) if row else {}

    # --- trajectories --------------------------------------------------------------------------
    def done_trajectories(self, run_id: str) -> set[str]:
        self.flush("trajectories")
        rows = self.db.execute("SELECT traj_id FROM trajectories WHERE run_id = ?", (run_id,))
        return {r[0] for r in rows}

    def save_trajectory(self, row: dict[str, Any], calls: list[dict[str, Any]]) -> None:
        self._queue([("trajectories", row, False), *(("calls", call, False) for call in calls)])

    def save_trajectories(self, rows: Sequence[dict[str, Any]]) -> None:
        """Many trajectories in one transaction (a re-judge copying its source's, a chunk of an
        import's), written as a batch of queued units is: one ``executemany``, not a statement
        and a commit per row (storing 4,000 imported trajectories took 45 ms, 27 of them in 63
        commits, before the first judge call; docs/benchmarks.md)."""
        self.flush()
        with self._txn():
            self._write([("trajectories", row, False) for row in rows])

    def checked_trajectories(self, run_id: str) -> set[str]:
        """Trajectories that already had their LLM success check (its call is stored)."""
        self.flush()
        rows = self.db.execute(
            "SELECT DISTINCT scope FROM calls WHERE run_id = ? AND role = 'success_check'",
            (run_id,),
        )
        return {r[0] for r in rows}

    def save_llm_label(
        self, traj_id: str, llm_success: int | None, calls: list[dict[str, Any]]
    ) -> None:
        """A stored trajectory's LLM candidate label (flagged for review when it disagrees)."""
        self.flush()
        with self._txn():
            self.db.execute(
                "UPDATE trajectories SET llm_success = ?1, needs_review ="
                " (?1 IS NOT NULL AND ?1 != success) WHERE traj_id = ?2",
                (llm_success, traj_id),
            )
            for call in calls:
                self._insert("calls", call)

    def trajectory(self, traj_id: str) -> sqlite3.Row:
        self.flush("trajectories")
        row: sqlite3.Row = self.db.execute(
            "SELECT * FROM trajectories WHERE traj_id = ?", (traj_id,)
        ).fetchone()
        return row

    def agent_stats(self, run_id: str) -> dict[str, tuple[float, float | None]]:
        """Per agent: success rate and mean external reward over the run's trajectories."""
        self.flush("trajectories")
        rows = self.db.execute(
            "SELECT agent, AVG(success), AVG(external_reward) FROM trajectories WHERE run_id = ?"
            " GROUP BY agent",
            (run_id,),
        )
        return {r[0]: (float(r[1]), r[2]) for r in rows}

    # --- pairs ---------------------------------------------------------------------------------
    def done_pairs(self, run_id: str) -> set[str]:
        self.flush("audit_pairs")
        rows = self.db.execute("SELECT pair_id FROM audit_pairs WHERE run_id = ?", (run_id,))
        return {r[0] for r in rows}

    def lacks_source_ids(self, run_id: str) -> bool:
        """Whether a stored pair of the run has no ``source_id`` (stored before it existed)."""
        self.flush("audit_pairs")
        found = self.db.execute(
            "SELECT 1 FROM audit_pairs WHERE run_id = ? AND source_id IS NULL LIMIT 1", (run_id,)
        )
        return found.fetchone() is not None

    def fill_source_ids(self, run_id: str, ids: Sequence[tuple[str, str]]) -> None:
        """(pair_id, source_id) of the run's stored pairs whose log gave an id: kept where the
        pair was stored without one (before ``source_id`` existed; the run resumed after an
        upgrade). The usual resume, every stored pair with its id, writes nothing."""
        if ids and self.lacks_source_ids(run_id):
            with self._txn():
                self.db.executemany(
                    "UPDATE audit_pairs SET source_id = ? WHERE pair_id = ? AND source_id IS NULL",
                    [(source, pair) for pair, source in ids],
                )

    @staticmethod
    def scrub(table: str, rows: Sequence[dict[str, Any]]) -> Scrubbed:
        """``rows`` of ``table`` with their content columns scrubbed, for :meth:`save_pair` and
        any writer that needs the same values (the live judge log)."""
        if not rows:
            return Scrubbed(table, ())
        columns = tuple(rows[0])
        values = scrubbed_rows(table, columns, [tuple(r.values()) for r in rows])
        return Scrubbed(table, tuple(dict(zip(columns, v, strict=True)) for v in values))

    def save_pair(
        self,
        pair: dict[str, Any],
        logs: Scrubbed,
        calls: list[dict[str, Any]],
        prompts: dict[str, str] | None = None,
    ) -> None:
        """One judged pair, written with its logs (scrubbed by :meth:`scrub`) and calls (never
        split across transactions); ``prompts`` maps prompt_hash -> messages_json (rendered
        prompts are stored once, however many calls share them)."""
        assert logs.table == "judge_logs"
        self._queue(
            [
                ("audit_pairs", pair, False),
                *(("judge_logs", log, True) for log in logs.rows),
                *(("calls", call, False) for call in calls),
                *(
                    ("prompts", {"prompt_hash": h, "messages_json": m}, False)
                    for h, m in (prompts or {}).items()
                    if self._new_prompt(h)
                ),
            ]
        )

    def has_prompt(self, prompt_hash: str) -> bool:
        """Whether this store queued ``prompt_hash``'s row already (a caller need not render
        its messages again; :meth:`save_pair` skips it either way)."""
        return prompt_hash in self._prompts

    def _new_prompt(self, prompt_hash: str) -> bool:
        """Whether no row of ``prompt_hash`` was queued by this store before: a repeated prompt
        (many pairs or judges render the same one) is neither scrubbed nor inserted again, where
        ``INSERT OR IGNORE`` would have dropped it after its scrub. A queued row is written or
        stays queued (a failed flush keeps it), so skipping it stores the same rows."""
        if prompt_hash in self._prompts:
            return False
        if len(self._prompts) >= PROMPTS_REMEMBERED:
            self._prompts.clear()
        self._prompts.add(prompt_hash)
        return True

    def index_for_report(self) -> None:
        """Build the report's index (a no-op once built; later inserts keep it current)."""
        self.flush()
        self.db.execute(REPORT_INDEX)

    def iter_logs(self, run_id: str | None = None) -> Iterator[sqlite3.Row]:
        self.flush()
        query = "SELECT * FROM judge_logs"
        args: tuple[Any, ...] = ()
        if run_id:
            query, args = query + " WHERE run_id = ?", (run_id,)
        yield from self.db.execute(query + ' ORDER BY pair_id, "order", attempt', args)

    def usage(self, run_id: str) -> dict[str, float]:
        self.flush()
        row = self.db.execute(
            "SELECT COUNT(*), SUM(prompt_tokens), SUM(completion_tokens), SUM(cost_usd),"
            " SUM(attempts) - COUNT(*) FROM calls WHERE run_id = ?",
            (run_id,),
        ).fetchone()
        return {
            "calls": row[0] or 0,
            "prompt_tokens": row[1] or 0,
            "completion_tokens": row[2] or 0,
            "cost_usd": row[3] or 0.0,
            "retries": row[4] or 0,
        }

    # --- helpers -------------------------------------------------------------------------------
    def _insert(self, table: str, row: dict[str, Any]) -> None:
        columns = column_list(row)
        marks = ", ".join("?" for _ in row)
        values = scrubbed_rows(table, tuple(row), [tuple(row.values())])[0]
        self.db.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", values)

    @contextlib.contextmanager
    def _txn(self) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")
