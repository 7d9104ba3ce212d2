"""Human labels carried from a day's earlier audit into its re-audit (``judgeaudit trend`` over
daily files, when a day's file was corrected).

A re-audit is a new run, so every pair id (``RUN/TASK/tN/A~B``) is new; a pair is found again by
its own id in the log (``audit_pairs.source_id``). A label is carried only when that pair's
content is unchanged: what the reviewer saw and labelled (the task, both conversations, the
agents and trials, the logged outcomes, rewards and satisfaction), not the judge's verdicts,
which a correction may change and a human label does not depend on. Every other label is named
as dropped, with why; the earlier audit keeps them all in ``WORK/.replaced/``. Sits beside
:mod:`judgeaudit.daily`, which it serves; labels are written through
:func:`judgeaudit.analysis.label_import.import_checked`, the path `review import` and the app's
Review take into ``audit.db``, so no carried label gives a conversation a second mark (labels
stored before that check whose marks put one conversation both ways are dropped, named).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgeaudit.analysis.frame import open_db
from judgeaudit.analysis.label_conversations import sides_of, split_labels
from judgeaudit.analysis.label_import import import_checked
from judgeaudit.audit.store.labels import LABEL_FIELDS
from judgeaudit.audit.store.schema import has_source_ids, has_table
from judgeaudit.audit.units.ids import traj_id

#: A pair's columns that are its content (what a reviewer labelled), beside its conversations.
CONTENT = ("task_id", "task_type", "agent_a", "agent_b", "trial", "trial_b", "success_a",
           "success_b", "satisfied_a", "satisfied_b", "reward_a", "reward_b")  # fmt: skip
GONE = "its pair is no longer in the file"
CHANGED = "its pair's content changed (task, conversations, agents or logged outcomes)"
NO_ID = "its audit kept no log pair id to find it by"
SPLIT = (
    "its success mark and another label's disagree on one conversation (stored before "
    "`review import` checked); label it again in the re-audit"
)


@dataclass
class Carried:
    """What became of the earlier audit's labels: how many were carried, which were dropped."""

    carried: int = 0
    dropped: list[dict[str, str]] = field(default_factory=list)  # pair_id (the log's), reason
    kept_in: str = ""  # the earlier audit, where every label stays

    def as_json(self) -> dict[str, Any]:
        return {"carried": self.carried, "dropped": self.dropped, "kept_in": self.kept_in}


def carry_labels(earlier: Path, stage: Path) -> Carried | None:
    """Copy ``earlier``'s human labels into ``stage``'s audit for the pairs it still holds with
    the same content; None when ``earlier`` holds no label."""
    labelled = _labelled(earlier)
    if not labelled:
        return None
    done = Carried()
    current = _pairs(stage, {row["source_id"] for row, _ in labelled if row["source_id"]})
    carried = []
    for row, content in labelled:
        log_id = row["source_id"]
        if not log_id:
            done.dropped.append({"pair_id": row["pair_id"], "reason": NO_ID})
        elif log_id not in current:
            done.dropped.append({"pair_id": log_id, "reason": GONE})
        elif current[log_id][1] != content:
            done.dropped.append({"pair_id": log_id, "reason": CHANGED})
        else:
            label = {name: row[name] for name in (*LABEL_FIELDS, "note")}
            carried.append((log_id, {"pair_id": current[log_id][0], **label}))
    split = split_labels([label for _, label in carried], _sides(stage))
    done.dropped += [{"pair_id": log_id, "reason": SPLIT} for log_id, label in carried
                     if label["pair_id"] in split]  # fmt: skip
    kept = [(f"{earlier} pair {log_id}", label) for log_id, label in carried
            if label["pair_id"] not in split]  # fmt: skip
    if kept:
        import_checked(stage, kept, f"in {stage}")
    done.carried = len(kept)
    return done


def _sides(out: Path) -> dict[str, tuple[Any, Any]]:
    db = open_db(out)
    try:
        return sides_of(db)
    finally:
        db.close()


def _labelled(out: Path) -> list[tuple[sqlite3.Row, str]]:
    """Each labelled pair of ``out`` with its labels and its content's digest."""
    db = open_db(out)
    try:
        if not has_table(db, "human_labels"):
            return []
        db.row_factory = sqlite3.Row
        log_id = "p.source_id" if has_source_ids(db) else "NULL"
        columns = ", ".join(f"p.{c}" for c in CONTENT)
        rows = db.execute(
            f"SELECT h.pair_id, {log_id} AS source_id, p.run_id, {columns}, "
            "h.human_success_a, h.human_success_b, h.human_pref, h.note "
            "FROM human_labels h LEFT JOIN audit_pairs p ON p.pair_id = h.pair_id "
            "ORDER BY h.pair_id"
        ).fetchall()
        return [(row, _content(db, row) if row["run_id"] else "") for row in rows]
    finally:
        db.close()


def _pairs(out: Path, log_ids: set[str]) -> dict[str, tuple[str, str]]:
    """``out``'s pairs among ``log_ids``: the log's id -> (the audit's pair id, content digest)."""
    db = open_db(out)
    try:
        db.row_factory = sqlite3.Row
        columns = ", ".join(CONTENT)
        found = {}
        for row in db.execute(f"SELECT pair_id, source_id, run_id, {columns} FROM audit_pairs"):
            if row["source_id"] in log_ids:
                found[row["source_id"]] = (row["pair_id"], _content(db, row))
        return found
    finally:
        db.close()


def _content(db: sqlite3.Connection, pair: sqlite3.Row) -> str:
    """The digest of what a reviewer labelled: the pair's content columns, its task and both
    conversations (run ids, which every re-audit changes, left out)."""
    run, task = pair["run_id"], pair["task_id"]
    trial_b = pair["trial"] if pair["trial_b"] is None else pair["trial_b"]
    sides = []
    for agent, trial in ((pair["agent_a"], pair["trial"]), (pair["agent_b"], trial_b)):
        found = db.execute(
            "SELECT events, context, ending, success_detail, external_reward FROM trajectories"
            " WHERE traj_id = ?",
            (traj_id(run, task, agent, int(trial or 0)),),
        ).fetchone()
        sides.append(None if found is None else list(found))
    spec = db.execute(
        "SELECT task_json FROM tasks WHERE run_id = ? AND task_id = ?", (run, task)
    ).fetchone()
    whole = [[pair[c] for c in CONTENT], sides, None if spec is None else spec[0]]
    return hashlib.sha256(json.dumps(whole, default=str).encode()).hexdigest()
