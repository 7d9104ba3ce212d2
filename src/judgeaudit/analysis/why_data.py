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
from dataclasses import dataclass
from typing import Any

from judgeaudit.analysis.features import FEATURES, Features, features
from judgeaudit.analysis.frame import stored_json, stored_manifest
from judgeaudit.audit.spec.lexicon import lexicon

#: (task, agent, trial) names one conversation of a run.
SideKey = tuple[str, str, int]


@dataclass(frozen=True)
class OrderRow:
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
    for row in db.execute(
        "SELECT traj_id, copied_from, task_id, agent, trial, events, success FROM trajectories"
        " WHERE run_id = ?",
        (run_id,),
    ):
        scope = row["copied_from"] or row["traj_id"]
        key = (row["events"], bool(row["success"]), tokens.get(scope))
        found = seen.get(key) if isinstance(key[0], str) and len(key[0]) <= 64 else None
        if found is None:
            events = stored_json(row["events"], "a trajectory's events")
            found = features(events if isinstance(events, list) else [], key[1], lex, key[2])
            if isinstance(key[0], str) and len(key[0]) <= 64:
                seen[key] = found
        out[(row["task_id"], row["agent"], int(row["trial"]))] = found
    return out


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


def _row(pair: sqlite3.Row, order: str, pref: str, a: Features, b: Features) -> OrderRow:
    sa, sb = int(pair["success_a"]), int(pair["success_b"])
    first_is_a = order == "AB"
    return OrderRow(
        pair_id=pair["pair_id"],
        task_id=pair["task_id"],
        order=order,
        y=int(pref == ("A" if first_is_a else "B")),
        first_success=sa if first_is_a else sb,
        second_success=sb if first_is_a else sa,
        first=a if first_is_a else b,
        second=b if first_is_a else a,
        misselected=bool(pair["misselected"]),
    )


def load_run(db: sqlite3.Connection, run_id: str) -> RunData:
    sides = side_features(db, run_id)
    rows: list[OrderRow] = []
    if not sides:  # nothing to read: the pairs are counted, not scanned
        (pairs,) = db.execute(
            "SELECT COUNT(*) FROM audit_pairs WHERE run_id = ?", (run_id,)
        ).fetchone()
        return RunData(rows=rows, sides=sides, pairs=int(pairs), stored=0)
    pairs = 0
    for pair in db.execute(
        "SELECT pair_id, task_id, agent_a, agent_b, trial, COALESCE(trial_b, trial) AS trial_b,"
        " success_a, success_b, pref_ab, pref_ba, misselected FROM audit_pairs WHERE run_id = ?"
        " ORDER BY pair_id",
        (run_id,),
    ):
        pairs += 1
        a = sides.get((pair["task_id"], pair["agent_a"], int(pair["trial"] or 0)))
        b = sides.get((pair["task_id"], pair["agent_b"], int(pair["trial_b"] or 0)))
        if a is None or b is None:
            continue
        for order, pref in (("AB", pair["pref_ab"]), ("BA", pair["pref_ba"])):
            if pref in ("A", "B"):
                rows.append(_row(pair, order, pref, a, b))
    return RunData(rows=rows, sides=sides, pairs=pairs, stored=len(sides))


def differences(row: OrderRow) -> dict[str, float]:
    """First minus second: the success difference and each feature's."""
    out: dict[str, float] = {"success": float(row.first_success - row.second_success)}
    for name in FEATURES:
        out[name] = float(getattr(row.first, name) - getattr(row.second, name))
    return out


def as_dict(data: RunData) -> dict[str, Any]:
    return {"orders": len(data.rows), "pairs": data.pairs, "trajectories": data.stored}
