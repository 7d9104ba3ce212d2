"""A run's full garbage collections walk only the run's objects: what existed when it started
is frozen for the run (issue 23 goal 6: a full collection over every imported module's objects
cost 50-60 ms inside a 3 s audit), and thawed when it ends; someone else's freeze is left."""

from __future__ import annotations

import asyncio
import gc
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgeaudit.audit import events as ev
from judgeaudit.audit.heap import frozen_heap
from judgeaudit.audit.inputs import load_spec
from judgeaudit.audit.runner import AuditRunner


@pytest.fixture(autouse=True)
def thawed() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_the_heap_is_frozen_for_the_block_and_thawed_after() -> None:
    with pytest.raises(RuntimeError), frozen_heap():
        assert gc.get_freeze_count() > 0
        raise RuntimeError("a run that fails thaws the heap too")
    assert gc.get_freeze_count() == 0


def test_someone_elses_freeze_is_left_alone() -> None:
    gc.freeze()
    before = gc.get_freeze_count()
    made = [[i] for i in range(5000)]  # tracked objects made after their freeze
    with frozen_heap():
        inside = gc.get_freeze_count()
    # not frozen again (what was made since stays out) and not thawed (theirs to undo). The
    # count moves by a few as the interpreter frees frozen objects, so it is not compared
    # exactly (CI saw 591,292 then 591,295 around an empty block).
    assert inside < before + len(made) // 2
    assert gc.get_freeze_count() > 0


def test_an_audit_runs_with_the_heap_frozen(tmp_path: Path) -> None:
    row = {"task": "Refund order O-1.", "agent_a": "x", "agent_b": "y", "success_a": 1,
           "success_b": 0, "trajectory_a": "user: refund\nagent: refunded $12",
           "trajectory_b": "user: refund\nagent: done!"}  # fmt: skip
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(row | {"task_id": f"t{i}"}) + "\n" for i in range(3)))
    spec = tmp_path / "spec.toml"
    spec.write_text(
        '[run]\nname = "heap"\nimported = "pairs.jsonl"\n[endpoints.sim]\nbase_url = "embedded"\n'
        '[judge]\nmodel = "judge-default"\nendpoint = "sim"\n'
    )
    counts: list[int] = []

    def on_event(event: ev.Event) -> None:
        if isinstance(event, ev.PairDone):
            counts.append(gc.get_freeze_count())

    finished = asyncio.run(AuditRunner(load_spec(spec), tmp_path / "out", on_event=on_event).run())
    assert finished.complete and len(counts) == 3
    assert min(counts) > 0  # judged with the modules' objects out of the collections' way
    assert gc.get_freeze_count() == 0
