"""Re-judging a run's stored trajectories (``run.trajectories_from``): no agent or user-simulator
call, only the judge (and the success check if the spec asks for one).

The source run supplies the task set, agents, trials and pairs; a spec that contradicts them is
refused. Judge-side settings the spec does not give (seed, language, swap, view, retries, gap,
the judge's temperature and template) default to the source's, so the same judge reproduces the
same verdicts and a changed one is compared with it pair by pair on identical inputs.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from judgeaudit.audit.ids import traj_id
from judgeaudit.audit.spec import RunSpec, SpecError
from judgeaudit.audit.store import AuditStore
from judgeaudit.audit.tasks import Task, builtin_retail, load_tasks, task_set_hash
from judgeaudit.audit.templates import Template
from judgeaudit.audit.units import PairUnit
from judgeaudit.errors import InputError

Fail = Callable[[str, str], SpecError]
#: Judge-side [run] keys a re-judge may change; when absent they default to the source's.
JUDGE_SIDE = ("seed", "language", "swap", "judge_view", "judge_retries")


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
        db = sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True)
        db.row_factory = sqlite3.Row
        return db

    def tasks(self) -> list[Task]:
        """The source's tasks: stored with the run, or (older runs) rebuilt and hash-checked."""
        db = self.connect()
        try:
            stored = (
                _table_exists(db, "tasks")
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
    out = (out if out.is_absolute() else base_dir / out).resolve()
    db_path = out / "audit.db"
    if not db_path.is_file():
        raise fail(where, f"{out} holds no audit.db; name the output dir of a finished run")
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    try:
        runs = db.execute("SELECT * FROM runs ORDER BY created_at, run_id").fetchall()
    except sqlite3.DatabaseError as exc:
        raise fail(where, f"{db_path} cannot be read: {exc}") from None
    finally:
        db.close()
    if not runs:
        raise fail(where, f"{out} holds no runs")
    chosen = runs[-1] if run_id is None else next((r for r in runs if r["run_id"] == run_id), None)
    if chosen is None:
        known = ", ".join(r["run_id"] for r in runs)
        raise fail(where, f"run {run_id!r} is not in {out}; runs there: {known}")
    if chosen["status"] != "finished":
        raise fail(
            where,
            f"run {chosen['run_id']} in {out} is {chosen['status']}; finish it first (rerun its "
            "spec on the same --out), then re-judge",
        )
    return SourceRun(
        out,
        chosen["run_id"],
        chosen["spec_hash"],
        str(chosen["created_at"]),
        json.loads(chosen["manifest"]),
    )


def bind_source(spec: RunSpec, raw: dict[str, Any], fail: Fail) -> RunSpec:
    """The spec with the source's trajectory side filled in and its defaults applied."""
    assert spec.trajectories_from is not None
    source = open_source(spec.trajectories_from, spec.base_dir(), fail)
    manifest, run = source.manifest, raw.get("run", {})
    settings = manifest.get("settings", {})
    ident = f"the source run {source.run_id}"
    for key in ("trials", "max_turns"):
        if key in run and run[key] != settings.get(key):
            raise fail(
                f"run.{key}",
                f"{run[key]} contradicts {ident} ({settings.get(key)}); a re-judge reuses its "
                f"trajectories, so drop run.{key}",
            )
    task_set = manifest.get("task_set", {})
    if "tasks" in run:
        given = task_set_hash(load_tasks(run["tasks"], spec.base_dir()))
        if given != task_set.get("hash"):
            raise fail(
                "run.tasks",
                f"{run['tasks']!r} is not the task set of {ident} ({task_set.get('source')}, "
                f"hash {task_set.get('hash')}); drop run.tasks",
            )
    models = manifest.get("models", {})
    src_agents = [(a["name"], a["model"]) for a in models.get("agents") or []]
    if spec.agents and [(a.name, a.model) for a in spec.agents] != src_agents:
        listed = ", ".join(f"{n} ({m})" for n, m in src_agents) or "imported pairs"
        raise fail("agents", f"contradict {ident}, which audited {listed}; drop [[agents]]")
    src_user = models.get("user_simulator")
    if spec.user_simulator is not None and (
        src_user is None or spec.user_simulator.model != src_user.get("model")
    ):
        was = src_user.get("model") if src_user else "none (imported pairs)"
        raise fail(
            "user_simulator.model",
            f"{spec.user_simulator.model!r} contradicts {ident} (user simulator {was}); "
            "drop [user_simulator]",
        )
    keys = source.pair_keys()
    src_pairs = sorted({(a, b) for _, _, a, b in keys})
    if run.get("pairs", "all") != "all":
        given_pairs = sorted(tuple(p) for p in run["pairs"] if isinstance(p, list))
        if given_pairs != src_pairs:
            raise fail("run.pairs", f"contradict {ident}'s pairs {src_pairs}; drop run.pairs")
    changes: dict[str, Any] = {
        key: settings.get(key, getattr(spec, key)) if key not in run else getattr(spec, key)
        for key in JUDGE_SIDE
        if key != "seed"
    }
    changes["seed"] = spec.seed if "seed" in run else manifest.get("seed", spec.seed)
    if "gap" not in raw:
        changes |= {
            "gap_source": settings.get("gap_source", spec.gap_source),
            "bins": settings.get("bins"),
            "labels": settings.get("labels"),
        }
    judge = spec.judge
    src_judge = models.get("judge") or {}
    if "temperature" not in raw.get("judge", {}):
        judge = replace(judge, temperature=src_judge.get("temperature"))
    templates = dict(spec.templates)
    described = manifest.get("prompts", {}).get("templates", {})
    for kind, table in (("judge", "judge"), ("success_check", "success_check")):
        inherited = _template_from(described.get(kind), kind)
        if kind not in templates and inherited is not None and table in raw:
            templates[kind] = inherited
    return replace(
        spec,
        tasks=str(task_set.get("source", spec.tasks)),
        trials=int(settings.get("trials", spec.trials)),
        max_turns=int(settings.get("max_turns", spec.max_turns)),
        agents=[],
        user_simulator=None,
        pairs=[(a, b) for a, b in src_pairs],
        judge=judge,
        templates=templates,
        source=source,
        **changes,
    )


def _template_from(described: Any, kind: str) -> Template | None:
    """The source run's own template, back from its manifest (built-in ones stay built in)."""
    if not isinstance(described, dict) or "system" not in described:
        return None
    origin = str(described.get("source", ""))
    if origin.startswith("builtin:"):
        return None
    return Template(
        kind,
        origin,
        described.get("system", ""),
        described.get("user", ""),
        described.get("output", "json"),
        described.get("retry", ""),
    )


def _table_exists(db: sqlite3.Connection, name: str) -> bool:
    row = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    return row is not None


def source_pair_units(source: SourceRun, tasks: list[Task]) -> list[PairUnit]:
    """Exactly the pairs the source judged, so the two runs pair up one to one."""
    by_id = {t.task_id: t for t in tasks}
    return [PairUnit(by_id[tid], trial, a, b) for tid, trial, a, b in source.pair_keys()]


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


@dataclass(frozen=True)
class RejudgeRequest:
    """``judgeaudit rejudge``: the short form of a spec with ``run.trajectories_from``."""

    source: Path
    run_id: str | None = None
    judge_model: str | None = None
    judge_prompt: Path | None = None
    judge_endpoint: str | None = None  # "embedded", "profile:NAME" or a URL
    judge_key_env: str | None = None
    judge_temperature: float | None = None


def rejudge_spec(request: RejudgeRequest) -> RunSpec:
    """The spec a rejudge command stands for (paths absolute, so it does not depend on cwd)."""
    from judgeaudit.audit.spec import parse_spec

    where = Path("rejudge")

    def fail(key: str, message: str) -> SpecError:
        return SpecError(f"rejudge: {key}: {message}")

    reference = str(request.source.resolve()) + (f"#{request.run_id}" if request.run_id else "")
    source = open_source(reference, Path.cwd(), fail)
    src_judge = source.manifest.get("models", {}).get("judge") or {}
    endpoint = _endpoint_table(
        request.judge_endpoint or src_judge.get("base_url", "embedded"),
        request.judge_key_env or (None if request.judge_endpoint else src_judge.get("key_env")),
        fail,
    )
    endpoint_name = "judge" if request.judge_endpoint else src_judge.get("endpoint") or "judge"
    judge: dict[str, Any] = {
        "model": request.judge_model or src_judge.get("model"),
        "endpoint": endpoint_name,
    }
    if not judge["model"]:
        raise fail("--judge-model", "the source run names no judge model; pass one")
    if request.judge_prompt is not None:
        judge["prompt"] = str(request.judge_prompt)  # relative to the working directory
    if request.judge_temperature is not None:
        judge["temperature"] = request.judge_temperature
    name = source.manifest.get("name") or source.run_id.rsplit("-", 1)[0]
    raw = {
        "run": {"name": f"{name}-rejudge", "trajectories_from": reference},
        "endpoints": {endpoint_name: endpoint},
        "judge": judge,
    }
    return parse_spec(raw, where)


def _endpoint_table(value: str, key_env: str | None, fail: Fail) -> dict[str, Any]:
    if value == "embedded":
        return {"base_url": "embedded"}
    if value.startswith("profile:"):
        return {"profile": value.removeprefix("profile:")}
    if value.startswith(("http://", "https://")):
        if not key_env:
            raise fail(
                "--judge-key-env",
                f"the judge endpoint {value} needs the name of the variable that holds its key",
            )
        return {"base_url": value, "key_env": key_env}
    raise fail("--judge-endpoint", f"{value!r}: use embedded, profile:NAME or an http(s) URL")
