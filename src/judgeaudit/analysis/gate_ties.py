"""When misselection rises because run B decides pairs run A tied: the gate's rule for it.

A tie is never a misselection, so a judge that seldom decides has a low misselection rate; a
judge that replaces it decides those pairs and misselects some of them. Per decisive pair each
run is right (R), tied (T) or wrong (W), and misselection moves by (R->W - W->R) + T->W - W->T:
the T->W pairs raise it whatever the T->R pairs beside them. The tie-aware rate, which ranks
the leaderboard (``judge_rank``), counts a tie half a loss, so a pair A tied and B decided moves
it by +1/2 (wrong) or -1/2 (right): it falls when B gets more of them right than wrong.

The rule (a new user's trial, twenty-first session: a judge that tied most pairs as run A, the
default judge as run B, and the gate said WORSE on misselection, +6.5 points, while the
tie-aware rate fell 16.3 points and ``judges`` ranked B best): a row's significant misselection
rise does not fail the gate (it is *set aside*) when all of

1. the overall tie-aware rate fell significantly by the gate's own test (its one-sided
   sign-flip p of a fall below its alpha, 0.025, the level its rise is tested at);
2. in that row run B got more of the pairs run A tied right than wrong (T->R > T->W): a judge
   that picks wrong on more than half of its new decisions stays worse;
3. in that row misselection over the pairs both runs decided did not rise significantly (the
   same one-sided sign-flip test, at alpha 0.05 unadjusted: the side that keeps "worse");
4. in that row the tie-aware rate did not rise (its numerator, wrong + tie/2, did not grow): a
   review found a bucket with four both-decided flips to wrong on four tasks (sign-flip p 1/16,
   too few tasks to be significant) and A's ties split 4 right, 3 wrong set aside by the
   overall fall, its "worse" turned to "too few pairs to tell" and the gate passed.

A row set aside is judged on misselection over the pairs both runs decided (the same bound,
margin and fewest pairs), so the gate passes only when B is not worse where both decide and
not worse on the tie-aware rate, which counts B's new decisions against A's ties. The rule
only ever turns a "worse" into another verdict, so it cannot raise the chance of a false worse.
"""

from __future__ import annotations

from typing import Any, Literal

import pandas as pd

from judgeaudit.analysis import noninferiority as ni
from judgeaudit.analysis.fmt import change_interval
from judgeaudit.analysis.split import tie_halves

#: Half-unit scores of :func:`judgeaudit.analysis.split.tie_halves`.
RIGHT, TIE, WRONG = 0, 1, 2


def decided(part: pd.DataFrame) -> dict[str, Any]:
    """How the row's pairs moved between right, tie and wrong, and misselection's paired change
    over the pairs both runs decided (its task-clustered bound and one-sided sign-flip p)."""
    n = len(part)
    before = tie_halves(part["missel_before"], part["judge_pref_before"], part["success_a_before"])
    after = tie_halves(part["missel_after"], part["judge_pref_after"], part["success_a_after"])
    was_tie, is_tie = before == TIE, after == TIE
    both = part[~was_tie & ~is_tie]
    d = both["missel_after"] - both["missel_before"]
    per_task = both.assign(d=d, one=1).groupby("task_id")[["d", "one"]].sum()
    sums, counts = per_task["d"].astype(int).tolist(), per_task["one"].astype(int).tolist()
    spread = ni.clustered(sums, counts)
    to_missel, to_correct = int((d > 0).sum()), int((d < 0).sum())
    return {
        "ties_before": int(was_tie.sum()) / n if n else None,
        "newly_wrong": int((was_tie & (after == WRONG)).sum()),
        "newly_right": int((was_tie & (after == RIGHT)).sum()),
        "newly_tied": int((~was_tie & is_tie).sum()),
        # the row's own tie-aware numerator's change, in half pairs (wrong 2, tie 1, right 0)
        "tie_aware_halves": int((after - before).sum()),
        "both_decided": len(both),
        "change": spread.change if len(both) else None,
        "upper": ni.ni_bound(spread, to_missel, to_correct),
        "p_value": ni.signflip_p(sums),
        "flipped_to_misselected": to_missel,
        "flipped_to_correct": to_correct,
        "tasks": spread.tasks,
        "deff": ni.design_effect(spread, to_missel + to_correct),
        # its spread under the sign-flip null, sqrt(sum S_t^2) / n (what the gate plans from)
        "null_se": sum(s * s for s in sums) ** 0.5 / len(both) if len(both) else None,
    }


def where_both_decided(row: dict[str, Any]) -> dict[str, Any]:
    """A set-aside row as the pairs both runs decided: what ``gate_size.needed`` plans from."""
    moved = row["decided"]
    return {
        "n_before": moved["both_decided"],
        "tasks": moved["tasks"],
        "deff": moved["deff"],
        "null_se": moved.get("null_se"),
        "change": moved.get("change"),
        "upper": moved.get("upper"),
        "paired": {k: moved[k] for k in ("flipped_to_misselected", "flipped_to_correct")},
    }


def fell(tie_aware: dict[str, Any] | None) -> bool:
    """Whether the overall tie-aware rate fell significantly (the gate's own test, its alpha)."""
    if not tie_aware or tie_aware.get("p_fall") is None:
        return False
    return (tie_aware["change"] or 0.0) < 0 and tie_aware["p_fall"] < tie_aware["alpha"]


#: Why a misselection rise stands beside a significant fall of the tie-aware rate: the guards
#: of :data:`RULE` a row failed, in its order (:func:`stands`).
Guard = Literal["more_wrong", "rose_where_both_decided", "own_tie_aware_rose"]


