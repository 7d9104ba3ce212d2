"""Loading a task set: a built-in name (:mod:`judgeaudit.audit.tasks.retail`) or a JSONL file.

A task's expected state is computed by applying its correct actions through the same
`Environment` the agents use, so the label can never drift from the tools.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgeaudit.agentnames import quoted_task_id
from judgeaudit.audit.tasks.errors import TaskError
from judgeaudit.audit.tasks.jsonl import read_objects
from judgeaudit.audit.tasks.retail import MAX_COPIES, builtin_retail
from judgeaudit.audit.tasks.state import check_actions, check_state
from judgeaudit.audit.tasks.task import TASK_TYPES, Task, expected_after

REQUIRED_FIELDS = ("task_id", "task_type", "instruction", "initial_state")


def load_tasks(
    source: str, base_dir: Path | None = None, spec_path: Path | str | None = None
) -> list[Task]:
    """``builtin:retail`` or a JSONL path (relative to the spec's directory); ``spec_path``
    heads a refusal, as every other spec field's does."""
    at = f"{spec_path}: " if spec_path else ""
    if source == "builtin:retail":
        return builtin_retail()
    copies = _copies(source)
    if copies is not None:
        return builtin_retail(copies)
    if source.startswith("builtin:"):
        raise TaskError(
            f"{at}run.tasks: unknown built-in task set {source!r} (known: builtin:retail, and "
            f"builtin:retail-xN for N copies of its 42 templates over fresh orders, N 1-{MAX_COPIES})"
        )
    path = Path(source)
    if base_dir is not None and not path.is_absolute():
        path = base_dir / path
    if not path.exists():  # the spec's field named, not only a file nobody typed in that form
        raise TaskError(
            f"{at}run.tasks: {source!r}: no such file ({path}); give a JSONL task file (a path "
            "relative to the spec's folder) or builtin:retail"
        )
    return load_jsonl(path)


def _copies(source: str) -> int | None:
    """N of ``builtin:retail-xN`` when N is in range; None for any other name."""
    head, _, count = source.partition("-x")
    if head != "builtin:retail" or not count.isdigit() or count != str(int(count)):
        return None
    copies = int(count)
    return copies if 1 <= copies <= MAX_COPIES else None


def load_jsonl(path: Path) -> list[Task]:
    tasks: list[Task] = []
    seen: set[str] = set()
    for where, row in read_objects(path, "task"):
        task = _task_from_row(row, where)
        if task.task_id in seen:
            raise TaskError(f"{where}: task_id: {task.task_id!r} appears twice; ids must be unique")
        seen.add(task.task_id)
        tasks.append(task)
    return tasks


def _task_from_row(row: dict[str, Any], where: str) -> Task:
    for name in REQUIRED_FIELDS:
        if name not in row:
            raise TaskError(
                f"{where}: {name}: missing; every task needs {', '.join(REQUIRED_FIELDS)}"
            )
    if row["task_type"] not in TASK_TYPES:
        raise TaskError(
            f"{where}: task_type: {row['task_type']!r} is not one of {', '.join(TASK_TYPES)}"
        )
    instruction = row["instruction"]
    if isinstance(instruction, str):
        instruction = {"en": instruction}
    if not isinstance(instruction, dict) or not instruction:
        raise TaskError(f"{where}: instruction: give a string or an object of language -> text")
    check_state(row["initial_state"], where, "initial_state")  # before any action runs on it
    state = {"refunds": [], "exchanges": [], **row["initial_state"]}
    if "expected_state" in row:
        check_state(row["expected_state"], where, "expected_state")
        expected = {"refunds": [], "exchanges": [], **row["expected_state"]}
    elif "actions" in row:
        try:
            expected = expected_after(state, check_actions(row["actions"], where))
        except TaskError as exc:
            raise TaskError(f"{where}: {exc}") from None
    else:
        raise TaskError(f"{where}: expected_state: missing; give expected_state or actions")
    facts = row.get("required_facts", [])
    if not isinstance(facts, list) or not all(isinstance(f, str) for f in facts):
        raise TaskError(f"{where}: required_facts: must be a list of strings")
    return Task(
        quoted_task_id(row["task_id"], f"{where}: task_id", TaskError),
        row["task_type"],
        instruction,
        state,
        expected,
        facts,
        row.get("fail_once"),
    )
