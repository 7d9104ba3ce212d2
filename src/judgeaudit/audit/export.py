"""Files derived from the database: ``audit_pairs.csv``, ``judge_logs.jsonl``, ``manifest.json``.

They are rebuilt atomically from ``audit.db`` at the start and end of every run, so a crash in
the middle of an append can never leave a duplicate or half line behind after the next run. The
one exception is ``judge_logs.jsonl`` at the end of a run that was not interrupted: the live log
(rebuilt at the start, then one line per stored judge call) already holds exactly the run's
rows, so it is kept (synced to disk) instead of written again; its lines are in the order the
calls finished, where a rebuild (``export files``, a stopped run) orders them by pair.

One rule lives here (:func:`on_request`): a recorded-verdict run writes neither
``judge_logs.jsonl`` nor ``audit_pairs.csv`` by itself. Its verdicts came from a file the user
already has and sit in ``audit.db`` (and its pairs in ``audit_pairs.parquet`` too); the JSONL
would copy them again (1.15 GB at 1M pairs), the CSV the pairs (192 MB and 4 s of CPU at 1M
pairs, docs/benchmarks.md). ``judgeaudit export files OUT`` writes both on request.
"""

from __future__ import annotations

import csv
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from judgeaudit import csvsafe
from judgeaudit.audit.spec.records import recorded_verdicts
from judgeaudit.audit.store import LOG_COLUMNS, PAIR_COLUMNS, AuditStore, Scrubbed
from judgeaudit.audit.store.bulk import FinalExports, pair_batches, pair_counts
from judgeaudit.audit.store.schema import CONTENT_COLUMNS
from judgeaudit.audit.units.outcome import decisive as is_decisive
from judgeaudit.credentials import scrub_content
from judgeaudit.fsutil import atomic_write_text, atomic_writer
from judgeaudit.runfiles import LOGS_JSONL as LOGS_JSONL  # re-exported: the old import path
from judgeaudit.runfiles import MANIFEST as MANIFEST
from judgeaudit.runfiles import PAIRS_CSV as PAIRS_CSV


def on_request(manifest: dict[str, Any]) -> bool:
    """Whether the run's ``judge_logs.jsonl`` and ``audit_pairs.csv`` are written only on
    request (``export files``): a recorded-verdict run."""
    return recorded_verdicts(manifest)


def log_json(row: sqlite3.Row | dict[str, Any]) -> str:
    """One judge_logs row as a JSONL line (parsed_json as an object, like the original); the
    whole line scrubbed: a row read back from ``audit.db`` may predate the scrubber's rules."""
    return scrub_content(_encoded(dict(row)))  # sqlite3.Row's `in` tests values, not names


def _encoded(source: dict[str, Any]) -> str:
    data: dict[str, Any] = {name: source.get(name) for name in LOG_COLUMNS}
    data["parsed_json"] = json.loads(source["parsed_json"]) if source.get("parsed_json") else None
    return json.dumps(data, ensure_ascii=False)


#: Where the CSV's summary reads its row (rows come as tuples in PAIR_COLUMNS' order).
_SUCCESS_A, _SUCCESS_B, _MISSELECTED = (
    PAIR_COLUMNS.index(c) for c in ("success_a", "success_b", "misselected")
)

#: judge_logs columns a :class:`Scrubbed` row holds scrubbed already.
_SCRUBBED = CONTENT_COLUMNS["judge_logs"]


def live_json(row: dict[str, Any], memo: dict[str, str] | None = None) -> str:
    """A just-judged row (content scrubbed by the store, :class:`Scrubbed`) as the same line
    :func:`log_json` would write: its other text (ids, model name) is scrubbed here, value by
    value, so no value reaches the file unscrubbed. ``memo``: those values seen before (the run
    id, the model and a pair's id repeat on every line) and their scrubbed form."""
    memo = {} if memo is None else memo
    clean = dict(row)
    for key, value in row.items():
        if isinstance(value, str) and key not in _SCRUBBED:
            done = memo.get(value)
            if done is None:
                if len(memo) >= MEMO_VALUES:
                    memo.clear()
                done = memo[value] = scrub_content(value)
            clean[key] = done
    return _encoded(clean)


#: Values a live log remembers scrubbed (bounded: cleared when full).
MEMO_VALUES = 1024


class LiveLog:
    """Appends just-stored judge calls to the live JSONL (for ``tail -f``); one open handle."""

    def __init__(self, out: Path) -> None:
        self.handle = (out / LOGS_JSONL).open("a", encoding="utf-8")
        self.memo: dict[str, str] = {}

    def append(self, logs: Scrubbed) -> None:
        self.handle.write("".join(live_json(r, self.memo) + "\n" for r in logs.rows))
        self.handle.flush()

    def close(self, sync: bool = False) -> None:
        """Close; with ``sync``, on disk first (the file is then the run's final one)."""
        if sync:
            self.handle.flush()
            os.fsync(self.handle.fileno())
        self.handle.close()


