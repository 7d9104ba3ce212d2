"""The report's figures aggregated in SQL, so a report over millions of pairs stays small.

Every section the pandas metrics compute from the whole ``audit_pairs`` frame is summed here
from two grouped scans inside SQLite; only the grouped rows (per flag combination of an agent
pair and judge model, per bucket and task) reach Python. pandas is kept for the small frames
(human labels). The results are the same dicts :mod:`judgeaudit.analysis.metrics` returns (a
test holds the two equal), and render byte for byte as the report did before it was made fast
(golden files).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from judgeaudit.analysis.engines.dialect import Pairs, SqlitePairs, as_pairs
from judgeaudit.analysis.frame import AnalysisError, pairs_by_id, stored_labels
from judgeaudit.analysis.grouped import (
    GroupSums,
    by_judge,
    by_models,
    by_models_and_type,
    by_task_type,
)
from judgeaudit.analysis.report_types import (
    Sections,
)
from judgeaudit.analysis.sections import (
    BucketCount,
    as_count,
    sum_agent_pairs,
    sum_breakdown,
    sum_buckets,
    sum_position_bias,
    sum_satisfied_but_failed,
)
from judgeaudit.analysis.stats import cluster_bootstrap
from judgeaudit.audit.store import COPY_PAIR_COLUMNS, open_readonly
from judgeaudit.audit.store.schema import DECISIVE_SQL, MISSELECTED_COUNT_SQL
from judgeaudit.audit.units import gap as gaps

DECISIVE = DECISIVE_SQL
MISSEL = MISSELECTED_COUNT_SQL


def gap_sql(source: str, floor: bool = False) -> str:
    """The SQL expression of a gap source (:mod:`judgeaudit.audit.units.gap`), or one line
    naming the sources there are."""
    try:
        return gaps.gap_sql(source, floor=floor)
    except gaps.GapSourceError as exc:
        raise AnalysisError(str(exc)) from None


bin_arms = gaps.bucket_arms


def report_sections(
    db: Pairs | sqlite3.Connection,
    run_id: str,
    source: str,
    bins: list[float],
    labels: list[str],
    threshold: float,
    meta: sqlite3.Connection | None = None,
) -> Sections:
    """Totals, buckets, agent pairs, satisfied-but-failed, position bias and breakdowns.

    Two scans of the run's rows: one grouped by (judge model, agent pair, task type) and the
    stored flags (:mod:`judgeaudit.analysis.grouped`), which the report index hands over in
    order, and one grouped by (bucket, task), the only key that needs a row's gap; every
    section is summed in Python from those grouped rows. ``db`` is the engine holding the
    pairs; ``meta`` the audit.db with the human labels (``db`` itself when it is SQLite).
    """
    if isinstance(db, sqlite3.Connection):
        meta = meta or db
    if meta is None:
        raise ValueError("report_sections: give the audit.db connection as meta")
    db = as_pairs(db)
    grouped_any, by_bucket_task_any = _scans(
        db,
        [
            lambda c: by_models_and_type(c, run_id, threshold),
            lambda c: _by_bucket_and_task(c, run_id, source, bins),
        ],
    )
    grouped = cast(list[GroupSums], grouped_any)
    sums = cast(BucketSums, by_bucket_task_any)
    models = by_models(grouped)
    judges = by_judge(grouped)
    boots = {b: cluster_bootstrap(mis, dec) for b, (dec, mis) in sums.clusters.items()}
    return {
        "pairs": sum(as_count(r.pairs) for r in grouped),
        "decisive": sum(as_count(r.decisive) for r in grouped),
        "misselected": sum(as_count(r.missel) for r in grouped),
        "buckets": sum_buckets(sums.counts, bins, labels, boots),
        "no_gap": sums.no_gap,
        "outside_bins": sums.outside,
        "agent_pairs": sum_agent_pairs(models),
        "satisfied_but_failed": sum_satisfied_but_failed(db, run_id, threshold, judges),
        "position_bias": sum_position_bias(judges),
        "by_task_type": sum_breakdown(by_task_type(grouped), ("task_type",)),
        "by_models": sum_breakdown(models, ("agent_a", "agent_b", "judge_model")),
        "human_review": human_review(meta, run_id, db),
    }


#: Above this many pairs the two scans run at once, each on its own read-only connection
#: (SQLite releases the GIL while it steps), so a report over millions of pairs uses two cores.
PARALLEL_FROM = 200_000


def _scans(db: Pairs, jobs: list[Callable[[Pairs], Any]]) -> list[Any]:
    """SQLite's scans in two threads on a large run; DuckDB and Spark parallelise themselves."""
    if not isinstance(db, SqlitePairs):
        return [job(db) for job in jobs]
    rows = db.execute("SELECT MAX(rowid) FROM audit_pairs").fetchone()[0] or 0
    try:
        path = db.execute("PRAGMA database_list").fetchone()[2] if rows >= PARALLEL_FROM else ""
    except sqlite3.OperationalError:  # a path that is not UTF-8 cannot come back as text
        path = ""
    if not path:
        return [job(db) for job in jobs]

    def own(job: Callable[[Pairs], Any]) -> Any:
        conn = open_readonly(Path(path))
        try:
            return job(SqlitePairs(conn))
        finally:
            conn.close()

    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        return list(pool.map(own, jobs))


