"""Preference data for reward models and DPO from one finished audit run, with its data card.

``judgeaudit export preferences OUT --format trl|openai|jsonl --labels state|judge|agree``.
Labels come from the verifiable state (or a human label where one exists), from the judge, or
only where both agree; every row says which, and whether the judge agreed. The pairs stream from
SQLite in one ordered scan (trajectories and human labels joined by primary key), each row is
written as it comes, and only counters are kept, so a run of millions of pairs exports in
bounded memory. The file and its card are written atomically: on any error, nothing is left.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, get_args

from judgeaudit.analysis.aggregate import bin_arms, gap_sql
from judgeaudit.analysis.frame import (
    AnalysisError,
    open_db,
    resolve_run,
    stored_json,
    stored_manifest,
)
from judgeaudit.analysis.label_conversations import split_pairs
from judgeaudit.analysis.outputs import check_output
from judgeaudit.analysis.pref_card import CardMeta, Tally, card_paths, render_card, style_summary
from judgeaudit.analysis.pref_rows import RowWriter
from judgeaudit.analysis.report import ReportOptions, resolve_buckets
from judgeaudit.analysis.unfinished import run_status
from judgeaudit.analysis.why import style_section
from judgeaudit.audit.spec.records import recorded_verdicts
from judgeaudit.audit.store.schema import is_decisive
from judgeaudit.credentials import scrub_content
from judgeaudit.fsutil import atomic_writer
from judgeaudit.validate import unless_forced

Format = Literal["trl", "openai", "jsonl"]
Labels = Literal["state", "judge", "agree"]
FORMATS: tuple[str, ...] = get_args(Format)
LABELS: tuple[str, ...] = get_args(Labels)


class PreferenceError(AnalysisError):
    """An export that cannot be made; nothing was written (exit 2)."""


@dataclass(frozen=True)
class ExportOptions:
    out: Path  # the audit's output directory
    fmt: str
    labels: str
    dest: Path
    force: bool = False
    run_id: str | None = None
    #: the gap source and bins to bucket by (the app: what Results shows); None: the run's own
    buckets: ReportOptions | None = None


@dataclass(frozen=True)
class ExportResult:
    dest: Path
    card_md: Path
    card_json: Path
    rows: int
    card: dict[str, Any]


def check_options(options: ExportOptions) -> None:
    """Format, label mode and destination, before the database is opened."""
    if options.fmt not in FORMATS:
        raise PreferenceError(f"--format {options.fmt!r}: use {', '.join(FORMATS)}")
    if options.labels not in LABELS:
        raise PreferenceError(f"--labels {options.labels!r}: use {', '.join(LABELS)}")
    dest = options.dest
    md, js = card_paths(dest)
    if dest in (md, js):
        raise PreferenceError(f"--out {dest}: that name is the data card's; name the file .jsonl")
    if dest.is_dir():
        raise PreferenceError(
            f"--out {dest}: is a directory; give a file path such as {dest}/prefs.jsonl"
        )
    for path in (dest, md, js):  # never a file it reads or a run's own, --force or not
        check_output(path, "--out", [options.out])
    for path in (dest, md, js):
        if path.exists() or path.is_symlink():
            unless_forced(options.force, f"--out: {path} exists", PreferenceError)
    parent = _existing_parent(dest)
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise PreferenceError(
            f"--out {dest}: {parent} is not a writable directory; choose another path"
        )


def _existing_parent(path: Path) -> Path:
    parent = path.absolute().parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    return parent


def export_preferences(options: ExportOptions) -> ExportResult:
    """Write the export and its card; missing parent folders of ``--out`` are made, as every
    command's named output makes them (the atomic writer), and removed again on a refusal."""
    check_options(options)
    missing = [p for p in options.dest.absolute().parents if not p.exists()]  # deepest first
    db = open_db(options.out)
    try:
        return _export(db, options)
    except BaseException:
        for folder in missing:  # a refusal leaves nothing, empty folders included
            try:
                folder.rmdir()
            except OSError:
                break
        raise
    finally:
        db.close()


