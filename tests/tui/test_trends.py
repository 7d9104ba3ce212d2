"""The Trends screen: a real monitored series (10 days of the embedded judge's recorded
verdicts, the judge changed on day 6), one textual-plot chart per metric, the alert marked,
Enter on a period opening its run in Results; computed from the output dirs with ctrl+r; an
80×24 snapshot."""

from __future__ import annotations

import asyncio
import json
import math
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable
from textual_plot import PlotWidget

from judgeaudit.analysis.trend_metrics import series
from judgeaudit.daily import monitor_demo, trend_with_alerts
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.sim.stream import write_stream
from judgeaudit.tui.screens.trends import TrendsScreen
from judgeaudit.tui.widgets.field import Field
from tests.tui.helpers import SMALL, make_app, notices, press, settle, snapshot, wait_until


@pytest.fixture(scope="session")
def monitored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("trends") / "m"
    trend = monitor_demo(out, days=10, change_day=6, tasks=30, baseline=4)
    return out, trend


def _rows(app: Any) -> list[list[str]]:
    table = app.screen.query_one("#trend-periods", DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def _trended_status(isolated: ProfileStore, target: Path) -> str:
    """The Trends screen's status line once ``target`` is typed into its field and trended
    (ctrl+r), as a user does from F7."""

    async def go() -> str:
        app = make_app(isolated, target)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await press(pilot, "f7")
            app.screen.query_one("#trend-targets", Field).value = str(target)
            await press(pilot, "ctrl+r")
            await wait_until(pilot, lambda: bool(_rows(app)), "the trend to be computed")
            return str(app.screen.query_one("#trend-status").render())

    return asyncio.run(go())


def test_trends_charts_alerts_and_enter_opens_the_period(
    isolated: ProfileStore, monitored: tuple[Path, dict[str, Any]]
) -> None:
    out, trend = monitored
    alerted = {a["period"] for a in trend["alerts"]}
    assert alerted and min(alerted) >= "2026-11-07"  # the change (day 6), nothing before

    async def go() -> tuple[list[list[str]], int, str, str | None, Path]:
        app = make_app(isolated, out / "runs", trend=trend)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, TrendsScreen)
            rows = _rows(app)
            charts = len(app.screen.query(PlotWidget))
            await press(pilot, *["down"] * 7, "enter")
            return rows, charts, app.current_mode, app.run_id, app.out_dir

    rows, charts, mode, run_id, opened = asyncio.run(go())
    assert [r[0] for r in rows] == [p["period"] for p in trend["periods"]]
    assert {r[0] for r in rows if r[3] == "!"} == alerted
    # each period's misselection with its interval, as the charts' band and `trend` give it
    for row, period in zip(rows, trend["periods"], strict=True):
        m = period["misselection"]
        assert m["ci_low"] is not None
        want = f"{m['rate'] * 100:.1f}% [{m['ci_low'] * 100:.1f}, {m['ci_high'] * 100:.1f}]"
        assert row[1].strip() == want, (row, want)
    drawn = [m for m, points in series(trend).items() if any(p["rate"] is not None for p in points)]
    assert charts == len(drawn) >= 6  # one chart per metric with data
    assert mode == "results"
    assert run_id == trend["periods"][7]["run_id"]
    assert opened == Path(trend["periods"][7]["out"])


def test_a_period_without_an_interval_is_named_above_its_chart(
    isolated: ProfileStore, monitored: tuple[Path, dict[str, Any]]
) -> None:
    """A period whose no-verdict share has no interval (a history period imported before
    per-task counts were kept): the chart's title says which and why, not a silent gap."""
    out, trend = monitored
    first = trend["periods"][0]
    untold = {**first["no_verdict"], "ci_low": None, "ci_high": None, "no_interval": "why not"}
    changed = {**trend, "periods": [{**first, "no_verdict": untold}, *trend["periods"][1:]]}

    async def go() -> list[str]:
        app = make_app(isolated, out / "runs", trend=changed)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            return [str(label.render()) for label in app.screen.query("#trend-charts Label")]

    titles = asyncio.run(go())
    assert f"no verdict (no interval in {first['period']}: why not)" in titles
    assert "misselection" in titles  # the others keep their plain names


