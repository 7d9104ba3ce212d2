"""Is a source run whole? Checked before a re-judge creates its own run, so a tampered or
damaged ``audit.db`` (a manifest that is not an object, events that are not JSON, a task that
lost a field) is one line and exit 2, never a crash that leaves a run marked ``running``."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from judgeaudit import safeio
from judgeaudit.audit.inputs.imported import _events
from judgeaudit.errors import InputError

TASK_FIELDS = ("task_id", "task_type", "instruction", "initial_state", "expected_state")


def manifest_of(text: Any, where: str, error: Callable[[str], Exception]) -> dict[str, Any]:
    """A stored manifest as an object, or ``error(message)``."""
    try:
        data = safeio.parse_json(text) if isinstance(text, str | bytes) else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise error(f"{where}: its manifest is not a JSON object (damaged or edited by hand)")
    for key in ("models", "settings", "task_set", "trajectories"):
        if data.get(key) is not None and not isinstance(data[key], dict):
            raise error(f"{where}: its manifest's {key} is not an object (damaged or edited)")
    return data


def check_source(db_path: Path, run_id: str) -> str | None:
    """What is wrong with the stored tasks and trajectories of ``run_id``, or ``None``."""
    from judgeaudit.audit.store import open_readonly
    from judgeaudit.audit.store.schema import has_table

    try:
        db = open_readonly(db_path)
    except InputError as exc:
        return str(exc)
    try:
        if has_table(db, "tasks"):
            for (text,) in db.execute("SELECT task_json FROM tasks WHERE run_id = ?", (run_id,)):
                problem = _task_problem(text)
                if problem:
                    return f"a stored task {problem}"
        for traj, events in db.execute(
            "SELECT traj_id, events FROM trajectories WHERE run_id = ?", (run_id,)
        ):
            try:
                parsed = safeio.parse_json(events)
                _events(parsed if isinstance(parsed, list) else None, f"trajectory {traj}")
            except (ValueError, TypeError, InputError) as exc:
                shown = str(exc) if isinstance(exc, InputError) else "events are not JSON"
                return shown if shown.startswith("trajectory") else f"trajectory {traj}: {shown}"
    except sqlite3.DatabaseError as exc:
        return f"cannot be read ({exc})"
    finally:
        db.close()
    return None


def _task_problem(text: Any) -> str | None:
    try:
        data = safeio.parse_json(text)
    except (ValueError, TypeError):
        return "is not JSON"
    if not isinstance(data, dict):
        return "is not an object"
    missing = [f for f in TASK_FIELDS if f not in data]
    if missing:
        return f"{data.get('task_id', '?')!r} lacks {missing[0]}"
    if not all(isinstance(data[f], str) for f in TASK_FIELDS[:2]):
        return f"{data.get('task_id', '?')!r} has a field of the wrong type"
    if not all(isinstance(data[f], dict) for f in TASK_FIELDS[3:]):
        return f"{data.get('task_id', '?')!r} has a state that is not an object"
    return None


__all__ = ["check_source", "manifest_of"]