def stands(moved: dict[str, Any]) -> list[Guard]:
    """The guards of :data:`RULE` a row's moved pairs (:func:`decided`) fail; none: its rise
    may be set aside. :func:`set_aside` decides on it and the verdict lines say it, so the rule
    is written once."""
    failed: list[Guard] = []
    if moved["newly_right"] <= moved["newly_wrong"]:
        failed.append("more_wrong")
    if moved["p_value"] < ni.ALPHA:
        failed.append("rose_where_both_decided")
    if moved["tie_aware_halves"] > 0:  # this row's own tie-aware rate rose: worse here
        failed.append("own_tie_aware_rose")
    return failed


def set_aside(row: dict[str, Any], tie_fell: bool, margin: float) -> bool:
    """Set a row's misselection "worse" aside under the rule above; the row's verdict becomes
    the one over the pairs both runs decided, and ``row["set_aside"]`` says why. Returns
    whether it did."""
    row.setdefault("set_aside", None)
    moved = row.get("decided")
    if row.get("verdict") != "worse" or not tie_fell or not moved or stands(moved):
        return False
    row["set_aside"] = {
        "because": "run B decides pairs run A tied",
        "rule": RULE,
        "misselection_verdict": "worse",
    }
    row["verdict"] = ni.decide(False, moved["both_decided"], moved["upper"], margin)
    return True


RULE = (
    "a misselection rise is set aside when the overall tie-aware rate fell significantly "
    "(one-sided sign-flip, alpha 0.025), run B got more of the pairs run A tied right than "
    "wrong, misselection did not rise significantly over the pairs both runs decided "
    "(one-sided sign-flip, alpha 0.05) and the row's own tie-aware rate did not rise; the row "
    "is then judged over those pairs"
)


def aside_line(result: dict[str, Any]) -> str | None:
    """The verdict's explanation when the overall row's rise was set aside (None otherwise)."""
    overall = result["overall"]
    if not overall.get("set_aside"):
        return kept_line(overall)
    moved, tie = overall["decided"], overall["tie_aware"]
    decided_new = moved["newly_right"] + moved["newly_wrong"]
    both = (
        f"{moved['change'] * 100:+.1f} pts, bound {moved['upper'] * 100:+.1f}"
        if moved["change"] is not None and moved["upper"] is not None
        else "n/a"
    )
    interval = change_interval(tie, tie["half_steps_up"] + tie["half_steps_down"])
    return (
        f"misselection rose {overall['change'] * 100:+.1f} pts because run B decides pairs run "
        f"A tied (A tied {moved['ties_before'] * 100:.1f}% of the decisive pairs; B decided "
        f"{decided_new} of them, {moved['newly_right']} right and {moved['newly_wrong']} wrong); "
        f"the tie-aware rate fell {tie['change'] * 100:+.1f} pts {interval} "
        f"(p={tie['p_fall']:.3g}): "
        f"not worse on misselection for that; where both decided ({moved['both_decided']} "
        f"pairs) misselection {both} -> {overall['verdict']}"
    )


def kept_line(overall: dict[str, Any]) -> str | None:
    """Why a misselection rise stays worse beside a significant fall of the tie-aware rate (the
    leaderboard's key, so ``judges`` ranks run B above run A): None when it did not fall."""
    tie, moved = overall.get("tie_aware"), overall.get("decided")
    if overall.get("verdict") != "worse" or not fell(tie) or not moved or tie is None:
        return None
    words = {
        "more_wrong": f"run B got {moved['newly_wrong']} of the "
        f"{moved['newly_right'] + moved['newly_wrong']} pairs run A tied and B decided wrong "
        "(not fewer than right)",
        "rose_where_both_decided": f"where both decided ({moved['both_decided']} pairs) "
        f"misselection rose {moved['change'] * 100:+.1f} pts (p={moved['p_value']:.3g})",
        "own_tie_aware_rose": "its own tie-aware rate rose",
    }
    reasons = [words[guard] for guard in stands(moved)]
    return (
        f"(the tie-aware rate fell {tie['change'] * 100:+.1f} pts, p={tie['p_fall']:.3g}, so "
        "judgeaudit judges ranks run B above run A; the misselection rise stands: "
        f"{' and '.join(reasons)})"
    )


def kept_because(row: dict[str, Any]) -> str:
    """Why a bucket's misselection rise stands beside an overall rise set aside: the first
    guard of :func:`set_aside` it failed, in a few words."""
    moved = row["decided"]
    first = (stands(moved) or ["own_tie_aware_rose"])[0]
    if first == "more_wrong":
        new = moved["newly_right"] + moved["newly_wrong"]
        return f"B decided {moved['newly_wrong']} of A's {new} ties it decided wrong"
    if first == "rose_where_both_decided":
        return (
            f"where both decided it rose {moved['change'] * 100:+.1f} pts, p={moved['p_value']:.3g}"
        )
    return "its own tie-aware rate rose"


def mixed_line(result: dict[str, Any]) -> str | None:
    """The verdict line's words when the overall rise was set aside but a bucket's rise stands
    (None otherwise): each such bucket with why, then the overall row in one clause."""
    overall, rows = result["overall"], result["buckets"]
    kept = [r for r in rows if r.get("verdict") == "worse"]
    if not overall.get("set_aside") or not kept:
        return None
    tie = overall["tie_aware"]
    buckets = "; ".join(f"{r['label']} ({kept_because(r)})" for r in kept)
    return (
        f"in {buckets}; overall its rise is set aside (run B decides pairs run A tied; the "
        f"tie-aware rate fell {tie['change'] * 100:+.1f} pts, p={tie['p_fall']:.3g}) -> "
        f"{overall['verdict']} where both decided"
    )