def test_enter_on_a_period_of_a_parquet_history_says_how_to_report_it(
    isolated: ProfileStore, monitored: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    """A history (``import … --parquet``) has no audit.db for Results: Enter names the command."""
    out, trend = monitored
    history = tmp_path / "history"
    (history / "period=2026-11-08").mkdir(parents=True)
    (history / "period=2026-11-08" / "r.run.json").write_text("{}")
    # a run id holding a space, as an earlier version named a day (``daily 2026-11-08-…``)
    moved = {**trend, "periods": [
        {**p, "out": str(history), "run_id": p["run_id"].replace("-", " ", 1)}
        for p in trend["periods"]
    ]}  # fmt: skip

    async def go() -> tuple[str, list[str]]:
        app = make_app(isolated, out / "runs", trend=moved)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await press(pilot, *["down"] * 7, "enter")
            return app.current_mode, notices(app)

    mode, notes = asyncio.run(go())
    assert mode != "results"
    run_id = moved["periods"][7]["run_id"]
    # the run id holds a space: quoted, so the line pastes as printed
    pasted = f"report {history} --engine duckdb --run {shlex.quote(run_id)}"
    assert " " in run_id and any(pasted in n for n in notes), notes


def test_f7_and_ctrl_r_trend_the_output_dirs(
    isolated: ProfileStore, monitored: tuple[Path, dict[str, Any]]
) -> None:
    out, trend = monitored

    async def go() -> list[list[str]]:
        app = make_app(isolated, out / "runs")
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await press(pilot, "f7")
            assert isinstance(app.screen, TrendsScreen)
            assert app.screen.query_one("#trend-targets", Field).value == str(out / "runs")
            await press(pilot, "ctrl+r")
            await wait_until(pilot, lambda: bool(_rows(app)), "the trend to be computed")
            return _rows(app)

    rows = asyncio.run(go())
    assert [r[0] for r in rows] == [p["period"] for p in trend["periods"]]


def test_trends_opens_on_the_output_dirs_and_enter_trends_them(
    isolated: ProfileStore, monitored: tuple[Path, dict[str, Any]]
) -> None:
    """A new user needed shift+Tab to reach the field: it has the focus on open, Enter in it
    trends the dirs, and the periods then have the focus (Enter opens one)."""
    out, trend = monitored

    async def go() -> tuple[str | None, str | None, list[list[str]]]:
        app = make_app(isolated, "elsewhere")
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await press(pilot, "f7")
            first = app.focused.id if app.focused else None
            field = app.screen.query_one("#trend-targets", Field)
            field.value = ""
            await pilot.press(*str(out / "runs"), "enter")  # typed, as a user does
            await wait_until(pilot, lambda: bool(_rows(app)), "the trend to be computed")
            await settle(pilot)
            return first, (app.focused.id if app.focused else None), _rows(app)

    first, after, rows = asyncio.run(go())
    assert first == "trend-targets"
    assert [r[0] for r in rows] == [p["period"] for p in trend["periods"]]
    assert after == "trend-periods"


def test_trends_snapshot_80x24(
    isolated: ProfileStore, monitored: tuple[Path, dict[str, Any]], snap_compare: Any
) -> None:
    _out, trend = monitored
    assert snapshot(snap_compare, make_app(isolated, "out/tui", trend=trend), size=SMALL)


@pytest.fixture(scope="module")
def all_tie_days(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A new user's trial on the app: ten days of the embedded judge's log, days 8-10
    rewritten so every winner is "tie" (misselection 0.0%, tie-aware 50%) and day 3 a judge
    outage's pair lines only (refused, left out of the series)."""
    logs = tmp_path_factory.mktemp("ties") / "logs"
    write_stream(logs, days=10, change_day=20, tasks=30)
    for day in (3, 8, 9, 10):
        path = logs / f"2026-11-{day:02d}.jsonl"
        records = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
        if day == 3:
            records = [r for r in records if "winner" not in r]
        else:
            records = [{**r, "winner": "tie"} if "winner" in r else r for r in records]
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return logs, trend_with_alerts([str(logs)], baseline=4, work=logs.parent / "runs")


def _decisive_in_log(path: Path) -> int:
    """The day's pairs with exactly one side succeeding, counted in the log itself."""
    pairs = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    return sum(1 for r in pairs if "success_a" in r and r["success_a"] != r["success_b"])


def test_tie_aware_alerts_are_named_charted_and_days_keep_their_place(
    isolated: ProfileStore, all_tie_days: tuple[Path, dict[str, Any]]
) -> None:
    """The status line said ``first 2026-11-08 (all: +…)``, read as overall misselection
    (0.0% that day), and marked it on the misselection chart; the ties column was a bare
    count; after the refused day 3 the chart's x put day 4 at 2. Now: the alert is named
    tie-aware and marked on the tie-aware chart, ties read ``ties/decisive``, x is the day."""
    logs, trend = all_tie_days
    assert {a["metric"] for a in trend["alerts"]} == {"tie-aware rate"}
    assert [r["period"] for r in trend["daily"]["refused"]] == ["2026-11-03"]

    async def go() -> tuple[str, list[list[str]], dict[str, list[Any]]]:
        app = make_app(isolated, logs.parent / "runs", trend=trend)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            status = str(app.screen.query_one("#trend-status").render())
            titles = app.screen.query("#trend-charts Label")  # a chart's, not a note's
            labels = [str(x.render()) for x in titles if not x.has_class("trend-note")]
            plots = list(app.screen.query(PlotWidget))
            drawn = {
                label: [plot._datasets, plot._x_label]  # what the chart holds
                for label, plot in zip(labels, plots, strict=True)
            }
            return status, _rows(app), drawn

    status, rows, drawn = asyncio.run(go())
    first = next(a for a in trend["alerts"] if a["first"])
    assert f"first {first['period']} (all tie-aware: +{first['rise'] * 100:.1f} pts)" in status
    assert "(3 tie-aware)" in status and "refused" in status
    for row in rows:  # every day's ties over its decisive pairs, those of days 8-10 all ties
        decisive = _decisive_in_log(logs / f"{row[0]}.jsonl")
        tied = row[2].split("/")
        assert int(tied[1]) == decisive and (row[0] < "2026-11-08" or tied[0] == tied[1]), row
    days = [1, 2, 4, 5, 6, 7, 8, 9, 10]
    datasets, x_label = drawn["misselection"]
    shown = sorted({float(x) for d in datasets for x in d.x})
    assert shown == [float(d - 1) for d in days] and x_label == "day (0 = 2026-11-01)"
    marked = [
        d for d in drawn["tie-aware misselection"][0] if d.__class__.__name__ == "ScatterPlot"
    ]
    assert [float(x) for d in marked for x in d.x] == [7.0, 8.0, 9.0]
    assert not any(d.__class__.__name__ == "ScatterPlot" for d in datasets)


def test_one_period_says_nothing_was_tested_as_the_cli_does(
    isolated: ProfileStore, monitored: tuple[Path, dict[str, Any]]
) -> None:
    """A new user: one run read "1 periods; no alert" here where `trend` says "no alert
    tested" (nothing to set against a baseline is no finding)."""
    out, _ = monitored
    day = sorted(p for p in (out / "runs").iterdir() if p.is_dir())[0]

    assert _trended_status(isolated, day) == "1 period; no alert tested"


def test_ctrl_r_on_daily_files_audits_where_the_user_chose_and_says_where(
    isolated: ProfileStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ctrl+r on a folder of daily files wrote into the user's logs folder
    (``logs/.judgeaudit-trend``) with no way to choose or see it. Now the work folder field is
    ``trend --work``: typed, the days are audited there and the logs folder is left as it was;
    left blank, the CLI's default is used and the status line names it."""
    logs, chosen = tmp_path / "logs", tmp_path / "audits"
    write_stream(logs, days=2, change_day=20, tasks=6)
    before = sorted(p.name for p in logs.iterdir())

    async def trend(app: Any, pilot: Any, work: str) -> str:
        app.screen.query_one("#trend-targets", Field).value = str(logs)
        app.screen.query_one("#trend-work", Field).value = work
        app.screen.query_one("#trend-periods", DataTable).clear()
        await press(pilot, "ctrl+r")
        await wait_until(pilot, lambda: bool(_rows(app)), "the trend to be computed")
        return str(app.screen.query_one("#trend-status").render())

    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    async def go() -> tuple[str, list[str], str, str]:
        app = make_app(isolated, logs)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await press(pilot, "f7")
            typed = await trend(app, pilot, str(chosen))
            after_typed = sorted(p.name for p in logs.iterdir())
            default = await trend(app, pilot, "")
            tilde = await trend(app, pilot, "~/audits")  # as a shell would expand it
            return typed, after_typed, default, tilde

    typed, after_typed, default, tilde = asyncio.run(go())
    assert tilde.endswith(f"daily files audited into {tmp_path / 'home' / 'audits'}")
    assert (tmp_path / "home" / "audits" / "2026-11-01").is_dir() and not Path("~").exists()
    assert after_typed == before  # nothing written into the user's logs folder
    assert sorted(p.name for p in chosen.iterdir() if not p.name.startswith(".")) == [
        "2026-11-01", "2026-11-02"]  # fmt: skip
    assert typed.endswith(f"daily files audited into {chosen}")
    assert default.endswith(f"daily files audited into {logs / '.judgeaudit-trend'}")
    assert (logs / ".judgeaudit-trend" / "2026-11-01").is_dir()


def test_y_ticks_are_round_and_a_metric_with_no_data_says_why(
    isolated: ProfileStore, monitored: tuple[Path, dict[str, Any]]
) -> None:
    """A new user read y labels 10, 30, 40, 60, 70 (textual-plot's own ticks over the data's
    range, on 6 rows), and found no "user satisfied but failed" chart, nothing said why. Now
    each chart has the HTML page's round ticks (0 and a step of 1, 2 or 5 × 10^k, at most 3,
    so each falls on a whole row; the top above every band edge), and the metric the recorded
    logs cannot measure (no satisfied_a/_b, no user simulator) says so where its chart was."""
    out, trend = monitored

    async def go() -> tuple[list[str], dict[str, tuple[Any, float, float]]]:
        app = make_app(isolated, out / "runs", trend=trend)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            shown = list(app.screen.query("#trend-charts Label"))
            labels = [str(x.render()) for x in shown]
            plots = list(app.screen.query(PlotWidget))
            charted = [str(x.render()) for x in shown if not x.has_class("trend-note")]
            axes = {
                label.split(" (no interval in ")[0]: (plot._y_ticks, plot._y_min, plot._y_max)
                for label, plot in zip(charted, plots, strict=True)
            }
            return labels, axes

    labels, axes = asyncio.run(go())
    found = series(trend)
    for metric, (ticks, low, high) in axes.items():
        step = ticks[1] - ticks[0]
        assert ticks[0] == low == 0 and ticks[-1] == high and 2 <= len(ticks) <= 4, metric
        assert ticks == pytest.approx([i * step for i in range(len(ticks))]), metric
        mantissa = step / 10 ** math.floor(math.log10(step))
        assert round(mantissa, 9) in (1, 2, 5), (metric, ticks)
        scale = 1 if metric.startswith("odds ratio") else 100
        edges = [v * scale for p in found[metric] for v in (p["ci_high"], p["rate"]) if v]
        assert max(edges) <= high, metric
    # misselection's highest band edge (72.1%) × 1.15 = 83.0: a step of 20 would need 5
    # intervals (over 60), more than 3; 50 needs 2 (0, 50, 100)
    top = max(p["ci_high"] for p in found["misselection"]) * 100
    assert 60 / 1.15 < top <= 100 / 1.15
    assert axes["misselection"][0] == pytest.approx([0, 50, 100])
    note = "user satisfied but failed: every period: not measured: the log holds no user"
    assert any(label.startswith(note) for label in labels), labels


def test_x_ticks_name_days_as_the_html_page_does(
    isolated: ProfileStore, monitored: tuple[Path, dict[str, Any]]
) -> None:
    """The charts' x axis read 0, 2, 4, 6, 8 beside "day (0 = 2026-11-01)": a reader counted
    days to find a date. Its ticks now carry the dates where the HTML page's axis puts them
    (whole days or weeks from the first day, as many as the width keeps apart)."""
    out, trend = monitored

    async def go(size: tuple[int, int]) -> list[tuple[list[float], list[str]]]:
        app = make_app(isolated, out / "runs", trend=trend)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            plots = list(app.screen.query(PlotWidget))
            return [p._x_formatter.get_ticks_and_labels(p._x_min, p._x_max) for p in plots]

    # ten days (11-01 … 11-10) on a plot 26 cells wide at 80x24: labels 5 wide need 6 cells
    # between ticks, 2.9 cells a day: a week apart (2 days would be 5.8 cells); at 160 columns
    # the plot has over 6 cells a day
    for ticks, labels in asyncio.run(go(SMALL)):
        assert (ticks, labels) == ([0.0, 7.0], ["11-01", "11-08"])
    for ticks, labels in asyncio.run(go((160, 40))):  # room for a label every day
        assert ticks == [float(x) for x in range(10)], ticks
        assert labels == [f"11-{d:02d}" for d in range(1, 11)]


@pytest.mark.parametrize(("gone", "more"), [(["05"], ""), (["03", "05"], " (+1 more)")])
def test_a_missing_day_is_named_in_the_status_as_the_cli_names_it(
    isolated: ProfileStore, tmp_path: Path, gone: list[str], more: str
) -> None:
    """A new user: a daily folder with 2026-11-05's file missing; the status line named refused
    days but not the missing one, which `trend`'s stderr, table, JSON and HTML all name."""
    logs = tmp_path / "logs"
    write_stream(logs, days=6, change_day=20, tasks=6)
    for day in gone:
        (logs / f"2026-11-{day}.jsonl").unlink()

    status = _trended_status(isolated, logs)
    # the CLI's words (trend_fmt.missing_line), written out here by hand; the first day named
    first = f"2026-11-{gone[0]}"
    assert f"; no file for day {first} in {logs}: a gap in the series{more};" in status


def test_an_output_dir_with_a_space_is_given_quoted(
    isolated: ProfileStore, monitored: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    """Launch can make `out/ünï form`; the field split on spaces, so it could not be trended,
    quoted or not. It splits as a shell does, and opens with the app's dir quoted."""
    out, trend = monitored
    spaced = tmp_path / "ünï form"
    shutil.copytree(out / "runs", spaced)

    def status(app: Any) -> str:
        return str(app.screen.query_one("#trend-status").render())

    async def go() -> tuple[str, tuple[list[list[str]], str], tuple[list[list[str]], str]]:
        app = make_app(isolated, spaced)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await press(pilot, "f7")
            field = app.screen.query_one("#trend-targets", Field)
            opened = field.value
            await press(pilot, "ctrl+r")  # the app's own dir, as the field opens with it
            await wait_until(pilot, lambda: bool(_rows(app)), "the trend to be computed")
            first = (_rows(app), status(app))
            field.value = ""
            field.focus()
            await press(pilot, *f'"{spaced}"', "enter")  # typed in double quotes
            await wait_until(pilot, lambda: "computing" not in status(app), "the trend again")
            return opened, first, (_rows(app), status(app))

    opened, first, typed = asyncio.run(go())
    assert opened == f"'{spaced}'"
    periods = [p["period"] for p in trend["periods"]]
    assert [r[0] for r in first[0]] == periods and [r[0] for r in typed[0]] == periods
    assert typed[1] == first[1], "the typed dir is trended, not refused"


@pytest.mark.parametrize("typed", ["'out/ünï form", "out/bob's"], ids=["unclosed", "apostrophe"])
def test_an_unclosed_quote_in_the_output_dirs_is_one_line(
    isolated: ProfileStore, tmp_path: Path, typed: str
) -> None:
    """An apostrophe in a name the user did not mean as a quote gets the same advice: the
    other kind of quotes around it (it said only to close a quote the user never typed)."""

    async def go() -> str:
        app = make_app(isolated, tmp_path)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await press(pilot, "f7")
            app.screen.query_one("#trend-targets", Field).value = typed
            await press(pilot, "ctrl+r")
            return str(app.screen.query_one("#trend-status").render())

    said = asyncio.run(go())
    assert said == (
        "output dirs: a quote is not closed: put a dir with a space in quotes, and one whose"
        ' name holds a quote in the other kind ("out/bob\'s")'
    )