def export_all(
    store: AuditStore,
    run_id: str,
    out: Path,
    final: bool = False,
    logs: bool | None = None,
    live_complete: bool = False,
    pairs_csv: bool | None = None,
) -> dict[str, Any]:
    """Rewrite the derived files for ``run_id``; return a small summary of the run.

    ``logs``, ``pairs_csv``: write ``judge_logs.jsonl``, ``audit_pairs.csv`` (default: unless
    :func:`on_request`, or one that ``export files`` wrote for this same run is there: kept
    current). A file not written is removed if an older one is there: the derived files always
    describe one run.
    ``live_complete``: the live log of an uninterrupted run holds every row; it is kept."""
    manifest = store.manifest(run_id)
    by_default = not on_request(manifest)
    asked = not by_default and _shows(out, run_id)
    if logs is None:
        logs = by_default or (asked and (out / LOGS_JSONL).is_file())
    if pairs_csv is None:
        pairs_csv = by_default or (asked and (out / PAIRS_CSV).is_file())
    finishing = None
    if final:  # fed the rows the CSV is written from
        from judgeaudit.audit.store.parquet_out import PARQUET

        finishing = FinalExports(store, run_id, out / PARQUET)
    try:
        pairs, decisive, misselected = _write_files(
            store, run_id, out, logs, live_complete, finishing, pairs_csv
        )
    except BaseException:
        if finishing is not None:
            finishing.abandon()
        raise
    parquet: bool | None = None  # None: not a final export; False: DuckDB is not installed
    if finishing is not None:
        parquet = finishing.finish()
        manifest = store.manifest(run_id)  # a streamed run's task count is filled in there
    run = store.run(run_id)
    manifest["status"] = run["status"] if run else "unknown"
    manifest["usage"] = store.usage(run_id)
    atomic_write_text(out / MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=2) + "\n")
    return {
        "pairs": pairs,
        "decisive": decisive,
        "misselected": misselected,
        "usage": manifest["usage"],
        "parquet": parquet,
        "judge_logs": logs,
        "pairs_csv": pairs_csv,
    }


def _shows(out: Path, run_id: str) -> bool:
    """Whether OUT's derived files were last written for ``run_id`` (its manifest.json says
    so): a CSV or JSONL there is then one the user asked for, for this run."""
    try:
        shown = json.loads((out / MANIFEST).read_text(encoding="utf-8")).get("run_id")
    except (OSError, ValueError, AttributeError):
        return False
    return bool(shown == run_id)


def _write_files(
    store: AuditStore,
    run_id: str,
    out: Path,
    logs: bool,
    live_complete: bool,
    finishing: FinalExports | None = None,
    pairs_csv: bool = True,
) -> tuple[int, int, int]:
    """(``pairs_csv``) the CSV and (``logs``) the JSONL; the run's pairs, decisive pairs and
    misselections, counted over the rows the CSV is written from. ``finishing`` is fed each
    batch of those rows (with their rowid last), whether or not the CSV is written."""
    if not pairs_csv:
        (out / PAIRS_CSV).unlink(missing_ok=True)
        counts = (
            _pair_pass(store, run_id, finishing, None) if finishing else pair_counts(store, run_id)
        )
    else:
        with atomic_writer(out / PAIRS_CSV) as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(PAIR_COLUMNS)
            counts = _pair_pass(
                store, run_id, finishing, lambda rows: writer.writerows(map(csvsafe.row, rows))
            )
    if not logs:
        (out / LOGS_JSONL).unlink(missing_ok=True)
    elif not (live_complete and (out / LOGS_JSONL).exists()):
        with atomic_writer(out / LOGS_JSONL) as handle:
            for log in store.iter_logs(run_id):
                handle.write(log_json(log) + "\n")
    return counts


def _pair_pass(
    store: AuditStore,
    run_id: str,
    finishing: FinalExports | None,
    write_rows: Callable[[Iterable[Sequence[Any]]], object] | None,
) -> tuple[int, int, int]:
    """One read of the run's pairs: each batch to ``finishing`` and to the CSV's
    ``write_rows`` (either may be None); the pairs, decisive pairs and misselections counted."""
    pairs = decisive = misselected = 0
    for rows in pair_batches(store, run_id, PAIR_COLUMNS, with_rowid=finishing is not None):
        if finishing is not None:
            finishing.add(rows)
        if write_rows is not None:
            write_rows(rows if finishing is None else (row[:-1] for row in rows))
        pairs += len(rows)
        for row in rows:
            decisive += is_decisive(bool(row[_SUCCESS_A]), bool(row[_SUCCESS_B]))
            misselected += row[_MISSELECTED] or 0
    return pairs, decisive, misselected