@dataclass
class BucketSums:
    """The (bucket, task) scan summed: per bucket its counts; the pairs without a gap and
    outside the bins; per bucket the task-clustered (decisive, missel) lists the bootstrap
    resamples."""

    counts: dict[int, BucketCount] = field(default_factory=dict)
    no_gap: int = 0
    outside: int = 0
    clusters: dict[int, tuple[list[int], list[int]]] = field(default_factory=dict)


def _by_bucket_and_task(db: Pairs, run_id: str, source: str, bins: list[float]) -> BucketSums:
    """Bucket sums and clusters from (bucket, task) groups, streamed: a run whose every pair
    has its own task (production logs) is millions of groups, never a list in memory.

    The gap is computed once per row (the inner select is a co-routine: its LIMIT keeps SQLite
    from flattening it into a CASE that would round the gap once per bin edge); bucket -1 is
    "no gap", -2 "outside the bins". Tasks come ordered by their first decisive, bucketed pair
    (as ``pd.factorize`` orders them in the pandas report), so the seeded resampling gives the
    same interval.
    """
    dialect = db.dialect
    arms, args = bin_arms("g", bins)
    parts = ["WHEN g IS NULL THEN -1", *arms]
    groups = (
        f"SELECT CASE {' '.join(parts)} ELSE -2 END AS bucket, task_id, COUNT(*) AS pairs,"
        " SUM(d) AS decisive, SUM(m) AS missel, SUM(d * m) AS missel_decisive,"
        " MIN(CASE WHEN d = 1 THEN rid END) AS first_rid"
        f" FROM (SELECT {gap_sql(source, dialect.floor_gap)} AS g, task_id, {DECISIVE} AS d,"
        f" {MISSEL} AS m, {dialect.seq} AS rid FROM audit_pairs WHERE run_id = ?"
        f"{dialect.no_flatten}) AS r GROUP BY bucket, task_id"
    )
    rows = db.execute(
        "SELECT bucket, pairs, decisive, missel, missel_decisive FROM (SELECT *,"
        " MIN(CASE WHEN bucket >= 0 THEN first_rid END) OVER (PARTITION BY task_id)"
        f" AS task_first FROM ({groups}) AS g) AS o ORDER BY bucket, task_first",
        (*args, run_id),
    )
    sums = BucketSums()
    for bucket, pairs, decisive, missel, missel_decisive in rows:
        if bucket == -1:
            sums.no_gap += pairs
        elif bucket == -2:
            sums.outside += pairs
        else:
            into = sums.counts.setdefault(bucket, BucketCount())
            into.pairs += pairs
            into.decisive += as_count(decisive)
            into.missel += as_count(missel)
            if as_count(decisive) > 0:
                dec, mis = sums.clusters.setdefault(bucket, ([], []))
                dec.append(int(decisive))
                mis.append(int(missel_decisive))
    return sums


