"""The run spec (TOML): what to audit, against which endpoints, with which settings."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from judgeaudit import credentials, validate
from judgeaudit.agentnames import agent_name_problem
from judgeaudit.audit.spec.lexicon import LexiconError, read_extension
from judgeaudit.audit.spec.limits import ENDPOINT_LIMITS, MODEL_LIMITS, RUN_LIMITS, check_value
from judgeaudit.audit.spec.records import (
    EMBEDDED,
    GAP_SOURCES,
    JUDGE_VIEWS,
    RATE_KEYS,
    TEMPLATE_ROLES,
    Endpoint,
    ModelRef,
    RunSpec,
    SpecError,
)
from judgeaudit.audit.spec.templates import Template, load_template
from judgeaudit.validate import read_toml

_RUN_KEYS = {
    "name": str,
    "tasks": str,
    "imported": str,
    "trials": int,
    "seed": int,
    "concurrency": int,
    "max_turns": int,
    "language": str,
    "swap": bool,
    "judge_view": str,
    "judge_retries": int,
    "judge_context": bool,
    "pairs": (str, list),
    "trajectories_from": str,
    "lexicon": str,
}
_ENDPOINT_KEYS = {
    "base_url": str,
    "key_env": str,
    "profile": str,
    "concurrency": int,
    "timeout_s": (int, float),
    "rpm": (int, float),
    "tpm": (int, float),
    "fast_path": bool,
    "price_in": (int, float),
    "price_out": (int, float),
}
_MODEL_KEYS = {"name": str, "model": str, "endpoint": str, "temperature": (int, float)}
_GAP_KEYS = {"source": str, "bins": list, "labels": list}
_TOP = {
    "run": dict,
    "gap": dict,
    "endpoints": dict,
    "agents": list,
    "user_simulator": dict,
    "judge": dict,
    "success_check": dict,
}


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, key: str, message: str) -> SpecError:
        return SpecError(f"{self.path}: {key}: {message}")

    def table(
        self,
        data: dict[str, Any],
        where: str,
        allowed: dict[str, Any],
        limits: Mapping[str, tuple[float, float]] | None = None,
    ) -> dict[str, Any]:
        for key, value in data.items():
            full = f"{where}.{key}" if where else key
            if key not in allowed:
                close = difflib.get_close_matches(key, list(allowed), n=1)
                hint = f"did you mean '{close[0]}'?" if close else f"allowed: {', '.join(allowed)}"
                raise self.fail(full, f"unknown key; {hint}")
            kind = allowed[key]
            if (kind is int and isinstance(value, bool)) or not isinstance(value, kind):
                names = (
                    kind.__name__
                    if isinstance(kind, type)
                    else " or ".join(k.__name__ for k in kind)
                )
                raise self.fail(full, f"must be {names}, got {type(value).__name__}")
            check_value(self.path, key, value, full, (limits or {}).get(key), SpecError)
        return data


def _recorded_judge(r: _Reader, body: dict[str, Any], run: dict[str, Any]) -> ModelRef:
    """``[judge] source = "recorded"``: the verdicts come from the pairs file; no endpoint."""
    for key in body:
        if key not in ("source", "model", "name"):
            raise r.fail(f"judge.{key}", "a recorded judge takes only source, model and name")
    if not run.get("imported"):
        raise r.fail("judge.source", "recorded verdicts come from run.imported; set it")
    model = validate.string(body.get("model", "recorded"), f"{r.path}: judge.model", SpecError)
    return ModelRef("judge", str(body.get("name", model)), model, "", None)


#: Binds a re-judge's source run into a parsed spec: (spec, raw TOML, fail) -> bound spec.
#: Passed in by :mod:`judgeaudit.audit.inputs` (the room that reads other runs), so this module
#: parses and never opens a run itself.
BindSource = Callable[["RunSpec", dict[str, Any], Callable[[str, str], "SpecError"]], "RunSpec"]


def read_spec(path: Path) -> dict[str, Any]:
    """The spec file's TOML, read with the one-line errors every input gets."""
    return read_toml(path, "spec", SpecError)


