"""``run --dry-run``: what a run would do and roughly cost, before any call; nothing written.

Calls are exact where the plan fixes them (judge: pairs x orders, plus at most judge_retries
re-asks each; the success check: one per trajectory) and bounded where the conversation decides
(user simulator: 1 to max_turns per conversation; agents: 1 to max_turns x tool steps).
Prompt tokens come from the rendered prompts of a sample of units, at about 4 characters (or
one CJK character) per token; a provider's tokenizer will differ somewhat.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from judgeaudit.audit.inputs import load_inputs
from judgeaudit.audit.inputs.imported import load_imported
from judgeaudit.audit.inputs.rejudge import source_of
from judgeaudit.audit.inputs.source_run import source_pair_units
from judgeaudit.audit.spec import ModelRef, RunSpec
from judgeaudit.audit.spec.prompts import PromptSet
from judgeaudit.audit.spec.templates import trajectory_block
from judgeaudit.audit.store import open_readonly
from judgeaudit.audit.store.bulk import pairs_in
from judgeaudit.audit.tasks import Task, load_tasks
from judgeaudit.audit.tasks.domain import TOOL_SCHEMAS
from judgeaudit.audit.units import PairUnit, pair_units
from judgeaudit.audit.units.conversation import MAX_TOOL_STEPS, render
from judgeaudit.errors import InputError
from judgeaudit.outdir import check_out_dir

SAMPLE = 25


def estimate_tokens(text: str) -> int:
    """About 4 characters per token, one per CJK character (a rough, tokenizer-free guess)."""
    wide = sum(1 for ch in text if ord(ch) >= 0x2E80)
    return math.ceil((len(text) - wide) / 4) + wide


@dataclass
class RoleEstimate:
    role: str
    model: str
    endpoint: str
    calls_min: int
    calls_max: int
    prompt_tokens_per_call: int
    basis: str  # what the per-call figure was rendered from
    prompt_tokens_min: int
    prompt_tokens_max: int | None  # None: grows with each conversation's history
    completion_tokens_per_call: float | None = None  # measured in an earlier run, if any
    cost_min_usd: float | None = None
    cost_max_usd: float | None = None


def _check_embedded_models(spec: RunSpec) -> None:
    """The embedded provider refuses a bad simulated model id at the first request; a plan
    says so too, rather than planning a run that cannot start."""
    from judgeaudit.audit.spec import EMBEDDED
    from judgeaudit.sim.modelspec import ModelSpecError, SimConfig

    config = SimConfig()
    roles = [*spec.agents, *([spec.user_simulator] if spec.user_simulator else []), spec.judge]
    for ref in roles:
        endpoint = spec.endpoints.get(ref.endpoint)
        if endpoint is None or endpoint.base_url != EMBEDDED:
            continue
        try:
            config.resolve(ref.model)
        except ModelSpecError as exc:
            raise InputError(f"{ref.role} on the embedded provider: {exc}") from None


def plan(spec: RunSpec, out: Path | None = None) -> dict[str, Any]:
    """The dry-run plan of a spec (into ``out`` if given: what is stored there is not redone)."""
    source = source_of(spec)
    if out is not None:
        check_out_dir(out)  # the real run would refuse it: say so now, not after the plan
    _check_embedded_models(spec)
    prompts = PromptSet.for_spec(spec)
    tasks, pairs, conversations = _units(spec)
    orders = 2 if spec.swap else 1
    stored = _stored_trajectories(spec)
    measured = _measured_completions(spec)
    done_t, done_p = _done(spec, out)
    todo_conv = max(0, conversations - done_t)
    todo_pairs = max(0, len(pairs) - done_p)
    roles: list[RoleEstimate] = []
    goals = [t.goal(spec.language) for t in _spread(tasks)]
    for agent in spec.agents:
        per = _mean(
            estimate_tokens(prompts.agent_system + json.dumps(TOOL_SCHEMAS) + goal)
            for goal in goals
        )
        n = todo_conv // max(1, len(spec.agents))
        roles.append(_role(agent, n, n * spec.max_turns * MAX_TOOL_STEPS, per, "first call", None))
    if spec.user_simulator is not None:
        per = _mean(
            estimate_tokens(
                "".join(
                    m["content"]
                    for m in prompts.user_simulator.messages(task=goal, language=spec.language)
                )
            )
            for goal in goals
        )
        roles.append(
            _role(
                spec.user_simulator, todo_conv, todo_conv * spec.max_turns, per, "first call", None
            )
        )
    recorded = spec.judge_source == "recorded"  # the verdicts are in the file: no call at all
    if not recorded:
        sample = _spread(pairs)
        judge_texts = [_judge_prompt(spec, prompts, unit, stored) for unit in sample]
        basis = (
            "rendered judge prompts" if stored else "template and task only; transcripts add more"
        )
        calls = todo_pairs * orders
        roles.append(
            _role(
                spec.judge,
                calls,
                calls * (1 + spec.judge_retries),
                _mean(estimate_tokens(t) for t in judge_texts),
                basis,
                measured.get("judge"),
                exact=True,
            )
        )
    if spec.success_check is not None:
        checks = todo_conv if spec.trajectories_from is None else conversations
        per = _mean(
            estimate_tokens(
                "".join(
                    m["content"]
                    for m in prompts.success_check.messages(
                        task=goal, trajectory=trajectory_block(""), language=spec.language
                    )
                )
            )
            for goal in goals
        )
        roles.append(
            _role(spec.success_check, checks, checks, per, "template and task", None, exact=True)
        )
    prices = _prices(spec)
    for estimate in roles:
        _cost(estimate, prices.get(estimate.endpoint))
    return {
        "spec": spec.path,
        "run": spec.name,
        "kind": "re-judge"
        if spec.trajectories_from
        else "recorded verdicts"
        if recorded
        else "imported"
        if spec.imported
        else "simulated",
        "source": source.reference if source else None,
        "tasks": len(tasks),
        "conversations": conversations,
        "conversations_stored": done_t,
        "pairs": len(pairs),
        "pairs_stored": done_p,
        "orders": orders,
        "roles": [asdict(r) for r in roles],
        "warnings": list(spec.warnings),  # what `run` prints when it starts (same-source bias)
        "written": False,
    }


def _units(spec: RunSpec) -> tuple[list[Task], list[PairUnit], int]:
    source = source_of(spec)
    if source is not None:
        tasks = source.tasks()
        return tasks, source_pair_units(source, tasks), len(source.trajectories())
    if spec.imported:
        imported = load_imported(spec.base_dir() / spec.imported)
        tasks_by_id = {p.task.task_id: p.task for p in imported}  # a task has many pairs
        return list(tasks_by_id.values()), pair_units(spec, [], imported), 0
    tasks = load_tasks(spec.tasks, spec.base_dir(), spec.path)
    return tasks, pair_units(spec, tasks, None), len(tasks) * len(spec.agents) * spec.trials


def _stored_trajectories(spec: RunSpec) -> dict[tuple[str, str, int], list[Any]]:
    """Transcripts that already exist (a re-judge's source, or imported pairs)."""
    out: dict[tuple[str, str, int], list[Any]] = {}
    source = source_of(spec)
    if source is not None:
        for row in source.trajectories():
            out[(row["task_id"], row["agent"], int(row["trial"]))] = json.loads(row["events"])
    elif spec.imported:
        for p in load_imported(spec.base_dir() / spec.imported):
            out[(p.task.task_id, p.agent_a, 0)] = p.events_a
            out[(p.task.task_id, p.agent_b, 0)] = p.events_b
    return out


def _judge_prompt(
    spec: RunSpec, prompts: PromptSet, unit: PairUnit, stored: dict[tuple[str, str, int], Any]
) -> str:
    evidence = spec.judge_view == "evidence"
    sides = [
        render(stored.get((unit.task.task_id, agent, unit.trial), []), evidence)
        for agent in (unit.agent_a, unit.agent_b)
    ]
    messages = prompts.judge.messages(
        task=unit.task.goal(spec.language),
        trajectory_a=trajectory_block(sides[0], "A"),
        trajectory_b=trajectory_block(sides[1], "B"),
        order="AB",
        language=spec.language,
    )
    return "".join(m["content"] for m in messages)


def _done(spec: RunSpec, out: Path | None) -> tuple[int, int]:
    """Trajectories and pairs already stored for this spec in ``out`` (read only)."""
    if out is None or not (out / "audit.db").is_file():
        return 0, 0
    spec = load_inputs(
        spec, prepare=False
    ).spec  # the hash the runner uses: it covers a task file's content
    db = open_readonly(out / "audit.db")
    try:
        row = db.execute(
            "SELECT run_id FROM runs WHERE spec_hash = ? ORDER BY created_at DESC LIMIT 1",
            (spec.spec_hash(),),
        ).fetchone()
        if row is None:
            return 0, 0
        t = db.execute("SELECT COUNT(*) FROM trajectories WHERE run_id = ?", row).fetchone()[0]
        p = pairs_in(db, str(row[0]))
        return (0 if spec.trajectories_from or spec.imported else int(t)), p
    finally:
        db.close()


def _measured_completions(spec: RunSpec) -> dict[str, float]:
    """Mean completion tokens per call and role, measured in a re-judge's source run."""
    source = source_of(spec)
    if source is None:
        return {}
    db = source.connect()
    try:
        rows = db.execute(
            "SELECT role, AVG(completion_tokens) FROM calls WHERE run_id = ? GROUP BY role",
            (source.run_id,),
        ).fetchall()
    finally:
        db.close()
    return {r[0]: float(r[1]) for r in rows if r[1] is not None}


def _prices(spec: RunSpec) -> dict[str, tuple[float, float]]:
    out: dict[str, tuple[float, float]] = {}
    for name, endpoint in spec.endpoints.items():
        if endpoint.price_in is not None and endpoint.price_out is not None:
            out[name] = (endpoint.price_in, endpoint.price_out)
        elif endpoint.profile:
            from judgeaudit.profiles.model import ProfileError
            from judgeaudit.profiles.store import ProfileStore

            try:
                profile = ProfileStore.default().get(endpoint.profile)
            except ProfileError:
                continue  # the run itself will say what is wrong with the profile
            if profile.price_in is not None and profile.price_out is not None:
                out[name] = (profile.price_in, profile.price_out)
    return out


def _role(
    ref: ModelRef,
    calls_min: int,
    calls_max: int,
    per_call: int,
    basis: str,
    completion: float | None,
    exact: bool = False,
) -> RoleEstimate:
    return RoleEstimate(
        ref.role,
        ref.model,
        ref.endpoint,
        calls_min,
        calls_max,
        per_call,
        basis,
        calls_min * per_call,
        calls_max * per_call if exact else None,
        completion,
    )


def _cost(estimate: RoleEstimate, prices: tuple[float, float] | None) -> None:
    if prices is None:
        return
    completion = estimate.completion_tokens_per_call or 0.0
    estimate.cost_min_usd = (
        estimate.prompt_tokens_min * prices[0] + estimate.calls_min * completion * prices[1]
    ) / 1e6
    if estimate.prompt_tokens_max is not None:
        estimate.cost_max_usd = (
            estimate.prompt_tokens_max * prices[0] + estimate.calls_max * completion * prices[1]
        ) / 1e6


def _spread(items: list[Any]) -> list[Any]:
    """At most SAMPLE items, evenly spaced (not just the first task's)."""
    step = max(1, len(items) // SAMPLE)
    return items[::step][:SAMPLE]


def _mean(values: Any) -> int:
    items = list(values)
    return round(sum(items) / len(items)) if items else 0


#: How the plan's headline names a kind of run: "simulated" means the conversations are held
#: (agents with the user simulator) on whatever provider the spec names, real or embedded.
KIND_LABELS = {"simulated": "new conversations of the agents with the user simulator"}


def render_plan(result: dict[str, Any]) -> str:
    if result["kind"] == "re-judge":
        conversations = f"{result['conversations']} conversations reused from {result['source']}"
    else:
        conversations = (
            f"{result['conversations']} conversations ({result['conversations_stored']} "
            "already stored)"
        )
    # the model column fits the longest id: a cut id would hide what tells two judges apart
    # (judge-default:diligence=0,evidence=0.3,... and ...0.2,... both read judge-default:diligence)
    width = max([24, *(len(r["model"]) + 1 for r in result["roles"])])
    lines = [
        f"dry run of {result['run']} ({KIND_LABELS.get(result['kind'], result['kind'])}): "
        "nothing is called or written",
        f"  {result['tasks']} tasks, {conversations}, {result['pairs']} pairs "
        f"({result['pairs_stored']} already stored) judged in {result['orders']} order(s)",
        f"  {'role':<14}{'model':<{width}}{'calls':>16}{'prompt tok/call':>17}"
        f"{'prompt tokens':>22}{'cost USD':>20}",
    ]
    warnings = [f"warning: {w}" for w in result.get("warnings", [])]
    if not result["roles"]:
        return "\n".join(
            [
                *lines[:2],
                "  no model call: the verdicts are recorded with the pairs (cost 0)",
                *warnings,
            ]
        )
    for r in result["roles"]:
        calls = f"{r['calls_min']:,}" + (
            f"-{r['calls_max']:,}" if r["calls_max"] != r["calls_min"] else ""
        )
        tokens = f"{r['prompt_tokens_min']:,}" + (
            f"-{r['prompt_tokens_max']:,}"
            if r["prompt_tokens_max"] not in (None, r["prompt_tokens_min"])
            else "+"
            if r["prompt_tokens_max"] is None
            else ""
        )
        cost = "no prices" if r["cost_min_usd"] is None else f"{r['cost_min_usd']:.4f}"
        if r["cost_max_usd"] is not None and r["cost_max_usd"] != r["cost_min_usd"]:
            cost += f"-{r['cost_max_usd']:.4f}"
        elif r["cost_min_usd"] is not None and r["cost_max_usd"] is None:
            cost += "+"
        lines.append(
            f"  {r['role']:<14}{r['model']:<{width}}{calls:>16}{r['prompt_tokens_per_call']:>17,}"
            f"{tokens:>22}{cost:>20}  ({r['basis']})"
        )
    lines += [
        "  calls: exact for the judge (the upper figure: every call re-asked judge_retries times)"
        " and the success check; the conversations decide the rest.",
        "  tokens: ~4 characters (or 1 CJK character) per token, from the rendered prompts of a"
        f" sample of {SAMPLE}; '+': grows with each conversation turn.",
        "  cost: endpoint prices x input tokens, plus output tokens measured in the source run"
        " when re-judging.",
        *warnings,
    ]
    return "\n".join(lines)
