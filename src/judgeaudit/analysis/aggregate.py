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
from pathlib import Path
from typing import Any

import pandas as pd

from judgeaudit.analysis.engines.dialect import Pairs, SqlitePairs, as_pairs
from judgeaudit.analysis.frame import LABELS_EN, LABELS_ZH, AnalysisError
from judgeaudit.analysis.grouped import by_judge, by_models_and_type, merged
from judgeaudit.analysis.review import agreement
from judgeaudit.analysis.review_weights import stratum_of
from judgeaudit.analysis.stats import cluster_bootstrap, wilson
from judgeaudit.audit.store import PAIR_COLUMNS, open_readonly
from judgeaudit.audit.units import gap as gaps

DECISIVE = "CAST(success_a != success_b AS INTEGER)"
MISSEL = "COALESCE(misselected, 0)"


def gap_sql(source: str, floor: bool = False) -> str:
    """The SQL expression of a gap source (:mod:`judgeaudit.audit.units.gap`), or one line
    naming the sources there are."""
    try:
        return gaps.gap_sql(source, floor=floor)
    except gaps.GapSourceError as exc:
        raise AnalysisError(str(exc)) from None


bin_arms = gaps.bucket_arms


def _rate(k: int, n: int) -> dict[str, Any]:
    low, high = wilson(k, n)
    return {"rate": k / n if n else None, "ci_low": low, "ci_high": high}


def _int(value: Any) -> int:
    return int(value or 0)


def report_sections(
    db: Pairs | sqlite3.Connection,
    run_id: str,
    source: str,
    bins: list[float],
    labels: list[str],
    threshold: float,
    meta: sqlite3.Connection | None = None,
) -> dict[str, Any]:
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
    grouped, by_bucket_task = _scans(
        db,
        [
            lambda c: by_models_and_type(c, run_id, threshold),
            lambda c: _by_bucket_and_task(c, run_id, source, bins),
        ],
    )
    by_models = merged(grouped, key_at=[1, 2, 0], mins_at=(11, 12), upto=15)
    judges = by_judge(grouped)
    by_type = [(None, *row) for row in merged(grouped, key_at=[3], upto=9)]
    counts, no_gap, outside, per_bucket = by_bucket_task
    boots = {b: cluster_bootstrap(mis, dec) for b, (dec, mis) in per_bucket.items()}
    return {
        "pairs": sum(_int(r[4]) for r in grouped),
        "decisive": sum(_int(r[5]) for r in grouped),
        "misselected": sum(_int(r[6]) for r in grouped),
        "buckets": _buckets(counts, bins, labels, boots),
        "no_gap": no_gap,
        "outside_bins": outside,
        "agent_pairs": _agent_pairs(by_models),
        "satisfied_but_failed": _satisfied_but_failed(db, run_id, threshold, judges),
        "position_bias": _position_bias(judges),
        "by_task_type": _breakdown(by_type, ["task_type"], key_at=[1], counts_at=2),
        "by_models": _breakdown(by_models, ["agent_a", "agent_b", "judge_model"], [0, 1, 2], 3),
        "human_review": human_review(meta, run_id, db),
    }


#: Above this many pairs the two scans run at once, each on its own read-only connection
#: (SQLite releases the GIL while it steps), so a report over millions of pairs uses two cores.
PARALLEL_FROM = 200_000


def _scans(db: Pairs, jobs: list[Callable[[Pairs], Any]]) -> list[Any]:
    """SQLite's scans in two threads on a large run; DuckDB and Spark parallelise themselves."""
    if not isinstance(db, SqlitePairs):
        return [job(db) for job in jobs]
    path = db.execute("PRAGMA database_list").fetchone()[2]
    rows = db.execute("SELECT MAX(rowid) FROM audit_pairs").fetchone()[0] or 0
    if not path or rows < PARALLEL_FROM:
        return [job(db) for job in jobs]

    def own(job: Callable[[Pairs], Any]) -> Any:
        conn = open_readonly(Path(path))
        try:
            return job(SqlitePairs(conn))
        finally:
            conn.close()

    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        return list(pool.map(own, jobs))


