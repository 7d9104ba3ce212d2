"""Choosing a judge: every run that judged the same trajectories, ranked by the tie-aware rate
(``(wrong + tie/2) / decisive``, the report's: a tie never counts as a misselection, so a judge
that answers "tie" to everything would rank first on misselection), misselection beside it, with
the paired three-way gate verdict against the best and the judges no other beats on both cost
and that rate (which rate ranks: :mod:`judgeaudit.analysis.judge_rank`, for the order, the
frontier and the change against the best alike).

One entry for the CLI (``judgeaudit judges``) and the TUI: :func:`leaderboard` returns the
rows; :func:`render_leaderboard` prints them as a table, JSON or Markdown. Each misselection
rate, the tie share, swap consistency and the no-verdict share have the report's own interval
(:func:`judgeaudit.analysis.clustered.interval`: Wilson with a task design effect), so a judge's
rate reads the same here as in its report; the comparison with the best is the gate's
(``analysis/noninferiority.py``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from judgeaudit.analysis import clustered
from judgeaudit.analysis import judge_rank as rank
from judgeaudit.analysis import noninferiority as ni
from judgeaudit.analysis.drift import compare
from judgeaudit.analysis.fmt import with_ci
from judgeaudit.analysis.frame import AnalysisError, decisive_mask, gap_series, open_db
from judgeaudit.analysis.leaderboard_runs import finished_runs, too_few
from judgeaudit.analysis.pairing import pair_runs, run_lineage
from judgeaudit.analysis.report import ReportOptions, build_report
from judgeaudit.analysis.verdicts import NOT_MEASURED, nothing_judged
from judgeaudit.analysis.why import UNSTABLE_SPAN, is_unstable, top_style_term


def leaderboard(outs: list[Path], margin: float = ni.DEFAULT_MARGIN) -> dict[str, Any]:
    """Rank the runs in ``outs`` that judged the conversations most of them judged."""
    candidates, left_out = finished_runs(outs)
    lineages = {(out, run): run_lineage(out, run) for out, run in candidates}
    if len(candidates) < 2:
        raise AnalysisError(too_few(outs, None, left_out, lineages))
    root = Counter(x["root"] for x in lineages.values()).most_common(1)[0][0]
    anchor = next((k for k, x in lineages.items() if x["root"] == root))
    chosen: list[tuple[Path, str]] = []
    for key, lineage in lineages.items():
        pairing = pair_runs(anchor[0], lineages[anchor], key[0], lineage)
        if pairing.paired:
            chosen.append(key)
        else:
            left_out.append((*key, pairing.because))
    if len(chosen) < 2:
        raise AnalysisError(too_few(outs, anchor[1], left_out, lineages))
    rows = [_judge_row(out, run, lineages[(out, run)]) for out, run in chosen]
    # a judge that never answered is not measured (its all-tie 0% is no rate): last, unranked
    # against the others, and never the best, a frontier judge or a gate's baseline; the rest
    # by the rank's key (judge_rank: the tie-aware rate, so a judge that stops deciding is not
    # the best), then misselection; the frontier and the change against the best are the key's
    rows.sort(key=rank.order)
    measured = [r for r in rows if r["measured"]]
    best = measured[0] if measured else None
    for row in rows:
        row["rank"] = rows.index(row) + 1
        row["vs_best"] = (
            None
            if best is None or row is best or not row["measured"]
            else (_vs_best(best, row, margin))
        )
    axis = "cost_usd" if all(r["cost_usd"] is not None for r in rows) else "tokens"
    for row in rows:
        row["frontier"] = row["measured"] and not any(
            rank.beats(other, row, axis) for other in measured if other is not row
        )
    return {
        "margin": margin,
        "cost_axis": axis,
        "judges": rows,
        "left_out": [
            {"out": str(o), "run_id": r, "because": why, "finished": (o, r) in lineages}
            for o, r, why in left_out
        ],
        "method": {
            "interval": f"95%, {clustered.METHOD} (the report's)",
            "rank": f"{rank.RANK_NAME}, {rank.RANK_FORMULA} (the report's), then misselection",
            "vs_best": "the paired gate of `compare --fail-on-rise` (best as run A); the change "
            f"is {rank.RANK_NAME}'s (misselection's when the gate failed on it alone)",
            "frontier": rank.frontier_rule(axis),
        },
    }


def _rate(part: pd.DataFrame, column: str = "missel") -> dict[str, Any]:
    """The share of ``part``'s rows whose 0/1 ``column`` is 1, with the report's interval."""
    per_task = part.groupby("task_id")[column].agg(["sum", "count"])
    sums = clustered.Sums.of(
        list(zip(per_task["sum"].astype(float), per_task["count"].astype(float), strict=True))
    )
    ci = clustered.interval(sums)
    return {
        "rate": ci["rate"],
        "n": int(sums.n),
        "tasks": sums.clusters,
        "ci_low": ci["ci_low"],
        "ci_high": ci["ci_high"],
    }


def _judge_row(out: Path, run_id: str, lineage: dict[str, Any]) -> dict[str, Any]:
    report = build_report(out, ReportOptions(run_id))
    pairs = lineage["pairs"]
    decisive = pairs[decisive_mask(pairs)].assign(
        missel=lambda f: f["misselected"].fillna(0).astype(int)
    )
    first = report["buckets"][0]
    near = decisive[
        pd.cut(gap_series(decisive, report["gap_source"]), report["bins"], labels=False).eq(0)
    ]
    manifest = lineage["manifest"]  # a recorded run's: the judge its verdicts name
    consistency: Mapping[str, Any] = report["position_bias"][0] if report["position_bias"] else {}
    verdicts = report["verdicts"]
    usage = _usage(out, run_id)
    # over decisive pairs, as the report's and the trend's tie counts (not all pairs)
    ties = _rate(decisive.assign(tie=(decisive["judge_pref"] == "tie").astype(int)), "tie")
    given = verdicts["orders"] - verdicts["no_verdict_orders"]
    measured = not nothing_judged(verdicts)
    overall: Mapping[str, Any] = report.get("overall") or {}
    row = {
        "out": str(out),
        "run_id": run_id,
        "judge_model": (manifest.get("models", {}).get("judge") or {}).get("model"),
        "recorded": lineage["recorded"],
        "prompt_hash": (manifest.get("prompts", {}).get("hashes") or {}).get("judge"),
        # False when the judge gave no verdict on any order: its misselection is then not a rate
        "measured": measured,
        "not_measured": None if measured else NOT_MEASURED,
        "tie_aware": {  # the report's (analysis/split.py), the rank's key
            "rate": overall.get("tie_aware_rate"),
            "ci_low": (overall.get("tie_aware_ci") or [None, None])[0],
            "ci_high": (overall.get("tie_aware_ci") or [None, None])[1],
        },
        "misselection": _rate(decisive),
        "near": {"label": first["label"], "alias": first.get("alias"), **_rate(near)},
        "tie_share": ties["rate"],
        "tie_share_ci": [ties["ci_low"], ties["ci_high"]],  # over decisive pairs
        "position_consistency": consistency.get("consistency_rate"),
        "position_consistency_ci": consistency.get("consistency_rate_ci", [None, None]),
        # how much of it is tie/tie, and the consistency where an order named a side
        # (position.agreement: an always-tie judge is 100% consistent, all of it tie/tie)
        "position_consistent": consistency.get("consistent"),
        "position_both_tie": consistency.get("both_tie"),
        "position_decided_consistency": consistency.get("decided_consistency_rate"),
        "position_decided_consistency_ci": consistency.get(
            "decided_consistency_rate_ci", [None, None]
        ),
        "no_verdict_rate": verdicts["no_verdict_rate"],
        # over judged orders (two a swapped pair), task-clustered: the report's own interval
        "no_verdict_rate_ci": verdicts.get("no_verdict_rate_ci", [None, None]),
        "satisfied_but_failed": report["satisfied_but_failed"]["judge"]["rate"],
        "satisfied_but_failed_ci": [  # the report's interval for that rate
            report["satisfied_but_failed"]["judge"]["ci_low"],
            report["satisfied_but_failed"]["judge"]["ci_high"],
        ],
        "tokens": usage["tokens"],
        "cost_usd": usage["cost_usd"],
        "cost_per_1000_verdicts": None
        if usage["cost_usd"] is None or not given
        else usage["cost_usd"] / given * 1000,
        "latency_p50_ms": usage["p50"],
        "latency_p95_ms": usage["p95"],
        "style": _style(report["style"]),
    }
    return row if measured else _unmeasured(row)


def _unmeasured(row: dict[str, Any]) -> dict[str, Any]:
    """A row whose judge gave no verdict on any order: its judge figures are no rates (JSON
    null, ``not_measured`` says why), not an all-tie 0% with an interval."""
    none: dict[str, Any] = {"rate": None, "ci_low": None, "ci_high": None}
    return {
        **row,
        "misselection": {**row["misselection"], **none},
        "near": {**row["near"], **none},
        "tie_aware": dict(none),
        "tie_share": None,
        "tie_share_ci": [None, None],
        "position_consistency": None,
        "position_consistency_ci": [None, None],
        "position_decided_consistency": None,
        "position_decided_consistency_ci": [None, None],
        "satisfied_but_failed": None,
        "satisfied_but_failed_ci": [None, None],
    }


def _style(section: dict[str, Any]) -> dict[str, Any] | None:
    """The largest stable feature odds ratio of the report's style model (docs/why.md; an
    unstable one only when no term is stable), or None."""
    top = top_style_term(section)
    if top is None:
        return None
    keep = ("feature", "odds_ratio", "ci_low", "ci_high", "kind")
    return {**{k: top[k] for k in keep}, "unstable": is_unstable(top)}


def _usage(out: Path, run_id: str) -> dict[str, Any]:
    db = open_db(out)
    try:
        calls = pd.read_sql_query(
            "SELECT prompt_tokens, completion_tokens, latency_ms, cost_usd FROM calls "
            "WHERE run_id = ? AND role = 'judge'",
            db,
            params=(run_id,),
        )
    finally:
        db.close()
    latency = calls["latency_ms"].dropna()
    priced = calls["cost_usd"].notna().any()
    return {
        "tokens": int(
            calls["prompt_tokens"].fillna(0).sum() + calls["completion_tokens"].fillna(0).sum()
        ),
        "cost_usd": float(calls["cost_usd"].fillna(0).sum()) if priced else None,
        "p50": float(latency.quantile(0.5)) if len(latency) else None,
        "p95": float(latency.quantile(0.95)) if len(latency) else None,
    }


def _vs_best(best: dict[str, Any], row: dict[str, Any], margin: float) -> dict[str, Any]:
    return rank.versus(
        compare(Path(best["out"]), Path(row["out"]), best["run_id"], row["run_id"], margin=margin)
    )


def cells(row: dict[str, Any]) -> dict[str, str]:
    """One judge's printed cells by header (the CLI's table and Markdown, and the app's table)."""
    return dict(zip(HEADERS, _cells(row), strict=True))


