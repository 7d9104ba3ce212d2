"""``import recorded-jsonl FILE --parquet DIR``: a Parquet history, partitioned by period, that
``report --engine duckdb`` and ``trend`` read with the figures of the SQLite path on the same
files (each day audited into its own audit.db, as `trend FOLDER` does)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import duckdb
import pytest

from judgeaudit.analysis.report import ReportOptions, build_report
from judgeaudit.sim.stream import write_stream
from tests.cli_helpers import cli

RUN_KEYS = ("out", "run_id", "created_at")  # where the run lives, not what it measured


@pytest.fixture(scope="module")
def days(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("history")
    logs = tmp / "logs"
    write_stream(logs, days=4, change_day=2, tasks=6)
    day = logs / "2026-11-02.jsonl"  # one pair its judge never gave a verdict
    pair = json.loads(next(x for x in day.read_text().splitlines() if '"order"' not in x))
    with day.open("a") as handle:
        handle.write(json.dumps({**pair, "pair_id": "late-1", "task_id": "late-task"}) + "\n")
    for day in sorted(logs.glob("*.jsonl")):
        done = cli("import", "recorded-jsonl", str(day), "--parquet", str(tmp / "hist"))
        assert done.returncode == 0, done.stderr
        assert f"period {day.stem}:" in done.stdout
    sqlite = cli("trend", str(logs), "--work", str(tmp / "sq"), "--format", "json")
    assert sqlite.returncode == 0, sqlite.stderr
    (tmp / "sq.json").write_text(sqlite.stdout)
    return {"tmp": tmp, "logs": logs, "hist": tmp / "hist", "sq": tmp / "sq"}


def test_the_history_is_hive_partitioned_parquet_with_run_records(days: dict[str, Path]) -> None:
    hist = days["hist"]
    parts = sorted(p.name for p in hist.iterdir())
    assert parts == [f"period=2026-11-0{d}" for d in range(1, 5)]  # no scratch left behind
    assert not list(hist.rglob("*.db")), "no SQLite file is kept in the history"
    for part in hist.iterdir():
        assert len(list(part.glob("*.parquet"))) == 1
        (records,) = part.glob("*.run.json")
        kept = json.loads(records.read_text())
        assert kept["period"] == part.name.removeprefix("period=")
        assert kept["manifest"]["settings"]["judge_source"] == "recorded"
        assert kept["verdict_counts"] and kept["judge_models"]
    rows = (
        duckdb.connect()
        .execute(
            f"SELECT period, COUNT(*) FROM read_parquet('{hist}/*/*.parquet', "
            "hive_partitioning = true) GROUP BY period ORDER BY period"
        )
        .fetchall()
    )
    assert [(str(day), n) for day, n in rows] == [(f"2026-11-0{d}", 36) for d in range(1, 5)]


def _figures(report: Mapping[str, Any]) -> dict[str, Any]:
    """Every figure, with the run's id (also inside each pair id) and manifest left out: they
    name another run of the same file."""
    text = json.dumps({k: v for k, v in report.items() if k != "manifest"}, default=str)
    got: dict[str, Any] = json.loads(text.replace(report["run_id"], "RUN"))
    return got


def test_report_on_duckdb_gives_the_sqlite_figures_for_every_period(
    days: dict[str, Path],
) -> None:
    for part in sorted(days["hist"].iterdir()):
        (records,) = part.glob("*.run.json")
        run_id = json.loads(records.read_text())["run_id"]
        on_duck = build_report(days["hist"], ReportOptions(run_id, engine="duckdb"))
        on_sqlite = build_report(days["sq"] / part.name.removeprefix("period="))
        assert on_duck["pairs"] == 36
        assert _figures(on_duck) == _figures(on_sqlite), part.name
    done = cli("report", str(days["hist"]), "--engine", "duckdb", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["manifest"]["period"] == "2026-11-04"  # the latest import


def test_trend_over_the_history_equals_the_trend_over_the_daily_files(
    days: dict[str, Path],
) -> None:
    done = cli("trend", str(days["hist"]), "--format", "json")
    assert done.returncode == 0, done.stderr
    got, want = json.loads(done.stdout), json.loads((days["tmp"] / "sq.json").read_text())
    # What a daily folder reports (its files' fates): nothing, here; a history of daily
    # imports is read as one (a day expected each day, none missing here)
    assert want.pop("daily") == got.pop("daily") == {"reaudited": [], "refused": [], "ignored": []}
    # the pairs each day's import left out: the history says so too (it did not: a review)
    assert [p["pairs_without_verdict"] for p in got["periods"]] == [0, 1, 0, 0]
    lines = cli("trend", str(days["hist"]), "--format", "csv").stdout.splitlines()
    assert "2026-11-02,pairs without verdict,,,,1,0,,," in lines  # the reason column last
    for trend in (got, want):
        for period in trend["periods"]:
            for key in RUN_KEYS:
                period.pop(key)
    # a day folder's import.json keeps the contradiction count, a Parquet history does not yet
    # (trend.md says so): here every day has none
    assert [p.pop("verdicts_contradicting") for p in want["periods"]] == [0, 0, 0, 0]
    assert not any("verdicts_contradicting" in p for p in got["periods"])
    assert [p["period"] for p in got["periods"]] == [f"2026-11-0{d}" for d in range(1, 5)]
    assert got == want


def test_a_day_missing_from_a_history_is_named_and_breaks_the_line(
    days: dict[str, Path], tmp_path: Path
) -> None:
    """A history whose day 3 was never imported: its charts drew one line from day 2 to day 4
    as if nothing were missing (``daily`` was never set), and nothing said so. Now it is read
    as a folder of daily files is: the day is named (stderr, JSON ``daily.missing``), exit 0,
    and the line breaks there (day 4 is a lone dot)."""
    hist = tmp_path / "hist"
    shutil.copytree(days["hist"], hist)
    shutil.rmtree(hist / "period=2026-11-03")
    done = cli("trend", str(hist), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["daily"]["missing"] == [
        {"period": "2026-11-03", "history": str(hist)}]  # fmt: skip
    assert done.stderr.splitlines() == [
        f"judgeaudit: trend: no period 2026-11-03 in the history {hist} (never imported): a gap "
        "in the series"]  # fmt: skip
    page = cli("trend", str(hist), "--format", "html").stdout
    chart = page.split("<svg")[1]  # misselection: days 1 and 2 joined, day 4 alone
    lines = re.findall(r'<polyline points="([^"]*)"', chart)
    assert [len(line.split()) for line in lines] == [2]
    assert len(re.findall(r"<circle ", chart)) == 3


def test_an_import_in_progress_is_not_read(days: dict[str, Path], tmp_path: Path) -> None:
    """A scratch directory (``.import-*``) holds a half-made period: the engines skip it."""
    hist = tmp_path / "hist"
    shutil.copytree(days["hist"], hist)
    want = build_report(hist, ReportOptions(engine="duckdb"))
    scratch = hist / ".import-x" / "shards" / "period=2026-11-09"
    scratch.mkdir(parents=True)
    shard = next((hist / "period=2026-11-04").glob("*.parquet"))
    shutil.copy(shard, scratch / shard.name)  # the same run's rows again, half-imported
    assert build_report(hist, ReportOptions(engine="duckdb"))["pairs"] == want["pairs"] == 36


def test_sqlite_engine_on_a_history_is_refused_in_one_line(days: dict[str, Path]) -> None:
    done = cli("report", str(days["hist"]), "--engine", "sqlite")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0
    assert "Parquet history" in done.stderr and "--engine duckdb" in done.stderr


def test_a_history_is_read_by_duckdb_without_engine(days: dict[str, Path]) -> None:
    """``--engine auto`` (the default) reads a history on DuckDB: the same JSON as asking."""
    auto = cli("report", str(days["hist"]), "--format", "json")
    asked = cli("report", str(days["hist"]), "--format", "json", "--engine", "duckdb")
    assert auto.returncode == asked.returncode == 0, auto.stderr + asked.stderr
    assert auto.stdout == asked.stdout and json.loads(auto.stdout)["pairs"] > 0


def test_bad_input_is_one_line_exit_2_and_nothing_is_written(
    days: dict[str, Path], tmp_path: Path
) -> None:
    hist = tmp_path / "hist"
    shutil.copytree(days["hist"], hist)
    before = sorted(str(p.relative_to(hist)) for p in hist.rglob("*"))
    day = days["logs"] / "2026-11-04.jsonl"
    lines = day.read_text().splitlines()
    broken = tmp_path / "2026-11-05.jsonl"
    broken.write_text("\n".join([*lines[:5], '{"pair_id": "x", "order": "AB"', *lines[5:]]) + "\n")
    again = tmp_path / "again.jsonl"
    shutil.copy(day, again)
    for args, says in (
        ((str(broken),), "2026-11-05.jsonl"),
        ((str(again),), "already in the history"),
        ((str(again), "--period", "2026-11-03"), "already in the history"),
    ):
        done = cli("import", "recorded-jsonl", *args, "--parquet", str(hist))
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip().count("\n") == 0 and says in done.stderr, done.stderr
        assert sorted(str(p.relative_to(hist)) for p in hist.rglob("*")) == before
    fresh = tmp_path / "fresh"
    done = cli("import", "recorded-jsonl", str(broken), "--parquet", str(fresh))
    assert done.returncode == 2 and not fresh.exists()  # a first import that fails: no DIR
    nameless = tmp_path / "today.jsonl"
    nameless.write_text("".join(
        line.replace(', "period": "2026-11-04"', "") + "\n" for line in lines
    ))  # fmt: skip
    done = cli("import", "recorded-jsonl", str(nameless), "--parquet", str(fresh))
    assert done.returncode == 2 and "--period" in done.stderr and not fresh.exists()


def test_a_period_imported_before_per_task_counts_says_it_has_no_interval(
    days: dict[str, Path], tmp_path: Path
) -> None:
    """A period whose records predate ``verdict_tasks`` (stripped here, as an older import
    wrote them): its no-verdict share has no interval and the trend says why in each format;
    the other periods keep the interval the daily files' trend gives."""
    hist = tmp_path / "hist"
    shutil.copytree(days["hist"], hist)
    (records,) = (hist / "period=2026-11-01").glob("*.run.json")
    kept = json.loads(records.read_text())
    assert kept.pop("verdict_tasks")
    records.write_text(json.dumps(kept))
    done = cli("trend", str(hist), "--format", "json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)["periods"]
    want = json.loads((days["tmp"] / "sq.json").read_text())["periods"]
    old = got[0]["no_verdict"]
    assert old["rate"] is not None and (old["ci_low"], old["ci_high"]) == (None, None)
    assert "per-task verdict counts were not kept" in old["no_interval"]
    for mine, daily in zip(got[1:], want[1:], strict=True):
        assert mine["no_verdict"] == daily["no_verdict"] and daily["no_verdict"]["ci_high"]
    table = cli("trend", str(hist)).stdout
    assert "[no CI]" in table and "no verdict has no interval in 2026-11-01: " in table
    rows = cli("trend", str(hist), "--format", "csv").stdout.splitlines()
    assert any(r.startswith("2026-11-01,no verdict,") and "were not kept" in r for r in rows)
    report = cli("report", str(hist), "--run", kept["run_id"]).stdout
    assert "of orders (" in report and "; no interval: the period's per-task verdict" in report
