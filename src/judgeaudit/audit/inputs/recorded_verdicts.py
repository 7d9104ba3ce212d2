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
by the same rule (:class:`Trusted`), without the scratch file. Each pair's rows are built by
:mod:`.recorded_rows`.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Generator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgeaudit import safeio
from judgeaudit.audit.inputs import checked
from judgeaudit.audit.inputs.imported import parse_pair, trusted_pair
from judgeaudit.audit.inputs.pair_checks import ImportedSet
from judgeaudit.audit.inputs.recorded_rows import TABLES, batch_rows, stored_pair_id
from judgeaudit.audit.spec import RunSpec
from judgeaudit.audit.store import AuditStore
from judgeaudit.audit.store.bulk import (
    count_pairs,
    fill_capability,
    has_pair,
)
from judgeaudit.audit.store.prepared import (
    COMMIT_PAIRS,
    Prepared,
    copy_prepared,
    grouped,
    insert_batch,
)
from judgeaudit.audit.tasks.errors import TaskError
from judgeaudit.audit.units import ImportedPair
from judgeaudit.audit.units.gap import gap_sql
from judgeaudit.audit.units.period import OnePeriod
from judgeaudit.fsutil import process_alive
from judgeaudit.validate import iter_jsonl

BATCH = 20_000  # pairs per prepared batch (COMMIT_PAIRS per transaction of the store)


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
                        prepared.add(batch_rows(batch, spec))
                    batch.clear()
            if prepared is not None and spec is not None and batch:
                prepared.add(batch_rows(batch, spec))
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
    trusted.unchanged()
    done = stored_prefix(store, run_id, trusted.path)  # a resume starts after what is stored
    stored_tasks: set[str] = set()  # a task's row goes with the first batch that holds it
    with grouped(store, COMMIT_PAIRS, on_batch) as writes:

        def write() -> None:
            rows = batch_rows(batch, trusted.spec, run_id, stored_tasks)
            writes.add(lambda: insert_batch(store, TABLES, rows), len(batch), done + len(batch))

        for where, row in _written_lines(trusted.path, skip=done):
            batch.append(trusted_pair(row, where))
            if len(batch) >= BATCH:
                write()
                done += len(batch)
                batch.clear()
                yield
        if batch:
            write()
    trusted.unchanged()


def stored_prefix(store: AuditStore, run_id: str, path: Path) -> int:
    """How many of the trusted file's first pairs an earlier, stopped attempt of the run stored
    (0 when none, or when that cannot be shown): a resume stores from there instead of passing
    over every stored pair again. Pairs are stored in file order, a transaction of whole
    batches at a time, so what a stopped attempt left is the file's first N pairs; checked:
    N pairs stored, those of lines 1 and N among them, that of line N + 1 not. A run stored
    before ``source_id`` existed takes the whole pass (it fills the ids, :mod:`.prepared`)."""
    stored = count_pairs(store, run_id)
    if not stored or store.lacks_source_ids(run_id):
        return 0
    with closing(_written_lines(path)) as lines:
        first = next(lines, None)
    with closing(_written_lines(path, skip=stored - 1)) as lines:
        last, after = next(lines, None), next(lines, None)
    if first is None or last is None:
        return 0

    def is_stored(line: tuple[str, dict[str, Any]]) -> bool:
        where, row = line
        return has_pair(store, stored_pair_id(trusted_pair(row, where), run_id))

    if is_stored(first) and is_stored(last) and (after is None or not is_stored(after)):
        return stored
    return 0


def _written_lines(path: Path, skip: int = 0) -> Generator[tuple[str, dict[str, Any]], None, None]:
    """``(file:line, object)`` of a pairs file whose every byte ``import`` wrote (its hash
    matched the record): one compact JSON object a line, nothing else; after the first
    ``skip`` lines (read, not parsed). Parsed by the C
    decoder alone: the strict parsing of :func:`~judgeaudit.validate.iter_jsonl` (no NaN, no
    number too large, no nesting too deep) ran when the import read the log, and it wrote no
    value that parsing refuses."""
    decode = json.JSONDecoder().decode
    with safeio.open_regular(path, "pair", TaskError) as handle:
        for number, raw in enumerate(itertools.islice(handle, skip, None), start=skip + 1):
            yield f"{path}:{number}", decode(raw.decode("utf-8"))