def check_source(db: Pairs | sqlite3.Connection, run_id: str, source: str) -> None:
    """Refuse a gap source that would invert the claim on this run's data (one line, exit 2)."""
    pairs, same, rewards, binary = (
        as_pairs(db)
        .execute(
            "SELECT COUNT(*), SUM(CAST(agent_a = agent_b AS INTEGER)),"
            " COUNT(reward_a) + COUNT(reward_b), SUM(CAST(reward_a IN (0, 1) AS INTEGER))"
            " + SUM(CAST(reward_b IN (0, 1) AS INTEGER)) FROM audit_pairs WHERE run_id = ?",
            (run_id,),
        )
        .fetchone()
    )
    rewards, binary = rewards or 0, binary or 0
    reason = gaps.unfit(
        source,
        binary_rewards=rewards > 0 and binary == rewards,
        one_agent=pairs > 0 and same == pairs,
        no_rewards=pairs > 0 and rewards == 0,
    )
    if reason:
        raise UnfitGapSource(source, reason)


class UnfitGapSource(AnalysisError):
    """A gap source that would invert the claim on this run: the CLI names its option, the
    app its selector (it said ``--gap-source external``, an option the app has not)."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"--gap-source {source}: {reason}")
        self.source, self.reason = source, reason

    def in_app(self) -> str:
        return f"gap source {self.source}: {self.reason}"


def default_bins(db: Pairs | sqlite3.Connection, run_id: str, source: str) -> list[float]:
    """Default edges (:func:`judgeaudit.audit.units.gap.default_bins`) over the run's rewards."""
    if source != "external":
        return gaps.default_bins(source)
    low, high = (
        as_pairs(db)
        .execute(
            "SELECT MIN(r), MAX(r) FROM (SELECT reward_a AS r FROM audit_pairs WHERE run_id = ?"
            " UNION ALL SELECT reward_b FROM audit_pairs WHERE run_id = ?) AS s",
            (run_id, run_id),
        )
        .fetchone()
    )
    return gaps.default_bins(source, low, high)


def human_review(
    db: sqlite3.Connection, run_id: str, pairs_in: Pairs | None = None
) -> dict[str, Any]:
    """Agreement with human labels (audit.db's ``db``) over the labelled pairs of ``pairs_in``
    (audit.db's table by default): only those pairs are loaded (a small frame)."""
    if db.execute("SELECT 1 FROM human_labels LIMIT 1").fetchone() is None:
        return {"labelled": 0}  # review.agreement's answer, without importing pandas (~0.2 s)

    from judgeaudit.analysis.review import agreement

    engine = pairs_in or SqlitePairs(db)
    labels = stored_labels(db)
    pairs = pairs_by_id(engine, run_id, labels["pair_id"].astype(str), COPY_PAIR_COLUMNS)
    return agreement(pairs, labels, review_population(engine, run_id))


def review_population(db: Pairs | sqlite3.Connection, run_id: str) -> dict[str, int]:
    """Pairs per review stratum in the run (only the columns the stratum rule reads)."""
    import pandas as pd

    from judgeaudit.analysis.review_weights import stratum_of

    names = ["judge_score_a", "judge_score_b", "success_a", "success_b", "consistent",
             "misselected"]  # fmt: skip
    rows = as_pairs(db).execute(
        f"SELECT {', '.join(names)} FROM audit_pairs WHERE run_id = ?", (run_id,)
    )
    columns = pd.DataFrame.from_records([tuple(r) for r in rows], columns=names)
    return {str(k): int(v) for k, v in stratum_of(columns).value_counts().items()}
