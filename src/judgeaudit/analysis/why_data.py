"""The rows the style model is fitted on: every judged order of every pair, with the features of
the trajectory shown first minus those of the one shown second.

An order with a verdict for one side is a row: ``y`` = 1 when the judge preferred the
trajectory it was shown first. Ties and orders without a parsable verdict are left out (they
prefer neither side). The success difference, each feature difference and an intercept (the
position term: with every difference taken first-minus-second, the intercept is the judge's
preference for the first position when the two are otherwise equal) are the regressors.
"""

from __future__ import annotations

import sqlite3
import sys
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from judgeaudit.analysis.features import FEATURES, Features, features
from judgeaudit.analysis.frame import stored_json, stored_manifest
from judgeaudit.audit.spec.lexicon import lexicon
from judgeaudit.audit.store.bulk import pairs_in

#: (task, agent, trial) names one conversation of a run.
SideKey = tuple[str, str, int]


class OrderRow(NamedTuple):
    """One judged order (a NamedTuple: a recorded run at 1M pairs makes 1.6M of them, and a
    frozen dataclass took three times as long to build)."""

    pair_id: str
    task_id: str
    order: str  # AB | BA
    y: int  # 1: the judge preferred the trajectory shown first
    first_success: int
    second_success: int
    first: Features
    second: Features
    misselected: bool  # the pair (both orders together) was misselected


@dataclass(frozen=True)
class RunData:
    rows: list[OrderRow]
    sides: dict[SideKey, Features]
    pairs: int  # pairs in the run
    stored: int  # trajectories stored for the run


def run_lexicon(db: sqlite3.Connection, run_id: str) -> dict[str, list[str]] | None:
    """The extension the run's spec named (kept in its manifest), if any."""
    row = db.execute("SELECT manifest FROM runs WHERE run_id = ?", (run_id,)).fetchone()
    found = stored_manifest(row[0], run_id).get("settings", {}).get("lexicon") if row else None
    return found if isinstance(found, dict) else None


def side_features(db: sqlite3.Connection, run_id: str) -> dict[SideKey, Features]:
    """Every stored trajectory's features; tokens from the agent calls the run recorded."""
    lex = lexicon(run_lexicon(db, run_id))
    tokens = {
        str(scope): int(total)
        for scope, total in db.execute(
            "SELECT c.scope, SUM(c.completion_tokens) FROM calls c JOIN trajectories t"
            " ON c.scope = COALESCE(t.copied_from, t.traj_id) WHERE t.run_id = ?"
            " AND c.role = 'agent' AND c.completion_tokens > 0 GROUP BY c.scope",
            (run_id,),
        )
        if total is not None
    }
    out: dict[SideKey, Features] = {}
    # Features depend on the events, success and tokens alone: equal ones are computed once (a
    # recorded run's logs often hold no conversation, so 2M sides would repeat one empty list).
    seen: dict[tuple[Any, bool, int | None], Features] = {}
    for traj_id, copied_from, task_id, agent, trial, stored, success in _tuples(
        db,
        "SELECT traj_id, copied_from, task_id, agent, trial, events, success FROM trajectories"
        " WHERE run_id = ?",
        (run_id,),
    ):
        key = (stored, bool(success), tokens.get(copied_from or traj_id))
        short = isinstance(stored, str) and len(stored) <= 64
        found = seen.get(key) if short else None
        if found is None:
            events = stored_json(stored, "a trajectory's events")
            found = features(events if isinstance(events, list) else [], key[1], lex, key[2])
            if short:
                seen[key] = found
        out[(sys.intern(task_id), sys.intern(agent), int(trial))] = found
    return out


def _tuples(db: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> sqlite3.Cursor:
    """Rows as plain tuples (millions of them: a ``sqlite3.Row`` read by name cost a third of
    the style section on a 1M-pair run)."""
    cursor = db.cursor()
    cursor.row_factory = None
    return cursor.execute(sql, params)


def one_side(
    db: sqlite3.Connection, row: sqlite3.Row, extension: dict[str, list[str]] | None
) -> Features:
    """One stored trajectory's features (``show PAIR``): tokens from its agent calls if any."""
    scope = row["copied_from"] or row["traj_id"]
    total = db.execute(
        "SELECT SUM(completion_tokens) FROM calls WHERE scope = ? AND role = 'agent'"
        " AND completion_tokens > 0",
        (scope,),
    ).fetchone()[0]
    events = row["events"]
    events = stored_json(events, "a trajectory's events") if isinstance(events, str) else events
    return features(
        events if isinstance(events, list) else [],
        bool(row["success"]),
        lexicon(extension),
        int(total) if total is not None else None,
    )


def load_run(db: sqlite3.Connection, run_id: str) -> RunData:
    sides = side_features(db, run_id)
    rows: list[OrderRow] = []
    if not sides:  # nothing to read: the pairs are counted, not scanned
        return RunData(rows=rows, sides=sides, pairs=pairs_in(db, run_id), stored=0)
    pairs = 0
    for pair_id, task, agent_a, agent_b, trial_a, trial_b, sa, sb, ab, ba, missel in _tuples(
        db,
        "SELECT pair_id, task_id, agent_a, agent_b, trial, COALESCE(trial_b, trial),"
        " success_a, success_b, pref_ab, pref_ba, misselected FROM audit_pairs WHERE run_id = ?"
        " ORDER BY pair_id",
        (run_id,),
    ):
        pairs += 1
        a = sides.get((task, agent_a, int(trial_a or 0)))
        b = sides.get((task, agent_b, int(trial_b or 0)))
        if a is None or b is None:
            continue
        sa, sb, missel = int(sa), int(sb), bool(missel)
        # an order's row: y = 1 when the judge preferred the side it was shown first
        task = sys.intern(task)  # one string per task, not one per order (1.6M at 1M pairs)
        if ab in ("A", "B"):
            rows.append(OrderRow(pair_id, task, "AB", int(ab == "A"), sa, sb, a, b, missel))
        if ba in ("A", "B"):
            rows.append(OrderRow(pair_id, task, "BA", int(ba == "B"), sb, sa, b, a, missel))
    return RunData(rows=rows, sides=sides, pairs=pairs, stored=len(sides))


def differences(rows: list[OrderRow]) -> dict[str, np.ndarray]:
    """First minus second, per order: the success difference and each feature's, as columns.
    Sides with equal features share one :class:`Features` (``side_features``), so each distinct
    one is read once and the rows only index them."""
    index: dict[int, int] = {}
    distinct: list[Features] = []

    def at(side: Features) -> int:
        found = index.get(id(side))
        if found is None:
            found = index[id(side)] = len(distinct)
            distinct.append(side)
        return found

    n = len(rows)
    first = np.fromiter((at(r.first) for r in rows), dtype=np.intp, count=n)
    second = np.fromiter((at(r.second) for r in rows), dtype=np.intp, count=n)
    success = np.fromiter((r.first_success - r.second_success for r in rows), float, count=n)
    out: dict[str, np.ndarray] = {"success": success}
    for name in FEATURES:
        values = np.array([getattr(side, name) for side in distinct], dtype=float)
        out[name] = values[first] - values[second]
    return out


def as_dict(data: RunData) -> dict[str, Any]:
    return {"orders": len(data.rows), "pairs": data.pairs, "trajectories": data.stored}
