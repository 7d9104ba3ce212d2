"""Auditing recorded verdicts (``[judge] source = "recorded"``): the judge already spoke, so not a
single model call is made, and nothing is held in memory but one batch.

The pairs file is parsed once. The validation pass (:func:`scan`) checks every pair before
anything is written, with the cross-row checks in a scratch SQLite file, and builds the rows the
run will store into the same file (:class:`~judgeaudit.audit.store.prepared.Prepared`, run id left
out: the run does not exist yet). The store pass (:func:`store_recorded`) copies them into the
audit store by SQL, chunk by chunk, with ``INSERT OR IGNORE`` on the deterministic ids, so a
killed run resumes without a duplicate; capability gaps are filled in SQL once every trajectory
is stored. A file ``import`` wrote and recorded, byte for byte (:mod:`.checked`), is not
validated again: the store pass builds its rows from the file, with the run id, and inserts them
by the same rule (:class:`Trusted`), without the scratch file.
"""

from __future__ import annotations

import json
import operator
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgeaudit import safeio
from judgeaudit.audit.inputs import checked
from judgeaudit.audit.inputs.imported import parse_pair, trusted_pair
from judgeaudit.audit.inputs.pair_checks import ImportedSet
from judgeaudit.audit.inputs.source_run import task_to_json
from judgeaudit.audit.spec import RunSpec
from judgeaudit.audit.store import PAIR_COLUMNS, AuditStore
from judgeaudit.audit.store.bulk import fill_capability
from judgeaudit.audit.store.prepared import (
    COMMIT_PAIRS,
    Prepared,
    Table,
    copy_prepared,
    grouped,
    insert_batch,
)
from judgeaudit.audit.tasks.errors import TaskError
from judgeaudit.audit.units import ImportedPair
from judgeaudit.audit.units.gap import gap_sql
from judgeaudit.audit.units.ids import pair_id as make_pair_id
from judgeaudit.audit.units.ids import recorded_log_id, traj_id
from judgeaudit.audit.units.outcome import is_misselected, reward_gap
from judgeaudit.audit.units.period import OnePeriod
from judgeaudit.fsutil import process_alive
from judgeaudit.validate import iter_jsonl

BATCH = 20_000  # pairs per prepared batch (COMMIT_PAIRS per transaction of the store)
FLIP = {"A": "B", "B": "A", "tie": "tie"}
TRAJ_COLUMNS = (
    "traj_id", "run_id", "task_id", "task_type", "agent", "trial", "events", "ending",
    "satisfied", "success", "success_source", "external_reward", "context",
)  # fmt: skip
LOG_COLUMNS = (
    "log_id", "pair_id", "role", "model", "prompt_hash", "raw_output", "parsed_json", "run_id",
    "order", "attempt", "parse_error",
)  # fmt: skip
TASK_COLUMNS = ("run_id", "task_id", "task_json")
STORED_PAIR_COLUMNS = tuple(c for c in PAIR_COLUMNS if c != "created_at")
_pair_values = operator.itemgetter(*STORED_PAIR_COLUMNS)  # a pair row's values, in that order
_json = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps(v, ensure_ascii=False), reused


#: The tables a recorded run stores, as prepared: (table, columns, ids that start with the run).
TABLES: tuple[Table, ...] = (
    ("trajectories", TRAJ_COLUMNS, ("traj_id",)),
    ("audit_pairs", STORED_PAIR_COLUMNS, ("pair_id",)),
    ("judge_logs", LOG_COLUMNS, ("log_id", "pair_id")),
    ("tasks", TASK_COLUMNS, ()),
)


class Rows:
    """The rows the validation pass built for the store pass, in a scratch file that lives
    until :meth:`close` (or until the object is collected)."""

    def __init__(self) -> None:
        _sweep()
        self._dir = tempfile.TemporaryDirectory(prefix=f"{ROWS_PREFIX}{os.getpid()}-")
        self.path = Path(self._dir.name) / "scan.db"
        self.marks: list[tuple[int, ...]] = []

    def close(self) -> None:
        self._dir.cleanup()


