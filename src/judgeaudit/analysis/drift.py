"""Drift between two runs: what changed in the manifests, and how misselection moved per bucket."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgeaudit.analysis.fmt import (  # the row's interval: one owner, shared with gate_ties
    NO_FLIPS,
    TASK_WILSON,
    bucket_columns,
    change_interval,
    pts,
    row_moved,
    with_ci,
)
from judgeaudit.analysis.frame import AnalysisError, open_db
from judgeaudit.analysis.gate import (
    coverage_lines,
    decide_rows,
    gate_lines,
    tie_aware_rose,
    verdict_text,
)
from judgeaudit.analysis.gate_verdicts import verdict_check
from judgeaudit.analysis.noninferiority import DEFAULT_MARGIN
from judgeaudit.analysis.paired import (
    PAIRED_METHOD,
    UNPAIRED_METHOD,
    gate,
    multiplicity_text,
    paired_rows,
    unpaired_rows,
)
from judgeaudit.analysis.pairing import pair_runs, run_lineage
from judgeaudit.analysis.report import ReportOptions, build_report
from judgeaudit.analysis.split import run_figures
from judgeaudit.analysis.unfinished import run_status
from judgeaudit.analysis.verdicts import missing_per_order, unmeasured_refusal
from judgeaudit.audit.spec.records import recorded_verdicts

WATCHED = ("prompts.hashes", "models", "task_set.hash", "settings", "seed", "tool_version")


def _flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(data, dict):
        out: dict[str, Any] = {}
        for key, value in data.items():
            out.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(data, list) and not data:
        return {}  # an empty list shows as its former entries going, not as a value of its own
    if isinstance(data, list) and all(isinstance(x, dict) for x in data):
        names = [x.get("name") for x in data]
        # by name when each entry has its own (agents): adding one agent is one change, not a
        # shift of every later entry's index
        keyed = all(isinstance(n, str) and n for n in names) and len(set(names)) == len(names)
        out = {}
        for index, value in enumerate(data):
            out.update(_flatten(value, f"{prefix}[{names[index] if keyed else index}]"))
        return out
    return {prefix: data}


#: The hash of a run's tasks alone (manifests since the twentieth session): when both runs have
#: it, it says whether the task set changed, not ``task_set.hash``, which is of the whole input
#: file (two recorded runs of the same pairs with other verdicts have different ones).
TASKS_HASH = "task_set.tasks_hash"


def task_set_key(task_sets: list[dict[str, Any]]) -> str:
    """Which of the manifests' ``task_set`` fields tells runs' task sets apart, for `compare`
    and for a `trend` series: ``tasks_hash`` (the tasks alone) when every run has it, else
    ``hash`` (the input file's): a manifest from before the twentieth session has no tasks
    hash, so runs mixed with one fall back to what they all have."""
    return "tasks_hash" if task_sets and all(t.get("tasks_hash") for t in task_sets) else "hash"


def manifest_changes(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    fa, fb = _flatten(a), _flatten(b)
    both = task_set_key([a.get("task_set") or {}, b.get("task_set") or {}]) == "tasks_hash"
    skipped = "task_set.hash" if both else TASKS_HASH  # an older manifest: the file's hash
    changes = []
    for key in sorted(set(fa) | set(fb)):
        if not key.startswith((*WATCHED, TASKS_HASH)) or key == skipped:
            continue
        if fa.get(key) != fb.get(key):
            changes.append({"key": key, "before": fa.get(key), "after": fb.get(key)})
    return changes


def compare(
    out_a: Path,
    out_b: Path,
    run_a: str | None = None,
    run_b: str | None = None,
    options: ReportOptions | None = None,
    margin: float = DEFAULT_MARGIN,
) -> dict[str, Any]:
    """Drift from run A to run B: manifest changes, and misselection per bucket, paired when
    B and A judged the same stored trajectories (see ``analysis/paired.py``). Paired results
    carry the gate's three-way verdict per row (``verdict``) and overall (``gate``), the same
    entry for the CLI and the TUI; unpaired ones carry ``gate: None``."""
    options = options or ReportOptions()
    # Without the style model: compare shows none of it, and its fit is most of a report's
    # time on a large run (about 60 s a side at 504 tasks).
    base = build_report(
        out_a,
        ReportOptions(run_a, options.gap_source, options.bins, options.labels, style=False),
    )
    new = build_report(
        out_b,
        ReportOptions(
            run_b,
            base["gap_source"],
            base["bins"],
            [b["label"] for b in base["buckets"]],
            style=False,
        ),
    )
    for side, out, report in (("A", out_a, base), ("B", out_b, new)):
        recorded = recorded_verdicts(report["manifest"])
        refusal = unmeasured_refusal(
            side, report["run_id"], out, report["verdicts"], recorded=recorded
        )
        if refusal:
            raise AnalysisError(refusal)
    a, b = run_lineage(out_a, base["run_id"]), run_lineage(out_b, new["run_id"])
    pairs_with = pair_runs(out_a, a, out_b, b)
    paired = pairs_with.paired
    labels = [x["label"] for x in base["buckets"]]
    pairing: dict[str, Any] | None = None
    method: dict[str, Any]
    if paired:
        rows, overall, pairing = paired_rows(
            a["pairs"], b["pairs"], base["gap_source"], base["bins"], labels
        )
        pairing["basis"] = pairs_with.basis
        method = dict(PAIRED_METHOD)
    else:
        rows, overall = unpaired_rows(
            base["buckets"], new["buckets"], base.get("overall"), new.get("overall")
        )
        method = dict(UNPAIRED_METHOD)
    family = gate(rows, overall)
    aliases = {x["label"]: x["alias"] for x in base["buckets"]}
    for row in rows:
        row["alias"] = aliases[row["label"]]
    overall["alias"] = ""
    method["multiplicity"] = multiplicity_text(rows, overall, family)
    decided_by = f"{method['test']}{', ' if family else '; '}{method['multiplicity']}" + (
        "" if paired else "; for information only, unpaired runs are not gated"
    )
    shared = set(a["pairs"]["task_id"]) & set(b["pairs"]["task_id"])
    result = {
        "run_a": base["run_id"],
        "run_b": new["run_id"],
        "status_a": run_status(out_a, base["status"]),  # a killed run: "stopped", as shown
        "status_b": run_status(out_b, new["status"]),
        "shared_tasks": len(shared),
        "verdicts": verdict_check(
            base["verdicts"],
            new["verdicts"],
            _missing(out_a, base["run_id"]),
            _missing(out_b, new["run_id"]),
        ),
        "gap_source": base["gap_source"],
        "bins": base["bins"],
        "paired": paired,
        "unpaired_because": pairs_with.because,
        "pairing": pairing,
        "method": method,
        "decided_by": decided_by,
        # a recorded run's judge model and prompt hash as its verdicts name them
        "manifest_changes": manifest_changes(a["manifest"], b["manifest"]),
        "recorded": {"a": a["recorded"], "b": b["recorded"]},
        "buckets": rows,
        "overall": overall,
        "rises": [r["label"] for r in [*rows, overall] if r["significant_rise"]],
        "gate": None,
        # each run's own report figures (split, tie-aware rate, position bias), as `report` has them
        "figures": {"a": run_figures(base), "b": run_figures(new)},
    }
    if paired:
        scale = {
            # more trials only add pairs when run A simulated its own conversations
            "trials": (base["manifest"].get("settings") or {}).get("trials")
            if a["own_agents"]
            else None,
            "cost_per_decisive": _cost_per_decisive(out_b, new["run_id"], overall["n_after"]),
        }
        result["gate"] = decide_rows(result, margin, scale)
    return result


def _missing(out: Path, run_id: str) -> dict[tuple[Any, ...], float]:
    """Whether each of a run's judged orders has no verdict (the no-verdict rise test)."""
    db = open_db(out)
    try:
        return missing_per_order(db, run_id)
    finally:
        db.close()


def _cost_per_decisive(out: Path, run_id: str, decisive: int) -> float | None:
    """Run B's judge cost per decisive pair (None without prices or pairs)."""
    db = open_db(out)
    try:
        row = db.execute(
            "SELECT SUM(cost_usd), COUNT(cost_usd) FROM calls WHERE run_id = ? AND role = 'judge'",
            (run_id,),
        ).fetchone()
    finally:
        db.close()
    if not decisive or row is None or not row[1]:
        return None
    return float(row[0]) / decisive


def bound_pts(upper: float, margin: float | None) -> str:
    """The gate's bound in points, with as many decimals (up to 4) as it takes to read on the
    side of the margin it is on: a bound of 1.977 at a 2-point margin printed "+2.0" beside
    "not worse" (the rule is "below the margin")."""
    value, decimals = upper * 100, 1
    while margin is not None and decimals < 4:
        shown = round(value, decimals)
        if shown != margin * 100 and (shown < margin * 100) == (value < margin * 100):
            break
        decimals += 1
    at = (
        " (at the margin)"
        if margin is not None and round(value, 4) == round(margin * 100, 4)
        else ""
    )
    return f"{value:+.{decimals}f}{at}"


def tie_aware_row(result: dict[str, Any]) -> dict[str, Any] | None:
    """The gate's second criterion, the overall tie-aware rate (a tie counts half a loss) of the
    paired pairs, as `compare` prints it and the app's drift table shows it (its row under
    overall): None where the comparison has none (unpaired runs, no decisive pair)."""
    tie = result["overall"].get("tie_aware")
    if not tie or not tie["n"]:
        return None
    margin = (result.get("gate") or {}).get("margin")
    verdict = tie.get("verdict") or ""
    moved = tie["half_steps_up"] + tie["half_steps_down"]
    return {
        # each run's rate with its interval over these pairs (the report's rule, as every
        # other rate compare prints)
        "before": with_ci(tie["before"], tie.get("ci_before"), "[no CI]"),
        "after": with_ci(tie["after"], tie.get("ci_after"), "[no CI]"),
        "n": tie["n"],
        "change": pts(tie["change"]),
        "interval": change_interval(tie, moved),
        "bound": None if tie["upper"] is None else bound_pts(tie["upper"], margin),
        # nothing moved: nothing tested, said as a misselection row says it
        "p": f"{tie['p_value']:.3g}" if moved else NO_FLIPS,
        "tested": bool(moved),
        "alpha": f"{tie['alpha']:g}",
        "rise": tie_aware_rose(tie),
        "verdict": verdict.upper() if verdict == "worse" else verdict,
    }


def render_compare(result: dict[str, Any]) -> str:
    lines = [f"compare {result['run_a']} -> {result['run_b']} (gap source {result['gap_source']})"]
    pairing = result["pairing"]
    if result["paired"]:
        lines.append(
            f"paired: {pairing['basis']}; {pairing['matched']} pairs matched, "
            f"{pairing['decisive']} decisive in both"
            + (
                f", {pairing['success_labels_differ']} with different success labels left out"
                if pairing["success_labels_differ"]
                else ""
            )
        )
    else:
        lines.append(f"unpaired: {result['unpaired_because']} (independent samples)")
    lines += coverage_lines(result)
    recorded = [k.upper() for k, v in (result.get("recorded") or {}).items() if v]
    note = (
        f" ({'runs A and B' if len(recorded) == 2 else 'run ' + recorded[0]}: judge model and prompt hash as the recorded verdicts "
        "name them)"
        if recorded
        else ""
    )
    lines.append(f"manifest changes{note}:" + ("" if result["manifest_changes"] else " none"))
    for change in result["manifest_changes"]:
        lines.append(f"  {change['key']}: {change['before']!r} -> {change['after']!r}")
    method = result["method"]
    lines.append(
        f"misselection per bucket: each run's rate with its 95% CI ({TASK_WILSON}); "
        f"change in points, interval {method['interval']}; "
        f"test {method['test']}" + (f"; bound {method['bound']}" if method.get("bound") else "")
    )
    for r in [*result["buckets"], result["overall"]]:
        flag = "  RISE" if r["significant_rise"] else "  fall" if r["significant_fall"] else ""
        interval = change_interval(r, row_moved(r))
        p = "p n/a" if r["p_adjusted"] is None else f"p={r['p_value']:.3g}"
        if r["p_adjusted"] is None and r["paired"] is not None and r["n_before"]:
            p = NO_FLIPS
        if r["p_adjusted"] is not None:
            p += f" (adjusted {r['p_adjusted']:.3g})"
        tasks = f", {r['tasks']} tasks" if r.get("tasks") else ""
        line = (
            f"  {bucket_columns(r)} {with_ci(r['before'], r.get('ci_before'), '[no CI]')} "
            f"(n={r['n_before']}{tasks}) -> {with_ci(r['after'], r.get('ci_after'), '[no CI]')} "
            f"(n={r['n_after']})  {pts(r['change'])} {interval}"
        )
        if r.get("upper") is not None:
            line += f" bound {bound_pts(r['upper'], (result.get('gate') or {}).get('margin'))}"
        line += f"  {p}"
        if r["paired"] is not None:
            flips = r["paired"]
            line += (
                f"  flipped {flips['flipped_to_misselected']} to misselected, "
                f"{flips['flipped_to_correct']} to correct"
            )
        verdict = verdict_text(r)
        if r is not result["overall"] and r.get("verdict") == "inconclusive":
            verdict += " (advice: the overall row decides the gate)"
        lines.append(line + flag + (f"  -> {verdict}" if verdict else ""))
    tie = tie_aware_row(result)
    if tie is not None:
        lines.append(
            f"  tie-aware overall (a tie counts half a loss) {tie['before']} (n={tie['n']}) -> "
            f"{tie['after']} (n={tie['n']})  {tie['change']} {tie['interval']}"
            + (f" bound {tie['bound']}" if tie["bound"] else "")
            + (f"  p={tie['p']} (alpha {tie['alpha']})" if tie["tested"] else f"  {tie['p']}")
            + (f"  -> {tie['verdict']}" if tie["verdict"] else "")
        )
    lines.append(f"decided by: {result['decided_by']}")
    lines += gate_lines(result)
    return "\n".join(lines)