#: Per bucket (pairs, decisive, missel); pairs without a gap; pairs outside the bins; per
#: bucket the task-clustered (decisive, missel) lists the bootstrap resamples.
BucketSums = tuple[dict[int, list[int]], int, int, dict[int, tuple[list[int], list[int]]]]


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
    counts: dict[int, list[int]] = {}
    per_bucket: dict[int, tuple[list[int], list[int]]] = {}
    no_gap = outside = 0
    for bucket, pairs, decisive, missel, missel_decisive in rows:
        if bucket == -1:
            no_gap += pairs
        elif bucket == -2:
            outside += pairs
        else:
            into = counts.setdefault(bucket, [0, 0, 0])
            into[0] += pairs
            into[1] += _int(decisive)
            into[2] += _int(missel)
            if _int(decisive) > 0:
                dec, mis = per_bucket.setdefault(bucket, ([], []))
                dec.append(int(decisive))
                mis.append(int(missel_decisive))
    return counts, no_gap, outside, per_bucket


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
    )
    if reason:
        raise AnalysisError(f"--gap-source {source}: {reason}")


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


def _buckets(
    counts: dict[int, list[int]],
    bins: list[float],
    labels: list[str],
    boots: dict[int, tuple[Any, Any]],
) -> list[dict[str, Any]]:
    out = []
    for index, label in enumerate(labels):
        pairs, n, k = counts.get(index, [0, 0, 0])
        alias = LABELS_EN[LABELS_ZH.index(label)] if label in LABELS_ZH else label
        out.append(
            {
                "label": label,
                "alias": alias,
                "lo": bins[index],
                "hi": bins[index + 1],
                "pairs": pairs,
                "decisive": n,
                "misselected": k,
                **_rate(k, n),
                "boot_low": boots.get(index, (None, None))[0],
                "boot_high": boots.get(index, (None, None))[1],
            }
        )
    return out


def _agent_pairs(rows: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str], list[Any]] = {}
    for a, b, _model, pairs, dec, missel, _sc, _nc, sa, sb, cap_a, cap_b, aw, bw in rows:
        g = groups.setdefault((a, b), [0, 0, 0, 0, 0, None, None, 0, 0])
        for i, value in enumerate((pairs, dec, missel, sa, sb)):
            g[i] += _int(value)
        g[5] = cap_a if g[5] is None or (cap_a is not None and cap_a < g[5]) else g[5]
        g[6] = cap_b if g[6] is None or (cap_b is not None and cap_b < g[6]) else g[6]
        g[7] += _int(aw)
        g[8] += _int(bw)
    out = []
    for (a, b), (pairs, decisive, missel, sa, sb, cap_a, cap_b, a_wins, b_wins) in sorted(
        groups.items()
    ):
        judge_says = (a_wins > b_wins) - (a_wins < b_wins)
        known = cap_a is not None and cap_b is not None
        truth = (cap_a > cap_b) - (cap_a < cap_b) if known else 0
        out.append(
            {
                "agent_a": a,
                "agent_b": b,
                "pairs": pairs,
                "success_rate_a": sa / pairs,
                "success_rate_b": sb / pairs,
                "capability_gap": abs(cap_a - cap_b) if known else None,
                "judge_win_rate_a": a_wins / pairs,
                "judge_win_rate_b": b_wins / pairs,
                "decisive": decisive,
                "misselected": missel,
                **_rate(missel, decisive),
                "ranking_misselected": bool(judge_says != 0 and truth != 0 and judge_says != truth),
            }
        )
    return out


