"""How many judge verdicts are missing: a judge whose output cannot be parsed leaves ties, and a
tie is never a misselection, so without this count a broken judge would look like a perfect one.

Counted from ``judge_logs`` (one row per judge call): an *order* (AB or BA) of a pair has no
verdict when none of its attempts parsed. Kept apart from the report's main aggregation so the
figures that depend on it are easy to find.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

from judgeaudit.analysis.aggregate import gap_sql
from judgeaudit.analysis.clustered import Sums, interval
from judgeaudit.analysis.fmt import NO_VERDICT_WHY, failures, no_verdict
from judgeaudit.analysis.stats import wilson
from judgeaudit.audit.store.schema import is_decisive
from judgeaudit.audit.store.verdict_counts import (
    JOINED,
    count_task_verdicts,
    kept_task_counts,
    kept_verdict_counts,
    per_judge,
)
from judgeaudit.audit.units.gap import bucket_case

#: The gate fails a run B when more than this share of its judged orders has no verdict.
MAX_NO_VERDICT = 0.05
#: From this share of orders without a verdict the headlines say so: the misselection figures
#: then describe only the judged orders (a missing verdict is a tie, never a misselection, so a
#: judge that never answers would read "0 misselected").
MOSTLY_UNJUDGED = 0.5
#: How the parse-failure share gets its interval (JSON ``parse_failure_rate_interval``): the
#: per-task call counts are not kept with a finished run, so it is not clustered by task.
PARSE_FAILURE_INTERVAL = (
    "Wilson score, 95%, over judge calls (retries included), not clustered by task: the calls "
    "of one order are not independent, so it is narrower than the report's clustered intervals"
)
ALL = object()  # every judge model's tasks (:func:`_per_task`)


def _health(row: tuple[Any, ...], per_task: Mapping[Any, tuple[int, int]]) -> dict[str, Any]:
    """The counts and shares of one judge model (or all): ``per_task`` is its (missing, orders)
    per task, for the no-verdict share's interval (empty: none, e.g. a history's run)."""
    orders, missing, calls, failed, pairs, without, decisive_without = (int(v or 0) for v in row)
    ci: list[float | None] = [None, None]
    if sum(n for _, n in per_task.values()) == orders:  # the per-task sums are of these orders
        found = interval(Sums.of([(float(k), float(n)) for k, n in per_task.values()]))
        ci = [found["ci_low"], found["ci_high"]]
    return {
        "orders": orders,
        "no_verdict_orders": missing,
        "no_verdict_rate": missing / orders if orders else None,
        # [low, high]: over orders (two a swapped pair), clustered by task as every rate
        "no_verdict_rate_ci": ci,
        "judge_calls": calls,
        "parse_failures": failed,
        "parse_failure_rate": failed / calls if calls else None,
        "parse_failure_rate_ci": list(wilson(failed, calls)),
        "parse_failure_rate_interval": PARSE_FAILURE_INTERVAL,
        "pairs_judged": pairs,
        "pairs_without_verdict": without,
        "decisive_pairs_without_verdict": decisive_without,
    }


def _per_task(rows: list[tuple[Any, ...]], model: Any = ALL) -> dict[Any, tuple[int, int]]:
    """(missing, orders) per task of one judge model's (judge, task, orders, missing) rows, or
    of every model's (a task two judges judged is one cluster)."""
    out: dict[Any, tuple[int, int]] = {}
    for judge, task, orders, missing in rows:
        if model is ALL or judge == model:
            k, n = out.get(task, (0, 0))
            out[task] = (k + int(missing or 0), n + int(orders or 0))
    return out


