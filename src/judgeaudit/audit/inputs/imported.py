"""Judge-only audits on imported trajectories (for engineers who already have rollouts).

One JSON object per line::

    {"task_id": "t1", "task": "goal text", "task_type": "refund", "context": "policy...",
     "agent_a": "model-x", "agent_b": "model-y", "trial": 0,
     "trajectory_a": [{"role": "user", "content": "..."}, {"role": "agent", "content": "..."}],
     "trajectory_b": "user: ...\\nagent: ...",
     "success_a": 1, "success_b": 0,
     "reward_a": 0.7, "reward_b": 0.2, "satisfied_a": true, "satisfied_b": false}

``task_type`` is free-form; ``context`` (a system prompt or policy), ``trial`` (or ``trial_a`` /
``trial_b`` for two trials of one agent), ``reward_*`` and ``satisfied_*`` are optional. Tool events
are ``{"role": "tool_call", "name": ..., "arguments": "..." or {...}}`` and
``{"role": "tool_result", "name": ..., "result": <any JSON value>}``.

Validation is strict because a silently reused row is a wrong result: a (task, agent, trial) seen
twice must carry the same trajectory and labels, a task id the same task, and a pair appears once.
"""

from __future__ import annotations

import difflib
import json
import unicodedata
from pathlib import Path
from typing import Any, NoReturn

from judgeaudit.agentnames import agent_name_problem, quoted_task_id
from judgeaudit.audit.inputs.pair_checks import ImportedSet
from judgeaudit.audit.inputs.verdict_rules import PARSE_ERROR, parse_verdicts
from judgeaudit.audit.store import AuditStore
from judgeaudit.audit.tasks import Task
from judgeaudit.audit.tasks.errors import TaskError
from judgeaudit.audit.units.ids import traj_id
from judgeaudit.audit.units.period import PeriodError, parse_period
from judgeaudit.audit.units.work import ImportedPair
from judgeaudit.credentials import scrub_content
from judgeaudit.validate import (
    flag,
    integer,
    iter_jsonl,
    json_type,
    number,
    shown_name,
    string,
    unknown_field,
)

ROLES = ("user", "agent", "tool_call", "tool_result")
REQUIRED = (
    "task_id", "task", "agent_a", "agent_b", "trajectory_a", "trajectory_b", "success_a",
    "success_b",
)  # fmt: skip
OPTIONAL = (
    "pair_id",
    "task_type",
    "context",
    "trial",
    "trial_a",
    "trial_b",
    "reward_a",
    "reward_b",
    "satisfied_a",
    "satisfied_b",
    "verdicts",
    "judge_model",
    "judge_prompt_hash",
    "meta",
    "period",
)
MAX_TRIAL = 1_000_000
_REQUIRED = frozenset(REQUIRED)
_KNOWN = frozenset((*REQUIRED, *OPTIONAL))


def load_imported(path: Path) -> list[ImportedPair]:
    """Every pair of the file, validated row by row and across rows (see :class:`ImportedSet`)."""
    out, _ = load_imported_with_hash(path)
    return out


def load_imported_with_hash(path: Path) -> tuple[list[ImportedPair], str]:
    checks = ImportedSet()
    out: list[ImportedPair] = []
    for where, _line, row in iter_jsonl(path, "pair", TaskError):
        pair = parse_pair(row, where)
        checks.add(pair, row)
        out.append(pair)
    return out, checks.hash()


#: A log line's ``type`` and the import that makes pairs of such a log (a log named in
#: ``run.imported`` was refused with a list of 25 known fields).
RECORDED = "recorded-jsonl"
LOG_IMPORTS = {
    "pair": RECORDED,
    "verdict": RECORDED,  # (or openai-jsonl, whose logs hold trajectories: said below)
    "trajectory": "openai-jsonl",
}


