"""The gate's false-alarm rate and power over hundreds of re-judges, in this process.

``gate_calibration.py`` makes every run with the user's own commands (HTTP, SQLite, the CLI),
which costs 24-150 s per re-judge at 504 tasks: 40 null re-judges were all it could afford,
and they were gated against one shared source (correlated instances). Here each re-judge is
``inprocess_rejudge`` (equal to ``judgeaudit rejudge`` pair for pair, checked by
``tests/integration/test_inprocess_rejudge.py``), about 2.5 s at 504 tasks, and each gate is
the one ``compare --fail-on-rise`` computes (``paired_rows``, the weighted-Holm family ``gate``,
then ``decide_rows``), and beside it, on the same rows, the rule before it (plain Holm over the
rows, ``gate(..., share=None)``), the rule before the tie-aware criterion (misselection only,
the overall row's ``tie_aware`` left out) and the rule before the set-aside of a rise from
deciding run A's ties (``gate_ties``: the tie-aware fall's p left out) on the runs' pair tables; each re-judge carries its own
``judge_pref`` (its ties); ``compare``'s no-verdict check is left out, as these
simulated judges always give a verdict (one that did not would stop the bench). Reported, each with its 95% Wilson interval:

- disjoint null pairs: re-judges with seeds (s, s+1), s odd, gated one against the other: the
  independent null instances; "worse" is a false alarm, "not worse" the gate passing;
- null re-judges against the source: as the HTTP calibration does (they share the source);
- each weaker simulated judge, one re-judge per seed, against the source: "worse" is power;
- a judge that ties most pairs as run A and one that decides them as run B (``DECIDERS``, as
  many seeds): the judge should pass, the noisy judge's new decisions must not;
- beside "not worse", the mean of what the gate's "at this size" line printed as its chance of
  passing an unchanged judge (``gate_size.at_this_size``), to hold against the measured rate.

    python bench/gate_calibration_inprocess.py OUT --nulls 400 --weak-seeds 40 [--json FILE]
    python bench/gate_calibration_inprocess.py --pool A.json B.json   # counts of two halves
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import chi2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gate_null_spread import grouped
from bench.inprocess_rejudge import InProcessJudge, StoredPair, load_pairs

from judgeaudit.analysis.gate import decide_rows
from judgeaudit.analysis.noninferiority import DEFAULT_MARGIN
from judgeaudit.analysis.paired import OVERALL_SHARE, gate, pair_key, paired_rows, with_trials
from judgeaudit.analysis.pairing import run_lineage
from judgeaudit.analysis.report import ReportOptions, build_report
from judgeaudit.analysis.stats import wilson
from judgeaudit.audit.units.outcome import is_misselected

JUDGE = "judge-default"
WEAKER = [
    "judge-default:diligence=0,evidence=0.3,style=0.7",
    "judge-default:diligence=0,evidence=0.2,style=0.8",
    "judge-default:noise=3,position=0",
    "judge-default:position=2.5",  # decides less often: the tie-aware criterion's case
]
#: Run A ties most pairs, run B decides them (gate_ties' set-aside): the judge, which is better
#: on the tie-aware rate and should pass, and the noisy one, whose new decisions are worse.
DECIDERS = [
    ("judge-default:position=2.5", JUDGE),
    ("judge-default:position=2.5", "judge-default:noise=3,position=0"),
]


class Source:
    """The source run's pair table and buckets, and re-judged copies of it."""

    def __init__(self, out: Path) -> None:
        report = build_report(out, ReportOptions(style=False))
        self.gap_source, self.bins = report["gap_source"], report["bins"]
        self.labels = [b["label"] for b in report["buckets"]]
        self.frame = with_trials(run_lineage(out, report["run_id"])["pairs"])
        self.keys = pair_key(self.frame)
        self.pairs: list[StoredPair] = load_pairs(out)

    def rejudged(self, judge: InProcessJudge, seed: int) -> pd.DataFrame:
        """The source's pairs with this re-judge's misselection and preference (``judge_pref``:
        the gate's tie-aware criterion reads which side it picked, or a tie)."""
        prefs = {p.key: judge.preference(p, seed)[2] for p in self.pairs}
        missel = {
            p.key: int(is_misselected(p.success_a, p.success_b, prefs[p.key])) for p in self.pairs
        }
        return self.frame.assign(
            misselected=self.keys.map(missel).astype("Int64"), judge_pref=self.keys.map(prefs)
        )

    def gate(self, before: pd.DataFrame, after: pd.DataFrame, margin: float) -> dict[str, Any]:
        """The gate's exit by its rule (weighted Holm) and, on the same rows, by plain Holm over
        the rows (the rule before: side by side on the same re-judges)."""
        rows, overall, _ = paired_rows(before, after, self.gap_source, self.bins, self.labels)
        exits: dict[str, int] = {}
        verdicts: dict[str, Any] = {}
        for rule, share in (
            ("exit", OVERALL_SHARE),
            ("exit_holm", None),
            ("exit_untied", OVERALL_SHARE),
            ("exit_no_aside", OVERALL_SHARE),
        ):
            buckets, whole = copy.deepcopy(rows), copy.deepcopy(overall)
            if rule == "exit_untied":  # the rule before the tie-aware criterion: misselection only
                whole.pop("tie_aware")
            if (
                rule == "exit_no_aside"
            ):  # the rule before gate_ties: no tie-aware fall, no set-aside
                whole["tie_aware"].pop("p_fall")
            gate(buckets, whole, share)
            result = {"buckets": buckets, "overall": whole}
            decided = decide_rows(result, margin, {"trials": None, "cost_per_decisive": None})
            exits[rule] = decided["exit_code"]
            if (
                rule not in ("exit_holm", "exit_no_aside") and decided["at_this_size"]
            ):  # what the line printed
                exits["printed_" + rule] = decided["at_this_size"]["pass_unchanged"]
            if share is not None:
                verdicts = {r["label"]: r["verdict"] for r in [*buckets, whole]}
        return {**exits, "change": overall["change"], "upper": overall["upper"], "rows": verdicts}