def _cells(row: dict[str, Any]) -> list[str]:
    m, near = row["misselection"], row["near"]

    def rate(x: dict[str, Any]) -> str:
        return with_ci(x["rate"], [x["ci_low"], x["ci_high"]])

    versus = rank.versus_cell(row["vs_best"])
    if not row["measured"]:
        # no verdict on any order: its 0% misselection, ties and consistency are no figures
        return [str(row["rank"]), judge_cell(row), prompt_cell(row["prompt_hash"]),
                "not measured", "not measured", "not measured", "not measured", "not measured",
                with_ci(row["no_verdict_rate"], row.get("no_verdict_rate_ci"), "[no CI]"),
                "not measured", str(row["tokens"]), "n/a", _latency(row), style_cell(row["style"]),
                "not measured: no verdict", row["run_id"]]  # fmt: skip
    cost = row["cost_per_1000_verdicts"]
    return [
        str(row["rank"]),
        judge_cell(row) + (" *" if row["frontier"] else ""),
        prompt_cell(row["prompt_hash"]),
        rate(row["tie_aware"]),
        rate(m),
        rate(near),
        with_ci(row["tie_share"], row.get("tie_share_ci")),
        with_ci(row["position_consistency"], row.get("position_consistency_ci")) + _tie_tie(row),
        with_ci(row["no_verdict_rate"], row.get("no_verdict_rate_ci"), "[no CI]"),
        with_ci(row["satisfied_but_failed"], row.get("satisfied_but_failed_ci")),
        str(row["tokens"]),
        "n/a" if cost is None else f"${cost:.4f}",
        _latency(row),
        style_cell(row["style"]),
        versus,
        row["run_id"],
    ]