def _refuse_fields(row: dict[str, Any], where: str) -> NoReturn:
    if isinstance(kind := row.get("type"), str) and kind in LOG_IMPORTS:
        raise TaskError(
            f"{where}: a {kind} line of a log, not a pair: turn the log into a pairs file with "
            f"`judgeaudit import {LOG_IMPORTS[kind]} LOG --out PAIRS.jsonl` and name that file "
            "in run.imported"
            + (" (`import openai-jsonl` for a log of trajectories)" if kind == "verdict" else "")
        )
    if missing := [name for name in REQUIRED if name not in row]:
        unknown = [name for name in row if name not in _KNOWN]
        typo = difflib.get_close_matches(missing[0], unknown, n=1)
        hint = f"; the line has {shown_name(typo[0])}: a typo?" if typo else ""
        raise TaskError(
            f"{where}: {missing[0]}: missing{hint} (the pairs format: the paragraph 'Imported "
            "pairs' of docs/audit.md)"
        )
    name = next(name for name in row if name not in _KNOWN)
    raise TaskError(unknown_field(where, name, (*REQUIRED, *OPTIONAL)))


def parse_pair(row: dict[str, Any], where: str) -> ImportedPair:
    """One row of a pairs file; every problem is one line naming ``file:line: field``."""
    if not _REQUIRED <= row.keys() <= _KNOWN:  # (set operations first: most rows are whole)
        _refuse_fields(row, where)
    task_id = quoted_task_id(row["task_id"], f"{where}: task_id", TaskError)
    agent_a = _agent(row["agent_a"], f"{where}: agent_a")
    agent_b = _agent(row["agent_b"], f"{where}: agent_b")
    if "trial" in row and ("trial_a" in row or "trial_b" in row):
        raise TaskError(f"{where}: trial: give trial, or trial_a and trial_b, not both")
    trial = _trial(row.get("trial", 0), f"{where}: trial")
    trial_a = _trial(row.get("trial_a", trial), f"{where}: trial_a")
    trial_b = _trial(row.get("trial_b", trial), f"{where}: trial_b")
    if agent_a == agent_b and trial_a == trial_b:
        raise TaskError(
            f"{where}: agent_b: same agent and trial as agent_a; pair two agents, or two "
            "trials of one agent with trial_a/trial_b"
        )
    task_type = string(row.get("task_type", "imported"), f"{where}: task_type", TaskError)
    context = row.get("context")
    if context is not None:
        context = string(context, f"{where}: context", TaskError, empty=True)
    goal = string(row["task"], f"{where}: task", TaskError)
    task = Task(task_id, task_type, {"en": goal}, {}, {})
    return ImportedPair(
        task=task,
        agent_a=agent_a,
        agent_b=agent_b,
        events_a=_events(row["trajectory_a"], f"{where}: trajectory_a"),
        events_b=_events(row["trajectory_b"], f"{where}: trajectory_b"),
        success_a=flag(row["success_a"], f"{where}: success_a", TaskError),
        success_b=flag(row["success_b"], f"{where}: success_b", TaskError),
        reward_a=_number(row.get("reward_a"), f"{where}: reward_a"),
        reward_b=_number(row.get("reward_b"), f"{where}: reward_b"),
        satisfied_a=_maybe_flag(row.get("satisfied_a"), f"{where}: satisfied_a"),
        satisfied_b=_maybe_flag(row.get("satisfied_b"), f"{where}: satisfied_b"),
        trial_a=trial_a,
        trial_b=trial_b,
        context=context or None,
        where=where,
        verdicts=parse_verdicts(row.get("verdicts"), f"{where}: verdicts"),
        judge_model=_maybe_text(row.get("judge_model"), f"{where}: judge_model"),
        judge_prompt_hash=_maybe_text(row.get("judge_prompt_hash"), f"{where}: judge_prompt_hash"),
        pair_id=checked_source_id(row.get("pair_id"), f"{where}: pair_id"),
        period=_period(row.get("period"), f"{where}: period"),
    )


