"""Each simulated figure's spread over seeds: one seed's report can say what ten do not.

`judgeaudit demo --seeds N` runs the demo once per seed (1..N) and hands the reports here;
every headline figure is collected per seed and summarised as min / median / max, and the two
claims the docs make about the demo are counted over the seeds (near-equal agents' interval
above the far-apart agents' interval; the four buckets falling monotonically; the gap model's
odds ratio below 1 with its interval).
"""

from __future__ import annotations

import itertools
import statistics
from typing import Any

from judgeaudit.analysis.report_types import Report

#: Where `demo --seeds` writes the spread, in its --out (guarded as every named output is).
SEEDS_JSON = "seeds.json"


def figures(report: Report) -> dict[str, float | None]:
    """The headline figures of one report, flat, by name."""
    out: dict[str, float | None] = {}
    for b in report["buckets"]:
        out[f"{b['alias']} misselection rate"] = b["rate"]
        out[f"{b['alias']} tie-aware rate"] = b.get("tie_aware_rate")
        out[f"{b['alias']} decisive pairs"] = b["decisive"]
    overall = report.get("overall", {})
    out["overall misselection rate"] = overall.get("rate")
    out["overall tie-aware rate"] = overall.get("tie_aware_rate")
    out["overall tie share"] = (
        overall["tie"] / overall["decisive"] if overall.get("decisive") else None
    )
    model = report.get("gap_model") or {}
    out["odds ratio per 0.1 of gap"] = model.get("odds_ratio_per_0_1")
    sbf = report["satisfied_but_failed"]
    out["failed although judge satisfied"] = sbf["judge"]["rate"]
    out["failed although user simulator satisfied"] = sbf["user_simulator"]["rate"]
    for bias in report["position_bias"][:1]:
        out["swap-consistent"] = bias["consistency_rate"]
        out["first position wins (decided orders)"] = bias["first_position_win_rate"]["rate"]
        out["order disagreements won by first"] = bias["flips_won_by_first"]["rate"]
    return out


def claims(report: Report) -> dict[str, bool]:
    """The demo's claims, true or false for one seed."""
    rates = [b["rate"] for b in report["buckets"]]
    near, large = report["buckets"][0], report["buckets"][-1]
    model = report.get("gap_model") or {}
    ci: list[float] = model.get("ci") or []
    near_rate, large_rate = near["rate"], large["rate"]
    near_low, large_high = near["ci_low"], large["ci_high"]
    known = [r for r in rates if r is not None]
    return {
        "near rate above large rate": near_rate is not None
        and large_rate is not None
        and near_rate > large_rate,
        "near interval above large interval": near_low is not None
        and large_high is not None
        and near_low > large_high,
        "buckets fall monotonically": len(known) == len(rates)
        and all(a >= b for a, b in itertools.pairwise(known)),
        "odds ratio per 0.1 below 1 (interval)": len(ci) == 2 and ci[1] < 1,
    }


def spread(reports: dict[int, Report]) -> dict[str, Any]:
    """Per figure min / median / max over the seeds, and each claim's count of seeds."""
    per_seed = {seed: figures(r) for seed, r in reports.items()}
    names = list(next(iter(per_seed.values())))
    table = {}
    for name in names:
        values = [v for f in per_seed.values() if (v := f.get(name)) is not None]
        table[name] = {
            "min": min(values) if values else None,
            "median": statistics.median(values) if values else None,
            "max": max(values) if values else None,
            "by_seed": {seed: f.get(name) for seed, f in per_seed.items()},
        }
    held = {seed: claims(r) for seed, r in reports.items()}
    counts = {claim: sum(h[claim] for h in held.values()) for claim in next(iter(held.values()))}
    return {"seeds": sorted(reports), "figures": table, "claims": counts}


def spread_lines(summary: dict[str, Any]) -> list[str]:
    """The spread as a text table (rates in percent, counts and odds ratios as numbers)."""
    n = len(summary["seeds"])
    lines = [f"over {n} seeds ({summary['seeds'][0]}..{summary['seeds'][-1]}): min / median / max"]
    for name, row in summary["figures"].items():
        if row["min"] is None:
            continue
        scale, unit = (1, "") if "pairs" in name or "odds" in name else (100, "%")
        cells = " / ".join(f"{row[k] * scale:.1f}{unit}" if scale == 100 else f"{row[k]:.3g}"
                           for k in ("min", "median", "max"))  # fmt: skip
        lines.append(f"  {name:<44} {cells}")
    lines.append("claims, seeds where each holds:")
    for claim, count in summary["claims"].items():
        lines.append(f"  {claim:<44} {count}/{n}")
    return lines
