"""Drift between two runs: what changed in the manifests, and how misselection moved per bucket."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judgeaudit.analysis.frame import load_pairs, open_db, resolve_run
from judgeaudit.analysis.gate import coverage_lines, verdict_check
from judgeaudit.analysis.paired import (
    ALPHA,
    PAIRED_METHOD,
    UNPAIRED_METHOD,
    gate,
    paired_rows,
    unpaired_rows,
)
from judgeaudit.analysis.report import ReportOptions, build_report

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


def manifest_changes(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    fa, fb = _flatten(a), _flatten(b)
    changes = []
    for key in sorted(set(fa) | set(fb)):
        if not key.startswith(WATCHED):
            continue
        if fa.get(key) != fb.get(key):
            changes.append({"key": key, "before": fa.get(key), "after": fb.get(key)})
    return changes


def run_lineage(out: Path, run_id: str | None) -> dict[str, Any]:
    """A run's identity and the run whose conversations it judged (itself, unless a re-judge)."""
    db = open_db(out)
    try:
        chosen = resolve_run(db, run_id)
        row = db.execute("SELECT * FROM runs WHERE run_id = ?", (chosen,)).fetchone()
        pairs = load_pairs(db, chosen)
    finally:
        db.close()
    manifest = json.loads(row["manifest"])
    key = manifest.get("run_uid") or f"{row['run_id']}:{row['spec_hash']}:{row['created_at']}"
    trajectories = manifest.get("trajectories") or {}
    return {
        "run_id": chosen,
        "key": key,
        "root": trajectories.get("root") or key,
        "source_run_id": trajectories.get("source_run_id"),
        "pairs": pairs,
    }


def compare(
    out_a: Path,
    out_b: Path,
    run_a: str | None = None,
    run_b: str | None = None,
    options: ReportOptions | None = None,
) -> dict[str, Any]:
    """Drift from run A to run B: manifest changes, and misselection per bucket, paired when
    B and A judged the same stored trajectories (see ``analysis/paired.py``)."""
    options = options or ReportOptions()
    base = build_report(
        out_a, ReportOptions(run_a, options.gap_source, options.bins, options.labels)
    )
    new = build_report(
        out_b,
        ReportOptions(
            run_b, base["gap_source"], base["bins"], [b["label"] for b in base["buckets"]]
        ),
    )
    a, b = run_lineage(out_a, base["run_id"]), run_lineage(out_b, new["run_id"])
    paired = a["root"] == b["root"]
    labels = [x["label"] for x in base["buckets"]]
    pairing: dict[str, Any] | None = None
    method: dict[str, Any]
    if paired:
        rows, overall, pairing = paired_rows(
            a["pairs"], b["pairs"], base["gap_source"], base["bins"], labels
        )
        pairing["basis"] = _basis(a, b)
        method = dict(PAIRED_METHOD)
    else:
        rows, overall = unpaired_rows(base["buckets"], new["buckets"])
        method = dict(UNPAIRED_METHOD)
    family = gate(rows, overall)
    aliases = {x["label"]: x["alias"] for x in base["buckets"]}
    for row in rows:
        row["alias"] = aliases[row["label"]]
    overall["alias"] = ""
    decided_by = (
        f"{method['test']}, Holm-adjusted across the {family} tests with data (buckets and "
        f"overall), alpha {ALPHA}"
    )
    shared = set(a["pairs"]["task_id"]) & set(b["pairs"]["task_id"])
    return {
        "run_a": base["run_id"],
        "run_b": new["run_id"],
        "status_a": base["status"],
        "status_b": new["status"],
        "shared_tasks": len(shared),
        "verdicts": verdict_check(base["verdicts"], new["verdicts"]),
        "gap_source": base["gap_source"],
        "bins": base["bins"],
        "paired": paired,
        "pairing": pairing,
        "method": method,
        "decided_by": decided_by,
        "manifest_changes": manifest_changes(base["manifest"], new["manifest"]),
        "buckets": rows,
        "overall": overall,
        "rises": [r["label"] for r in [*rows, overall] if r["significant_rise"]],
    }


def _basis(a: dict[str, Any], b: dict[str, Any]) -> str:
    if a["key"] == b["key"]:
        return "the same run"
    if b["source_run_id"] == a["run_id"]:
        return f"{b['run_id']} re-judges {a['run_id']}'s trajectories"
    if a["source_run_id"] == b["run_id"]:
        return f"{a['run_id']} re-judges {b['run_id']}'s trajectories"
    return "both re-judge the trajectories of the same run"


def render_compare(result: dict[str, Any]) -> str:
    def pct(v: float | None) -> str:
        return "n/a" if v is None else f"{v * 100:.1f}%"

    def pts(v: float | None) -> str:
        return "n/a" if v is None else f"{v * 100:+.1f}"

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
        lines.append("unpaired: the runs judged different conversations (independent samples)")
    lines += coverage_lines(result)
    lines.append("manifest changes:" if result["manifest_changes"] else "manifest changes: none")
    for change in result["manifest_changes"]:
        lines.append(f"  {change['key']}: {change['before']!r} -> {change['after']!r}")
    method = result["method"]
    lines.append(
        f"misselection per bucket: change in points, interval {method['interval']}; "
        f"test {method['test']}"
    )
    for r in [*result["buckets"], result["overall"]]:
        flag = "  RISE" if r["significant_rise"] else "  fall" if r["significant_fall"] else ""
        interval = "n/a" if r["ci_low"] is None else f"[{pts(r['ci_low'])}, {pts(r['ci_high'])}]"
        p = "p n/a" if r["p_adjusted"] is None else f"p={r['p_value']:.3g}"
        if r["p_adjusted"] is None and r["paired"] is not None and r["n_before"]:
            p = "no flips"
        if r["p_adjusted"] is not None:
            p += f" (Holm {r['p_adjusted']:.3g})"
        line = (
            f"  {r['label']} {r['alias']:<7} {pct(r['before'])} (n={r['n_before']}) -> "
            f"{pct(r['after'])} (n={r['n_after']})  {pts(r['change'])} {interval}  {p}"
        )
        if r["paired"] is not None:
            flips = r["paired"]
            line += (
                f"  flipped {flips['flipped_to_misselected']} to misselected, "
                f"{flips['flipped_to_correct']} to correct"
            )
        lines.append(line + flag)
    lines.append(f"decided by: {result['decided_by']}")
    return "\n".join(lines)