def trusted_pair(row: dict[str, Any], where: str) -> ImportedPair:
    """What :func:`parse_pair` returns for ``row``, without its checks: only for a row it already
    accepted, in a file whose bytes ``import`` recorded (:mod:`~judgeaudit.audit.inputs.checked`).
    It takes the row's values as they are (the checks, not this, decide what is valid);
    ``tests/unit/test_trusted_pair.py`` holds the two equal over every field."""
    task_id = row["task_id"]
    trial = row.get("trial", 0)
    context = row.get("context")
    period = row.get("period")
    get = row.get
    return ImportedPair(
        task=Task(str(task_id), get("task_type", "imported"), {"en": row["task"]}, {}, {}),
        agent_a=row["agent_a"],
        agent_b=row["agent_b"],
        events_a=_trusted_events(row["trajectory_a"], f"{where}: trajectory_a"),
        events_b=_trusted_events(row["trajectory_b"], f"{where}: trajectory_b"),
        success_a=bool(row["success_a"]),
        success_b=bool(row["success_b"]),
        reward_a=_float(get("reward_a")),
        reward_b=_float(get("reward_b")),
        satisfied_a=_bool(get("satisfied_a")),
        satisfied_b=_bool(get("satisfied_b")),
        trial_a=get("trial_a", trial),
        trial_b=get("trial_b", trial),
        context=context or None,
        where=where,
        verdicts=[_trusted_verdict(v) for v in get("verdicts") or ()],
        judge_model=get("judge_model"),
        judge_prompt_hash=get("judge_prompt_hash"),
        pair_id=get("pair_id"),
        period=None if period is None else period.strip(),
    )


def _trusted_verdict(v: dict[str, Any]) -> dict[str, Any]:
    verdict = {
        "order": v["order"],
        "winner": v["winner"],
        "score_a": _float(v.get("score_a")),
        "score_b": _float(v.get("score_b")),
        "raw_output": v.get("raw_output"),
        "reasons": v.get("reasons") or [],
    }
    if v["winner"] is None:  # no verdict: why, when the log said (verdict_rules.PARSE_ERROR)
        verdict[PARSE_ERROR] = v.get(PARSE_ERROR)
    return verdict


def _trusted_events(raw: Any, where: str) -> list[dict[str, Any]]:
    return _events(raw, where) if isinstance(raw, str) else list(raw)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _bool(value: Any) -> bool | None:
    return None if value is None else bool(value)


def _period(value: Any, where: str) -> str | None:
    if value is None:
        return None
    try:
        return parse_period(value)
    except PeriodError as exc:
        raise TaskError(f"{where}: {exc}") from None


def _agent(value: Any, where: str) -> str:
    """An agent name is a string: a number is a mistyped field (task ids may be numbers)."""
    if (
        isinstance(value, str) and value in _GOOD_AGENTS
    ):  # a file names a few agents a million times: checked once each
        return str(value)
    if not isinstance(value, str):
        raise TaskError(f"{where}: must be a string, got {json_type(value)}; name the agent")
    if (problem := agent_name_problem(value)) is not None:
        raise TaskError(f"{where}: {problem}")
    name = string(value, where, TaskError)
    if len(_GOOD_AGENTS) < 10_000:
        _GOOD_AGENTS.add(name)
    return name


_GOOD_AGENTS: set[str] = set()


def _trial(value: Any, where: str) -> int:
    return integer(value, where, 0, MAX_TRIAL, TaskError)


def _maybe_flag(value: Any, where: str) -> bool | None:
    return None if value is None else flag(value, where, TaskError)


def _maybe_text(value: Any, where: str) -> str | None:
    return None if value is None else string(value, where, TaskError)


#: A log's own id of a pair is shown in every report row that names it; none is longer.
MAX_SOURCE_ID = 500