#: A prompt hash longer than this is cut in the table (a recorded log's own label is kept whole
#: up to it: ``prompt-v1`` and ``prompt-v9`` both read ``prompt-v`` when cut at 8).
PROMPT_SHOWN = 24


def prompt_cell(value: object) -> str:
    """A judge prompt's hash as the table prints it: a hex digest's first 8 characters (as git
    shortens one); any other label, as recorded logs give, whole, or cut with ``…``."""
    text = str(value or "")
    if len(text) > 8 and all(c in "0123456789abcdef" for c in text.lower()):
        return text[:8]
    return text if len(text) <= PROMPT_SHOWN else text[: PROMPT_SHOWN - 1] + "…"


def _tie_tie(row: dict[str, Any]) -> str:
    """The consistent cell's tie/tie count: `` (tie/tie 12/12)`` (none before the twentieth
    session's reports, or without a pair judged in both orders)."""
    both, consistent = row.get("position_both_tie"), row.get("position_consistent")
    return "" if both is None or consistent is None else f" (tie/tie {both}/{consistent})"


def _latency(row: dict[str, Any]) -> str:
    lat = row["latency_p50_ms"], row["latency_p95_ms"]
    return "n/a" if lat[0] is None else f"{lat[0]:.0f}/{lat[1]:.0f}"