def _export(db: sqlite3.Connection, options: ExportOptions) -> ExportResult:
    run_id = resolve_run(db, options.run_id)
    status, manifest_text = db.execute(
        "SELECT status, manifest FROM runs WHERE run_id = ?", (run_id,)
    ).fetchone()
    if status != "finished":
        raise PreferenceError(
            f"run {run_id} is {run_status(options.out, status)}, not finished: its pairs are incomplete; rerun the same "
            "`judgeaudit run` to finish it, then export"
        )
    manifest = stored_manifest(manifest_text, run_id)
    source, bins, names = resolve_buckets(db, run_id, manifest, options.buckets or ReportOptions())
    decisive = db.execute(
        f"SELECT COUNT(*) FROM audit_pairs WHERE run_id = ? AND {is_decisive()}", (run_id,)
    ).fetchone()[0]
    if not decisive:
        raise PreferenceError(
            f"run {run_id} has no decisive pair (exactly one side succeeded): no label can be "
            "checked against state; audit agents that differ, or more tasks"
        )
    recorded = None
    if recorded_verdicts(manifest):
        recorded = [
            r[0]
            for r in db.execute(
                "SELECT DISTINCT prompt_hash FROM judge_logs WHERE run_id = ?"
                " AND prompt_hash IS NOT NULL LIMIT 10",
                (run_id,),
            )
        ]
    meta = CardMeta.from_manifest(options, run_id, manifest, source, bins, names, recorded)
    meta = replace(meta, style=style_summary(style_section(db, run_id), options.out, run_id))
    tally = Tally(names)
    split = frozenset(split_pairs(db, run_id))
    writer = RowWriter(options, manifest, names, split)
    md, js = card_paths(options.dest)
    written: list[Path] = []
    try:
        with atomic_writer(options.dest) as handle:
            for row in _pairs(db, run_id, source, bins, with_logs=options.fmt == "jsonl"):
                line = writer.line(row, tally)
                if line is not None:
                    handle.write(scrub_content(line))  # see docs/security.md
            if not tally.rows:
                works = _what_works(db, options, (run_id, source, bins), manifest, names)
                raise PreferenceError(_nothing_written(options, tally) + works)
            card = tally.card(meta)
            json_text, md_text = render_card(card)
            # every byte is written and synced before the first rename: a full disk or an
            # interrupt leaves the old files (or none), never a file without its card
            with atomic_writer(js) as card_json, atomic_writer(md) as card_md:
                card_json.write(scrub_content(json_text))
                card_md.write(scrub_content(md_text))
            written += [js, md]
    except OSError as exc:
        _remove(written)
        raise PreferenceError(
            f"--out {options.dest}: cannot write ({exc.strerror or exc}); nothing was written"
        ) from None
    except BaseException:
        _remove(written)
        raise
    return ExportResult(options.dest, md, js, tally.rows, card)


