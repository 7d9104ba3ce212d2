"""``recorded-jsonl``: production reward logs, one verdict per line, joined to pairs by id.

Lines are either a pair (``pair_id``, ``task_id``, ``agent_a``/``agent_b``, ``success_a``/``_b``
verified later, optional task text and trajectories) or a verdict (``pair_id``, ``order``,
``winner`` in the pair's A/B terms, optional scores, raw output, judge model and prompt hash), in
any order over any number of files. The join runs through a scratch SQLite file next to the
output, so memory stays constant however many millions of lines there are.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from judgeaudit.agentnames import quoted_task_id
from judgeaudit.audit.inputs.checked import Checked, write_checked
from judgeaudit.audit.inputs.imported import parse_pair
from judgeaudit.audit.inputs.pair_checks import ContentHash, ImportedSet
from judgeaudit.audit.inputs.verdict_rules import PARSE_ERROR, VERDICT_KEYS, line_verdict
from judgeaudit.audit.tasks.errors import TaskError
from judgeaudit.audit.units.period import OnePeriod, parse_period
from judgeaudit.credentials import scrub_content
from judgeaudit.fsutil import atomic_writer
from judgeaudit.rollouts.formats import dumps
from judgeaudit.rollouts.messages import RolloutError
from judgeaudit.rollouts.pairing import ImportSummary
from judgeaudit.rollouts.recorded_bulk import (
    SCRATCH_TABLES,
    VERDICT_ROW,
    Unusual,
    fill_pair_defaults,
    load_bulk,
    verdict_row,
)
from judgeaudit.rollouts.recorded_text import joined_canonical, joined_line, pair_canonical
from judgeaudit.validate import iter_jsonl, json_type, shown_name, unknown_field

VERDICT_FIELDS = (
    "type", "pair_id", "order", "winner", "score_a", "score_b", "raw_output", "reasons",
    "parse_error", "judge_model", "prompt_hash",
)  # fmt: skip
BATCH = 20_000


def import_recorded(
    files: list[Path], out: Path, period: str | None = None, *, exact: bool = False
) -> ImportSummary:
    """``period`` (``--period``) stamps every pair line that names none. Beside ``out``, the
    record of what was checked (:mod:`judgeaudit.audit.inputs.checked`), so the run does not
    validate the same pairs again. The file is read by the bulk path first
    (:mod:`judgeaudit.rollouts.recorded_bulk`), and again by the exact one only when it finds
    something unusual; ``exact`` takes the exact one alone (the two are compared in tests)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        if exact:
            raise Unusual("asked for the exact path")
        summary, db, scratch = _joined_fast(files, out, period)
    except (Unusual, RolloutError):
        # The exact path reads the file again: it refuses the first bad line by name, or
        # accepts what was only unusual (the same line twice).
        summary = ImportSummary(unit="pairs")
        db, scratch = _scratch(out)
        try:
            _load(db, files, summary, period)
        except BaseException:
            _drop(db, scratch)
            raise
    try:
        _verdict_notes(db, summary)
        summary.tasks = int(
            db.execute(
                "SELECT COUNT(DISTINCT json_extract(row, '$.task_id')) FROM pairs"
            ).fetchone()[0]
        )
        _write(db, out, summary, files)
    finally:
        _drop(db, scratch)
    return summary


def _verdict_notes(db: sqlite3.Connection, summary: ImportSummary) -> None:
    """Each verdict without a pair (skipped), and of those kept how many have no winner and each
    whose winner contradicts its own scores: at its own line, in the order read (rowid: both
    paths insert in file order), in one scan of the verdicts."""
    unjudged = 0
    for at, kept, blank, how in db.execute(
        "SELECT at, pair_id IN (SELECT pair_id FROM pairs), unjudged, contra FROM verdicts"
        " WHERE unjudged = 1 OR contra IS NOT NULL OR pair_id NOT IN (SELECT pair_id FROM pairs)"
        " ORDER BY rowid"
    ):
        if not kept:
            summary.skips.add(str(at), "verdict whose pair_id has no pair line")
        elif how is not None:
            summary.contradictions.add(str(at), str(how))
        unjudged += bool(kept and blank)
    summary.no_verdicts = unjudged
    scored, top = db.execute(
        "SELECT TOTAL(scored), MAX(top) FROM verdicts WHERE pair_id IN (SELECT pair_id FROM pairs)"
    ).fetchone()
    summary.count_scores(int(scored), top)


def _joined_fast(
    files: list[Path], out: Path, period: str | None
) -> tuple[ImportSummary, sqlite3.Connection, str]:
    """The join tables filled by the bulk path (:mod:`judgeaudit.rollouts.recorded_bulk`)."""
    summary = ImportSummary(unit="pairs")
    db, scratch = _scratch(out)
    try:
        load_bulk(db, files, summary, period, frozenset(VERDICT_FIELDS))
    except BaseException:
        _drop(db, scratch)
        raise
    return summary, db, scratch