def rate(label: str, hits: int, n: int) -> dict[str, Any]:
    low, high = wilson(hits, n)
    if n:
        print(
            f"  {label}: {hits}/{n} = {hits / n * 100:.1f}% "
            f"[{(low or 0) * 100:.1f}, {(high or 0) * 100:.1f}] (Wilson 95%)"
        )
    return {"k": hits, "n": n, "low": low, "high": high}


def summary(label: str, gates: list[dict[str, Any]]) -> dict[str, Any]:
    changes = pd.Series([g["change"] for g in gates], dtype=float) * 100
    print(
        f"{label}: {len(gates)} gates; change mean {changes.mean():+.2f} SD {changes.std():.2f} points"
    )
    figures: dict[str, Any] = {"change_sd": float(changes.std()), "gates": gates}
    for rule, suffix, title in (
        ("exit", "", "the gate"),
        ("exit_holm", "_holm", "plain Holm"),
        ("exit_untied", "_untied", "misselection only (the rule before the tie-aware criterion)"),
        ("exit_no_aside", "_no_aside", "no set-aside (the rule before gate_ties)"),
    ):
        exits = [g[rule] for g in gates if rule in g]
        if not exits:
            continue
        print(f" {title}:")
        figures["worse" + suffix] = rate("worse (exit 3)", exits.count(3), len(exits))
        figures["not_worse" + suffix] = rate("not worse (exit 0)", exits.count(0), len(exits))
        figures["inconclusive" + suffix] = rate("inconclusive (exit 5)", exits.count(5), len(exits))
        printed = [g["printed_" + rule] for g in gates if "printed_" + rule in g]
        if printed:  # the "at this size" line's pass chance, planned from each gate's own flips
            figures["printed_pass" + suffix] = sum(printed) / len(printed)
            print(f"  the gate line's 'passes ~' figure, mean over these gates: "
                  f"{sum(printed) / len(printed) * 100:.1f}%")  # fmt: skip
    return figures


def spread(source: Source, nulls: list[pd.DataFrame]) -> dict[str, float | None]:
    """``gate_null_spread.py``'s check on these nulls: the variance across re-judges of the
    misselected total over the decisive pairs, against the sum of the per-task variances (1
    when tasks are independent, as the gate's task-clustered interval assumes)."""
    decisive = (source.frame["success_a"] != source.frame["success_b"]).to_numpy()
    m = np.array([n["misselected"].fillna(0).to_numpy(dtype=float)[decisive] for n in nulls])
    per_task = grouped(m, source.frame["task_id"].to_numpy()[decisive].tolist())
    if len(nulls) < 3 or per_task == 0:
        print("spread of the null re-judges: too few re-judges or no variation to tell")
        return {"ratio": None, "low": None, "high": None, "p": None}
    ratio, df = float(m.sum(axis=1).var(ddof=1)) / per_task, len(nulls) - 1
    low, high = (ratio * df / chi2.ppf(q, df) for q in (0.975, 0.025))
    p_value = float(chi2.sf(ratio * df, df))
    print(
        f"spread of the null re-judges: variance of the total / sum of per-task variances "
        f"{ratio:.2f} [{low:.2f}, {high:.2f}] (chi-square {df} df, 95%; one-sided p={p_value:.3f})"
    )
    return {"ratio": ratio, "low": float(low), "high": float(high), "p": p_value}


