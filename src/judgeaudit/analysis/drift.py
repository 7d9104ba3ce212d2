"""Drift between two runs: what changed in the manifests, and how misselection moved per bucket."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgeaudit.analysis.fmt import bucket_columns
from judgeaudit.analysis.frame import load_pairs, open_db, resolve_run, stored_manifest
from judgeaudit.analysis.gate import (
    coverage_lines,
    decide_rows,
    gate_lines,
    verdict_check,
    verdict_text,
)
from judgeaudit.analysis.noninferiority import DEFAULT_MARGIN
from judgeaudit.analysis.paired import (
    PAIRED_METHOD,
    UNPAIRED_METHOD,
    gate,
    multiplicity_text,
    paired_rows,
    unpaired_rows,
)
from judgeaudit.analysis.report import ReportOptions, build_report
from judgeaudit.analysis.split import run_figures

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
    manifest = stored_manifest(row["manifest"], str(row["run_id"]))
    key = manifest.get("run_uid") or f"{row['run_id']}:{row['spec_hash']}:{row['created_at']}"
    trajectories = manifest.get("trajectories") or {}
    return {
        "run_id": chosen,
        "key": key,
        "root": trajectories.get("root") or key,
        "source_run_id": trajectories.get("source_run_id"),
        "pairs": pairs,
        "own_agents": bool((manifest.get("models") or {}).get("agents")),
        "same_conversations": False,
    }


def same_conversations(out_a: Path, a: dict[str, Any], out_b: Path, b: dict[str, Any]) -> bool:
    """Whether two runs of different lineage judged the very same stored conversations: two
    runs over one imported pairs file (live and recorded verdicts, two judges' specs) or a
    re-judge of one against the other. Only runs that made no conversations of their own
    (imports, re-judges) are fingerprinted, so simulated runs are never read twice."""
    if a["own_agents"] or b["own_agents"]:
        return False
    same = _fingerprint(out_a, a["run_id"]) == _fingerprint(out_b, b["run_id"])
    a["same_conversations"] = b["same_conversations"] = same
    return same


#: Why two runs are compared as independent samples (``compare``'s line, the gate's refusal,
#: the app's Runs screen): runs that simulated their own conversations are never matched, even
#: when a deterministic provider made the same ones (docs/gate.md: seeds differ far more than
#: binomial noise); imported or re-judged conversations are matched when they are the same.
SIMULATED_APART = "each run simulated its own conversations"
DIFFERENT = "the runs judged different conversations"


def _unpaired_because(a: dict[str, Any], b: dict[str, Any]) -> str:
    if a["own_agents"] and b["own_agents"]:
        return SIMULATED_APART
    if a["own_agents"] or b["own_agents"]:
        return f"run {'A' if a['own_agents'] else 'B'} simulated its own conversations"
    return DIFFERENT


def _fingerprint(out: Path, run_id: str) -> str:
    """A digest of a run's conversations (task, agent, trial, events), not of its ids."""
    import hashlib

    digest = hashlib.sha256()
    db = open_db(out)
    try:
        rows = db.execute(
            "SELECT task_id, agent, trial, events FROM trajectories WHERE run_id = ? "
            "ORDER BY task_id, agent, trial",
            (run_id,),
        )
        for task_id, agent, trial, events in rows:
            digest.update(f"{task_id}\x1f{agent}\x1f{trial}\x1f".encode())
            digest.update(hashlib.sha256(str(events).encode()).digest())
    finally:
        db.close()
    return digest.hexdigest()


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
    a, b = run_lineage(out_a, base["run_id"]), run_lineage(out_b, new["run_id"])
    paired = a["root"] == b["root"] or same_conversations(out_a, a, out_b, b)
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
        "status_a": base["status"],
        "status_b": new["status"],
        "shared_tasks": len(shared),
        "verdicts": verdict_check(base["verdicts"], new["verdicts"]),
        "gap_source": base["gap_source"],
        "bins": base["bins"],
        "paired": paired,
        "unpaired_because": None if paired else _unpaired_because(a, b),
        "pairing": pairing,
        "method": method,
        "decided_by": decided_by,
        "manifest_changes": manifest_changes(base["manifest"], new["manifest"]),
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


def _basis(a: dict[str, Any], b: dict[str, Any]) -> str:
    if a["same_conversations"]:
        return "both judged the same stored conversations (the same imported pairs)"
    if a["key"] == b["key"]:
        return "the same run"
    if b["source_run_id"] == a["run_id"]:
        return f"{b['run_id']} re-judges {a['run_id']}'s trajectories"
    if a["source_run_id"] == b["run_id"]:
        return f"{a['run_id']} re-judges {b['run_id']}'s trajectories"
    return "both re-judge the trajectories of the same run"


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
        lines.append(f"unpaired: {result['unpaired_because']} (independent samples)")
    lines += coverage_lines(result)
    lines.append("manifest changes:" if result["manifest_changes"] else "manifest changes: none")
    for change in result["manifest_changes"]:
        lines.append(f"  {change['key']}: {change['before']!r} -> {change['after']!r}")
    method = result["method"]
    lines.append(
        f"misselection per bucket: change in points, interval {method['interval']}; "
        f"test {method['test']}" + (f"; bound {method['bound']}" if method.get("bound") else "")
    )
    for r in [*result["buckets"], result["overall"]]:
        flag = "  RISE" if r["significant_rise"] else "  fall" if r["significant_fall"] else ""
        interval = "n/a" if r["ci_low"] is None else f"[{pts(r['ci_low'])}, {pts(r['ci_high'])}]"
        p = "p n/a" if r["p_adjusted"] is None else f"p={r['p_value']:.3g}"
        if r["p_adjusted"] is None and r["paired"] is not None and r["n_before"]:
            p = "no flips"
        if r["p_adjusted"] is not None:
            p += f" (adjusted {r['p_adjusted']:.3g})"
        tasks = f", {r['tasks']} tasks" if r.get("tasks") else ""
        line = (
            f"  {bucket_columns(r)} {pct(r['before'])} (n={r['n_before']}{tasks}) -> "
            f"{pct(r['after'])} (n={r['n_after']})  {pts(r['change'])} {interval}"
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
        lines.append(line + flag + (f"  -> {verdict}" if verdict else ""))
    lines.append(f"decided by: {result['decided_by']}")
    lines += gate_lines(result)
    return "\n".join(lines)
