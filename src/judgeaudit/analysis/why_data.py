"""The rows the style model is fitted on: every judged order of every pair, with the features of
the trajectory shown first minus those of the one shown second.

An order with a verdict for one side is a row: ``y`` = 1 when the judge preferred the
trajectory it was shown first. Ties and orders without a parsable verdict are left out (they
prefer neither side). The success difference, each feature difference and an intercept (the
position term: with every difference taken first-minus-second, the intercept is the judge's
preference for the first position when the two are otherwise equal) are the regressors.

The orders are read as columns, not as one object per order: each distinct feature vector is
computed once and numbered (:mod:`judgeaudit.analysis.why_sides`), SQLite reads each pair with
its sides' (task, agent) numbers, numpy finds their feature ids and holds the rest (a recorded
run of 1M pairs has 2M trajectories and up to 2M judged orders; a dict of the sides and a
Python object per order were most of its first report, docs/benchmarks.md).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

import numpy as np

from judgeaudit.analysis.features import FEATURES, Features, features
from judgeaudit.analysis.frame import stored_json
from judgeaudit.analysis.why_sides import SideTable, run_lexicon, side_table
from judgeaudit.audit.spec.lexicon import lexicon
from judgeaudit.audit.store.bulk import pairs_in
from judgeaudit.audit.store.scratch import Scratch

__all__ = ["Orders", "RunData", "differences", "load_run", "one_side", "run_lexicon"]

#: One pair as the join returns it: its sides' (task, agent) numbers (0: none stored) and trials,
#: its task's number, its sides' success, and its verdicts and flag packed: the AB verdict + 4 x
#: the BA verdict (0 none or tie, 1 A, 2 B) + 16 if the pair was misselected.
PAIR_COLUMNS = np.dtype(
    [("a", np.int64), ("b", np.int64), ("ta", np.int64), ("tb", np.int64), ("task", np.int64),
     ("sa", np.int64), ("sb", np.int64), ("code", np.int64)]
)  # fmt: skip
#: Every pair of the run in ``pair_id`` order, its sides' (task, agent) numbered.
PAIRS_SQL = (
    "SELECT COALESCE(ca.rowid, 0), COALESCE(cb.rowid, 0), COALESCE(p.trial, 0),"
    " COALESCE(p.trial_b, p.trial, 0), COALESCE(ca.task_no, 0), p.success_a, p.success_b,"
    " CASE p.pref_ab WHEN 'A' THEN 1 WHEN 'B' THEN 2 ELSE 0 END"
    " + 4 * CASE p.pref_ba WHEN 'A' THEN 1 WHEN 'B' THEN 2 ELSE 0 END"
    " + 16 * CASE WHEN p.misselected THEN 1 ELSE 0 END"
    " FROM audit_pairs p LEFT JOIN temp.judgeaudit_keys ca"
    " ON ca.task = p.task_id AND ca.agent = p.agent_a LEFT JOIN temp.judgeaudit_keys cb"
    " ON cb.task = p.task_id AND cb.agent = p.agent_b WHERE p.run_id = ? ORDER BY p.pair_id"
)


@dataclass(frozen=True)
class Orders:
    """Every judged order as columns: pairs in ``pair_id`` order, a pair's AB before its BA."""

    first: np.ndarray  # the feature id (into RunData.features) of the trajectory shown first
    second: np.ndarray
    y: np.ndarray  # 1.0: the judge preferred the trajectory shown first
    first_success: np.ndarray
    second_success: np.ndarray
    group: np.ndarray  # the order's task, numbered in the sorted order of the tasks with orders
    tasks: int  # how many tasks have an order
    pair: np.ndarray  # the order's pair, numbered in pair_id order
    misselected: np.ndarray  # the pair (both orders together) was misselected
    pair_ids: dict[int, str]  # a misselected pair's number -> its pair_id

    def __len__(self) -> int:
        return len(self.y)


@dataclass(frozen=True)
class RunData:
    orders: Orders
    features: list[Features]  # each distinct feature vector once, numbered by position
    sides: np.ndarray  # per stored (task, agent, trial), in the order first stored: its feature id
    pairs: int  # pairs in the run

    @property
    def stored(self) -> int:
        """Trajectories stored for the run (one per (task, agent, trial))."""
        return len(self.sides)

    def values(self, name: str) -> np.ndarray:
        """One feature's value per feature id."""
        return np.array([getattr(f, name) for f in self.features], dtype=float)

    def side_features(self) -> list[Features]:
        """Every stored trajectory's features, in :attr:`sides` order."""
        return [self.features[int(i)] for i in self.sides]


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