def pool(files: list[Path]) -> int:
    """Pool the counts of several ``--json`` files of one source (run side by side on other
    seeds, one per core) and print each rate again with its Wilson interval."""
    runs = [json.loads(f.read_text(encoding="utf-8")) for f in files]
    groups = {
        "disjoint null pairs (independent)": [r["disjoint_nulls"] for r in runs],
        "null re-judges against the one source": [r["nulls_vs_source"] for r in runs],
    }
    for model in dict.fromkeys(m for r in runs for m in r["weaker"]):
        groups[f"{model} against the source"] = [
            r["weaker"][model] for r in runs if model in r["weaker"]
        ]
    for pair in dict.fromkeys(m for r in runs for m in r.get("deciders", {})):
        groups[pair] = [r["deciders"][pair] for r in runs if pair in r.get("deciders", {})]
    print(
        f"pooled over {len(files)} files; {runs[0]['tasks']} tasks, {runs[0]['decisive']} decisive"
    )
    for label, parts in groups.items():
        print(f"{label}:")
        for suffix, title in (
            ("", "the gate"),
            ("_holm", "plain Holm"),
            ("_untied", "misselection only"),
            ("_no_aside", "no set-aside"),
        ):
            if not all("worse" + suffix in p for p in parts):
                continue
            print(f" {title}:")
            for key, name in (
                ("worse", "worse (exit 3)"),
                ("not_worse", "not worse (exit 0)"),
                ("inconclusive", "inconclusive (exit 5)"),
            ):
                key += suffix
                rate(name, sum(p[key]["k"] for p in parts), sum(p[key]["n"] for p in parts))
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--pool"]:
        return pool([Path(a) for a in argv[1:]])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the source run's output directory")
    parser.add_argument("--nulls", type=int, default=40, help="null re-judges (even)")
    parser.add_argument("--first-seed", type=int, default=1001)
    parser.add_argument("--weak-seeds", type=int, default=5)
    parser.add_argument("--margin", type=float, default=DEFAULT_MARGIN * 100, help="points")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    started, margin = time.monotonic(), args.margin / 100
    source = Source(args.out)
    decisive = int((source.frame["success_a"] != source.frame["success_b"]).sum())
    tasks = source.frame["task_id"].nunique()
    print(f"source {args.out}: {tasks} tasks, {len(source.pairs)} pairs, {decisive} decisive")
    judge = InProcessJudge(JUDGE)
    seeds = range(args.first_seed, args.first_seed + args.nulls - args.nulls % 2)
    nulls = {seed: source.rejudged(judge, seed) for seed in seeds}
    against_source = [source.gate(source.frame, nulls[s], margin) for s in seeds]
    disjoint = [source.gate(nulls[s], nulls[s + 1], margin) for s in seeds[::2]]
    figures: dict[str, Any] = {
        "tasks": tasks,
        "decisive": decisive,
        "margin_points": args.margin,
        "disjoint_nulls": summary("disjoint null pairs (independent)", disjoint),
        "nulls_vs_source": summary("null re-judges against the one source", against_source),
        "spread": spread(source, list(nulls.values())),
        "weaker": {},
    }
    for model in WEAKER if args.weak_seeds else []:
        weak = InProcessJudge(model)
        gates = [
            source.gate(source.frame, source.rejudged(weak, seed), margin)
            for seed in range(args.first_seed, args.first_seed + args.weak_seeds)
        ]
        figures["weaker"][model] = summary(f"{model} against the source", gates)
    figures["deciders"] = {}
    for a_model, b_model in DECIDERS if args.weak_seeds else []:
        tied, decider = InProcessJudge(a_model), InProcessJudge(b_model)
        label = f"{a_model} as run A, {b_model} as run B (B decides pairs A tied)"
        gates = [
            source.gate(source.rejudged(tied, seed), source.rejudged(decider, seed + 1), margin)
            for seed in range(args.first_seed, args.first_seed + args.weak_seeds)
        ]
        figures["deciders"][label] = summary(label, gates)
    elapsed = time.monotonic() - started
    print(f"elapsed {elapsed:.1f} s")
    figures["elapsed_s"] = elapsed
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