def checked_source_id(value: Any, where: str) -> str | None:
    """The pair's own id in the user's log, kept as ``audit_pairs.source_id``: printable, of a
    sane length, and holding no key (the content scrubber's rule, so hex digests and ULIDs pass
    and every key shape it masks elsewhere is refused here rather than stored)."""
    text = _maybe_text(value, where)
    if text is None:
        return None
    if scrub_content(text) != text:
        raise TaskError(
            f"{where}: holds what looks like an API key (not shown); give the pair's id"
        )
    if len(text) > MAX_SOURCE_ID:
        raise TaskError(
            f"{where}: is {len(text):,} characters long; a pair's id may have {MAX_SOURCE_ID}"
        )
    if bad := next((c for c in text if unicodedata.category(c) == "Cc"), None):
        raise TaskError(
            f"{where}: holds the control character {bad!r}; a pair's id must be printable"
        )
    return text


def _events(raw: Any, where: str) -> list[dict[str, Any]]:
    if isinstance(raw, str):
        events = []
        for line in raw.splitlines():
            role, sep, text = line.partition(":")
            if sep and role.strip() in ("user", "agent"):
                events.append({"role": role.strip(), "content": text.strip()})
            elif line.strip():
                raise TaskError(f"{where}: line {line[:40]!r} must start with 'user:' or 'agent:'")
        return events
    if not isinstance(raw, list):
        raise TaskError(f"{where}: give a list of events or a 'user: ...' transcript string")
    for index, event in enumerate(raw):
        at = f"{where}[{index}]"
        if not isinstance(event, dict) or event.get("role") not in ROLES:
            raise TaskError(f"{at}.role: must be one of {', '.join(ROLES)}")
        role = event["role"]
        if role in ("user", "agent"):
            string(event.get("content"), f"{at}.content", TaskError, empty=True)
        elif role == "tool_call":
            string(event.get("name"), f"{at}.name", TaskError)
            arguments = event.get("arguments", "")
            if not isinstance(arguments, str | dict):
                raise TaskError(
                    f"{at}.arguments: must be a JSON string or an object, got {json_type(arguments)}"
                )
        else:
            if "result" not in event:
                raise TaskError(
                    f"{at}.result: missing; a tool_result carries the tool's output "
                    "(any JSON value)"
                )
            if event.get("name") is not None:
                string(event["name"], f"{at}.name", TaskError)
    return list(raw)


def _number(value: Any, where: str) -> float | None:
    return None if value is None else number(value, where, -1e12, 1e12, TaskError)


def save_imported(
    store: AuditStore, run_id: str, pairs: list[ImportedPair], done: set[str]
) -> None:
    """Store both sides of every imported pair as trajectories (skipping those already stored),
    :data:`SAVE_CHUNK` to a transaction: a killed run keeps whole chunks, and a rerun skips them."""
    rows: list[dict[str, Any]] = []
    for p in pairs:
        for agent, trial, events, success, reward, satisfied in (
            (p.agent_a, p.trial_a, p.events_a, p.success_a, p.reward_a, p.satisfied_a),
            (p.agent_b, p.trial_b, p.events_b, p.success_b, p.reward_b, p.satisfied_b),
        ):
            key = traj_id(run_id, p.task.task_id, agent, trial)
            if key in done:
                continue
            done.add(key)
            rows.append(
                {
                    "traj_id": key,
                    "run_id": run_id,
                    "task_id": p.task.task_id,
                    "task_type": p.task.task_type,
                    "agent": agent,
                    "trial": trial,
                    "events": _events_json(events),
                    "ending": "imported",
                    "satisfied": None if satisfied is None else int(satisfied),
                    "success": int(success),
                    "success_source": "import",
                    "external_reward": reward,
                    "context": p.context,
                }
            )
            if len(rows) >= SAVE_CHUNK:
                store.save_trajectories(rows)
                rows = []
    if rows:
        store.save_trajectories(rows)


#: Imported trajectories stored per transaction (memory: one chunk's rows).
SAVE_CHUNK = 10_000
#: ``json.dumps(events, ensure_ascii=False)`` without building an encoder per trajectory.
_events_json = json.JSONEncoder(ensure_ascii=False).encode
