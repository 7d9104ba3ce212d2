"""The read side of `audit.db` for the terminal app: every query a screen needs, in one place.

Screens never hold SQL: they call these functions from workers and render what comes back
(plain dicts and frames, no Textual). Connections are read-only, so a screen can read while a run
writes (WAL mode), and a query on a large audit filters and limits in SQLite, not in Python.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from judgeaudit.analysis.frame import AnalysisError, load_pairs, open_db, resolve_run, stored_labels
from judgeaudit.analysis.pair_detail import pair_detail as show_pair
from judgeaudit.analysis.review import (
    check_replace,
    for_reviewer,
    sample,
    shuffled,
    write_sample,
)
from judgeaudit.audit.store.schema import pair_select
from judgeaudit.audit.units import gap as gaps

PAIR_LIST_COLUMNS = (
    "pair_id, task_id, trial, trial_b, task_type, agent_a, agent_b, success_a, success_b,"
    " judge_pref, misselected"
)
PAIRS_SHOWN = 2000


@dataclass(frozen=True)
class Side:
    """One agent's conversation in a pair, with the success check's verdict."""

    agent: str
    found: bool
    events: list[dict[str, Any]] = field(default_factory=list)
    success: bool = False
    success_source: str = ""
    ending: str = ""
    satisfied: bool | None = False  # None: not recorded (an imported or recorded side)
    detail: dict[str, Any] = field(default_factory=dict)
    llm_success: bool | None = None


@dataclass(frozen=True)
class PairDetail:
    pair: dict[str, Any]
    sides: tuple[Side, Side]
    judge_logs: list[dict[str, Any]]


@dataclass(frozen=True)
class PairList:
    rows: list[dict[str, Any]]
    total: int  # pairs matching, of which at most PAIRS_SHOWN are in rows


@dataclass(frozen=True)
class ReviewData:
    run_id: str
    pairs: pd.DataFrame
    items: list[dict[str, Any]]
    labels: pd.DataFrame


def _gap(source: str) -> str:
    """The report's gap expression (one definition: :mod:`judgeaudit.audit.units.gap`)."""
    try:
        return gaps.gap_sql(source)
    except gaps.GapSourceError as exc:
        raise AnalysisError(str(exc)) from None


def _side(agent: str, row: dict[str, Any] | None) -> Side:
    if row is None:  # an imported pair keeps no trajectory rows of this shape
        return Side(agent, False)
    return Side(
        agent,
        True,
        list(row["events"]),
        bool(row["success"]),
        str(row["success_source"]),
        str(row["ending"] or ""),
        None if row["satisfied"] is None else bool(row["satisfied"]),
        dict(row["success_detail"]),
        None if row["llm_success"] is None else bool(row["llm_success"]),
    )


def pair_detail(out: Path, pair_id: str) -> PairDetail:
    """A pair, both conversations, and each judge call's rendered prompt and raw output, in both
    orders: the same read as `judgeaudit show OUT PAIR_ID` (analysis.pair_detail)."""
    found = show_pair(out, pair_id)
    pair = found["pair"]
    sides = (_side(pair["agent_a"], found["sides"][0]), _side(pair["agent_b"], found["sides"][1]))
    return PairDetail(pair, sides, found["judge_calls"])


def pairs_in_range(
    out: Path,
    run_id: str,
    source: str,
    lo: float,
    hi: float,
    *,
    only_misselected: bool = False,
) -> PairList:
    """Pairs whose gap lies in (lo, hi], misselected first, at most PAIRS_SHOWN of them."""
    where = gaps.in_bucket_sql(_gap(source))
    return _pair_list(out, where, (run_id, lo, hi), only_misselected)


def pairs_outside(
    out: Path, run_id: str, source: str, bins: list[float], *, only_misselected: bool = False
) -> PairList:
    """Pairs no bin holds: gap at or below the first edge, above the last, or unknown."""
    where = gaps.outside_sql(_gap(source))
    return _pair_list(out, where, (run_id, bins[0], bins[-1]), only_misselected)


def pairs_of_agents(
    out: Path, run_id: str, agent_a: str, agent_b: str, *, only_misselected: bool = False
) -> PairList:
    """The pairs of one agent pair (A and B as the report's agent-pair row names them)."""
    return _pair_list(
        out, "agent_a = ? AND agent_b = ?", (run_id, agent_a, agent_b), only_misselected
    )


def _pair_list(out: Path, where: str, params: tuple[Any, ...], only_misselected: bool) -> PairList:
    condition = f"run_id = ? AND {where}" + (" AND misselected = 1" if only_misselected else "")
    db = open_db(out)
    try:
        total = db.execute(f"SELECT count(*) FROM audit_pairs WHERE {condition}", params).fetchone()
        rows = db.execute(
            f"SELECT {PAIR_LIST_COLUMNS}, {pair_select(db, ['source_id'])} FROM audit_pairs"
            f" WHERE {condition} "
            "ORDER BY misselected DESC, pair_id LIMIT ?",
            (*params, PAIRS_SHOWN),
        ).fetchall()
    finally:
        db.close()
    return PairList([dict(r) for r in rows], int(total[0]))


def human_labels(out: Path) -> pd.DataFrame:
    db = open_db(out)
    try:
        return stored_labels(db)
    finally:
        db.close()


def review_data(out: Path, n: int, seed: int = 0, run_id: str | None = None) -> ReviewData:
    """Run ``run_id``'s pairs (None: the latest run's), its stratified review sample and the
    labels stored so far."""
    db = open_db(out)
    try:
        run_id = resolve_run(db, run_id)
        pairs = load_pairs(db, run_id)
        labels = stored_labels(db)
    finally:
        db.close()
    items = shuffled(sample(pairs, n, seed), seed).to_dict("records") if len(pairs) else []
    return ReviewData(run_id, pairs, [{str(k): v for k, v in i.items()} for i in items], labels)


def conversations(out: Path, pair_id: str) -> tuple[Side, Side]:
    """Both sides of a pair (the Review screen shows them one pair at a time)."""
    return pair_detail(out, pair_id).sides


@dataclass(frozen=True)
class ReviewExport:
    """What `export_review` wrote: how many pairs, of which run (the app's notice names it)."""

    count: int
    run_id: str


def export_review(
    out: Path, n: int, seed: int, path: Path, run_id: str | None = None
) -> ReviewExport:
    """The same stratified sample `judgeaudit review export --run RUN` writes (blind, the stored
    labels shown) of run ``run_id`` (None: the latest; the app passes the run Review labels),
    refused like it where a reviewer has filled in ``path`` (the app has no --force); returns
    its size and the run it sampled."""
    check_replace(path, out, force=False)
    db = open_db(out)
    try:
        sampled = resolve_run(db, run_id)
        pairs = load_pairs(db, sampled)
        stored = stored_labels(db)
    finally:
        db.close()
    frame = for_reviewer(sample(pairs, n, seed, stored=stored), blind=True, seed=seed)
    write_sample(frame, path)
    return ReviewExport(len(frame), sampled)


def db_version(out: Path) -> tuple[int, int, int] | None:
    """Changes whenever a run writes: the database's mtime and size and the WAL's size (a reader
    creates an empty WAL and touches it, so the WAL's mtime would change on every read)."""
    try:
        db = (out / "audit.db").stat()
    except OSError:
        return None
    try:
        wal = (out / "audit.db-wal").stat().st_size
    except OSError:
        wal = 0
    return db.st_mtime_ns, db.st_size, wal