@dataclass(frozen=True)
class Trusted:
    """A pairs file ``import`` validated and recorded, byte for byte: the store pass builds its
    rows from the file itself, with the run id, and no scratch file is needed."""

    path: Path
    spec: RunSpec
    stamp: tuple[int, int, int]  # (inode, size, mtime) when its hash matched the record

    def close(self) -> None:
        """Nothing to remove (the counterpart of :meth:`Rows.close`)."""

    def unchanged(self) -> None:
        """Refuse a file written to since it was hashed (its rows would not be the ones the
        import checked): one line; the next run hashes it again and validates it in full."""
        if _stamp(self.path) != self.stamp:
            raise TaskError(
                f"{self.path}: changed while the run read it; run again when nothing writes it"
            )


def _stamp(path: Path) -> tuple[int, int, int]:
    info = path.stat()
    return info.st_ino, info.st_size, info.st_mtime_ns


ROWS_PREFIX = "judgeaudit-rows-"  # then the pid of the run that prepared them


def _sweep() -> None:
    """Remove the prepared rows of runs that were killed (``kill -9`` skips every cleanup; at
    1M pairs they are about 1 GB): a folder whose process is gone."""
    for folder in Path(tempfile.gettempdir()).glob(f"{ROWS_PREFIX}*-*"):
        pid = folder.name.removeprefix(ROWS_PREFIX).partition("-")[0]
        if pid.isdigit() and int(pid) != os.getpid() and not process_alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


@dataclass(frozen=True)
class Scanned:
    pairs: int
    content: str  # the hash of what the file holds (bound into the spec)
    period: str | None
    rows: Rows | Trusted | None  # for the store pass (None when only the hash was asked for)


