"""Power before spending: what a re-judge of a run can show, from the source run alone.

The gate tests the pairs both judges call decisive, clustered by task. Before a re-judge the
flips are unknown, so their share (the discordance) is taken from the source's own decisive
pairs judged inconsistently across the two orders: the pairs on which a judge is unsure are
the ones another judge flips (on the demo: 10.8% inconsistent, 8.2% flipped by a same-judge
re-judge with another seed, 8.3% by a weaker judge). The task design effect is not known
either, so the figure is a lower bound: clustering multiplies it by sqrt(design effect)
(``compare`` prints the design effect it measured).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgeaudit.analysis import noninferiority as ni
from judgeaudit.analysis.frame import open_db, resolve_run
from judgeaudit.audit.store.schema import is_decisive


def rejudge_power(
    out: Path, run_id: str | None, margin: float = ni.DEFAULT_MARGIN
) -> dict[str, Any]:
    """Decisive pairs and tasks available in the source run, and the smallest rise the gate
    would detect with them at 80% power (None when it cannot detect any)."""
    db = open_db(out)
    try:
        chosen = resolve_run(db, run_id)
        pairs, tasks, inconsistent = db.execute(
            "SELECT COUNT(*), COUNT(DISTINCT task_id), "
            "COALESCE(SUM(CASE WHEN consistent = 0 THEN 1 ELSE 0 END), 0) "
            f"FROM audit_pairs WHERE run_id = ? AND {is_decisive()}",
            (chosen,),
        ).fetchone()
    finally:
        db.close()
    discordance = inconsistent / pairs if pairs else 0.0
    return {
        "run_id": chosen,
        "decisive_pairs": int(pairs),
        "tasks": int(tasks),
        "assumed_discordance": discordance,
        "detectable_rise": ni.detectable_rise(int(pairs), max(discordance, 1e-6)),
        "power": ni.POWER,
        "margin": margin,
        "min_pairs": ni.min_pairs(margin),
    }


def power_lines(power: dict[str, Any]) -> list[str]:
    rise = power["detectable_rise"]
    shown = "none up to 99 points" if rise is None else f"~{rise * 100:.1f} points"
    lines = [
        f"  gate power: {power['decisive_pairs']} decisive pairs over {power['tasks']} tasks in "
        f"{power['run_id']}; smallest rise detectable at {power['power'] * 100:.0f}% power: "
        f"{shown} (at {power['assumed_discordance'] * 100:.1f}% of pairs flipping, the source's "
        "order-inconsistent share; task clustering raises it by sqrt(design effect))",
    ]
    if power["decisive_pairs"] < power["min_pairs"]:
        lines.append(
            f"  with under {power['min_pairs']} decisive pairs the gate cannot show 'not worse' "
            f"within {power['margin'] * 100:g} points even if no verdict flips"
        )
    return lines