def judge_cell(row: dict[str, Any]) -> str:
    """The judge as its verdicts name it: ``recorded: M`` for verdicts read from a log."""
    model = row["judge_model"]
    if not row.get("recorded"):
        return str(model)
    return "recorded" if model is None else f"recorded: {model}"


def style_cell(style: dict[str, Any] | None) -> str:
    """The largest feature odds ratio and its feature: ``length 4.81``; ``n/a`` without a model;
    ``cites_ids 796 (unstable)`` when no term of the model is stable."""
    if style is None:
        return "n/a"
    value = style["odds_ratio"]
    cell = f"{style['feature']} {value:.3g}" if value < 1e4 else f"{style['feature']} {value:.2e}"
    return cell + (" (unstable)" if is_unstable(style) else "")


HEADERS = [
    "#",
    "judge",
    "prompt",
    "tie-aware [95% CI]",
    "misselection [95% CI]",
    "near [95% CI]",
    "ties [95% CI]",
    "consistent [95% CI]",
    "no verdict [95% CI]",
    "sat.-but-failed [95% CI]",
    "tokens",
    "$/1k verdicts",
    "p50/p95 ms",
    "top style OR",
    "vs best",
    "run",
]


def render_leaderboard(board: dict[str, Any], fmt: str = "table") -> str:
    if fmt == "json":
        return json.dumps(board, ensure_ascii=False, indent=2, default=str)
    rows = [_cells(r) for r in board["judges"]]
    notes = [
        f"ranked by {rank.RANK_NAME} {rank.RANK_FORMULA}: a tie counts half a loss, so a "
        "judge that stops deciding is not best; misselection (a tie never counts) and ties "
        f"beside it; all over decisive pairs; intervals {board['method']['interval']}; "
        f"vs best: {board['method']['vs_best']}, margin {board['margin'] * 100:g} points",
        "top style OR: the largest odds ratio of a transcript feature in the run's style model "
        f"(docs/why.md), and the feature; a term whose 95% interval spans over {UNSTABLE_SPAN:g}-"
        "fold is unstable and named only when no other is, marked (unstable)",
        f"* no other judge beats it on both {rank.RANK_NAME} and {board['cost_axis']} "
        f"({board['method']['frontier']})",
    ]
    unmeasured = [r["run_id"] for r in board["judges"] if not r["measured"]]
    if unmeasured:
        notes.append(
            f"{', '.join(unmeasured)}: {NOT_MEASURED}, so its all-tie 0% misselection is no "
            "rate; ranked last, never the best or on the frontier"
        )
    if board["left_out"]:
        notes.append(
            "left out (unfinished, or judged other conversations): "
            + "; ".join(
                f"{x['out']}#{x['run_id']}" + (f" ({x['because']})" if x.get("because") else "")
                for x in board["left_out"]
            )
        )
    if fmt == "md":
        lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
        return "\n".join([*lines, "", *notes])
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(HEADERS)]
    table = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in [HEADERS, *rows]
    ]
    return "\n".join([*table, *notes])