def parse_spec(raw: dict[str, Any], path: Path, bind: BindSource | None = None) -> RunSpec:
    """The spec ``raw`` describes; a re-judge's source is bound only when ``bind`` is given."""
    r = _Reader(path)
    r.table(raw, "", _TOP)
    run = r.table(raw.get("run", {}), "run", _RUN_KEYS, RUN_LIMITS)
    gap = r.table(raw.get("gap", {}), "gap", _GAP_KEYS)
    endpoints: dict[str, Endpoint] = {}
    for name, body in raw.get("endpoints", {}).items():
        if not isinstance(body, dict):
            raise r.fail(f"endpoints.{name}", "must be a table")
        body = r.table(body, f"endpoints.{name}", _ENDPOINT_KEYS, ENDPOINT_LIMITS)
        if ("price_in" in body) != ("price_out" in body):
            raise r.fail(f"endpoints.{name}", "give both price_in and price_out, or neither")
        for key, (low, high) in RATE_KEYS.items():
            if key in body and not low <= body[key] <= high:  # also refuses NaN
                what = "requests" if key == "rpm" else "tokens"
                raise r.fail(
                    f"endpoints.{name}.{key}",
                    f"must be a number of {what} per minute from {low:g} to {high:g}",
                )
        if "profile" in body:
            if "base_url" in body or "key_env" in body:
                raise r.fail(f"endpoints.{name}", "profile supplies base_url and key; drop those")
            endpoints[name] = Endpoint(name=name, base_url="", **body)
            continue
        if "base_url" not in body:
            raise r.fail(
                f"endpoints.{name}.base_url", f"missing; a URL, {EMBEDDED!r} or profile = NAME"
            )
        url = body["base_url"]
        credentials.check_url(url, f"{path}: endpoints.{name}.base_url", SpecError)
        if isinstance(body.get("key_env"), str):
            credentials.check_key_variable(
                body["key_env"], f"{path}: endpoints.{name}.key_env", SpecError
            )
        if url != EMBEDDED and not url.startswith(("http://", "https://")):
            raise r.fail(
                f"endpoints.{name}.base_url",
                f"{url!r} must start with http(s):// or be {EMBEDDED!r}",
            )
        if "?" in url:
            raise r.fail(
                f"endpoints.{name}.base_url",
                "has a query string (tracking utm_ parameters?); remove everything from '?'",
            )
        endpoints[name] = Endpoint(name=name, **body)
    judge_body = raw.get("judge")
    recorded = isinstance(judge_body, dict) and judge_body.get("source") == "recorded"
    if not endpoints and not recorded:
        raise r.fail("endpoints", f'missing; add e.g. [endpoints.sim] base_url = "{EMBEDDED}"')

    templates: dict[str, Template] = {}

    def model_ref(body: Any, where: str, role: str) -> ModelRef:
        if not isinstance(body, dict):
            raise r.fail(where, "must be a table")
        kind = TEMPLATE_ROLES.get(role)
        body = r.table(body, where, _MODEL_KEYS | ({"prompt": str} if kind else {}), MODEL_LIMITS)
        if kind and "prompt" in body:
            body = dict(body)
            prompt = path.parent / body.pop("prompt")
            if not prompt.exists():  # name the key and where it looked (a new user)
                raise r.fail(f"{where}.prompt", f"{prompt}: no such file (relative to the spec)")
            templates[kind] = load_template(prompt, kind)
        for key in ("model", "endpoint"):
            if key not in body:
                raise r.fail(f"{where}.{key}", "missing")
        if body["endpoint"] not in endpoints:
            raise r.fail(
                f"{where}.endpoint",
                f"{body['endpoint']!r} is not defined; known: {', '.join(endpoints)}",
            )
        return ModelRef(
            role=role,
            name=body.get("name", body["model"]),
            model=body["model"],
            endpoint=body["endpoint"],
            temperature=body.get("temperature"),
        )

    agents = [model_ref(a, f"agents[{i}]", "agent") for i, a in enumerate(raw.get("agents", []))]
    names = [a.name for a in agents]
    for i, name in enumerate(names):
        if (problem := agent_name_problem(name)) is not None:
            raise r.fail(f"agents[{i}].name", problem)
    if len(set(names)) != len(names):
        raise r.fail("agents", "agent names must be unique; set name = ... on each")
    imported = run.get("imported")
    rejudge = run.get("trajectories_from")
    if rejudge is not None and imported:
        raise r.fail("run.trajectories_from", "re-judges stored trajectories; drop run.imported")
    if len(agents) < 2 and not imported and rejudge is None:
        raise r.fail("agents", "need at least two [[agents]] to compare")
    if "judge" not in raw:
        raise r.fail("judge", "missing; add a [judge] table with model and endpoint")
    judge = (
        _recorded_judge(r, judge_body, run) if recorded and isinstance(judge_body, dict) else None
    )
    if judge is None:
        if isinstance(judge_body, dict) and "source" in judge_body:
            if judge_body["source"] != "llm":
                raise r.fail("judge.source", f"{judge_body['source']!r}: use llm or recorded")
            judge_body = {k: v for k, v in judge_body.items() if k != "source"}
        judge = model_ref(judge_body, "judge", "judge")
    user = (
        model_ref(raw["user_simulator"], "user_simulator", "user")
        if "user_simulator" in raw
        else None
    )
    if user is None and not imported and rejudge is None:
        raise r.fail("user_simulator", "missing; add a [user_simulator] table (or run.imported)")
    success = (
        model_ref(raw["success_check"], "success_check", "success_check")
        if "success_check" in raw
        else None
    )

    pairs_raw = run.get("pairs", "all")
    if rejudge is not None:
        pairs = []  # a re-judge takes its pairs from the source run (checked when bound)
    elif pairs_raw == "all":
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    elif isinstance(pairs_raw, list):
        pairs = []
        for i, pair in enumerate(pairs_raw):
            if (
                not (isinstance(pair, list) and len(pair) == 2 and all(p in names for p in pair))
                or pair[0] == pair[1]
            ):
                raise r.fail(
                    f"run.pairs[{i}]", f"must be two different agent names from: {', '.join(names)}"
                )
            if (pair[0], pair[1]) in pairs or (pair[1], pair[0]) in pairs:
                raise r.fail(
                    f"run.pairs[{i}]",
                    f"{pair[0]!r} and {pair[1]!r} are already paired; list each pair once",
                )
            pairs.append((pair[0], pair[1]))
    else:
        raise r.fail("run.pairs", '"all" or a list like [["a", "b"]]')

    def choice(value: str, allowed: tuple[str, ...], key: str) -> str:
        if value not in allowed:
            raise r.fail(key, f"{value!r} is not one of {', '.join(allowed)}")
        return value

    bins, labels = gap.get("bins"), gap.get("labels")
    if bins is not None:
        bins, labels = validate.bin_edges(bins, labels, f"{path}: gap", SpecError)
    elif labels is not None:
        raise r.fail("gap.labels", "labels need gap.bins (one label per bucket)")
    gap_source = choice(gap.get("source", "capability"), GAP_SOURCES, "gap.source")
    spec = RunSpec(
        path=str(path),
        name=run.get("name", path.stem),
        tasks=run.get("tasks", "builtin:retail"),
        imported=imported,
        trials=run.get("trials", 1),
        seed=run.get("seed", 0),
        concurrency=run.get("concurrency", 16),
        max_turns=run.get("max_turns", 8),
        language=choice(run.get("language", "en"), ("en", "zh"), "run.language"),
        swap=run.get("swap", True),
        judge_view=choice(run.get("judge_view", "transcript"), JUDGE_VIEWS, "run.judge_view"),
        judge_retries=run.get("judge_retries", 2),
        pairs=pairs,
        gap_source=gap_source,
        bins=bins,
        labels=labels,
        endpoints=endpoints,
        agents=agents,
        user_simulator=user,
        judge=judge,
        success_check=success,
        judge_source="recorded" if recorded else "llm",
        judge_context=run.get("judge_context", True),
        templates=templates,
        trajectories_from=rejudge,
        lexicon=_lexicon(r, path, run.get("lexicon")),
    )
    if rejudge is not None and bind is not None:
        spec = bind(spec, raw, r.fail)
    judge_template = spec.templates.get("judge")
    if (
        spec.gap_source == "judge"
        and judge_template is not None
        and judge_template.output == "winner"
    ):
        raise r.fail(
            "gap.source",
            f'"judge" needs judge scores, but {judge_template.source} has output = "winner"; '
            'use output = "json" or "scores", or another gap source',
        )
    if (
        user
        and user.model == judge.model
        and user.endpoint == judge.endpoint
        and user.temperature == judge.temperature
    ):
        spec.warnings.append(
            "user_simulator and judge share model, endpoint and temperature: same-source bias; "
            "use a different model or temperature for one of them"
        )
    return spec


def _lexicon(r: _Reader, path: Path, name: str | None) -> dict[str, list[str]] | None:
    if name is None:
        return None
    try:
        return read_extension(path.parent / name)
    except LexiconError as exc:
        raise r.fail("run.lexicon", f"{exc}; fix the file or drop run.lexicon") from None