def _remove(paths: list[Path]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


def _nothing_written(options: ExportOptions, tally: Tally) -> str:
    why = ", ".join(f"{n} {reason}" for reason, n in sorted(tally.skipped.items()))
    left = ", ".join(f"{n} {reason}" for reason, n in sorted(tally.left_out.items()))
    return (
        f"no pair could be written as {options.fmt} with --labels {options.labels} "
        f"(skipped: {why or 'none'}; left out by the label mode: {left or 'none'})"
    )


#: Whether a run stored any conversation (a recorded log may carry verdicts alone).
_HAS_TEXT = "SELECT 1 FROM trajectories WHERE run_id = ? AND events != '[]' LIMIT 1"


def _what_works(
    db: sqlite3.Connection,
    options: ExportOptions,
    run: tuple[str, str, list[float]],
    manifest: dict[str, Any],
    names: list[str],
) -> str:
    """The next step of a refusal: the first other format (then label mode) that writes a row
    of this run, found by trying it (a fixed hint sent a recorded run without transcripts from
    openai to trl, which failed too), or that none does. A run with no conversation text (a
    recorded log without trajectories) is told so: the jsonl rows it would suggest carry no
    prompt or response a trainer could use."""
    if not db.execute(_HAS_TEXT, (run[0],)).fetchone():
        return (
            "; the run stored no conversation text (its log had no trajectory_a/trajectory_b), "
            "so no format gives a trainer a prompt and responses: import the log with its "
            "trajectories (docs/rollouts.md) and run it again"
        )
    others = [(f, options.labels) for f in FORMATS if f != options.fmt]
    others += [(options.fmt, lab) for lab in LABELS if lab != options.labels]
    others += [(f, lab) for f in FORMATS for lab in LABELS if (f, lab) not in others]
    split = frozenset(split_pairs(db, run[0]))
    for fmt, labels in others:
        if (fmt, labels) == (options.fmt, options.labels):
            continue
        writer, tally = (
            RowWriter(replace(options, fmt=fmt, labels=labels), manifest, names, split),
            Tally(names),
        )
        rows = sum(writer.line(row, tally) is not None for row in _pairs(db, *run, False))
        if rows:
            flags = f"--format {fmt}" * (fmt != options.fmt)
            flags += " " * (fmt != options.fmt and labels != options.labels)
            flags += f"--labels {labels}" * (labels != options.labels)
            return f"; try {flags}, which writes {rows} row{'' if rows == 1 else 's'} of this run"
    return "; no other --format or --labels writes a row of this run either"


def _pairs(
    db: sqlite3.Connection, run_id: str, source: str, bins: list[float], with_logs: bool
) -> Iterator[dict[str, Any]]:
    """Every pair of the run in pair_id order, with both trajectories, its human label, its
    bucket index (-1 no gap, -2 outside the bins; the report's own bucketing) and, for the
    complete form, its judge calls (a merge join on pair_id: judge_logs has no pair index)."""
    gap = gap_sql(source)
    arms, edges = bin_arms(gap, bins)
    traj = "p.run_id || '/' || p.task_id || '/t' || {trial} || '/' || {agent}"
    # `+p.run_id`: walk the pair_id index in order instead of sorting every joined row.
    query = (
        f"SELECT p.*, {gap} AS g, CASE WHEN {gap} IS NULL THEN -1 {' '.join(arms)} ELSE -2"
        " END AS bucket, ta.events AS events_a, ta.context AS context_a, ta.ending AS ending_a,"
        " tb.events AS events_b, tb.context AS context_b, tb.ending AS ending_b,"
        " h.human_success_a AS human_a, h.human_success_b AS human_b, h.human_pref"
        " FROM audit_pairs p LEFT JOIN trajectories ta ON ta.traj_id = "
        + traj.format(trial="p.trial", agent="p.agent_a")
        + " LEFT JOIN trajectories tb ON tb.traj_id = "
        + traj.format(trial="COALESCE(p.trial_b, p.trial)", agent="p.agent_b")
        + " LEFT JOIN human_labels h ON h.pair_id = p.pair_id"
        " WHERE +p.run_id = ? ORDER BY p.pair_id"
    )
    rows = db.execute(query, (*edges, run_id))
    rows.row_factory = sqlite3.Row
    logs = _logs_by_pair(db, run_id) if with_logs else iter(())
    pending = next(logs, None)
    for row in rows:
        item = dict(row)
        if with_logs:
            while pending is not None and pending[0] < item["pair_id"]:
                pending = next(logs, None)
            found = pending is not None and pending[0] == item["pair_id"]
            item["judge_calls"] = pending[1] if found and pending else []
        yield item


def _logs_by_pair(
    db: sqlite3.Connection, run_id: str
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    rows = db.execute(
        'SELECT pair_id, "order", attempt, model, prompt_hash, raw_output, parsed_json,'
        ' parse_error FROM judge_logs WHERE run_id = ? ORDER BY pair_id, "order", attempt',
        (run_id,),
    )
    current: str | None = None
    calls: list[dict[str, Any]] = []
    for pair_id, order, attempt, model, prompt_hash, raw, parsed, error in rows:
        if pair_id != current:
            if current is not None:
                yield current, calls
            current, calls = pair_id, []
        calls.append(
            {
                "order": order,
                "attempt": attempt,
                "model": model,
                "prompt_hash": prompt_hash,
                "parsed_as_shown": stored_json(parsed, "a judge log's parsed_json")
                if parsed
                else None,
                "raw_output": raw,
                "parse_error": error,
            }
        )
    if current is not None:
        yield current, calls
