"""Each breakdown row's swap consistency (``by_task_type``, ``by_models``) has the report's
interval, the one the position-bias section gives each judge model: checked against
statsmodels' Wilson at the design effect's effective n, on SQLite, DuckDB and the pandas
reference builder, with many task types and judges and with one of each (one scan fewer)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from judgeaudit.analysis.report import ReportOptions, build_report, build_report_pandas
from judgeaudit.cli import main
from tests.unit.test_split_figures import _db, _pair, _statsmodels_interval

#: (task, task type): consistency bunches in tasks, so the design effect is above 1
TASKS = [(f"t{i}", "refund" if i < 4 else "cancel") for i in range(8)]


def _rows(judges: tuple[str, ...], types: bool) -> list[dict[str, Any]]:
    """Pairs over TASKS for each judge and two agent pairs; some judged in one order only
    (no ``pref_ba``: out of the rate). Returns the rows with their swap flags."""
    rows: list[dict[str, Any]] = []
    for j, judge in enumerate(judges):
        for t, (task, kind) in enumerate(TASKS):
            for n in range(2 + t % 3):
                i = len(rows)
                agree = (t + n + j) % 4 != 0 if t % 2 else n == 0
                swapped = i % 7 != 3
                rows.append(
                    _pair(
                        i, task, 1, 0, "A" if agree else "tie",
                        agent_b="y" if n % 2 else "z", judge_model=judge,
                        task_type=kind if types else "refund",
                        pref_ab="A", pref_ba=("A" if agree else "B") if swapped else None,
                        consistent=int(agree) if swapped else None,
                    )
                )  # fmt: skip
    return rows


def _expected(rows: list[dict[str, Any]], keys: tuple[str, ...]) -> dict[tuple[Any, ...], Any]:
    """statsmodels' interval of each group's swap consistency, clustered by task, by hand."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in rows:
        if r["pref_ba"] is not None:
            groups.setdefault(tuple(r[k] for k in keys), []).append(r)
    out = {}
    for key, members in groups.items():
        y = np.array([float(r["consistent"]) for r in members])
        tasks = np.array([int(r["task_id"][1:]) for r in members])
        out[key] = (y.mean(), _statsmodels_interval(y, tasks))
    return out


def _check(report: Any, rows: list[dict[str, Any]]) -> None:
    for section, keys in (
        ("by_task_type", ("task_type",)),
        ("by_models", ("agent_a", "agent_b", "judge_model")),
    ):
        want = _expected(rows, keys)
        assert len(report[section]) == len(want) >= 1, section
        for row in report[section]:
            rate, (low, high) = want[tuple(row[k] for k in keys)]
            assert row["consistency_rate"] == pytest.approx(rate)
            assert row["consistency_rate_ci"] == pytest.approx([low, high], rel=1e-9), row
            assert low < rate < high


@pytest.mark.parametrize(
    ("judges", "types"), [(("j", "k"), True), (("j",), False)], ids=["many", "one-of-each"]
)
def test_breakdown_consistency_has_the_reports_interval_on_every_engine(
    tmp_path: Path, judges: tuple[str, ...], types: bool
) -> None:
    rows = _rows(judges, types)
    out = _db(tmp_path, rows)
    sqlite = build_report(out, ReportOptions(engine="sqlite"))
    _check(sqlite, rows)
    assert main(["export", "parquet", str(out)]) == 0
    duck = build_report(out, ReportOptions(engine="duckdb"))
    pandas = build_report_pandas(out)
    for other in (duck, pandas):
        for section in ("by_task_type", "by_models"):
            got = [v for r in other[section] for v in r["consistency_rate_ci"]]
            want = [v for r in sqlite[section] for v in r["consistency_rate_ci"]]
            assert got == pytest.approx(want, rel=1e-12), section
    if len(judges) == 1:  # one judge, one task type: the type's figure is the judge's
        (kind,), (bias,) = sqlite["by_task_type"], sqlite["position_bias"]
        assert kind["consistency_rate_ci"] == bias["consistency_rate_ci"]
