"""The fast way through a clean ``recorded-jsonl`` file: the same rows into the same join
tables as the exact streaming path of :mod:`judgeaudit.rollouts.recorded`, checked in bulk.

Per line it only parses and checks what a clean line holds (a verdict inline, a pair by the
audit's own :func:`~judgeaudit.audit.inputs.imported.parse_pair`); the rows go in by
``executemany``, and the checks across lines (a pair or verdict given twice, one trajectory per
(task, agent, trial), one task per task id) run once, in SQL, over every row loaded
(:class:`~judgeaudit.audit.inputs.pair_checks.ImportedSet` deferred). It never names a line: on
anything unusual (a line it does not accept, an id given twice, a clash) it raises
:class:`Unusual`, and the import starts again on the exact streaming path, which refuses the
first bad line of the file with ``file:line: field`` as before, or accepts what was only
unusual (the same verdict line twice). A clean file gives the same join tables either way.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgeaudit import safeio
from judgeaudit.audit.inputs.imported import parse_pair
from judgeaudit.audit.inputs.pair_checks import ImportedSet
from judgeaudit.audit.inputs.verdict_rules import clean_verdict, contradiction, scores_seen
from judgeaudit.audit.tasks.errors import TaskError
from judgeaudit.rollouts.formats import dumps
from judgeaudit.rollouts.messages import RolloutError
from judgeaudit.rollouts.pairing import ImportSummary
from judgeaudit.rollouts.recorded_text import pair_canonical, verdict_texts
from judgeaudit.validate import loads_json

BATCH = 20_000  # rows per executemany
BLOCK = 1 << 20  # bytes read at once
WHAT = "recorded line"

#: The join tables both import paths fill: each row's text as written, where it was read, and
#: the canonical texts of :mod:`judgeaudit.rollouts.recorded_text` (so the write hashes what it
#: writes without decoding it; a pair's ``canon`` is NULL when that cannot be done); a verdict's
#: ``unjudged`` (1: ``"winner": null``), ``contra`` (how its winner contradicts its scores,
#: :func:`~judgeaudit.audit.inputs.verdict_rules.contradiction`), ``scored`` (how many scores it
#: gives) and ``top`` (the higher) for the import's summary.
SCRATCH_TABLES = (
    "CREATE TABLE pairs (seq INTEGER PRIMARY KEY, pair_id TEXT UNIQUE, row TEXT, at TEXT,"
    " canon TEXT, period TEXT)",
    "CREATE TABLE verdicts (pair_id TEXT, ord TEXT, body TEXT, model TEXT, hash TEXT, at TEXT,"
    " canon TEXT, unjudged INTEGER, contra TEXT, scored INTEGER, top REAL,"
    " PRIMARY KEY (pair_id, ord))",
)
#: A verdict's row in ``verdicts`` (:func:`verdict_row`), as both paths insert it.
VERDICT_ROW = "verdicts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"


class Unusual(Exception):
    """The fast path declines the file; the exact path reads it again and decides."""


def load_bulk(
    db: sqlite3.Connection,
    files: list[Path],
    summary: ImportSummary,
    period: str | None,
    verdict_fields: frozenset[str],
) -> None:
    """Fill the join tables ``pairs`` and ``verdicts`` from ``files`` (both empty) and count
    into ``summary`` what the exact path counts; raises :class:`Unusual` (nothing to report
    from here) when the file needs the exact path."""
    checks = ImportedSet(db, hashed=False, deferred=True)
    pairs: list[tuple[Any, ...]] = []
    verdicts: list[tuple[Any, ...]] = []
    read = 0
    db.execute("BEGIN")
    try:
        for path in files:
            for where, row in _clean_lines(path):
                kind = row.get("type") or ("verdict" if "order" in row else "pair")
                if kind == "verdict":
                    verdicts.append(_verdict(row, where, verdict_fields))
                    if len(verdicts) >= BATCH:
                        _insert_verdicts(db, verdicts)
                    continue
                if kind != "pair":
                    raise Unusual(where)
                if period is not None:
                    row.setdefault("period", period)
                row.pop("type", None)
                pair_id = row.get("pair_id")
                if (
                    type(pair_id) is not str
                    or not pair_id.strip()
                    or "verdicts" in row
                    or ("task_id" in row and type(row["task_id"]) is not str)  # the exact says
                ):
                    raise Unusual(where)
                fill_pair_defaults(row)
                try:
                    parsed = parse_pair(row, where)
                except TaskError:
                    raise Unusual(where) from None
                checks.add(parsed, row)
                pairs.append((pair_id, dumps(row), where, pair_canonical(row), row.get("period")))
                if len(pairs) >= BATCH:
                    _insert_pairs(db, pairs)
                read += 1
                summary.count_pair_agents(parsed.agent_a, parsed.agent_b)
        _insert_pairs(db, pairs)
        _insert_verdicts(db, verdicts)
        if checks.clash():
            raise Unusual("a clash across lines")
        db.execute("COMMIT")
    except sqlite3.IntegrityError:  # a pair_id, or a (pair_id, order), given twice
        raise Unusual("an id given twice") from None
    summary.read += read


def fill_pair_defaults(row: dict[str, Any]) -> None:
    """What a recorded pair line may leave out (a production log holds no conversation): a task
    text named after its id, and empty trajectories; both import paths fill it the same."""
    row.setdefault("task", f"task {row.get('task_id')}")
    row.setdefault("trajectory_a", [])
    row.setdefault("trajectory_b", [])


def _insert_pairs(db: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
    db.executemany(
        "INSERT INTO pairs (pair_id, row, at, canon, period) VALUES (?, ?, ?, ?, ?)", rows
    )
    rows.clear()


def _insert_verdicts(db: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
    db.executemany(f"INSERT INTO {VERDICT_ROW}", rows)
    rows.clear()


def _verdict(row: dict[str, Any], where: str, fields: frozenset[str]) -> tuple[Any, ...]:
    """The join row of a clean verdict line: what the exact path stores for it, by the same
    predicate (:func:`~judgeaudit.audit.inputs.verdict_rules.clean_verdict`); anything else is
    :class:`Unusual`."""
    get = row.get
    pair_id, model, prompt_hash = get("pair_id"), get("judge_model"), get("prompt_hash")
    body = clean_verdict(row)
    if (
        body is None
        or not row.keys() <= fields
        or type(pair_id) is not str
        or not pair_id.strip()
        or not (model is None or type(model) is str)
        or not (prompt_hash is None or type(prompt_hash) is str)
    ):
        raise Unusual(where)
    return verdict_row(body, pair_id, model, prompt_hash, where)


def verdict_row(
    body: dict[str, Any], pair_id: str, model: str | None, prompt_hash: str | None, where: str
) -> tuple[Any, ...]:
    """A checked verdict's row in ``verdicts`` (:data:`VERDICT_ROW`), for both paths."""
    text, canon = verdict_texts(body)
    unjudged = int(body["winner"] is None)
    return (pair_id, body["order"], text, model, prompt_hash, where, canon, unjudged,
            contradiction(body), *scores_seen(body))  # fmt: skip


