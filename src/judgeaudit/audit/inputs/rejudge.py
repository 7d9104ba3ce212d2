"""Re-judging a run's stored trajectories (``run.trajectories_from``): no agent or user-simulator
call, only the judge (and the success check if the spec asks for one).

The source run supplies the task set, agents, trials and pairs; a spec that contradicts them is
refused. Judge-side settings the spec does not give (seed, language, swap, view, retries, gap,
the judge's temperature and template) default to the source's, so the same judge reproduces the
same verdicts and a changed one is compared with it pair by pair on identical inputs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from judgeaudit import credentials
from judgeaudit.audit.inputs.source_run import Fail, SourceRun, open_source
from judgeaudit.audit.spec import RunSpec, SpecError, parse_spec, read_spec
from judgeaudit.audit.spec.records import recorded_verdicts
from judgeaudit.audit.spec.templates import Template
from judgeaudit.audit.tasks import load_tasks, task_set_hash

#: Judge-side [run] keys a re-judge may change; when absent they default to the source's.
JUDGE_SIDE = ("seed", "language", "swap", "judge_view", "judge_retries")


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
        source_key=source.key,
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


#: What ``--judge-prompt`` names (a missing one said "relative to the spec", which rejudge has not).
PROMPT_FILE = "give a judge prompt template, a TOML file with `user = ...` (docs/judge.md)"


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
    where = Path("rejudge")

    def fail(key: str, message: str) -> SpecError:
        return SpecError(f"rejudge: {key}: {message}")

    reference = os.path.realpath(request.source) + (f"#{request.run_id}" if request.run_id else "")
    source = open_source(reference, Path.cwd(), fail)
    src_judge = source.manifest.get("models", {}).get("judge") or {}
    recorded = recorded_verdicts(source.manifest)
    if recorded and not request.judge_endpoint:
        raise fail(
            "--judge-endpoint",
            f"run {source.run_id} audited recorded verdicts, so it has no judge endpoint to "
            "reuse; name the live judge: --judge-endpoint embedded, profile:NAME or a URL",
        )
    endpoint = _endpoint_table(
        request.judge_endpoint or src_judge.get("base_url", "embedded"),
        request.judge_key_env or (None if request.judge_endpoint else src_judge.get("key_env")),
        fail,
        stored=not request.judge_endpoint,
    )
    endpoint_name = "judge" if request.judge_endpoint else src_judge.get("endpoint") or "judge"
    judge: dict[str, Any] = {
        "model": request.judge_model or src_judge.get("model"),
        "endpoint": endpoint_name,
    }
    if not judge["model"]:
        raise fail("--judge-model", "the source run names no judge model; pass one")
    if request.judge_prompt is not None:  # relative to the working directory, not to a spec
        if not request.judge_prompt.exists():
            raise fail("--judge-prompt", f"{request.judge_prompt}: no such file; {PROMPT_FILE}")
        judge["prompt"] = str(request.judge_prompt)
    if request.judge_temperature is not None:
        judge["temperature"] = request.judge_temperature
    name = source.manifest.get("name") or source.run_id.rsplit("-", 1)[0]
    raw = {
        "run": {"name": f"{name}-rejudge", "trajectories_from": reference},
        "endpoints": {endpoint_name: endpoint},
        "judge": judge,
    }
    return parse_spec(raw, where, bind_source)


def _endpoint_table(
    value: str, key_env: str | None, fail: Fail, *, stored: bool = False
) -> dict[str, Any]:
    if credentials.has_userinfo(value):
        if stored:  # the source run's own judge URL: the user typed no --judge-endpoint
            raise fail(
                "the source run's judge base_url",
                f"{credentials.mask_inline_credentials(value)} carries credentials "
                "(user:password@); name the "
                "judge with --judge-endpoint (the bare URL) and --judge-key-env (nothing was "
                "written)",
            )
        raise fail(
            "--judge-endpoint",
            f"{credentials.mask_inline_credentials(value)} carries credentials "
            "(user:password@); give the "
            "bare URL and the key through --judge-key-env (nothing was written)",
        )
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
        if (problem := credentials.key_variable_problem(key_env)) is not None:
            raise fail("--judge-key-env", problem)
        return {"base_url": value, "key_env": key_env}
    raise fail("--judge-endpoint", f"{value!r}: use embedded, profile:NAME or an http(s) URL")


def load_spec(path: Path) -> RunSpec:
    """A spec file parsed, with a re-judge's source run bound (checked against its manifest)."""
    return parse_spec(read_spec(path), path, bind_source)


def source_of(spec: RunSpec) -> SourceRun | None:
    """The run a re-judge spec reads its conversations from, opened from its key; else None."""
    if spec.trajectories_from is None:
        return None

    def fail(key: str, message: str) -> SpecError:
        return SpecError(f"{spec.path}: {key}: {message}")

    source = open_source(spec.trajectories_from, spec.base_dir(), fail)
    if spec.source_key is not None and source.key != spec.source_key:
        raise fail(
            "run.trajectories_from",
            f"{spec.trajectories_from} now holds another run than the one this spec was bound "
            "to; load the spec again",
        )
    return source