def scan(path: Path, spec: RunSpec | None = None) -> Scanned:
    """Validate every pair (each must carry verdicts); given the run's ``spec``, also prepare
    the rows :func:`store_recorded` copies (nothing is prepared for a plan or a hash alone).
    A file ``import`` wrote and recorded, byte for byte, was validated then: its rows are built
    without checking them again (:mod:`judgeaudit.audit.inputs.checked`)."""
    stamp = _stamp(path) if checked.record_path(path).exists() else None
    record = checked.trusted(path)
    if record is not None and stamp is not None:
        if spec is not None:
            _sweep()  # a killed run's prepared rows go with the next run, whichever path it takes
        trusted = None if spec is None else Trusted(path, spec, stamp)
        return Scanned(record.pairs, record.content, record.period, trusted)
    period = OnePeriod()
    rows = Rows() if spec is not None else None
    scratch = rows.path if rows is not None else None
    folder = None
    if scratch is None:
        folder = tempfile.TemporaryDirectory(prefix="judgeaudit-scan-")
        scratch = Path(folder.name) / "seen.db"
    try:
        db = sqlite3.connect(scratch, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=OFF")
            db.execute("PRAGMA synchronous=OFF")
            db.execute("BEGIN")
            checks = ImportedSet(db)
            prepared = Prepared(db, TABLES, {"tasks": "task_id"}) if spec is not None else None
            batch: list[ImportedPair] = []
            for where, _line, row in iter_jsonl(path, "pair", TaskError):
                batch.append(_checked(row, where, period, checks))
                if len(batch) >= BATCH:
                    if prepared is not None and spec is not None:
                        prepared.add(_batch_rows(batch, spec))
                    batch.clear()
            if prepared is not None and spec is not None and batch:
                prepared.add(_batch_rows(batch, spec))
            db.execute("COMMIT")
        finally:
            db.close()
    except BaseException:
        if rows is not None:
            rows.close()
        raise
    finally:
        if folder is not None:
            folder.cleanup()
    if rows is not None and prepared is not None:
        rows.marks = prepared.marks
    return Scanned(checks.count, checks.hash(), period.period, rows)


def _checked(
    row: dict[str, Any], where: str, period: OnePeriod, checks: ImportedSet
) -> ImportedPair:
    """One row validated: alone (:func:`parse_pair`), then against the rows before it."""
    pair = parse_pair(row, where)
    if not pair.verdicts:
        raise TaskError(
            f'{where}: verdicts: missing; [judge] source = "recorded" audits the '
            "verdicts stored with each pair (or use an LLM judge)"
        )
    problem = period.add(pair.period, where)
    if problem:
        raise TaskError(problem)
    checks.add(pair, row)
    return pair


def _batch_rows(
    batch: list[ImportedPair], spec: RunSpec, run_id: str = "", known: set[str] | None = None
) -> list[list[tuple[Any, ...]]]:
    """One batch's rows per table of :data:`TABLES`; ``''`` for the run id when they are
    prepared before the run exists (see :mod:`judgeaudit.audit.store.prepared`). ``known``:
    task ids whose row an earlier batch of this pass stored (skipped, then added to)."""
    trajectories: list[tuple[Any, ...]] = []
    pairs: list[tuple[Any, ...]] = []
    logs: list[tuple[Any, ...]] = []
    tasks: dict[str, tuple[str, str, str]] = {}  # kept, so a live judge can re-judge the run
    for pair in batch:
        if pair.task.task_id not in tasks and (known is None or pair.task.task_id not in known):
            tasks[pair.task.task_id] = (run_id, pair.task.task_id, task_to_json(pair.task))
        t, p, v = _rows(pair, run_id, spec)
        trajectories.extend(t)
        pairs.append(p)
        logs.extend(v)
    if known is not None:
        known.update(tasks)
    return [trajectories, pairs, logs, list(tasks.values())]


def outcome(verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    """Preferences per order (pair terms), the swap rule, mean scores: as a live judge gives."""
    by_order = {v["order"]: v for v in verdicts}
    pref_ab = by_order["AB"]["winner"] if "AB" in by_order else None
    pref_ba = by_order["BA"]["winner"] if "BA" in by_order else None
    if pref_ab is not None and pref_ba is not None:
        judge_pref = pref_ab if pref_ab == pref_ba else "tie"
    else:
        judge_pref = pref_ab or pref_ba or "tie"

    return {
        "pref_ab": pref_ab if pref_ab is not None else pref_ba,
        "pref_ba": pref_ba if pref_ab is not None else None,
        "judge_pref": judge_pref,
        "judge_score_a": _mean(verdicts, "score_a"),
        "judge_score_b": _mean(verdicts, "score_b"),
        "consistent": None if pref_ab is None or pref_ba is None else int(pref_ab == pref_ba),
    }


def _mean(verdicts: list[dict[str, Any]], key: str) -> float | None:
    """The mean of the verdicts' scores under ``key`` (those given), to 3 places."""
    values = [value for v in verdicts if (value := v.get(key)) is not None]
    return round(sum(values) / len(values), 3) if values else None


def _rows(
    p: ImportedPair, run_id: str, spec: RunSpec
) -> tuple[list[tuple[Any, ...]], tuple[Any, ...], list[tuple[Any, ...]]]:
    trajectories = []
    for agent, trial, events, success, reward, satisfied in (
        (p.agent_a, p.trial_a, p.events_a, p.success_a, p.reward_a, p.satisfied_a),
        (p.agent_b, p.trial_b, p.events_b, p.success_b, p.reward_b, p.satisfied_b),
    ):
        trajectories.append(
            (
                traj_id(run_id, p.task.task_id, agent, trial),
                run_id,
                p.task.task_id,
                p.task.task_type,
                agent,
                trial,
                _json(events) if events else "[]",
                "imported",
                None if satisfied is None else int(satisfied),
                int(success),
                "import",
                reward,
                p.context,
            )
        )
    pid = make_pair_id(run_id, p.task.task_id, p.trial_a, p.agent_a, p.agent_b, p.trial_b)
    judged = outcome(p.verdicts)
    model = p.judge_model or spec.judge.model
    gap = None
    if spec.gap_source != "capability":
        gap = reward_gap(
            spec.gap_source, 0.0, 0.0, judged["judge_score_a"], judged["judge_score_b"],
            p.reward_a, p.reward_b,
        )  # fmt: skip
    row = {
        "pair_id": pid,
        "task_id": p.task.task_id,
        "agent_a": p.agent_a,
        "agent_b": p.agent_b,
        "success_a": int(p.success_a),
        "success_b": int(p.success_b),
        "judge_pref": judged["judge_pref"],
        "judge_score_a": judged["judge_score_a"],
        "judge_score_b": judged["judge_score_b"],
        "reward_gap": gap,
        "misselected": int(is_misselected(p.success_a, p.success_b, judged["judge_pref"])),
        "run_id": run_id,
        "task_type": p.task.task_type,
        "trial": p.trial_a,
        "pref_ab": judged["pref_ab"],
        "pref_ba": judged["pref_ba"],
        "consistent": judged["consistent"],
        "gap_source": spec.gap_source,
        "satisfied_a": None if p.satisfied_a is None else int(p.satisfied_a),
        "satisfied_b": None if p.satisfied_b is None else int(p.satisfied_b),
        "success_source": "import",
        "capability_a": None,  # filled in SQL once every trajectory is stored
        "capability_b": None,
        "reward_a": p.reward_a,
        "reward_b": p.reward_b,
        "judge_model": model,
        "trial_b": p.trial_b,
        "source_id": p.pair_id,
    }
    logs = []
    for v in p.verdicts:
        flipped = v["order"] == "BA"  # the log keeps the verdict in the order it was shown
        first, second = ("score_b", "score_a") if flipped else ("score_a", "score_b")
        parsed = {
            "winner": FLIP[v["winner"]] if flipped else v["winner"],
            "score_a": v.get(first),
            "score_b": v.get(second),
            "reasons": v.get("reasons") or [],
        }
        parsed_text = _json(parsed)
        logs.append(
            (
                recorded_log_id(pid, v["order"]),
                pid,
                "judge",
                model,
                p.judge_prompt_hash,
                v.get("raw_output"),  # none recorded: NULL, no text made up (parsed_json has it)
                parsed_text,
                run_id,
                v["order"],
                0,
                None,
            )
        )
    return trajectories, _pair_values(row), logs


def store_recorded(
    store: AuditStore, run_id: str, rows: Rows | Trusted, on_batch: Callable[[int], None]
) -> Generator[None, None, None]:
    """Store every pair (the prepared rows copied, or a trusted file's rows built and inserted,
    :data:`~judgeaudit.audit.store.prepared.COMMIT_PAIRS` pairs per transaction), then fill the
    capability gaps. Yields after each batch: the caller may stop there by closing it (its open
    transaction is rolled back; a rerun stores those pairs again)."""
    if isinstance(rows, Trusted):
        yield from _store_trusted(store, run_id, rows, on_batch)
    else:
        marks = rows.marks  # a chunk's pairs so far: its last rowid of audit_pairs
        progress = lambda chunk: on_batch(marks[chunk][1])  # noqa: E731
        yield from copy_prepared(
            store, rows.path, run_id, TABLES, marks, progress, COMMIT_PAIRS // BATCH
        )
    fill_capability(store, run_id, gap_sql("capability"))


def _store_trusted(
    store: AuditStore, run_id: str, trusted: Trusted, on_batch: Callable[[int], None]
) -> Generator[None, None, None]:
    batch: list[ImportedPair] = []
    done = 0
    stored_tasks: set[str] = set()  # a task's row goes with the first batch that holds it
    trusted.unchanged()
    with grouped(store, COMMIT_PAIRS, on_batch) as writes:

        def write() -> None:
            rows = _batch_rows(batch, trusted.spec, run_id, stored_tasks)
            writes.add(lambda: insert_batch(store, TABLES, rows), len(batch), done + len(batch))

        for where, row in _written_lines(trusted.path):
            batch.append(trusted_pair(row, where))
            if len(batch) >= BATCH:
                write()
                done += len(batch)
                batch.clear()
                yield
        if batch:
            write()
    trusted.unchanged()


def _written_lines(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(file:line, object)`` of a pairs file whose every byte ``import`` wrote (its hash
    matched the record): one compact JSON object a line, nothing else. Parsed by the C decoder
    alone: the strict parsing of :func:`~judgeaudit.validate.iter_jsonl` (no NaN, no number
    too large, no nesting too deep) ran when the import read the log, and it wrote no value
    that parsing refuses."""
    decode = json.JSONDecoder().decode
    with safeio.open_regular(path, "pair", TaskError) as handle:
        for number, raw in enumerate(handle, start=1):
            yield f"{path}:{number}", decode(raw.decode("utf-8"))