def _clean_lines(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(``file:line``, object) of each non-blank line, as
    :func:`~judgeaudit.validate.iter_jsonl` reads a file it accepts (the same strict JSON), but a
    block at a time: :class:`Unusual` at anything it might refuse (a byte that is not UTF-8, a
    line near the length cap, a line that is not one JSON object, a file of none)."""
    cap = safeio.cap(safeio.LINE_CAP)
    if cap < 2 * BLOCK:  # a cap set this low: the exact path holds each line to it
        raise Unusual(path)
    prefix = f"{path}:"
    number = 0
    found = False
    carry = b""
    with safeio.open_regular(path, WHAT, RolloutError) as handle:
        while block := handle.read(BLOCK):
            block = carry + block
            end = block.rfind(b"\n") + 1
            carry = block[end:]
            if len(carry) > cap - BLOCK:  # the line it begins could pass the cap
                raise Unusual(path)
            for line in _decoded(block[:end], number).split("\n")[:-1]:
                number += 1
                if line.strip():
                    found = True
                    where = f"{prefix}{number}"
                    yield where, _object(line, where)
        if carry:  # a last line without a newline
            line = _decoded(carry, number)
            number += 1
            if line.strip():
                found = True
                where = f"{prefix}{number}"
                yield where, _object(line, where)
    if not found:
        raise Unusual(path)


def _decoded(data: bytes, lines_before: int) -> str:
    """The text of whole lines; the byte-order mark a file may start with left out."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Unusual("not UTF-8") from None
    return text if lines_before else text.removeprefix("\ufeff")


def _object(line: str, where: str) -> dict[str, Any]:
    try:
        row = loads_json(line, where, WHAT, RolloutError)
    except RolloutError:
        raise Unusual(where) from None
    if type(row) is not dict:
        raise Unusual(where)
    return row
