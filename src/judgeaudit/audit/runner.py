"""The audit runner: trajectories first (capability needs all of them), then judged pairs.

Resumable by construction: every unit has a deterministic id and is written in one transaction,
so a rerun skips what is stored and the JSONL/CSV files are rebuilt from the database.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from judgeaudit.audit import events as ev
from judgeaudit.audit.conversation import Side, Trajectory, converse, render
from judgeaudit.audit.endpoints import Endpoints, KeyLookup, env_key
from judgeaudit.audit.export import LiveLog, export_all
from judgeaudit.audit.imported import ImportedPair, load_imported
from judgeaudit.audit.judging import judge_pair, verdict_json
from judgeaudit.audit.manifest import build_manifest
from judgeaudit.audit.prompts import PROMPTS
from judgeaudit.audit.spec import ModelRef, RunSpec
from judgeaudit.audit.store import AuditStore
from judgeaudit.audit.success import state_check
from judgeaudit.audit.tasks import Task, load_tasks
from judgeaudit.errors import JudgeauditError
from judgeaudit.llm import CallResult, LLMError

T = TypeVar("T")
UNIT_TRIES = 3
PROGRESS_EVERY_S = 0.25


class RunError(JudgeauditError, RuntimeError):
    """The run cannot go on (bad key, refused output dir); one line for the user."""


@dataclass
class _Counters:
    calls: int = 0
    tokens: int = 0
    cost: float = 0.0
    retries: int = 0
    failures: int = 0
    done: int = 0
    total: int = 0
    phase: str = ""
    started: float = field(default_factory=time.monotonic)
    phase_started: float = field(default_factory=time.monotonic)
    last_emit: float = 0.0


class AuditRunner:
    def __init__(
        self,
        spec: RunSpec,
        out_dir: Path,
        *,
        on_event: ev.EventSink | None = None,
        concurrency: int | None = None,
        new_run: bool = False,
        keys: KeyLookup = env_key,
    ) -> None:
        self.spec = spec
        self.out = out_dir
        self.emit: ev.EventSink = on_event or (lambda _e: None)
        self.concurrency = concurrency or spec.concurrency
        self.new_run = new_run
        self.keys = keys
        self.prompts = PROMPTS[spec.language]
        self.counters = _Counters()
        self.paused = asyncio.Event()
        self.paused.set()
        self.endpoints: Endpoints | None = None

    # --- public --------------------------------------------------------------------------------
    async def run(self) -> ev.RunFinished:
        self.out.mkdir(parents=True, exist_ok=True)
        store = AuditStore(self.out / "audit.db")
        try:
            return await self._run(store)
        finally:
            store.close()

    def pause(self) -> None:
        self.paused.clear()

    def resume(self) -> None:
        self.paused.set()

    # --- orchestration -------------------------------------------------------------------------
    async def _run(self, store: AuditStore) -> ev.RunFinished:
        imported = (
            load_imported(self.spec.base_dir() / self.spec.imported) if self.spec.imported else None
        )
        tasks = (
            [p.task for p in imported]
            if imported
            else load_tasks(self.spec.tasks, self.spec.base_dir())
        )
        run_id, resumed = self._choose_run(store)
        if not resumed:
            store.create_run(
                run_id,
                self.spec.spec_hash(),
                build_manifest(run_id, self.spec, self.prompts, tasks),
            )
        export_all(store, run_id, self.out)  # reconcile files with the database first
        traj_units = (
            []
            if imported
            else [
                (task, agent, trial)
                for task in tasks
                for agent in self.spec.agents
                for trial in range(self.spec.trials)
            ]
        )
        pair_units = self._pair_units(tasks, imported)
        done_t = store.done_trajectories(run_id)
        done_p = store.done_pairs(run_id)
        self.emit(
            ev.RunStarted(
                run_id,
                str(self.out),
                resumed,
                len(traj_units),
                sum(self._traj_id(run_id, t, a.name, n) in done_t for t, a, n in traj_units),
                len(pair_units),
                sum(self._pair_id(run_id, *u[:4]) in done_p for u in pair_units),
                list(self.spec.warnings),
            )
        )
        self.live_log = LiveLog(self.out)
        async with self._endpoints() as endpoints:
            self.endpoints = endpoints
            if imported:
                self._store_imported(store, run_id, imported, done_t)
            todo_t = [
                u for u in traj_units if self._traj_id(run_id, u[0], u[1].name, u[2]) not in done_t
            ]
            await self._phase(
                "trajectories",
                len(traj_units),
                len(traj_units) - len(todo_t),
                todo_t,
                lambda u: self._trajectory(store, run_id, *u),
            )
            stats = store.agent_stats(run_id)
            todo_p = [u for u in pair_units if self._pair_id(run_id, *u[:4]) not in done_p]
            # Capability gaps need every conversation: judge only once all of them are stored,
            # so a rerun that fills a failed one never leaves pairs with gaps from partial rates.
            all_stored = len(store.done_trajectories(run_id)) >= len(traj_units)
            ready = todo_p if imported or all_stored else []
            await self._phase(
                "judging",
                len(pair_units),
                len(pair_units) - len(todo_p),
                ready,
                lambda u: self._pair(store, run_id, stats, *u),
            )
        self.live_log.close()
        complete = len(store.done_pairs(run_id)) == len(pair_units)
        store.set_status(run_id, "finished" if complete else "incomplete")
        summary = export_all(store, run_id, self.out, final=True)
        finished = ev.RunFinished(
            run_id, str(self.out), complete, time.monotonic() - self.counters.started, summary
        )
        self.emit(finished)
        return finished

    def _choose_run(self, store: AuditStore) -> tuple[str, bool]:
        spec_hash = self.spec.spec_hash()
        runs = store.runs()
        same = [r for r in runs if r["spec_hash"] == spec_hash]
        if runs and not same and not self.new_run:
            other = runs[-1]
            raise RunError(
                f"{self.out} holds run {other['run_id']} from a different spec "
                f"(hash {other['spec_hash']} != {spec_hash}); pass --new-run to add a run "
                "to this directory, or choose another --out"
            )
        base = f"{self.spec.name}-{spec_hash[:8]}"
        if same and not self.new_run:
            return same[-1]["run_id"], True
        taken = {r["run_id"] for r in runs}
        run_id, n = base, 1
        while run_id in taken:
            n += 1
            run_id = f"{base}-{n}"
        return run_id, False

    @asynccontextmanager
    async def _endpoints(self) -> AsyncIterator[Endpoints]:
        endpoints = await asyncio.to_thread(Endpoints.open, self.spec, self.concurrency, self.keys)
        try:
            yield endpoints
        finally:
            await endpoints.close()

    def _pair_units(
        self, tasks: list[Task], imported: list[ImportedPair] | None
    ) -> list[tuple[Any, ...]]:
        if imported:
            return [(p.task, 0, p.agent_a, p.agent_b, p) for p in imported]
        return [
            (task, trial, a, b, None)
            for task in tasks
            for trial in range(self.spec.trials)
            for a, b in self.spec.pairs
        ]

    @staticmethod
    def _traj_id(run_id: str, task: Task, agent: str, trial: int) -> str:
        return f"{run_id}/{task.task_id}/t{trial}/{agent}"

    @staticmethod
    def _pair_id(run_id: str, task: Task, trial: int, a: str, b: str) -> str:
        return f"{run_id}/{task.task_id}/t{trial}/{a}~{b}"

    # --- phases and the worker pool ------------------------------------------------------------
    async def _phase(
        self,
        name: str,
        total: int,
        done: int,
        units: Iterable[T],
        work: Callable[[T], Awaitable[None]],
    ) -> None:
        c = self.counters
        c.phase, c.total, c.done, c.phase_started = name, total, done, time.monotonic()
        self.emit(ev.PhaseStarted(name, total, done))
        iterator = iter(units)

        async def worker() -> None:
            for unit in iterator:
                await self.paused.wait()
                await self._attempt(unit, work)
                c.done += 1
                self._progress()

        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(self.concurrency):
                    group.create_task(worker())
        except BaseExceptionGroup as errors:
            raise _first_leaf(errors) from None  # one clear error, not a traceback tree
        self._progress(force=True)

    async def _attempt(self, unit: T, work: Callable[[T], Awaitable[None]]) -> None:
        for attempt in range(1, UNIT_TRIES + 1):
            try:
                await work(unit)
                return
            except LLMError as exc:
                if exc.kind in ("auth", "not_found", "request"):
                    raise RunError(str(exc)) from None
                if attempt == UNIT_TRIES:
                    self.counters.failures += 1
                    self.emit(ev.UnitFailed(_unit_name(unit), f"{exc} (rerun to retry)"))

    def _progress(self, force: bool = False) -> None:
        c = self.counters
        now = time.monotonic()
        if not force and now - c.last_emit < PROGRESS_EVERY_S:
            return
        c.last_emit = now
        elapsed = now - c.started
        phase_elapsed = max(now - c.phase_started, 1e-6)
        rate = c.done / phase_elapsed if c.done else 0.0
        eta = (c.total - c.done) / rate if rate > 0 else None
        limits = self.endpoints.limits() if self.endpoints else {}
        self.emit(
            ev.Progress(
                c.phase,
                c.done,
                c.total,
                c.calls,
                c.tokens,
                round(c.cost, 6),
                c.retries,
                c.failures,
                round(elapsed, 2),
                round(c.calls / max(elapsed, 1e-6), 1),
                eta,
                limits,
            )
        )

    # --- units ---------------------------------------------------------------------------------
    def _side(self, ref: ModelRef) -> Side:
        assert self.endpoints is not None
        return Side(self.endpoints.clients[ref.endpoint], ref.model, ref.temperature)

    def _recorder(
        self, run_id: str, scope: str, sink: list[dict[str, Any]], refs: dict[str, ModelRef]
    ) -> Callable[[str, str, CallResult], None]:
        def record(role: str, model: str, result: CallResult) -> None:
            ref = refs[role]
            prices = self.endpoints.prices.get(ref.endpoint) if self.endpoints else None
            cost = None
            if prices is not None:
                cost = (
                    result.prompt_tokens * prices[0] + result.completion_tokens * prices[1]
                ) / 1e6
            sink.append(
                {
                    "run_id": run_id,
                    "scope": scope,
                    "role": role,
                    "model": model,
                    "endpoint": ref.endpoint,
                    "prompt_tokens": result.prompt_tokens,
                    "completion_tokens": result.completion_tokens,
                    "latency_ms": round(result.latency_ms, 1),
                    "attempts": result.attempts,
                    "cost_usd": cost,
                }
            )
            c = self.counters
            c.calls += 1
            c.tokens += result.prompt_tokens + result.completion_tokens
            c.cost += cost or 0.0
            c.retries += result.attempts - 1

        return record

    async def _trajectory(
        self, store: AuditStore, run_id: str, task: Task, agent: ModelRef, trial: int
    ) -> None:
        assert self.spec.user_simulator is not None
        traj_id = self._traj_id(run_id, task, agent.name, trial)
        calls: list[dict[str, Any]] = []
        record = self._recorder(
            run_id, traj_id, calls, {"agent": agent, "user": self.spec.user_simulator}
        )
        traj = await converse(
            task,
            agent.name,
            trial,
            self._side(agent),
            self._side(self.spec.user_simulator),
            self.prompts,
            max_turns=self.spec.max_turns,
            seed=self.spec.seed,
            on_call=record,
        )
        check = state_check(task, traj.final_state, traj.agent_text())
        llm_success = await self._llm_check(task, traj, calls, run_id, traj_id)
        store.save_trajectory(
            {
                "traj_id": traj_id,
                "run_id": run_id,
                "task_id": task.task_id,
                "task_type": task.task_type,
                "agent": agent.name,
                "trial": trial,
                "events": json.dumps(traj.events, ensure_ascii=False),
                "ending": traj.ending,
                "satisfied": int(traj.satisfied),
                "success": int(check.success),
                "success_source": "state",
                "success_detail": json.dumps(check.detail),
                "llm_success": llm_success,
                "needs_review": int(llm_success is not None and llm_success != check.success),
            },
            calls,
        )
        self.emit(
            ev.TrajectoryDone(
                traj_id, agent.name, task.task_id, check.success, traj.satisfied, traj.ending
            )
        )

    async def _llm_check(
        self, task: Task, traj: Trajectory, calls: list[dict[str, Any]], run_id: str, scope: str
    ) -> int | None:
        """The optional LLM success check: a candidate label only, never the truth."""
        ref = self.spec.success_check
        if ref is None:
            return None
        side = self._side(ref)
        record = self._recorder(run_id, scope, calls, {"success_check": ref})
        content = self.prompts.success_user.format(
            goal=task.goal(self.spec.language),
            trajectory=render(traj.events, self.spec.judge_view == "evidence"),
        )
        result = await side.client.chat(
            side.model,
            [
                {"role": "system", "content": self.prompts.success_system},
                {"role": "user", "content": content},
            ],
            temperature=side.temperature,
            seed=self.spec.seed,
        )
        record("success_check", side.model, result)
        try:
            return int(bool(json.loads(result.text)["success"]))
        except (json.JSONDecodeError, KeyError, TypeError):
            return None

    def _store_imported(
        self, store: AuditStore, run_id: str, pairs: list[ImportedPair], done: set[str]
    ) -> None:
        for p in pairs:
            for agent, events, success, reward, satisfied in (
                (p.agent_a, p.events_a, p.success_a, p.reward_a, p.satisfied_a),
                (p.agent_b, p.events_b, p.success_b, p.reward_b, p.satisfied_b),
            ):
                traj_id = self._traj_id(run_id, p.task, agent, 0)
                if traj_id in done:
                    continue
                done.add(traj_id)
                store.save_trajectory(
                    {
                        "traj_id": traj_id,
                        "run_id": run_id,
                        "task_id": p.task.task_id,
                        "task_type": p.task.task_type,
                        "agent": agent,
                        "trial": 0,
                        "events": json.dumps(events, ensure_ascii=False),
                        "ending": "imported",
                        "satisfied": None if satisfied is None else int(satisfied),
                        "success": int(success),
                        "success_source": "import",
                        "external_reward": reward,
                    },
                    [],
                )

    async def _pair(
        self,
        store: AuditStore,
        run_id: str,
        stats: dict[str, tuple[float, float | None]],
        task: Task,
        trial: int,
        a: str,
        b: str,
        imported: ImportedPair | None,
    ) -> None:
        pair_id = self._pair_id(run_id, task, trial, a, b)
        ta = store.trajectory(self._traj_id(run_id, task, a, trial))
        tb = store.trajectory(self._traj_id(run_id, task, b, trial))
        evidence = self.spec.judge_view == "evidence"
        text_a = render(json.loads(ta["events"]), evidence)
        text_b = render(json.loads(tb["events"]), evidence)
        calls: list[dict[str, Any]] = []
        record = self._recorder(run_id, pair_id, calls, {"judge": self.spec.judge})
        judged = await judge_pair(
            pair_id,
            task.goal(self.spec.language),
            text_a,
            text_b,
            self._side(self.spec.judge),
            self.prompts,
            swap=self.spec.swap,
            retries=self.spec.judge_retries,
            seed=self.spec.seed,
            on_call=record,
        )
        sa, sb = bool(ta["success"]), bool(tb["success"])
        winner = "A" if sa and not sb else "B" if sb and not sa else None
        misselected = winner is not None and judged.judge_pref == {"A": "B", "B": "A"}[winner]
        cap_a, cap_b = stats[a][0], stats[b][0]
        gap = _reward_gap(
            self.spec.gap_source,
            cap_a,
            cap_b,
            judged.score_a,
            judged.score_b,
            ta["external_reward"],
            tb["external_reward"],
        )
        row = {
            "pair_id": pair_id,
            "task_id": task.task_id,
            "agent_a": a,
            "agent_b": b,
            "success_a": int(sa),
            "success_b": int(sb),
            "judge_pref": judged.judge_pref,
            "judge_score_a": judged.score_a,
            "judge_score_b": judged.score_b,
            "reward_gap": gap,
            "misselected": int(misselected),
            "run_id": run_id,
            "task_type": task.task_type,
            "trial": trial,
            "pref_ab": judged.pref_ab,
            "pref_ba": judged.pref_ba,
            "consistent": None if judged.consistent is None else int(judged.consistent),
            "gap_source": self.spec.gap_source,
            "satisfied_a": ta["satisfied"],
            "satisfied_b": tb["satisfied"],
            "success_source": ta["success_source"],
            "capability_a": round(cap_a, 6),
            "capability_b": round(cap_b, 6),
            "reward_a": ta["external_reward"],
            "reward_b": tb["external_reward"],
            "judge_model": self.spec.judge.model,
        }
        logs = [
            {
                "log_id": log.log_id,
                "pair_id": log.pair_id,
                "role": "judge",
                "model": log.model,
                "prompt_hash": log.prompt_hash,
                "raw_output": log.raw_output,
                "parsed_json": verdict_json(log.parsed),
                "run_id": run_id,
                "order": log.order,
                "attempt": log.attempt,
                "latency_ms": log.latency_ms,
                "prompt_tokens": log.prompt_tokens,
                "completion_tokens": log.completion_tokens,
                "parse_error": log.parse_error,
            }
            for log in judged.logs
        ]
        store.save_pair(row, logs, calls)
        self.live_log.append(logs)
        for log in judged.logs:
            parsed = log.parsed or {}
            reasons = parsed.get("reasons") or [""]
            self.emit(
                ev.JudgeCallDone(
                    pair_id,
                    log.order,
                    log.attempt,
                    parsed.get("winner"),
                    parsed.get("score_a"),
                    parsed.get("score_b"),
                    str(reasons[0]),
                    log.parse_error,
                    log.raw_output,
                )
            )
        self.emit(ev.PairDone(pair_id, a, b, sa, sb, judged.judge_pref, misselected))


def _reward_gap(
    source: str,
    cap_a: float,
    cap_b: float,
    score_a: float | None,
    score_b: float | None,
    reward_a: float | None,
    reward_b: float | None,
) -> float | None:
    if source == "capability":
        return round(abs(cap_a - cap_b), 6)
    if source == "judge":
        return None if score_a is None or score_b is None else round(abs(score_a - score_b), 6)
    return None if reward_a is None or reward_b is None else round(abs(reward_a - reward_b), 6)


def _first_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first


def _unit_name(unit: Any) -> str:
    if isinstance(unit, tuple) and unit and isinstance(unit[0], Task):
        rest = [
            getattr(x, "name", x)
            for x in unit[1:]
            if x is not None and not isinstance(x, ImportedPair)
        ]
        return "/".join([unit[0].task_id, *map(str, rest)])
    return str(unit)