def _scratch(out: Path) -> tuple[sqlite3.Connection, str]:
    """An empty join database next to ``out`` (its file name, to remove it with)."""
    fd, scratch = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".join.db")
    os.close(fd)
    db = sqlite3.connect(scratch, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=OFF")
        db.execute("PRAGMA synchronous=OFF")
        db.execute("PRAGMA cache_size = -65536")  # 64 MiB: bounded, whatever the input size
        for table in SCRATCH_TABLES:
            db.execute(table)
    except BaseException:
        _drop(db, scratch)
        raise
    return db, scratch


def _drop(db: sqlite3.Connection, scratch: str) -> None:
    db.close()
    with contextlib.suppress(FileNotFoundError):
        os.unlink(scratch)


def _load(
    db: sqlite3.Connection, files: list[Path], summary: ImportSummary, period: str | None
) -> None:
    checks = ImportedSet(db, hashed=False)  # cross-row checks now, in the scratch database
    pending = 0
    db.execute("BEGIN")
    for path in files:
        for where, _line, row in iter_jsonl(path, "recorded line", RolloutError):
            kind = row.get("type") or ("verdict" if "order" in row else "pair")
            if kind == "pair" and period is not None:
                row.setdefault("period", period)
            if kind == "verdict":
                _verdict(db, row, where, summary)
            elif kind == "pair":
                _pair(db, row, where, summary, checks)
            else:
                raise RolloutError(f'{where}: type: {kind!r}; use "pair" or "verdict"')
            pending += 1
            if pending >= BATCH:
                db.execute("COMMIT")
                db.execute("BEGIN")
                pending = 0
    db.execute("COMMIT")


def _pair(
    db: sqlite3.Connection,
    raw: dict[str, Any],
    where: str,
    summary: ImportSummary,
    checks: ImportedSet,
) -> None:
    row = {k: v for k, v in raw.items() if k != "type"}
    _pair_id(row, where, "verdict lines are joined to pairs by it")
    if "task_id" in row:  # 7 and "7": one task or two?
        quoted_task_id(row["task_id"], f"{where}: task_id", RolloutError)
    if "verdicts" in row:
        raise RolloutError(f"{where}: verdicts: give verdicts on their own lines (type verdict)")
    fill_pair_defaults(row)
    try:
        parsed = parse_pair(row, where)  # the audit's own checks, named by this file and line
    except TaskError as exc:
        raise RolloutError(str(exc)) from None
    text = dumps(row)
    # Inserted unless the pair_id is taken (one statement for the common case, a new pair).
    inserted = db.execute(
        "INSERT OR IGNORE INTO pairs (pair_id, row, at, canon, period) VALUES (?, ?, ?, ?, ?)",
        (row["pair_id"], text, where, pair_canonical(row), row.get("period")),
    ).rowcount
    if not inserted:
        found = db.execute("SELECT row, at FROM pairs WHERE pair_id = ?", (row["pair_id"],))
        first, at = found.fetchone()
        if first != text:
            raise RolloutError(
                f"{where}: pair_id: {row['pair_id']!r} is already on {at} with different "
                "content; give each pair once"
            )
        summary.skips.add(where, f"pair line repeats {at} (same content; kept once)")
        return
    try:
        checks.add(parsed, row)  # across rows: one trajectory per (task, agent, trial)
    except TaskError as exc:
        raise RolloutError(str(exc)) from None
    summary.read += 1
    summary.count_pair_agents(parsed.agent_a, parsed.agent_b)


def _pair_id(row: dict[str, Any], where: str, why: str) -> str:
    if "pair_id" not in row:
        raise RolloutError(f"{where}: pair_id: missing; {why}")
    pair_id = row["pair_id"]
    if not isinstance(pair_id, str):
        raise RolloutError(
            f"{where}: pair_id: must be a string, got {json_type(pair_id)}; write it as a "
            "string (in quotes)"
        )
    if not pair_id.strip():
        raise RolloutError(f"{where}: pair_id: is empty; {why}")
    return pair_id


def _verdict(
    db: sqlite3.Connection, row: dict[str, Any], where: str, summary: ImportSummary
) -> None:
    for key in row:
        if key not in VERDICT_FIELDS:
            raise RolloutError(unknown_field(where, key, VERDICT_FIELDS))
    pair_id = _pair_id(row, where, "a verdict names the pair it judged")
    body = {k: row[k] for k in (*VERDICT_KEYS, PARSE_ERROR) if k in row}
    try:
        verdict = line_verdict(body, where)
    except TaskError as exc:
        raise RolloutError(str(exc)) from None
    for key in ("judge_model", "prompt_hash"):
        if row.get(key) is not None and not isinstance(row[key], str):
            raise RolloutError(f"{where}: {key}: must be a string")
    stored = verdict_row(verdict, pair_id, row.get("judge_model"), row.get("prompt_hash"), where)
    inserted = db.execute(f"INSERT OR IGNORE INTO {VERDICT_ROW}", stored).rowcount
    if not inserted:
        text = stored[2]
        found = db.execute(
            "SELECT body, at FROM verdicts WHERE pair_id = ? AND ord = ?",
            (pair_id, verdict["order"]),
        ).fetchone()
        if found[0] != text:
            raise RolloutError(
                f"{where}: order: pair {pair_id!r} already has a different {verdict['order']} "
                f"verdict on {found[1]}; one verdict per pair and order"
            )
        summary.skips.add(where, f"verdict line repeats {found[1]} (same content; kept once)")


class _Joined(NamedTuple):
    """A pair as stored in the join tables, with its verdict rows (body, canonical body, judge
    model, prompt hash)."""

    at: str
    pair_id: str
    stored: str  # its JSON text
    canon: str | None  # recorded_text.pair_canonical of it
    period: str | None
    verdicts: list[tuple[str, str, str | None, str | None]]


def _two_judges(db: sqlite3.Connection, pair: _Joined, field: str) -> str:
    """The line of a pair's verdict whose judge differs from its first verdict's, both values
    and where the first was read (the pair's line alone named neither)."""
    column = "model" if field == "judge_model" else "hash"
    rows = db.execute(
        f"SELECT at, {column} FROM verdicts WHERE pair_id = ? AND {column} IS NOT NULL ORDER BY rowid",
        (pair.pair_id,),
    ).fetchall()
    (first_at, first), other = rows[0], next(r for r in rows if r[1] != rows[0][1])
    return (
        f"{other[0]}: {field}: {shown_name(other[1])} for pair {shown_name(pair.pair_id)}, whose "
        f"verdict on {first_at} gives {shown_name(first)}; a pair is judged by one judge: give "
        f"its verdicts one {field}"
    )


def _joined(db: sqlite3.Connection) -> Iterator[_Joined]:
    """Each pair with its verdicts, in the order the pairs were read."""
    reader = db.cursor()
    current: _Joined | None = None
    last_seq = None
    for (
        seq,
        pair_id,
        row,
        at,
        canon,
        period,
        body,
        body_canon,
        model,
        prompt_hash,
    ) in reader.execute(
        "SELECT p.seq, p.pair_id, p.row, p.at, p.canon, p.period, v.body, v.canon, v.model, v.hash"
        " FROM pairs p LEFT JOIN verdicts v ON v.pair_id = p.pair_id ORDER BY p.seq, v.ord"
    ):
        if seq != last_seq:
            if current is not None:
                yield current
            current, last_seq = _Joined(at, pair_id, row, canon, period, []), seq
        if body is not None and current is not None:
            current.verdicts.append((body, body_canon, model, prompt_hash))
    if current is not None:
        yield current


def _write(db: sqlite3.Connection, out: Path, summary: ImportSummary, files: list[Path]) -> None:
    judged = db.execute(
        "SELECT COUNT(*) FROM pairs WHERE pair_id IN (SELECT pair_id FROM verdicts)"
    ).fetchone()[0]
    if not judged:  # named by the files read: ``out`` is the file not written
        named = ", ".join(map(str, files[:3])) + (
            f" (and {len(files) - 3} more)" if len(files) > 3 else ""
        )
        raise RolloutError(
            f"{named}: no pair has a recorded verdict (verdict lines: pair_id, order, winner); "
            "nothing written"
        )
    written = 0
    sha, content, periods = hashlib.sha256(), ContentHash(), OnePeriod()
    with atomic_writer(out) as handle:
        for pair in _joined(db):
            verdicts = pair.verdicts
            if not verdicts:
                summary.skips.add(pair.at, f"pair {pair.pair_id!r} has no recorded verdict")
                continue
            models = {m for _, _, m, _ in verdicts if m is not None}
            hashes = {h for _, _, _, h in verdicts if h is not None}
            if len(models) > 1 or len(hashes) > 1:
                raise RolloutError(
                    _two_judges(db, pair, "judge_model" if len(models) > 1 else "prompt_hash")
                )
            model = models.pop() if models else None
            prompt_hash = hashes.pop() if hashes else None
            bodies = [body for body, _, _, _ in verdicts]
            if pair.canon is not None:  # the usual row: its texts joined, nothing decoded
                text = joined_line(pair.stored, bodies, model, prompt_hash)
                line = scrub_content(text)
                if line == text:
                    canons = [canon for _, canon, _, _ in verdicts]
                    content.add_canonical(joined_canonical(pair.canon, canons, model, prompt_hash))
                else:  # what the run's validation hashes is the line as read back
                    content.add(json.loads(line))
                stamped = pair.period
            else:  # a row that holds a key the import adds: decoded and encoded whole
                row = json.loads(pair.stored)
                row["verdicts"] = [json.loads(body) for body in bodies]
                if model is not None:
                    row["judge_model"] = model
                if prompt_hash is not None:
                    row["judge_prompt_hash"] = prompt_hash
                text = dumps(row)
                line = scrub_content(text)
                content.add(row if line == text else json.loads(line))
                stamped = row.get("period")
            line += "\n"
            handle.write(line)
            sha.update(line.encode())
            # Two periods: refused here, at the user's own line (the pairs file is not kept).
            if problem := periods.add(None if stamped is None else parse_period(stamped), pair.at):
                raise RolloutError(problem)
            written += 1
            summary.verdicts += len(verdicts)
    summary.pairs_agents = written
    write_checked(out, Checked(sha.hexdigest(), written, content.hash(), periods.period))