def _satisfied_but_failed(
    db: Pairs, run_id: str, threshold: float, rows: list[tuple[Any, ...]]
) -> dict[str, Any]:
    judge_n, judge_k, user_n, user_k, crosstab = (
        sum(_int(r[i]) for r in rows) for i in range(1, 6)
    )
    t = float(threshold)
    examples = [
        r[0]
        for r in db.execute(
            "SELECT pair_id FROM audit_pairs WHERE run_id = ? AND ((judge_score_a >= ? AND"
            f" success_a = 0) OR (judge_score_b >= ? AND success_b = 0)) ORDER BY {db.dialect.seq}"
            " LIMIT 200",
            (run_id, t, t),
        )
    ]
    return {
        "threshold": threshold,
        "judge": {"satisfied": judge_n, "failed": judge_k, **_rate(judge_k, judge_n)},
        "user_simulator": {"satisfied": user_n, "failed": user_k, **_rate(user_k, user_n)},
        "judge_prefers_a_unsupported": crosstab,
        "pairs": examples,
    }


def _position_bias(rows: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        model, n, consistent, inconsistent, first_wins, decided = row[0], *map(_int, row[6:])
        if model is None or n == 0:
            continue
        out.append(
            {
                "judge_model": model,
                "pairs": n,
                "consistent": consistent,
                "consistency_rate": consistent / n,
                "inconsistent": inconsistent,
                "first_position_wins": first_wins,
                "decided_in_inconsistent": decided,
                "first_position_win_rate": first_wins / decided if decided else None,
            }
        )
    return out


def _breakdown(
    rows: list[tuple[Any, ...]], keys: list[str], key_at: list[int], counts_at: int
) -> list[dict[str, Any]]:
    """Group the pre-grouped rows by ``keys`` (rows with a NULL key are left out, as pandas does)."""
    groups: dict[tuple[Any, ...], list[int]] = {}
    for row in rows:
        key = tuple(row[i] for i in key_at)
        if any(k is None for k in key):
            continue
        g = groups.setdefault(key, [0, 0, 0, 0, 0])
        for i in range(5):
            g[i] += _int(row[counts_at + i])
    out = []
    for key, (pairs, decisive, missel, sum_consistent, n_consistent) in sorted(groups.items()):
        out.append(
            {
                **dict(zip(keys, key, strict=True)),
                "pairs": pairs,
                "decisive": decisive,
                "misselected": missel,
                "consistency_rate": sum_consistent / n_consistent if n_consistent else None,
                **_rate(missel, decisive),
            }
        )
    return out


def human_review(
    db: sqlite3.Connection, run_id: str, pairs_in: Pairs | None = None
) -> dict[str, Any]:
    """Agreement with human labels (audit.db's ``db``) over the labelled pairs of ``pairs_in``
    (audit.db's table by default): only those pairs are loaded (a small frame)."""
    engine = pairs_in or SqlitePairs(db)
    labels = pd.read_sql_query("SELECT * FROM human_labels", db)
    if labels.empty:
        return agreement(labels, labels)
    ids = sorted(set(labels["pair_id"].astype(str)))
    found: list[Any] = []
    for start in range(0, len(ids), 500):  # SQLite's default limit is 999 parameters
        chunk = ids[start : start + 500]
        found += engine.execute(
            f"SELECT {', '.join(PAIR_COLUMNS)} FROM audit_pairs WHERE run_id = ?"
            f" AND pair_id IN ({', '.join('?' * len(chunk))}) ORDER BY {engine.dialect.seq}",
            (run_id, *chunk),
        ).fetchall()
    pairs = pd.DataFrame.from_records([tuple(r) for r in found], columns=list(PAIR_COLUMNS))
    return agreement(pairs, labels, review_population(engine, run_id))


def review_population(db: Pairs | sqlite3.Connection, run_id: str) -> dict[str, int]:
    """Pairs per review stratum in the run (only the columns the stratum rule reads)."""
    names = ["judge_score_a", "judge_score_b", "success_a", "success_b", "consistent",
             "misselected"]  # fmt: skip
    rows = as_pairs(db).execute(
        f"SELECT {', '.join(names)} FROM audit_pairs WHERE run_id = ?", (run_id,)
    )
    columns = pd.DataFrame.from_records([tuple(r) for r in rows], columns=names)
    return {str(k): int(v) for k, v in stratum_of(columns).value_counts().items()}
