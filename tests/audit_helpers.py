"""Small specs for end-to-end audit tests on the real embedded provider."""

from __future__ import annotations

from pathlib import Path

SPEC = """
[run]
name = "{name}"
tasks = "{tasks}"
trials = {trials}
seed = {seed}
concurrency = 8
max_turns = 8
swap = {swap}
judge_retries = 2

[endpoints.sim]
base_url = "embedded"

[[agents]]
name = "ace"
model = "{ace}"
endpoint = "sim"

[[agents]]
name = "weak"
model = "{weak}"
endpoint = "sim"

[[agents]]
name = "pro"
model = "{pro}"
endpoint = "sim"

[user_simulator]
model = "{user}"
endpoint = "sim"
temperature = 0.7

[judge]
model = "{judge}"
endpoint = "sim"
temperature = 0.0
"""


def write_spec(path: Path, **overrides: object) -> Path:
    values: dict[str, object] = {
        "name": "t",
        "tasks": "builtin:retail",
        "trials": 1,
        "seed": 3,
        "swap": "true",
        "ace": "agent-ace",
        "weak": "agent-weak",
        "pro": "agent-pro",
        "user": "user-default",
        "judge": "judge-default",
    }
    values.update(overrides)
    path.write_text(SPEC.format(**values), encoding="utf-8")
    return path


def write_tasks(path: Path, count: int) -> Path:
    """The first ``count`` built-in tasks as a JSONL task file (a small, fast task set)."""
    import json

    from judgeaudit.audit.tasks import builtin_retail

    lines = [
        json.dumps(
            {
                **task.to_json(),
                "initial_state": task.initial_state,
                "expected_state": task.expected_state,
            },
            ensure_ascii=False,
        )
        for task in builtin_retail()[:count]
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def finished_run(folder: Path, tasks: int, name: str = "base", **spec: object) -> Path:
    """``judgeaudit run`` of the small spec over the first ``tasks`` built-in tasks, into
    ``folder / name``: the finished source run many tests start from."""
    from tests.cli_helpers import cli

    write_tasks(folder / "tasks.jsonl", tasks)
    path = write_spec(folder / "spec.toml", tasks="tasks.jsonl", **spec)
    done = cli("run", str(path), "--out", str(folder / name), "--events", "jsonl")
    assert done.returncode == 0, done.stderr
    return folder / name