class _Sides:
    """The stored trajectories by (task, agent, trial): a trajectory stored twice under one key
    is named by the last one stored, at the place of the first (as a dict keyed by it kept)."""

    def __init__(self, table: SideTable) -> None:
        self.trials = np.unique(table.trial)
        key = table.key * len(self.trials) + np.searchsorted(self.trials, table.trial)
        order = np.argsort(key, kind="stable")
        ordered = key[order]
        starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
        self.keys = ordered[starts]
        self.fids = table.fid[order[np.r_[starts[1:], len(ordered)] - 1]]
        #: each key's feature id, keys in the order first stored
        self.in_order = (
            table.fid if len(starts) == len(key) else self.fids[np.argsort(order[starts])]
        )

    def find(self, key: np.ndarray, trial: np.ndarray) -> np.ndarray:
        """The feature id of each (task, agent) number and trial; -1 where none is stored."""
        t = np.minimum(np.searchsorted(self.trials, trial), len(self.trials) - 1)
        packed = key * len(self.trials) + t
        i = np.minimum(np.searchsorted(self.keys, packed), len(self.keys) - 1)
        found = (key > 0) & (self.trials[t] == trial) & (self.keys[i] == packed)
        out: np.ndarray = np.where(found, self.fids[i], -1)
        return out


def _orders(db: sqlite3.Connection, run_id: str, sides: _Sides) -> tuple[Orders, int]:
    """The judged orders (an order with a verdict for one side, both sides stored) and the
    number of pairs in the run."""
    cursor = db.cursor()
    cursor.row_factory = None
    got = np.fromiter(cursor.execute(PAIRS_SQL, (run_id,)), PAIR_COLUMNS, count=-1)
    ids = [
        str(p)
        for (p,) in cursor.execute(
            "SELECT pair_id FROM audit_pairs WHERE run_id = ? AND misselected ORDER BY pair_id",
            (run_id,),
        )
    ]
    a, b = sides.find(got["a"], got["ta"]), sides.find(got["b"], got["tb"])
    ab, ba, missel = got["code"] % 4, got["code"] // 4 % 4, got["code"] >= 16
    number = np.arange(len(got))
    both = (a >= 0) & (b >= 0)
    # one row per judged order: the pair's AB then its BA, interleaved, kept where judged
    keep = np.column_stack([both & (ab > 0), both & (ba > 0)]).ravel()

    def orders(for_ab: np.ndarray, for_ba: np.ndarray) -> np.ndarray:
        out: np.ndarray = np.column_stack([for_ab, for_ba]).ravel()[keep]
        return out

    # the tasks numbered in sorted order (SQLite's BINARY order is Python's for str)
    _, group = np.unique(orders(got["task"], got["task"]), return_inverse=True)
    return (
        Orders(
            first=orders(a, b),
            second=orders(b, a),
            y=orders(ab == 1, ba == 2).astype(float),
            first_success=orders(got["sa"], got["sb"]),
            second_success=orders(got["sb"], got["sa"]),
            group=group.reshape(-1),
            tasks=int(group.max()) + 1 if len(group) else 0,
            pair=orders(number, number),
            misselected=orders(missel, missel),
            pair_ids=dict(zip(number[missel].tolist(), ids, strict=True)),
        ),
        len(got),
    )


def load_run(db: sqlite3.Connection, run_id: str) -> RunData:
    """The run's judged orders and its trajectories' features (the join's numbers in TEMP
    tables of ``db``, dropped before this returns: :mod:`judgeaudit.audit.store.scratch`)."""
    with Scratch(db) as scratch:
        table = side_table(db, run_id, scratch)
        if not len(table.fid):  # nothing to read: the pairs are counted, not scanned
            return RunData(_no_orders(), table.features, table.fid, pairs_in(db, run_id))
        sides = _Sides(table)
        orders, pairs = _orders(db, run_id, sides)
        return RunData(orders, table.features, sides.in_order, pairs)


def _no_orders() -> Orders:
    empty = np.zeros(0, dtype=np.int64)
    return Orders(empty, empty, empty.astype(float), empty, empty, empty, 0, empty,
                  empty.astype(bool), {})  # fmt: skip


def differences(data: RunData) -> dict[str, np.ndarray]:
    """First minus second, per order: the success difference and each feature's, as columns
    (each distinct feature vector is read once, the orders only index them)."""
    orders = data.orders
    out: dict[str, np.ndarray] = {
        "success": (orders.first_success - orders.second_success).astype(float)
    }
    for name in FEATURES:
        values = data.values(name)
        out[name] = values[orders.first] - values[orders.second]
    return out


def as_dict(data: RunData) -> dict[str, Any]:
    return {"orders": len(data.orders), "pairs": data.pairs, "trajectories": data.stored}
