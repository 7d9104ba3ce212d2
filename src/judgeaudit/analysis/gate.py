"""What ``compare`` checks before its numbers may pass or fail a gate: which two runs, whether
they are finished and comparable, and whether run B's judge actually gave verdicts.

A misselection rate only means something over verdicts that exist: an unfinished run, a run
with no decisive pair, two runs that share no task, or a judge whose output mostly does not
parse would all let ``--fail-on-rise`` pass a regression, so each is refused or fails the gate.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from judgeaudit.analysis.frame import AnalysisError, open_db, resolve_run
from judgeaudit.analysis.paired import ALPHA
from judgeaudit.analysis.stats import fisher_exact
from judgeaudit.errors import IncompleteRun


def choose_runs(
    out_a: Path, out_b: Path | None, run_a: str | None, run_b: str | None
) -> tuple[Path, Path, str | None, str | None]:
    """The two (directory, run) sides. With one directory: its two runs (older as A) when it
    holds exactly two, else the ones --run-a/--run-b name; never a run against itself."""
    if out_b is None:
        out_b = out_a
        if run_a is None or run_b is None:
            db = open_db(out_a)
            try:
                ids = [
                    str(r[0])
                    for r in db.execute("SELECT run_id FROM runs ORDER BY created_at, run_id")
                ]
            finally:
                db.close()
            named = [x for x in (run_a, run_b) if x is not None]
            if len(ids) == 2 and all(x in ids for x in named):
                if run_a is None and run_b is None:
                    run_a, run_b = ids
                elif run_a is None:
                    run_a = next(i for i in ids if i != run_b)
                else:
                    run_b = next(i for i in ids if i != run_a)
            else:
                raise AnalysisError(
                    f"compare: {out_a} holds {len(ids)} run(s) ({', '.join(ids) or 'none'}); "
                    "name the two to compare with --run-a RUN --run-b RUN, or give OUT_B"
                )
    if os.path.realpath(out_a) == os.path.realpath(out_b):
        db = open_db(out_a)
        try:
            side_a, side_b = resolve_run(db, run_a), resolve_run(db, run_b)
        finally:
            db.close()
        if side_a == side_b:
            raise AnalysisError(
                f"compare: run A and run B are both {side_a} in {out_a}; a run compared with "
                "itself cannot change: name two different runs with --run-a/--run-b"
            )
    else:
        side_a, key_a = _identity(out_a, run_a)
        side_b, key_b = _identity(out_b, run_b)
        if key_a == key_b:
            raise AnalysisError(
                f"compare: {out_a} and {out_b} hold the same run {side_a} (one is a copy of the "
                "other); a run compared with itself cannot change: compare it with another run"
            )
    return out_a, out_b, run_a, run_b


def _identity(out: Path, run_id: str | None) -> tuple[str, str]:
    """A run's id and what makes it that run wherever its directory was copied: its uid, or
    (older runs) its id, spec hash and start time."""
    db = open_db(out)
    try:
        run = resolve_run(db, run_id)
        row = db.execute(
            "SELECT spec_hash, created_at, manifest FROM runs WHERE run_id = ?", (run,)
        ).fetchone()
    finally:
        db.close()
    try:
        manifest = json.loads(row[2]) if row and row[2] else {}
    except ValueError:
        manifest = {}
    uid = manifest.get("run_uid") if isinstance(manifest, dict) else None
    return run, str(uid) if uid else f"{run}:{row[0] if row else ''}:{row[1] if row else ''}"


def verdict_check(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Run B's missing-verdict share against the limit and against run A (Fisher exact on the
    judged orders); ``failed`` names why the gate must fail, empty when it need not."""
    orders_a, missing_a = a["orders"], a["no_verdict_orders"]
    orders_b, missing_b = b["orders"], b["no_verdict_orders"]
    p_value = fisher_exact(missing_a, orders_a, missing_b, orders_b)
    rate_a, rate_b = a["no_verdict_rate"], b["no_verdict_rate"]
    rose = rate_a is not None and rate_b is not None and rate_b > rate_a and p_value < ALPHA
    limit = b["max_no_verdict_rate"]
    failed = []
    if rate_b is not None and rate_b > limit:
        failed.append(
            f"run B has no verdict for {rate_b * 100:.1f}% of its judged orders "
            f"({missing_b}/{orders_b}), above the {limit * 100:g}% limit"
        )
    if rose:
        failed.append(
            f"run B's no-verdict rate rose from {rate_a * 100:.1f}% to {rate_b * 100:.1f}% "
            f"(Fisher exact p={p_value:.3g})"
        )
    return {
        "a": _brief(a),
        "b": _brief(b),
        "p_value": p_value,
        "significant_rise": rose,
        "limit": limit,
        "failed": failed,
    }


def _brief(health: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in health.items() if k not in ("by_judge", "max_no_verdict_rate")}


def gate_ready(result: dict[str, Any]) -> None:
    """Refuse to gate on runs whose numbers cannot decide: unfinished (exit 4), nothing
    decisive to test or no task in common (exit 2)."""
    for side in ("a", "b"):
        status = result[f"status_{side}"]
        if status != "finished":
            raise IncompleteRun(
                f"compare --fail-on-rise: run {side.upper()} {result[f'run_{side}']} is "
                f"{status}, not finished; finish it (rerun the command that made it) before "
                "gating on it"
            )
    if not result["shared_tasks"]:
        raise AnalysisError(
            f"compare --fail-on-rise: {result['run_a']} and {result['run_b']} share no task, "
            "so their misselection rates are not comparable; compare runs over the same tasks"
        )
    overall = result["overall"]
    if not overall["n_before"] or not overall["n_after"]:
        raise AnalysisError(
            f"compare --fail-on-rise: no decisive pair to compare (n={overall['n_before']} -> "
            f"n={overall['n_after']}); nothing can pass or fail, check the two runs"
        )


def coverage_lines(result: dict[str, Any]) -> list[str]:
    """Warnings the text output prints above the buckets (status, unmatched pairs, tasks)."""
    lines = []
    for side in ("a", "b"):
        if result[f"status_{side}"] != "finished":
            lines.append(
                f"WARNING: run {side.upper()} {result[f'run_{side}']} is "
                f"{result[f'status_{side}']}, not finished"
            )
    pairing = result["pairing"]
    if pairing and (pairing["only_in_a"] or pairing["only_in_b"]):
        lines.append(
            f"WARNING: {pairing['only_in_a']} pairs only in A and {pairing['only_in_b']} only "
            "in B are left out"
        )
    if not result["shared_tasks"]:
        lines.append("WARNING: the runs share no task; their rates are not comparable")
    check = result["verdicts"]
    a, b = check["a"], check["b"]

    def share(x: dict[str, Any]) -> str:
        rate = x["no_verdict_rate"]
        if rate is None:
            return "n/a"
        return f"{rate * 100:.1f}% ({x['no_verdict_orders']}/{x['orders']})"

    lines.append(f"no verdict (orders): {share(a)} -> {share(b)}")
    lines += [f"WARNING: {reason}" for reason in check["failed"]]
    return lines
