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

from judgeaudit.analysis import gate_ties as ties
from judgeaudit.analysis import noninferiority as ni
from judgeaudit.analysis.fmt import TASK_WILSON, no_verdict
from judgeaudit.analysis.frame import AnalysisError, open_db, resolve_run
from judgeaudit.analysis.gate_size import (
    judged_size,
    needed,
    needed_line,
    no_size_because,
    size_line,
)
from judgeaudit.analysis.paired import TIE_AWARE_ALPHA_SHARE
from judgeaudit.analysis.pairing import DIFFERENT
from judgeaudit.analysis.unfinished import not_finished
from judgeaudit.audit.store.readonly import RUN_ORDER
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
                ids = [str(r[0]) for r in db.execute(f"SELECT run_id FROM runs {RUN_ORDER}")]
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


def gate_ready(result: dict[str, Any]) -> None:
    """Refuse to gate on runs whose numbers cannot decide: unfinished (exit 4), nothing
    decisive to test or no task in common (exit 2)."""
    for side in ("a", "b"):
        status = result[f"status_{side}"]
        if status != "finished":
            raise IncompleteRun(
                f"compare --fail-on-rise: run {side.upper()} {result[f'run_{side}']} is "
                f"{not_finished(status)} before gating on it"
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
        return "n/a" if x["no_verdict_rate"] is None else no_verdict(x)

    named = any((x.get("no_verdict_rate_ci") or [None])[0] is not None for x in (a, b))
    lines.append(
        f"no verdict: {share(a)} -> {share(b)}" + (f" (95% CI: {TASK_WILSON})" if named else "")
    )
    lines += [f"WARNING: {reason}" for reason in check["failed"]]
    return lines


#: ``compare --fail-on-rise`` exit codes (0 is "not worse"; 2 and 4 are refusals, above).
EXIT_WORSE = 3
EXIT_INCONCLUSIVE = 5


def decide_rows(result: dict[str, Any], margin: float, scale: dict[str, Any]) -> dict[str, Any]:
    """Each paired row's three-way verdict against the margin and, where the data cannot tell,
    what would: ``scale`` holds run A's trials and run B's judge cost (None without prices).
    Returns the gate's summary; the rows get ``verdict`` and ``needed``."""
    rows = [*result["buckets"], result["overall"]]
    tie_aware = tie_aware_verdict(result["overall"].get("tie_aware"), margin)
    tie_fell = ties.fell(result["overall"].get("tie_aware"))
    for row in rows:
        n = row["n_before"] or 0
        row["verdict"] = ni.decide(row["significant_rise"], n, row.get("upper"), margin)
        basis = ties.where_both_decided(row) if ties.set_aside(row, tie_fell, margin) else row
        row["needed"] = None
        if row["verdict"] in ("inconclusive", "too few pairs to tell"):
            row["needed"] = needed(basis, margin, scale)
    overall = result["overall"]["verdict"]
    worse = [r["label"] for r in rows if r["verdict"] == "worse"]
    failed = [
        *(["misselection"] if worse else []),
        *(["tie-aware"] if tie_aware == "worse" else []),
    ]
    missel = "misselection where both decided" if result["overall"]["set_aside"] else "misselection"
    size = judged_size(result["overall"], margin, missing_verdicts=_missing(result))
    if failed:
        verdict, code, decided_on = "worse", EXIT_WORSE, failed
    elif overall == "not worse" and tie_aware in ("not worse", None):
        verdict, code = "not worse", 0
        decided_on = [missel, *(["tie-aware"] if tie_aware else [])]
    else:
        verdict, code = "inconclusive", EXIT_INCONCLUSIVE
        decided_on = [missel] if overall != "not worse" else []
        decided_on += ["tie-aware"] if tie_aware not in ("not worse", None) else []
    return {
        "margin": margin,
        "verdict": verdict,
        "exit_code": code,
        "worse": worse,
        "worse_on": failed,
        # the criteria that decided the verdict: those that failed (worse), both (not worse),
        # the unsettled ones (inconclusive); "misselection where both decided" when the
        # overall rise came from run B deciding pairs run A tied (gate_ties)
        "decided_on": decided_on,
        "set_aside": [r["label"] for r in rows if r["set_aside"]],
        "tie_aware": tie_aware,
        "min_pairs": ni.min_pairs(margin),
        "alpha": ni.ALPHA,
        "power": ni.POWER,
        "at_this_size": size,
        # why it is null (a NoSize), so a consumer need not guess; null when it is given
        "at_this_size_because": None if size else no_size_because(result["overall"]),
    }


def _missing(result: dict[str, Any]) -> bool:
    """Whether either run has a paired order without a verdict (the rise test can then fire)."""
    counts = (result.get("verdicts") or {}).get("paired_no_verdict") or {}
    return any(counts.get(side) for side in ("a", "b"))


def tie_aware_verdict(row: dict[str, Any] | None, margin: float) -> ni.Verdict | None:
    """The overall tie-aware criterion's verdict (None where the row has none: unpaired):
    worse when its sign-flip p is below its share of alpha and it rose, not worse when its
    bound is below the same margin at the same fewest pairs; stored on ``row``."""
    if row is None:
        return None
    row["verdict"] = ni.decide(tie_aware_rose(row), row["n"], row["upper"], margin)
    return row["verdict"]  # type: ignore[no-any-return]


def tie_aware_rose(row: dict[str, Any]) -> bool:
    """Whether the overall tie-aware rate rose significantly: up, its sign-flip p below its
    share of alpha (what the gate calls worse on it, and the drift table flags RISE)."""
    return bool((row["change"] or 0.0) > 0 and row["p_value"] < row["alpha"])


def gate_exit(result: dict[str, Any]) -> int:
    """The exit code ``compare --fail-on-rise`` returns for a gated result (3 also when run B's
    judge often gave no verdict)."""
    if result["verdicts"]["failed"]:
        return EXIT_WORSE
    return int(result["gate"]["exit_code"])


def refuse_unpaired(result: dict[str, Any]) -> None:
    """Two runs over different conversations differ by far more than binomial noise (from seed
    to seed, from day to day: the conversations themselves change), so they are not gated; the
    refusal says what compares them instead."""
    if result["paired"]:
        return
    because = str(result["unpaired_because"])
    head = f"compare --fail-on-rise: {result['run_a']} and {result['run_b']} are not paired ({because})"
    if not because.startswith(DIFFERENT):
        raise AnalysisError(
            f"{head}, so their difference is mostly seed-to-seed noise, not the judge; "
            "re-judge the same trajectories (judgeaudit rejudge OUT_A --judge-model MODEL --out "
            "OUT_B) and gate on that"
        )
    raise AnalysisError(
        f"{head}, so their difference mixes other conversations with the judge and is not "
        "gated; to gate a judge change, judge the same conversations with both (judgeaudit "
        "rejudge OUT_A --judge-model MODEL --out OUT_B where the log kept its trajectories, or "
        "both judges' recorded verdicts on the same logged pairs); to follow a judge across "
        "days, judgeaudit trend DIR compares periods unpaired; compare without --fail-on-rise "
        "shows this difference for information"
    )


def verdict_text(row: dict[str, Any]) -> str:
    """A row's verdict as the text output and the TUI print it."""
    verdict = row.get("verdict")
    if verdict is None or verdict == "no data":
        return ""
    aside = " where both decided (the rise: run B decides pairs run A tied)"
    aside = aside if row.get("set_aside") else ""
    if verdict == "too few pairs to tell":
        need = row["needed"]
        # a bound already below the margin lacks only the floor's pairs: no "~N to settle"
        more = need["pairs"] > need["min_pairs"] and not need.get("bound_below_margin")
        settle = f"; ~{need['pairs']} to settle" if more else ""
        return f"too few pairs to tell (under the floor of {need['min_pairs']}{settle}){aside}"
    return (str(verdict).upper() if verdict == "worse" else str(verdict)) + aside


def gate_lines(result: dict[str, Any]) -> list[str]:
    """What the gate decided and, if the data cannot tell, how much more it takes."""
    summary = result.get("gate")
    if not summary or summary.get("verdict") is None:
        return []
    margin = summary["margin"] * 100
    why = [f"in {', '.join(summary['worse'])}"] if summary["worse"] else []
    tie_aware = summary.get("tie_aware")
    if tie_aware == "worse":
        why.append(f"{'WORSE ' if why else ''}on the tie-aware rate: ties count half a loss")
    elif summary["verdict"] == "inconclusive" and result["overall"].get("verdict") == "not worse":
        why.append(
            f"(misselection is not worse; the tie-aware rate, a tie counting half a loss, is {tie_aware})"
        )
    aside = ties.aside_line(result)  # a misselection rise set aside, or kept beside a tie fall
    if mixed := ties.mixed_line(result):  # a bucket's rise stands beside the overall set aside
        why, aside = [mixed, *why[1:]], None
    head = f"gate (margin {margin:g} points): {summary['verdict'].upper()}"
    head += f" {'; '.join(why)}" if why else ""
    head += "" if not aside else f" {aside}" if why else f": {aside}"
    if (result.get("verdicts") or {}).get("failed"):  # gate_exit fails it whatever the rows say
        head += " on the verdicts given; the gate FAILS: run B's judge often gave no verdict"
    lines = [
        head,
        f"  worse = a rise significant by the one-sided task sign-flip test, adjusted across the "
        f"rows with flips by weighted Holm (alpha {summary['alpha']}: the overall row holds half "
        "of it when buckets have flips too, the buckets share the rest), or a rise of the overall "
        f"tie-aware rate at alpha {summary['alpha'] * TIE_AWARE_ALPHA_SHARE:g}; not worse = the "
        f"overall row, of at least {summary['min_pairs']} decisive pairs, has its one-sided 95% "
        f"upper bound below {margin:g} points both for misselection and for the tie-aware rate "
        "(intersection-union: no multiplicity adjustment needed) and no row is worse; the "
        "overall row decides: a bucket that is inconclusive or has too few pairs is advice and "
        "does not block; the printed intervals are 95% task-clustered and per row, not "
        "simultaneous" + (f"; {ties.RULE}" if summary.get("set_aside") else ""),
    ]
    size = summary.get("at_this_size")
    if size:
        lines.append(size_line(size, margin, summary["min_pairs"]))
    elif result["overall"].get("set_aside"):
        lines.append(
            f"  at this size: no chance printed: misselection was judged over the "
            f"{result['overall']['decided']['both_decided']} pairs both runs decided, and none "
            "of them changed, so there is no flip rate to plan from"
        )
    overall = result["overall"]
    few = [r["label"] for r in result["buckets"] if r.get("verdict") == "too few pairs to tell"]
    if overall.get("verdict") == "too few pairs to tell":
        few.append("overall (so the gate cannot pass)")
    if few:
        lines.append(
            f"  too few pairs to tell: {', '.join(few)}: the floor, {summary['min_pairs']} "
            "decisive pairs, is the fewest at which a row can be called not worse at all "
            f"(with zero flips its exact bound falls below {margin:g} points only there), "
            "whatever its printed bound; '~N to settle' is how many it takes at the row's "
            f"flips for an unchanged judge to pass {summary['power'] * 100:.0f}% of the time "
            "(the 'at this size' model; a row whose bound is already below the margin shows "
            "none: the floor is what it lacks); a bucket with too few pairs does not block on "
            "its own"
        )
    if summary["verdict"] == "inconclusive" and overall.get("needed"):
        lines.append(needed_line(overall["needed"], overall.get("tasks"), summary))
    return lines
