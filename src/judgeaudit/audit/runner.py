"""The audit runner: trajectories first (capability needs all of them), then judged pairs.

Resumable by construction: every unit has a deterministic id and is written in one transaction,
so a rerun skips what is stored and the JSONL/CSV files are rebuilt from the database.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, closing
from pathlib import Path
from typing import Any

from judgeaudit.audit import events as ev
from judgeaudit.audit.export import LiveLog, export_all
from judgeaudit.audit.heap import frozen_heap
from judgeaudit.audit.inputs import load_inputs
from judgeaudit.audit.inputs import recorded_verdicts as recorded
from judgeaudit.audit.inputs.imported import save_imported
from judgeaudit.audit.inputs.rejudge import source_of
from judgeaudit.audit.inputs.simulate import recheck, simulate
from judgeaudit.audit.inputs.source_run import (
    SourceRun,
    copy_trajectories,
    pending_checks,
    source_pair_units,
    task_to_json,
)
from judgeaudit.audit.pool import WorkerPool
from judgeaudit.audit.run_choice import EndpointDown, RunError, choose_run
from judgeaudit.audit.run_end import discard_empty_run, stopped_files
from judgeaudit.audit.spec import ModelRef, RunSpec
from judgeaudit.audit.spec.endpoints import Endpoints, KeyLookup, check_keys, env_key
from judgeaudit.audit.spec.manifest import build_manifest
from judgeaudit.audit.spec.prompts import PromptSet
from judgeaudit.audit.store import AuditStore
from judgeaudit.audit.store.bulk import (
    count_pairs,
    pair_counts_by_task,
    with_tasks_hash,
)
from judgeaudit.audit.store.out_lock import writing
from judgeaudit.audit.store.readonly import open_readonly
from judgeaudit.audit.tasks import Task
from judgeaudit.audit.units import (
    CheckUnit,
    ImportedPair,
    PairUnit,
    TrajectoryUnit,
    pair_units,
    trajectory_units,
)
from judgeaudit.audit.units.conversation import CallSink, Side, render
from judgeaudit.audit.units.first_verdicts import FirstVerdicts, NoVerdictYet
from judgeaudit.audit.units.judging import judge_pair
from judgeaudit.audit.units.outcome import judge_log_rows, pair_events, pair_row, prompt_rows
from judgeaudit.audit.units.transcript import with_context
from judgeaudit.audit.units.usage import Usage
from judgeaudit.errors import IncompleteRun, JudgeauditError
from judgeaudit.outdir import check_out_dir
from judgeaudit.validate import integer


class AuditRunner(WorkerPool):
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
        self.concurrency = spec.concurrency if concurrency is None else concurrency
        self.new_run = new_run
        self.keys = keys
        self.prompts = PromptSet.for_spec(spec)
        self.usage = Usage()
        self.paused = asyncio.Event()
        self.paused.set()
        self.endpoints: Endpoints | None = None
        self._created_run: str | None = None
        self._run_id: str | None = None
        self.last_failure: str | None = None  # why the last unit failed, for the exit-4 line
        self._recorded = 0  # pairs in a recorded-verdicts file (counted by its validation pass)
        self._recorded_rows: recorded.Rows | recorded.Trusted | None = None  # for the store pass
        self.first = FirstVerdicts(watching=False)  # run_audit's stop_unjudged: a re-judge's

    # --- public --------------------------------------------------------------------------------
    async def run(self) -> ev.RunFinished:
        # Everything that can be refused is checked before OUT exists: a refused run writes
        # nothing, and never leaves a 'running' run behind that would block the corrected spec.
        integer(self.concurrency, "--concurrency", 1, 1024)
        with frozen_heap():
            tasks, imported = self._inputs()
            try:
                return await self._checked_run(tasks, imported)
            finally:
                if self._recorded_rows is not None:
                    self._recorded_rows.close()

    async def _checked_run(
        self, tasks: list[Task], imported: list[ImportedPair] | None
    ) -> ev.RunFinished:
        check_out_dir(self.out)
        check_keys(self.spec, self.keys)
        created = not self.out.exists()
        try:
            self.out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # e.g. under /proc: the access check passes, mkdir does not
            raise RunError(
                f"{self.out}: --out cannot be created ({exc.strerror}); choose a writable directory"
            ) from None
        with writing(self.out):  # one run writes OUT at a time; refused before audit.db opens
            return await self._stored_run(tasks, imported, created)

    async def _stored_run(
        self, tasks: list[Task], imported: list[ImportedPair] | None, created: bool
    ) -> ev.RunFinished:
        path = self.out / "audit.db"
        if path.is_file() and path.stat().st_size:  # checked as every reader checks it first:
            open_readonly(path).close()  # a hand-edited value is one line, and nothing written
        store = AuditStore(path)
        try:
            return await self._run(store, tasks, imported)
        except JudgeauditError as exc:  # a refusal (not a cancel: a cancelled run is resumed)
            undo = isinstance(exc, NoVerdictYet)  # a stopped re-judge: undone, never resumed
            if discard_empty_run(store, self._created_run, self.spec, self.out, undo) and created:
                store.close()
                shutil.rmtree(self.out, ignore_errors=True)  # only files this run made
            elif isinstance(exc, EndpointDown) and stopped_files(
                store, self._run_id, self.out, "incomplete"
            ):
                raise IncompleteRun(
                    f"run {self._run_id} stopped: {exc}; the units it finished are kept, rerun "
                    "the same command once the endpoint answers"
                ) from None
            raise
        except (KeyboardInterrupt, asyncio.CancelledError):
            # the CSV and logs show what was stored, and runs.status says it stopped
            stopped_files(store, self._run_id, self.out, "cancelled")
            raise
        finally:
            store.close()

    def pause(self) -> None:
        self.paused.clear()

    def resume(self) -> None:
        self.paused.set()

    # --- orchestration -------------------------------------------------------------------------
    def _inputs(self) -> tuple[list[Task], list[ImportedPair] | None]:
        """Load and validate the tasks or pairs; their content hash becomes part of the spec."""
        loaded = load_inputs(self.spec)
        self.spec, self._recorded = loaded.spec, loaded.recorded_pairs
        self._recorded_rows = loaded.recorded_rows
        return loaded.tasks, loaded.imported

    async def _run(
        self, store: AuditStore, tasks: list[Task], imported: list[ImportedPair] | None
    ) -> ev.RunFinished:
        source = source_of(self.spec)
        run_id, resumed = choose_run(store, self.spec, self.out, self.new_run)
        self._run_id = run_id
        if not resumed:
            manifest = build_manifest(run_id, self.spec, self.prompts, tasks, source)
            stored_tasks = {t.task_id: task_to_json(t) for t in tasks}
            manifest = with_tasks_hash(manifest, stored_tasks)
            store.create_run(run_id, self.spec.spec_hash(), manifest, stored_tasks)
            self._created_run = run_id
        store.set_status(run_id, "running")  # a resumed one runs again; a killed other is stopped
        export_all(store, run_id, self.out)  # reconcile files with the database first
        if self.spec.judge_source == "recorded":
            return await self._run_recorded(store, run_id, resumed)
        simulated = not (imported or source)
        traj_units = trajectory_units(self.spec, tasks) if simulated else []
        if source is not None:
            pairs = source_pair_units(source, tasks)
        else:
            pairs = pair_units(self.spec, tasks, imported)
        done_t = store.done_trajectories(run_id)
        done_p = store.done_pairs(run_id)
        todo_t = [u for u in traj_units if u.traj_id(run_id) not in done_t]
        pair_ids = [(u, u.pair_id(run_id)) for u in pairs]  # each id built once
        todo_p = [u for u, p in pair_ids if p not in done_p]
        store.fill_source_ids(
            run_id, [(p, u.source_id) for u, p in pair_ids if u.source_id and p in done_p]
        )
        self.emit(
            ev.RunStarted(
                run_id,
                str(self.out),
                resumed,
                len(traj_units),
                len(traj_units) - len(todo_t),
                len(pairs),
                len(pairs) - len(todo_p),
                list(self.spec.warnings),
                pair_counts_by_task(store, run_id) if done_p else [],
            )
        )
        self.live_log = LiveLog(self.out)
        async with self._endpoints() as endpoints:
            self.endpoints = endpoints
            if imported:
                save_imported(store, run_id, imported, done_t)
            if source is not None:
                await self._reuse(store, run_id, source, tasks, done_t)
            await self._phase(
                "trajectories",
                len(traj_units),
                todo_t,
                lambda u: self._trajectory(store, run_id, u),
            )
            capability = {agent: rate for agent, (rate, _) in store.agent_stats(run_id).items()}
            # Capability gaps need every conversation: judge only once all of them are stored,
            # so a rerun that fills a failed one never leaves pairs with gaps from partial rates.
            all_stored = not traj_units or len(store.done_trajectories(run_id)) >= len(traj_units)
            await self._phase(
                "judging",
                len(pairs),
                todo_p if not simulated or all_stored else [],
                lambda u: self._pair(store, run_id, capability, u),
                done=len(pairs) - len(todo_p),
            )
        self.live_log.close(sync=True)  # every line a stored call: the final judge_logs.jsonl
        complete = count_pairs(store, run_id) == len(pairs)
        store.set_status(run_id, "finished" if complete else "incomplete")
        summary = export_all(store, run_id, self.out, final=True, live_complete=True)
        elapsed = time.monotonic() - self.usage.counters.started
        finished = ev.RunFinished(
            run_id,
            str(self.out),
            complete,
            elapsed,
            summary,
            self.usage.counters.failures,
            self.last_failure,
        )
        self.emit(finished)
        return finished

    async def _run_recorded(self, store: AuditStore, run_id: str, resumed: bool) -> ev.RunFinished:
        """Recorded verdicts: streamed into the store, no endpoint opened, no model called.
        The loop gets control back after every batch, so Ctrl-C or SIGTERM stops the store
        there (its open transaction rolled back) instead of after the last pair."""
        assert self._recorded_rows is not None
        total = self._recorded
        done = count_pairs(store, run_id)
        self.emit(
            ev.RunStarted(
                run_id, str(self.out), resumed, 0, 0, total, done, list(self.spec.warnings)
            )
        )
        self.usage.start_phase("recorded", total, done)
        self.emit(ev.PhaseStarted("recorded", total, done))

        commits = 0

        def on_batch(count: int) -> None:  # a resumed pass counts from 0 through stored pairs
            nonlocal commits
            commits += 1
            self.usage.counters.done = max(count, done)
            self._progress(force=True)  # one a commit: seconds apart at scale, the last says done

        steps = recorded.store_recorded(store, run_id, self._recorded_rows, on_batch)
        with closing(steps):  # a cancel closes it: the open transaction is rolled back
            for _ in steps:
                await asyncio.sleep(0)
        stored = count_pairs(store, run_id)
        if not commits:  # nothing stored in this pass: say where the run stands once
            self._progress(force=True)
        complete = stored == total
        store.set_status(run_id, "finished" if complete else "incomplete")
        summary = export_all(store, run_id, self.out, final=True)
        elapsed = time.monotonic() - self.usage.counters.started
        finished = ev.RunFinished(run_id, str(self.out), complete, elapsed, summary)
        self.emit(finished)
        return finished

    async def _reuse(
        self, store: AuditStore, run_id: str, source: SourceRun, tasks: list[Task], done: set[str]
    ) -> None:
        """A re-judge: the source's trajectories, then (if asked) their LLM success check."""
        relabel = self.spec.success_check is not None
        copy_trajectories(store, run_id, source, done, relabel)
        if not relabel:
            return
        total, todo = pending_checks(store, run_id, tasks)

        async def check(unit: CheckUnit) -> None:
            events = json.loads(store.trajectory(unit.traj_id)["events"])
            label, calls = await recheck(
                unit,
                run_id,
                events,
                self.spec,
                self.prompts,
                self._side,
                lambda scope, sink, refs: self._recorder(run_id, scope, sink, refs),
            )
            store.save_llm_label(unit.traj_id, label, calls)

        await self._phase("success checks", total, todo, check)

    @asynccontextmanager
    async def _endpoints(self) -> AsyncIterator[Endpoints]:
        endpoints = await asyncio.to_thread(Endpoints.open, self.spec, self.concurrency, self.keys)
        try:
            yield endpoints
        finally:
            await endpoints.close()

    # --- units ---------------------------------------------------------------------------------
    def _side(self, ref: ModelRef) -> Side:
        assert self.endpoints is not None
        return Side(self.endpoints.clients[ref.endpoint], ref.model, ref.temperature)

    def _recorder(
        self, run_id: str, scope: str, sink: list[dict[str, Any]], refs: dict[str, ModelRef]
    ) -> CallSink:
        prices = self.endpoints.prices if self.endpoints else {}
        return self.usage.recorder(run_id, scope, sink, refs, prices)

    async def _trajectory(self, store: AuditStore, run_id: str, unit: TrajectoryUnit) -> None:
        done = await simulate(
            unit,
            run_id,
            self.spec,
            self.prompts,
            self._side,
            lambda scope, sink, refs: self._recorder(run_id, scope, sink, refs),
        )
        store.save_trajectory(done.row, done.calls)
        self.emit(done.event)

    async def _pair(
        self, store: AuditStore, run_id: str, capability: dict[str, float], unit: PairUnit
    ) -> None:
        pair_id = unit.pair_id(run_id)
        id_a, id_b = unit.traj_ids(run_id)
        ta, tb = store.trajectory(id_a), store.trajectory(id_b)
        evidence = self.spec.judge_view == "evidence"
        calls: list[dict[str, Any]] = []
        judged = await judge_pair(
            pair_id,
            with_context(
                unit.task.goal(self.spec.language),
                unit.imported.context if unit.imported and self.spec.judge_context else None,
                self.spec.language,
            ),
            render(json.loads(ta["events"]), evidence),
            render(json.loads(tb["events"]), evidence),
            self._side(self.spec.judge),
            self.prompts.judge,
            language=self.spec.language,
            swap=self.spec.swap,
            retries=self.spec.judge_retries,
            seed=self.spec.seed,
            on_call=self._recorder(run_id, pair_id, calls, {"judge": self.spec.judge}),
        )
        row = pair_row(unit, run_id, self.spec, ta, tb, judged, capability)
        logs = store.scrub("judge_logs", judge_log_rows(judged, run_id))  # once, for both files
        store.save_pair(row, logs, calls, prompt_rows(judged, store.has_prompt))
        self.live_log.append(logs)
        for event in pair_events(pair_id, judged, row):
            self.emit(event)
        if run_id == self._created_run:  # only a re-judge's first pass is watched, not a resume
            replies = (r["raw_output"] for r in logs.rows)
            self.first.saw(judged, run_id, unit.task.task_id, replies)
