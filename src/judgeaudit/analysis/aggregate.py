"""The report's figures aggregated in SQL, so a report over millions of pairs stays small.

Every section the pandas metrics compute from the whole ``audit_pairs`` frame is computed here
with one GROUP BY each inside SQLite; only the grouped rows (a few per bucket, agent pair or
judge model) reach Python. pandas is kept for the small frames (human labels). The results are
the same dicts :mod:`judgeaudit.analysis.metrics` returns; a test holds the two equal.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pandas as pd

from judgeaudit.analysis.frame import DEFAULT_BINS, LABELS_EN, LABELS_ZH, AnalysisError
from judgeaudit.analysis.review import agreement
from judgeaudit.analysis.stats import cluster_bootstrap, wilson
from judgeaudit.audit.outcome import GAP_DECIMALS

GAP_SQL = {  # rounded as the engine stores reward_gap, so bin edges are honoured
    "capability": f"ROUND(ABS(capability_a - capability_b), {GAP_DECIMALS})",
    "judge": f"ROUND(ABS(judge_score_a - judge_score_b), {GAP_DECIMALS})",
    "external": f"ROUND(ABS(reward_a - reward_b), {GAP_DECIMALS})",
}
DECISIVE = "(success_a != success_b)"
MISSEL = "COALESCE(misselected, 0)"


def _rate(k: int, n: int) -> dict[str, Any]:
    low, high = wilson(k, n)
    return {"rate": k / n if n else None, "ci_low": low, "ci_high": high}


def _int(value: Any) -> int:
    return int(value or 0)


def bucket_case(source: str, bins: list[float]) -> tuple[str, list[float]]:
    """A CASE giving the bucket index like ``pd.cut``: right-closed, NULL outside the edges."""
    if source not in GAP_SQL:
        raise AnalysisError(f"--gap-source {source!r}: use capability, judge or external")
    gap = GAP_SQL[source]
    parts, args = [], []
    for index in range(len(bins) - 1):
        parts.append(f"WHEN {gap} > ? AND {gap} <= ? THEN {index}")
        args += [bins[index], bins[index + 1]]
    return f"CASE {' '.join(parts)} END", args


def report_sections(
    db: sqlite3.Connection,
    run_id: str,
    source: str,
    bins: list[float],
    labels: list[str],
    threshold: float,
) -> dict[str, Any]:
    """Totals, buckets, agent pairs, satisfied-but-failed, position bias and breakdowns.

    Three scans of the run's rows: (bucket, task type), (agent pair, judge model) and judge
    model; every section is summed from those few grouped rows.
    """
    by_bucket, by_models, by_judge = _scans(
        db,
        [
            lambda c: _by_bucket_and_type(c, run_id, source, bins),
            lambda c: _by_agents_and_model(c, run_id),
            lambda c: _by_judge(c, run_id, threshold),
        ],
    )
    totals = [sum(_int(r[i]) for r in by_bucket) for i in (2, 3, 4)]
    boots = _clustered(db, run_id, source, bins)
    return {
        "pairs": totals[0],
        "decisive": totals[1],
        "misselected": totals[2],
        "buckets": _buckets(by_bucket, bins, labels, boots),
        "no_gap": sum(_int(r[2]) for r in by_bucket if r[0] is None and r[7]),
        "outside_bins": sum(_int(r[2]) for r in by_bucket if r[0] is None and not r[7]),
        "agent_pairs": _agent_pairs(by_models),
        "satisfied_but_failed": _satisfied_but_failed(db, run_id, threshold, by_judge),
        "position_bias": _position_bias(by_judge),
        "by_task_type": _breakdown(by_bucket, ["task_type"], key_at=[1], counts_at=2),
        "by_models": _breakdown(by_models, ["agent_a", "agent_b", "judge_model"], [0, 1, 2], 3),
        "human_review": human_review(db, run_id),
    }


#: Above this many pairs the three scans run at once, each on its own read-only connection
#: (SQLite releases the GIL while it steps), so a report over millions of pairs uses every core.
PARALLEL_FROM = 200_000


def _scans(
    db: sqlite3.Connection, jobs: list[Callable[[sqlite3.Connection], list[tuple[Any, ...]]]]
) -> list[list[tuple[Any, ...]]]:
    path = db.execute("PRAGMA database_list").fetchone()[2]
    rows = db.execute("SELECT MAX(rowid) FROM audit_pairs").fetchone()[0] or 0
    if not path or rows < PARALLEL_FROM:
        return [job(db) for job in jobs]

    def own(job: Callable[[sqlite3.Connection], list[tuple[Any, ...]]]) -> list[tuple[Any, ...]]:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return job(conn)
        finally:
            conn.close()

    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        return list(pool.map(own, jobs))


def _by_bucket_and_type(
    db: sqlite3.Connection, run_id: str, source: str, bins: list[float]
) -> list[tuple[Any, ...]]:
    """(bucket, task_type, pairs, decisive, misselected, sum consistent, n consistent, no gap)."""
    case, args = bucket_case(source, bins)
    return db.execute(
        f"SELECT {case} AS bucket, task_type, COUNT(*), SUM({DECISIVE}), SUM({MISSEL}),"
        f" SUM(consistent), COUNT(consistent), {GAP_SQL[source]} IS NULL AS no_gap"
        " FROM audit_pairs WHERE run_id = ? GROUP BY bucket, task_type, no_gap",
        (*args, run_id),
    ).fetchall()


def _clustered(
    db: sqlite3.Connection, run_id: str, source: str, bins: list[float]
) -> dict[int, tuple[Any, Any]]:
    """Task-clustered intervals per bucket, from per-(bucket, task) sums of decisive pairs.

    Tasks are ordered by their first decisive, bucketed pair (as ``pd.factorize`` orders them
    in the pandas report), so the seeded resampling gives the same interval.
    """
    case, args = bucket_case(source, bins)
    rows = db.execute(
        f"WITH d AS (SELECT rowid AS rid, task_id, {case} AS bucket, {MISSEL} AS m"
        f" FROM audit_pairs WHERE run_id = ? AND {DECISIVE}),"
        " b AS (SELECT * FROM d WHERE bucket IS NOT NULL),"
        " f AS (SELECT task_id, MIN(rid) AS first FROM b GROUP BY task_id)"
        " SELECT b.bucket, COUNT(*), SUM(b.m) FROM b JOIN f ON f.task_id = b.task_id"
        " GROUP BY b.bucket, b.task_id ORDER BY b.bucket, MIN(f.first)",
        (*args, run_id),
    ).fetchall()
    per_bucket: dict[int, tuple[list[int], list[int]]] = {}
    for bucket, decisive, missel in rows:
        dec, mis = per_bucket.setdefault(int(bucket), ([], []))
        dec.append(int(decisive))
        mis.append(int(missel))
    return {b: cluster_bootstrap(mis, dec) for b, (dec, mis) in per_bucket.items()}


def default_bins(db: sqlite3.Connection, run_id: str, source: str) -> list[float]:
    """Default edges; external rewards beyond 0-1 get the 0-1 edges scaled to their span."""
    bins = DEFAULT_BINS[source]
    if source == "external":
        low, high = db.execute(
            "SELECT MIN(r), MAX(r) FROM (SELECT reward_a AS r FROM audit_pairs WHERE run_id = ?"
            " UNION ALL SELECT reward_b FROM audit_pairs WHERE run_id = ?)",
            (run_id, run_id),
        ).fetchone()
        span = float(high - low) if low is not None else 0.0
        if span > 1.0:
            return [bins[0], *(round(edge * span, GAP_DECIMALS) for edge in bins[1:])]
    return list(bins)


def _by_agents_and_model(db: sqlite3.Connection, run_id: str) -> list[tuple[Any, ...]]:
    """(a, b, judge_model, pairs, decisive, missel, sum consistent, n consistent,
    sum success_a, sum success_b, min capability_a, min capability_b, A wins, B wins)."""
    return db.execute(
        f"SELECT agent_a, agent_b, judge_model, COUNT(*), SUM({DECISIVE}), SUM({MISSEL}),"
        " SUM(consistent), COUNT(consistent), SUM(success_a), SUM(success_b), MIN(capability_a),"
        " MIN(capability_b), SUM(judge_pref = 'A'), SUM(judge_pref = 'B') FROM audit_pairs"
        " WHERE run_id = ? GROUP BY agent_a, agent_b, judge_model",
        (run_id,),
    ).fetchall()


def _by_judge(db: sqlite3.Connection, run_id: str, t: float) -> list[tuple[Any, ...]]:
    """Per judge model: satisfied-but-failed sums (all pairs) and position-bias sums (swapped)."""
    swapped = "pref_ba IS NOT NULL"
    # The stored flag, not pref_ab == pref_ba: two unparsable orders are both "tie" but are
    # not a consistent verdict.
    agree = "COALESCE(consistent, 0) = 1"
    differ = f"{swapped} AND NOT {agree}"
    return db.execute(
        "SELECT judge_model,"
        " SUM(judge_score_a >= ?) + SUM(judge_score_b >= ?),"
        " SUM(judge_score_a >= ? AND success_a = 0) + SUM(judge_score_b >= ? AND success_b = 0),"
        " SUM(COALESCE(satisfied_a, 0) = 1) + SUM(COALESCE(satisfied_b, 0) = 1),"
        " SUM(COALESCE(satisfied_a, 0) = 1 AND success_a = 0)"
        " + SUM(COALESCE(satisfied_b, 0) = 1 AND success_b = 0),"
        " SUM(CASE WHEN judge_score_a > judge_score_b AND NOT (success_a > success_b)"
        " THEN 1 ELSE 0 END),"
        f" SUM({swapped}), SUM({swapped} AND {agree}), SUM({differ}),"
        f" SUM({differ} AND pref_ab = 'A') + SUM({differ} AND pref_ba = 'B'),"
        f" SUM({differ} AND pref_ab != 'tie') + SUM({differ} AND pref_ba != 'tie')"
        " FROM audit_pairs WHERE run_id = ? GROUP BY judge_model ORDER BY judge_model",
        (t, t, t, t, run_id),
    ).fetchall()


def _buckets(
    rows: list[tuple[Any, ...]],
    bins: list[float],
    labels: list[str],
    boots: dict[int, tuple[Any, Any]],
) -> list[dict[str, Any]]:
    counts: dict[int, list[int]] = {}
    for row in rows:
        if row[0] is not None:
            into = counts.setdefault(int(row[0]), [0, 0, 0])
            for i in range(3):
                into[i] += _int(row[2 + i])
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
    db: sqlite3.Connection, run_id: str, threshold: float, rows: list[tuple[Any, ...]]
) -> dict[str, Any]:
    judge_n, judge_k, user_n, user_k, crosstab = (
        sum(_int(r[i]) for r in rows) for i in range(1, 6)
    )
    t = float(threshold)
    examples = [
        r[0]
        for r in db.execute(
            "SELECT pair_id FROM audit_pairs WHERE run_id = ? AND ((judge_score_a >= ? AND"
            " success_a = 0) OR (judge_score_b >= ? AND success_b = 0)) ORDER BY rowid LIMIT 200",
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


def human_review(db: sqlite3.Connection, run_id: str) -> dict[str, Any]:
    """Agreement with human labels: only the labelled pairs are loaded (a small frame)."""
    labels = pd.read_sql_query("SELECT * FROM human_labels", db)
    if labels.empty:
        return agreement(labels, labels)
    pairs = pd.read_sql_query(
        "SELECT p.* FROM audit_pairs p JOIN human_labels h ON h.pair_id = p.pair_id"
        " WHERE p.run_id = ?",
        db,
        params=(run_id,),
    )
    return agreement(pairs, labels)
