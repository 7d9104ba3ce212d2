"""The run a re-judge reads its conversations from: finding it, its tasks, pairs and
trajectories, and copying them into the new run (see ``audit/rejudge.py`` for the spec side)."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgeaudit.audit.inputs.imported import checked_source_id
from judgeaudit.audit.inputs.source_check import check_source, manifest_of
from judgeaudit.audit.spec import SpecError
from judgeaudit.audit.spec.records import recorded_verdicts
from judgeaudit.audit.store import AuditStore, open_readonly
from judgeaudit.audit.store.bulk import trajectory_tasks
from judgeaudit.audit.store.readonly import RUN_ORDER
from judgeaudit.audit.store.schema import has_source_ids, has_table
from judgeaudit.audit.tasks import Task, builtin_retail, task_set_hash
from judgeaudit.audit.units import CheckUnit, PairUnit
from judgeaudit.audit.units.ids import pair_trial_b, traj_id
from judgeaudit.errors import InputError
from judgeaudit.validate import shown_name

Fail = Callable[[str, str], SpecError]


@dataclass(frozen=True, eq=False)
class SourceRun:
    """A finished run in an output directory whose trajectories a re-judge reuses."""

    out: Path
    run_id: str
    spec_hash: str
    created_at: str
    manifest: dict[str, Any]

    @property
    def db_path(self) -> Path:
        return self.out / "audit.db"

    @property
    def key(self) -> str:
        """Which run this is, wherever its directory lies (its uid, for older runs id+time)."""
        uid = self.manifest.get("run_uid")
        return str(uid) if uid else f"{self.run_id}:{self.spec_hash}:{self.created_at}"

    @property
    def root(self) -> str:
        """The run whose conversations these are (a re-judge of a re-judge keeps the first)."""
        lineage = self.manifest.get("trajectories") or {}
        return str(lineage.get("root") or self.key)

    @property
    def reference(self) -> str:
        return f"{self.out}#{self.run_id}"

    def connect(self) -> sqlite3.Connection:
        return open_readonly(self.db_path)

    def tasks(self) -> list[Task]:
        """The source's tasks: stored with the run, or (older runs) rebuilt and hash-checked."""
        db = self.connect()
        try:
            stored = (
                has_table(db, "tasks")
                and db.execute(
                    "SELECT task_json FROM tasks WHERE run_id = ? ORDER BY rowid", (self.run_id,)
                ).fetchall()
            )
        finally:
            db.close()
        if stored:
            return [task_from_json(row[0]) for row in stored]
        task_set = self.manifest.get("task_set", {})
        if task_set.get("source") == "builtin:retail":
            tasks = builtin_retail()
            if task_set_hash(tasks) == task_set.get("hash"):
                return tasks
        if recorded_verdicts(self.manifest):
            raise InputError(
                f"{self.out}: run {self.run_id} (recorded verdicts) was made before recorded "
                "runs kept their tasks; run its spec again into a new --out, then re-judge that"
            )
        raise InputError(
            f"{self.out}: run {self.run_id} predates stored tasks and its task set cannot be "
            "rebuilt; rerun it with this version of judgeaudit, then re-judge"
        )

    def pair_keys(self) -> list[tuple[str, int, str, str]]:
        """(task_id, trial, agent_a, agent_b) of every judged pair, in pair-id order."""
        db = self.connect()
        try:
            rows = db.execute(
                "SELECT task_id, trial, agent_a, agent_b FROM audit_pairs WHERE run_id = ?"
                " ORDER BY pair_id",
                (self.run_id,),
            ).fetchall()
        finally:
            db.close()
        return [(r[0], int(r[1] or 0), r[2], r[3]) for r in rows]

    def pair_trials(self) -> list[tuple[str, int, int, str, str, str | None]]:
        """(task_id, trial, trial_b, agent_a, agent_b, source_id) of every judged pair: side
        B's trial differs from side A's in a trial-paired import (one agent, two of its
        trials); the log's own pair id, where it was imported, goes along."""
        db = self.connect()
        try:
            rows = db.execute(
                "SELECT * FROM audit_pairs WHERE run_id = ? ORDER BY pair_id", (self.run_id,)
            ).fetchall()
            kept = has_source_ids(db)  # an older file read unmigrated has none
        finally:
            db.close()
        where = f"{self.db_path}: audit_pairs.source_id of pair {{}}"
        return [
            (
                r["task_id"],
                int(r["trial"] or 0),
                pair_trial_b(r),
                r["agent_a"],
                r["agent_b"],
                # the copy is held to the import's rule (a hand edit could put a key there)
                checked_source_id(r["source_id"], where.format(shown_name(r["pair_id"])))
                if kept
                else None,
            )
            for r in rows
        ]

    def trajectories(self) -> list[dict[str, Any]]:
        db = self.connect()
        try:
            rows = db.execute(
                "SELECT * FROM trajectories WHERE run_id = ? ORDER BY traj_id", (self.run_id,)
            ).fetchall()
        finally:
            db.close()
        return [dict(r) for r in rows]

    def lineage(self, reference: str) -> dict[str, Any]:
        """The manifest's ``trajectories`` entry of a run that re-judges this one."""
        return {
            "from": reference,
            "source_out": str(self.out),
            "source_run_id": self.run_id,
            "source_spec_hash": self.spec_hash,
            "source_key": self.key,
            "root": self.root,
        }


