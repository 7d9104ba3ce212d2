"""A row that already has the pairs the "at this size" model plans (twenty-second session, a
review): a large run with a small, non-significant rise is inconclusive because its bound sits
just over the margin, not for want of pairs. The gate asked for "~2322 decisive pairs (0 more;
~78 tasks ...)", fewer tasks than the run had; and a bucket whose bound was already far below
the margin read "~2406 to settle". The pass chance is checked against scipy by hand."""

from __future__ import annotations

from typing import Any

from scipy import stats

from judgeaudit.analysis.gate import decide_rows, gate_lines, verdict_text


def _row(label: str, n: int, tasks: int, up: int, down: int, upper: float) -> dict[str, Any]:
    return {
        "label": label, "n_before": n, "tasks": tasks, "deff": 2.0, "upper": upper,
        "change": (up - down) / n, "significant_rise": False,
        "paired": {"flipped_to_misselected": up, "flipped_to_correct": down},
    }  # fmt: skip


def test_a_large_run_kept_open_by_its_change_is_not_asked_for_more_pairs() -> None:
    overall = {**_row("overall", 3000, 100, 80, 65, 0.021), "null_se": 0.0065}
    result: dict[str, Any] = {"buckets": [], "overall": overall, "pairing": {}}
    result["gate"] = decide_rows(result, 0.02, {"trials": 3, "cost_per_decisive": None})
    assert (result["gate"]["verdict"], result["gate"]["exit_code"]) == ("inconclusive", 5)
    assert overall["needed"]["pairs"] <= 3000  # the model's plan is already met
    line = next(x for x in gate_lines(result) if "not enough data" in x)
    # an unchanged judge passes when its bound, change + t(99) se, is below 2 points:
    # P = Phi(0.02 / 0.0065 - t(0.95, 99)), by scipy
    hand = stats.norm.cdf(0.02 / 0.0065 - stats.t.ppf(0.95, 99))
    assert round(hand * 100) == 92
    need = overall["needed"]
    assert need["more_pairs"] == 0 and abs(need["pass_unchanged"] - hand) < 1e-3
    assert (need["change"], need["upper"]) == (15 / 3000, 0.021)
    assert "not for want of pairs: at these 3000 decisive pairs an unchanged judge already passes at least 80% of the time (the 'at this size' line)" in line  # fmt: skip
    assert "kept open by its observed change (+0.5 points, bound +2.1);" in line
    # the chance itself is said once, on the "at this size" line (twenty-third session: the
    # two lines repeated it)
    text = "\n".join(gate_lines(result))
    assert text.count("~92%") == 1 and "passes ~92% of the time" in text, text
    assert "only if the true change is well under 2 points" in line
    assert "more;" not in line and "tasks at this many pairs per task" not in line, line


def test_a_run_short_of_the_plan_is_still_asked_for_more_pairs() -> None:
    overall = {**_row("overall", 649, 42, 34, 20, 0.05), "null_se": 0.0165}
    result: dict[str, Any] = {"buckets": [], "overall": overall, "pairing": {}}
    result["gate"] = decide_rows(result, 0.02, {"trials": 2})
    need = overall["needed"]
    line = next(x for x in gate_lines(result) if "not enough data" in x)
    assert f"at ~{need['pairs']} decisive pairs ({need['pairs'] - 649} more;" in line, line


def test_a_bucket_whose_bound_is_below_the_margin_is_not_told_to_settle() -> None:
    near = _row("near", 45, 33, 0, 7, -0.075)  # the position-biased demo re-judge's near bucket
    small = _row("small", 130, 40, 10, 7, 0.08)  # its bound above the margin: still planned
    overall = {**_row("overall", 649, 42, 10, 49, -0.042), "null_se": 0.0165}
    result: dict[str, Any] = {"buckets": [near, small], "overall": overall, "pairing": {}}
    result["gate"] = decide_rows(result, 0.02, {})
    assert result["gate"]["exit_code"] == 0
    assert near["needed"]["bound_below_margin"] and near["needed"]["pairs"] > 149
    assert verdict_text(near) == "too few pairs to tell (under the floor of 149)"
    assert verdict_text(small).startswith("too few pairs to tell (under the floor of 149; ~")
    text = "\n".join(gate_lines(result))
    assert "a row whose bound is already below the margin shows none" in text
