"""The one engine entry both front ends call: load the spec, run (or resume) the audit, write
the report files.

The CLI (``judgeaudit run`` / ``demo``) and the terminal app's run worker go through
:func:`run_audit`, so they load, run, report and fail the same way. Every deliberate failure is a
:class:`judgeaudit.errors.JudgeauditError`; a run that stopped short raises :class:`RunIncomplete`
after its report files are written, so what it did finish can be looked at.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sqlite3
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from judgeaudit.analysis.report import ReportOptions, build_report, write_report_files
from judgeaudit.audit import events as ev
from judgeaudit.audit.inputs import load_spec
from judgeaudit.audit.runner import AuditRunner
from judgeaudit.audit.spec import RunSpec
from judgeaudit.audit.spec.endpoints import KeyLookup, env_key
from judgeaudit.errors import IncompleteRun, JudgeauditError
from judgeaudit.fsutil import is_disk_full


class RunIncomplete(IncompleteRun):
    """The run ended with units left to do (exit 4); rerunning the same command resumes it."""

    def __init__(self, finished: ev.RunFinished) -> None:
        why = (
            f" ({finished.failures} units failed; the last: {finished.last_failure})"
            if finished.failures and finished.last_failure
            else ""
        )
        super().__init__(
            f"run {finished.run_id} is incomplete{why}; rerun the same command to finish it"
        )
        self.finished = finished


class DiskFull(IncompleteRun):
    """The disk filled up mid-run (exit 4): every unit stored so far is kept; rerun to finish."""

    def __init__(self, out: Path) -> None:
        super().__init__(
            f"{out}: the disk is full (database or disk is full); free some space and rerun the "
            "same command to finish: finished units are kept, nothing half-written is"
        )


async def run_audit(
    spec: Path | RunSpec,
    out: Path,
    *,
    on_event: ev.EventSink | None = None,
    concurrency: int | None = None,
    new_run: bool = False,
    keys: KeyLookup = env_key,
    on_runner: Callable[[AuditRunner], None] | None = None,
    stop_unjudged: bool = False,
) -> ev.RunFinished:
    """Run (or resume) the audit a spec describes into ``out`` and write its report files.

    ``on_runner`` receives the runner before it starts (the app pauses and resumes through it).
    ``stop_unjudged``: a re-judge stops when its first pairs get no verdict (``rejudge``).
    """
    loaded = load_spec(spec) if isinstance(spec, Path) else spec
    runner = AuditRunner(
        loaded, out, on_event=on_event, concurrency=concurrency, new_run=new_run, keys=keys
    )
    runner.first.watching = stop_unjudged and loaded.trajectories_from is not None
    if on_runner is not None:
        on_runner(runner)
    try:
        finished = await runner.run()
        write_report_files(out, build_report(out, ReportOptions(run_id=finished.run_id)))
    except (OSError, sqlite3.Error) as exc:
        if is_disk_full(exc):
            raise DiskFull(out) from None
        raise
    if not finished.complete:
        raise RunIncomplete(finished)
    return finished


def plan_run(spec: Path | RunSpec, out: Path | None = None) -> dict[str, Any]:
    """What :func:`run_audit` would do (units, calls per role, tokens, cost); nothing written."""
    from judgeaudit.audit.dryrun import plan

    return plan(load_spec(spec) if isinstance(spec, Path) else spec, out)


#: Said when Ctrl-C or SIGTERM came while a run wrote its files after its last unit: the run
#: could not stop there (no step left to stop at), and it would otherwise end as if unasked.
LATE_STOP = (
    "judgeaudit: the stop (Ctrl-C or SIGTERM) came while the run wrote its files after its last"
    " pair: every pair was stored, so the run finished; nothing to resume"
)


def run_audit_blocking(
    spec: Path | RunSpec,
    out: Path,
    *,
    on_event: ev.EventSink | None = None,
    concurrency: int | None = None,
    new_run: bool = False,
    stop_unjudged: bool = False,
) -> ev.RunFinished:
    """:func:`run_audit` on a fresh event loop, for callers without one (the CLI).

    SIGTERM (``timeout``, a CI job's end, ``systemctl stop``) stops the run as Ctrl-C does: the
    run is marked ``cancelled`` with its files written, and :class:`Terminated` is raised (the
    default action killed it mid-write and left it ``running`` for ever)."""

    async def main() -> ev.RunFinished:
        loop, task = asyncio.get_running_loop(), asyncio.current_task()
        assert task is not None
        handled = False
        if threading.current_thread() is threading.main_thread():
            with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows
                loop.add_signal_handler(signal.SIGTERM, task.cancel)
                handled = True
        try:
            finished = await run_audit(
                spec,
                out,
                on_event=on_event,
                concurrency=concurrency,
                new_run=new_run,
                stop_unjudged=stop_unjudged,
            )
            ended.append(finished)
            return finished
        finally:
            if handled:
                loop.remove_signal_handler(signal.SIGTERM)

    ended: list[ev.RunFinished] = []  # the run's end, when it came before a stop took effect
    try:
        return asyncio.run(main())
    except (KeyboardInterrupt, asyncio.CancelledError) as stop:
        if ended and ended[0].complete:  # the stop came after the last await: nothing stopped
            print(LATE_STOP, file=sys.stderr)
            return ended[0]
        if isinstance(stop, KeyboardInterrupt):
            raise
        # only SIGTERM cancels the main task (Ctrl-C raises its own)
        raise Terminated(
            f"terminated (SIGTERM); the units finished so far are kept in {out}: rerun the same"
            " command to resume"
        ) from None


class Terminated(JudgeauditError):
    """A run stopped by SIGTERM (exit 143, as a shell reports it)."""

    exit_code = 143