def task_to_json(task: Task) -> str:
    """A task as stored in the ``tasks`` table (everything needed to judge it again)."""
    data = {
        **task.to_json(),
        "initial_state": task.initial_state,
        "expected_state": task.expected_state,
    }
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def task_from_json(text: str) -> Task:
    data = json.loads(text)
    return Task(
        data["task_id"],
        data["task_type"],
        data["instruction"],
        data["initial_state"],
        data["expected_state"],
        data.get("required_facts") or [],
        data.get("fail_once"),
    )


def split_reference(reference: str) -> tuple[str, str | None]:
    """``OUT_DIR`` or ``OUT_DIR#RUN_ID``."""
    out, sep, run_id = reference.partition("#")
    return out, (run_id or None) if sep else None


def open_source(reference: str, base_dir: Path, fail: Fail) -> SourceRun:
    where = "run.trajectories_from"
    out_text, run_id = split_reference(reference)
    out = Path(out_text).expanduser()
    out = Path(os.path.realpath(out if out.is_absolute() else base_dir / out))
    db_path = out / "audit.db"
    if not db_path.is_file():
        raise fail(where, f"{out} holds no audit.db; name the output dir of a finished run")
    try:
        db = open_readonly(db_path)
    except InputError as exc:
        raise fail(where, str(exc)) from None
    try:
        runs = db.execute(f"SELECT * FROM runs {RUN_ORDER}").fetchall()
    except sqlite3.DatabaseError as exc:
        raise fail(where, f"{db_path} cannot be read: {exc}") from None
    finally:
        db.close()
    if not runs:
        raise fail(where, f"{out} holds no runs")
    if run_id is None:  # the latest run that made its own conversations (not a re-judge)
        own = [r for r in runs if not (_manifest(r, fail).get("trajectories") or {}).get("from")]
        chosen = (own or runs)[-1]
    else:
        chosen = next((r for r in runs if r["run_id"] == run_id), None)
    if chosen is None:
        known = ", ".join(r["run_id"] for r in runs)
        raise fail(where, f"run {shown_name(str(run_id))} is not in {out}; runs there: {known}")
    if chosen["status"] != "finished":
        raise fail(
            where,
            f"run {chosen['run_id']} in {out} is {chosen['status']}; finish it first (rerun its "
            "spec on the same --out), then re-judge",
        )
    if (problem := check_source(db_path, chosen["run_id"])) is not None:
        raise fail(
            where,
            f"run {chosen['run_id']} in {out} is damaged or was edited: {problem}; re-judge an "
            "intact copy (nothing was written)",
        )
    if not _has_conversation(db_path, chosen["run_id"]):
        raise fail(
            where,
            f"run {chosen['run_id']} in {out} stores no conversation (its pairs came without "
            "trajectories, e.g. recorded verdicts logged without them): a re-judge would show "
            "the judge two empty transcripts; import the pairs with trajectory_a/_b to re-judge",
        )
    return SourceRun(
        out,
        chosen["run_id"],
        chosen["spec_hash"],
        str(chosen["created_at"]),
        _manifest(chosen, fail),
    )


def _manifest(row: sqlite3.Row, fail: Fail) -> dict[str, Any]:
    def error(message: str) -> SpecError:
        return fail("run.trajectories_from", message)

    return manifest_of(row["manifest"], f"run {row['run_id']}", error)


def _has_conversation(db_path: Path, run_id: str) -> bool:
    """Whether any trajectory of the run holds an event (a recorded pair line without
    trajectories is stored with ``events = '[]'``)."""
    db = open_readonly(db_path)
    try:
        found = db.execute(
            "SELECT 1 FROM trajectories WHERE run_id = ? AND events NOT IN ('[]', '') LIMIT 1",
            (run_id,),
        ).fetchone()
    finally:
        db.close()
    return found is not None


def source_pair_units(source: SourceRun, tasks: list[Task]) -> list[PairUnit]:
    """Exactly the pairs the source judged, so the two runs pair up one to one."""
    by_id = {t.task_id: t for t in tasks}
    return [
        PairUnit(
            by_id[tid], trial, a, b, trial_b=None if trial_b == trial else trial_b, source_id=src
        )
        for tid, trial, trial_b, a, b, src in source.pair_trials()
    ]


def copy_trajectories(
    store: AuditStore, run_id: str, source: SourceRun, done: set[str], relabel: bool
) -> int:
    """The source's trajectories under this run's ids (one transaction); returns how many.

    Success labels come along unchanged; the LLM candidate label too, unless this run asks
    for its own success check (``relabel``).
    """
    rows = []
    for row in source.trajectories():
        new_id = traj_id(run_id, row["task_id"], row["agent"], int(row["trial"]))
        if new_id in done:
            continue
        copied = {k: v for k, v in row.items() if k not in ("created_at", "copied_from")}
        copied |= {"traj_id": new_id, "run_id": run_id, "copied_from": row["traj_id"]}
        if relabel:
            copied |= {"llm_success": None, "needs_review": 0}
        rows.append(copied)
    store.save_trajectories(rows)
    done.update(r["traj_id"] for r in rows)
    return len(rows)


def pending_checks(
    store: AuditStore, run_id: str, tasks: list[Task]
) -> tuple[int, list[CheckUnit]]:
    """The LLM success checks a re-judge still owes: (all of them, those not yet stored)."""
    by_id = {t.task_id: t for t in tasks}
    checked = store.checked_trajectories(run_id)
    units = [CheckUnit(by_id[task_id], traj) for traj, task_id in trajectory_tasks(store, run_id)]
    return len(units), [u for u in units if u.traj_id not in checked]