def _counts(
    db: sqlite3.Connection, run_id: str
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Per judge model (its seven counts) and per (judge model, task) (orders, missing)."""
    by_judge = kept_verdict_counts(db, run_id)
    tasks = kept_task_counts(db, run_id) if by_judge is not None else None
    if by_judge is None or tasks is None:  # unfinished, or finished before tasks were kept
        live = count_task_verdicts(db, run_id)
        tasks = [row[:4] for row in live]
        by_judge = by_judge or per_judge(live)
    return by_judge, tasks


#: One row per judged order: its pair's identity across runs (``paired.KEY``), the order, and
#: whether any of its attempts parsed.
PER_ORDER = (
    'SELECT p.task_id, p.trial, p.trial_b, p.agent_a, p.agent_b, l."order",'
    " MAX(l.parse_error IS NULL) FROM judge_logs l JOIN audit_pairs p ON p.pair_id = l.pair_id"
    ' WHERE l.run_id = ? GROUP BY l.pair_id, l."order"'
)


def missing_per_order(db: sqlite3.Connection, run_id: str) -> dict[tuple[Any, ...], float]:
    """(task, trial, trial_b, agent_a, agent_b, order) -> the share of its judge models that gave
    it no verdict (0 or 1 with one model): the orders the gate's rise test pairs across runs.
    Trials as ``paired.with_trials`` reads them (none is 0; side B's is side A's)."""
    found: dict[tuple[Any, ...], list[int]] = {}
    for task, trial, trial_b, agent_a, agent_b, order, ok in db.execute(PER_ORDER, (run_id,)):
        first = int(trial or 0)
        key = (task, first, first if trial_b is None else int(trial_b), agent_a, agent_b, order)
        into = found.setdefault(key, [0, 0])
        into[0] += not ok
        into[1] += 1
    return {key: missing / judged for key, (missing, judged) in found.items()}


def verdict_health(db: sqlite3.Connection, run_id: str) -> dict[str, Any]:
    """The run's totals and one entry per judge model (same keys as the totals), the no-verdict
    share with the report's interval (Wilson with a task design effect)."""
    by_judge, tasks = _counts(db, run_id)
    # The totals are the judges' sums: one pass over judge_logs, not two.
    total = [sum(int(row[i] or 0) for row in by_judge) for i in range(1, 8)]
    return {
        **_health(tuple(total), _per_task(tasks)),
        "by_judge": [
            {"judge_model": r[0], **_health(tuple(r[1:]), _per_task(tasks, r[0]))} for r in by_judge
        ],
        "max_no_verdict_rate": MAX_NO_VERDICT,
    }


def _bucket_case(source: str, bins: list[float]) -> tuple[str, list[float]]:
    """A CASE giving the bucket index like ``pd.cut``: right-closed, NULL outside the edges."""
    return bucket_case(gap_sql(source), bins)


def missing_by_bucket(
    db: sqlite3.Connection, run_id: str, source: str, bins: list[float]
) -> dict[int, tuple[int, int]]:
    """Bucket index -> (pairs with an order lacking a verdict, of them decisive)."""
    case, args = _bucket_case(source, bins)
    rows = db.execute(
        f"SELECT {case} AS bucket, COUNT(*), SUM({is_decisive('p')})"
        f" {JOINED} WHERE v.missing > 0 GROUP BY bucket",
        (*args, run_id),
    ).fetchall()
    return {int(r[0]): (int(r[1]), int(r[2] or 0)) for r in rows if r[0] is not None}


def health_line(health: dict[str, Any], *, recorded: bool) -> str:
    """One line for the text reports: the no-verdict share, and a warning when it is high.
    ``recorded`` (the run's ``judge_source``, :func:`~judgeaudit.audit.spec.records.
    recorded_verdicts`): the verdicts came from a log, so no judge was called or retried and
    the line says what the log gave instead."""
    rate = health["no_verdict_rate"]
    if rate is None:
        return "judge verdicts: no judge call stored for this run"
    line = (
        f"no verdict ({NO_VERDICT_WHY[recorded]}): {no_verdict(health, named=True)}, "
        f"{health['pairs_without_verdict']} pairs affected "
        f"({health['decisive_pairs_without_verdict']} decisive); {failures(health, recorded)}"
    )
    if rate > health["max_no_verdict_rate"]:
        line += (
            f"  WARNING: above {health['max_no_verdict_rate'] * 100:g}%, the misselection "
            "figures understate this judge (a missing verdict counts as a tie)"
        )
    return line


def unjudged(health: dict[str, Any], out: str = "OUT", *, recorded: bool = False) -> str | None:
    """What a run's close says when at least :data:`MOSTLY_UNJUDGED` of its orders have no
    verdict (None otherwise): the run finished, but its misselection figures are not a finding.
    ``out``: the run's directory, for the command that shows the parse failures; ``recorded``:
    the verdicts came from a log, so no judge model was called and the log is what to check."""
    rate, missing, orders = (health[k] for k in ("no_verdict_rate", "no_verdict_orders", "orders"))
    if rate is None or rate < MOSTLY_UNJUDGED:
        return None
    if missing == orders and recorded:
        return (
            f"every recorded verdict was null or unparsable ({missing}/{orders}): nothing was "
            "judged, so the run measured no misselection; check the log's winner fields "
            f"(`judgeaudit report {out}` counts them)"
        )
    if missing == orders:
        return (
            f"the judge gave no verdict on any order ({missing}/{orders}): nothing was judged, "
            "so the run measured no misselection; check [judge] model and that its replies "
            f"carry a verdict (`judgeaudit report {out}` shows the parse failures)"
        )
    return (
        f"the judge gave no verdict on {no_verdict(health, named=True)}: the misselection "
        "figures describe only the judged orders"
    )


NOT_MEASURED = "not measured: the judge gave no verdict on any order"


def nothing_judged(health: Mapping[str, Any]) -> bool:
    """No order of the run got a verdict (a judge outage): its misselection is not measured,
    since a 0% over pairs that are all ties would read as a perfect judge."""
    orders = health.get("orders") or 0
    return bool(orders) and health.get("no_verdict_orders") == orders


def unmeasured_refusal(
    side: str, run_id: str, out: object, health: Mapping[str, Any], *, recorded: bool = False
) -> str | None:
    """The one line ``compare`` refuses with when run ``side`` (A or B) measured nothing
    (:func:`nothing_judged`), else None: a gate against, or of, an all-tie 0% is no comparison.
    Why and what to check are the run's close's (:func:`unjudged`): ``recorded`` (the run's
    manifest, :func:`~judgeaudit.audit.spec.records.recorded_verdicts`) names the log's winner
    fields, not a judge model no recorded run calls."""
    if not nothing_judged(health):
        return None
    why = unjudged(dict(health), str(out), recorded=recorded)
    then = (
        "fix the log's verdicts and audit it again, or compare a run whose log has verdicts"
        if recorded
        else "re-judge it or compare a run that was judged"
    )
    return f"compare: run {side} ({out}#{run_id}) measured nothing: {why}; {then}"


def misselected_text(misselected: int, health: dict[str, Any]) -> str:
    """The report headline's count: ``N misselected``, or, when most orders have no verdict, a
    count that says it covers the judged orders only (none judged: no count at all)."""
    rate, missing, orders = (health[k] for k in ("no_verdict_rate", "no_verdict_orders", "orders"))
    if rate is None or rate < MOSTLY_UNJUDGED:
        return f"{misselected} misselected"
    if nothing_judged(health):
        return f"misselection not measured (the judge gave no verdict on any of {orders} orders)"
    # counts only: the share and its interval are on the verdict line below the headline
    return f"{misselected} misselected in the judged orders only (no verdict on {missing} of {orders} orders)"
