"""Which run a spec writes to in an output directory, and the run-level errors and checks the
runner shares (kept apart so the runner stays about orchestration)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from judgeaudit.audit.spec import RunSpec
from judgeaudit.audit.store import AuditStore
from judgeaudit.errors import JudgeauditError


class RunError(JudgeauditError, RuntimeError):
    """The run cannot go on (bad key, refused output dir); one line for the user."""


class EndpointDown(RunError):
    """An endpoint refused the connection: the run stops at once instead of failing every unit."""


class OtherSpec(RunError):
    """``out`` holds runs of other specs only; the CLI adds one with ``--new-run``."""

    def __init__(self, out: Path, other_run: str, other_hash: str, spec_hash: str) -> None:
        self.said = (
            f"{out} holds run {other_run} from a different spec (hash {other_hash} != "
            f"{spec_hash}: the hash covers the spec and the content of the files it names)"
        )
        super().__init__(
            f"{self.said}; pass --new-run to add a run to this directory, or choose another --out"
        )

    def in_app(self) -> str:
        return f"{self.said}; choose another output dir on Launch (nothing was written)"


def resumed_run(runs: Sequence[sqlite3.Row], spec_hash: str) -> str | None:
    """The run a spec of ``spec_hash`` resumes among ``runs`` (oldest first): its newest."""
    same = [r["run_id"] for r in runs if r["spec_hash"] == spec_hash]
    return str(same[-1]) if same else None


def choose_run(store: AuditStore, spec: RunSpec, out: Path, new_run: bool) -> tuple[str, bool]:
    """The run this spec resumes in ``out``, or the id of a new one: (run_id, resumed)."""
    spec_hash = spec.spec_hash()
    runs = store.runs()
    resumed = resumed_run(runs, spec_hash)
    if runs and resumed is None and not new_run:
        other = runs[-1]
        raise OtherSpec(out, other["run_id"], other["spec_hash"], spec_hash)
    base = f"{spec.name}-{spec_hash[:8]}"
    if resumed is not None and not new_run:
        return resumed, True
    taken = {r["run_id"] for r in runs}
    run_id, n = base, 1
    while run_id in taken:
        n += 1
        run_id = f"{base}-{n}"
    return run_id, False


def first_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    first = group.exceptions[0]
    return first_leaf(first) if isinstance(first, BaseExceptionGroup) else first
