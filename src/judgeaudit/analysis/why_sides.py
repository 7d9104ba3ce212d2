"""Every stored trajectory of a run as numbers for the style model's join
(:mod:`judgeaudit.analysis.why_data`): its feature id, its (task, agent)'s number and its trial.

A trajectory's features depend on its events, its success and its agent's tokens alone
(:mod:`judgeaudit.analysis.features`). Short events (a recorded run's logs often hold no
conversation: 2M trajectories would repeat one empty list) are grouped by SQLite, and each
distinct (events, success, tokens) is computed once; longer ones are read one by one. Equal
feature vectors share one number (a feature id). Each trajectory's (task, agent) is numbered in a
small TEMP table, which the pairs are joined to as well (:mod:`judgeaudit.analysis.why_data`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from judgeaudit.analysis.features import Features, features
from judgeaudit.analysis.frame import stored_json, stored_manifest
from judgeaudit.audit.spec.lexicon import Lexicon, lexicon
from judgeaudit.audit.store.scratch import Scratch

#: Events at most this many characters long are grouped in SQL (a longer text is one
#: conversation, seldom repeated, and would make SQLite's grouping as large as the table).
SHORT = 64
#: A run's trajectories with their agent tokens (the scope of a copy is its source's).
_TRAJECTORIES = (
    " FROM trajectories t LEFT JOIN temp.judgeaudit_tokens k"
    " ON k.scope = COALESCE(NULLIF(t.copied_from, ''), t.traj_id)"
)
_IS_SHORT = f"typeof(t.events) = 'text' AND length(t.events) <= {SHORT}"


#: A stored trajectory as read: its (task, agent)'s number, its trial, its feature id.
SIDE_COLUMNS = np.dtype([("key", np.int64), ("trial", np.int64), ("fid", np.int64)])


@dataclass(frozen=True)
class SideTable:
    """Every stored trajectory of the run, in the order stored. ``key`` numbers its (task,
    agent): the rowid of the TEMP table ``judgeaudit_keys``, whose ``task_no`` numbers the
    tasks in sorted order."""

    features: list[Features]  # by feature id
    key: np.ndarray
    trial: np.ndarray
    fid: np.ndarray


def run_lexicon(db: sqlite3.Connection, run_id: str) -> dict[str, list[str]] | None:
    """The extension the run's spec named (kept in its manifest), if any."""
    row = db.execute("SELECT manifest FROM runs WHERE run_id = ?", (run_id,)).fetchone()
    found = stored_manifest(row[0], run_id).get("settings", {}).get("lexicon") if row else None
    return found if isinstance(found, dict) else None


def _features(stored: Any, success: Any, tokens: Any, lex: Lexicon) -> Features:
    events = stored_json(stored, "a trajectory's events")
    return features(
        events if isinstance(events, list) else [],
        bool(success),
        lex,
        None if tokens is None else int(tokens),
    )


def side_table(db: sqlite3.Connection, run_id: str, scratch: Scratch) -> SideTable:
    """Every stored trajectory's numbers, by way of ``scratch``'s TEMP tables on ``db`` (the
    caller's join reads ``judgeaudit_keys``); tokens from the agent calls the run recorded."""
    lex = lexicon(run_lexicon(db, run_id))
    scratch.select_into(
        "judgeaudit_tokens",
        "SELECT c.scope AS scope, SUM(c.completion_tokens) AS total FROM calls c"
        " JOIN trajectories t ON c.scope = COALESCE(t.copied_from, t.traj_id)"
        " WHERE t.run_id = ? AND c.role = 'agent' AND c.completion_tokens > 0 GROUP BY c.scope",
        (run_id,),
    )
    scratch.index("judgeaudit_tokens", ["scope"], unique=True)
    # joins to an empty table left out: each costs a lookup per trajectory (2M at 1M pairs)
    source, tokens_sql = (
        (_TRAJECTORIES, "k.total")
        if scratch.has_rows("judgeaudit_tokens")
        else (" FROM trajectories t", "NULL")
    )
    ids: dict[Features, int] = {}

    def fid(found: Features) -> int:
        number = ids.get(found)
        if number is None:
            number = ids[found] = len(ids)
        return number

    cursor = db.cursor()
    cursor.row_factory = None
    where = f"{source} WHERE t.run_id = ?"
    kinds = cursor.execute(
        f"SELECT DISTINCT t.events, t.success <> 0, {tokens_sql}{where} AND {_IS_SHORT}", (run_id,)
    ).fetchall()
    scratch.fill(
        "judgeaudit_kinds",
        ["events", "ok", "total", "fid"],
        [(e, ok, tokens, fid(_features(e, ok, tokens, lex))) for e, ok, tokens in kinds],
    )
    scratch.index("judgeaudit_kinds", ["events", "ok", "total"])

    def long() -> Iterator[tuple[int, int]]:
        reading = db.cursor()
        reading.row_factory = None
        try:  # a damaged transcript ends the scan: its statement is closed, not left pending
            for rid, e, ok, tokens in reading.execute(
                f"SELECT t.rowid, t.events, t.success <> 0, {tokens_sql}{where}"
                f" AND NOT ({_IS_SHORT})",
                (run_id,),
            ):
                yield rid, fid(_features(e, ok, tokens, lex))
        finally:
            reading.close()

    scratch.fill("judgeaudit_long", ["rid", "fid"], long())
    scratch.index("judgeaudit_long", ["rid"], unique=True)
    fid_sql, long_join = (
        ("COALESCE(s.fid, l.fid)", " LEFT JOIN temp.judgeaudit_long l ON l.rid = t.rowid")
        if scratch.has_rows("judgeaudit_long")
        else ("s.fid", "")
    )
    # (task, agent) numbered in sorted order: a small table (10,000 tasks x 8 agents at 1M
    # pairs), where lookups in a (task, agent, trial) index of 2M rows made the join slow
    scratch.select_into(
        "judgeaudit_keys",
        "SELECT task, agent, DENSE_RANK() OVER (ORDER BY task) AS task_no FROM"
        " (SELECT DISTINCT task_id AS task, agent FROM trajectories WHERE run_id = ?)"
        " ORDER BY task, agent",
        (run_id,),
    )
    scratch.index("judgeaudit_keys", ["task", "agent"], unique=True)
    got = np.fromiter(
        cursor.execute(
            f"SELECT c.rowid, t.trial, {fid_sql}{source} JOIN temp.judgeaudit_keys c"
            " ON c.task = t.task_id AND c.agent = t.agent LEFT JOIN temp.judgeaudit_kinds s"
            f" ON s.events = t.events AND s.ok = (t.success <> 0) AND s.total IS {tokens_sql}"
            f"{long_join} WHERE t.run_id = ? ORDER BY t.rowid",
            (run_id,),
        ),
        SIDE_COLUMNS,
        count=-1,
    )
    return SideTable(list(ids), got["key"], got["trial"], got["fid"])
