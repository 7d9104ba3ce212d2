"""Drift between two runs: what changed in the manifests, and how misselection moved per bucket."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgeaudit.analysis.report import ReportOptions, build_report
from judgeaudit.analysis.stats import newcombe_diff

WATCHED = ("prompts.hashes", "models", "task_set.hash", "settings", "seed", "tool_version")


def _flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(data, dict):
        out: dict[str, Any] = {}
        for key, value in data.items():
            out.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(data, list) and data and all(isinstance(x, dict) for x in data):
        out = {}
        for index, value in enumerate(data):
            out.update(_flatten(value, f"{prefix}[{index}]"))
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


def compare(
    out_a: Path,
    out_b: Path,
    run_a: str | None = None,
    run_b: str | None = None,
    options: ReportOptions | None = None,
) -> dict[str, Any]:
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
    rows = []
    for before, after in zip(base["buckets"], new["buckets"], strict=True):
        diff, low, high = newcombe_diff(
            before["misselected"], before["decisive"], after["misselected"], after["decisive"]
        )
        rows.append(
            {
                "label": before["label"],
                "alias": before["alias"],
                "before": before["rate"],
                "n_before": before["decisive"],
                "after": after["rate"],
                "n_after": after["decisive"],
                "change": diff,
                "ci_low": low,
                "ci_high": high,
                "significant_rise": bool(low is not None and low > 0),
                "significant_fall": bool(high is not None and high < 0),
            }
        )
    return {
        "run_a": base["run_id"],
        "run_b": new["run_id"],
        "gap_source": base["gap_source"],
        "manifest_changes": manifest_changes(base["manifest"], new["manifest"]),
        "buckets": rows,
        "rises": [r["label"] for r in rows if r["significant_rise"]],
    }


def render_compare(result: dict[str, Any]) -> str:
    def pct(v: float | None) -> str:
        return "n/a" if v is None else f"{v * 100:.1f}%"

    lines = [f"compare {result['run_a']} -> {result['run_b']} (gap source {result['gap_source']})"]
    lines.append("manifest changes:" if result["manifest_changes"] else "manifest changes: none")
    for change in result["manifest_changes"]:
        lines.append(f"  {change['key']}: {change['before']!r} -> {change['after']!r}")
    lines.append("misselection per bucket (change, 95% Newcombe interval):")
    for r in result["buckets"]:
        flag = "  RISE" if r["significant_rise"] else "  fall" if r["significant_fall"] else ""
        interval = (
            "n/a"
            if r["ci_low"] is None
            else f"[{r['ci_low'] * 100:+.1f}, {r['ci_high'] * 100:+.1f}]"
        )
        change = "n/a" if r["change"] is None else f"{r['change'] * 100:+.1f} pts"
        lines.append(
            f"  {r['label']} {r['alias']:<7} {pct(r['before'])} (n={r['n_before']}) -> "
            f"{pct(r['after'])} (n={r['n_after']})  {change} {interval}{flag}"
        )
    return "\n".join(lines)
