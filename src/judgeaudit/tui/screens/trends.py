"""Trends: `judgeaudit trend` in the app. One line chart per metric (textual-plot's PlotWidget:
the rate, its 95% interval as two dim band edges, alerts as red markers), period on the x axis;
the period list beside it opens a period's run in Results with Enter.

The series is `judgeaudit trend`'s own (:func:`judgeaudit.daily.trend_with_alerts`), computed in
a thread worker so the app stays responsive while daily files are audited."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Label, Static

from judgeaudit.analysis.fmt import with_interval
from judgeaudit.analysis.trend_metrics import (
    CHARTED,
    MISSELECTION,
    TIE_AWARE,
    Series,
    is_odds,
    no_interval_note,
)
from judgeaudit.errors import JudgeauditError
from judgeaudit.suggest import command
from judgeaudit.trend_work import WORK_DEFAULT
from judgeaudit.tui.messages import OpenResults
from judgeaudit.tui.widgets.field import Field
from judgeaudit.tui.widgets.note import Note

#: metrics charted first (the watched ones); the rest follow in the trend's order
FIRST: tuple[Series, ...] = (CHARTED[MISSELECTION],)
#: at most this many steps between a chart's y ticks: its plot spans 6 rows (`.trend-chart`,
#: 12 high), so 1, 2 or 3 steps fall on whole rows, evenly (4 put labels 1 and 2 rows apart)
Y_TICKS = 3


def _title(metric: str, points: list[dict[str, Any]]) -> str:
    """A chart's title, saying which periods have no interval and why (the trend's
    ``no_interval``), so a missing band is not read as a rate known exactly."""
    untold = no_interval_note(points, short=10)
    return f"{metric} (no interval in {untold})" if untold else metric


class TrendsScreen(Screen[None]):
    SUB_TITLE = "Trends"
    # the output dirs first: what a new user types before anything shows (they needed shift+Tab);
    # a trend given on open (`trend --tui`) focuses its periods instead
    AUTO_FOCUS = "#trend-targets"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "compute", "Trend", priority=True),
        Binding("enter", "open_period", "Open period", show=False),
    ]

    def __init__(self, default_targets: str, trend: dict[str, Any] | None = None) -> None:
        super().__init__(id="trends")
        self.default_targets = default_targets
        self.trend = trend

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(
            "Trends — Enter on a period opens it in Results; ctrl+r trends the dirs below",
            classes="title",
        )
        with Horizontal(classes="form"):
            yield Label("output dirs")
            yield Field(
                value=shlex.join([self.default_targets]) if self.default_targets else "",
                placeholder="dirs split by spaces; quote one with a space: 'out/my run'",
                id="trend-targets",
                compact=True,
            )
        with Horizontal(classes="form"):  # `trend --work`: where a folder of daily files is audited
            yield Label("work folder")
            yield Field(placeholder=f"default: inside each daily folder, FOLDER/{WORK_DEFAULT}",
                        id="trend-work", compact=True)  # fmt: skip
        yield Note("", id="trend-status", classes="hint")
        with Horizontal(id="trend-body"):
            yield DataTable(id="trend-periods", cursor_type="row")
            yield VerticalScroll(id="trend-charts")
        yield Footer()

    async def on_mount(self) -> None:
        table = self.query_one("#trend-periods", DataTable)
        table.add_columns("period", "missel. [95% CI]", "ties", "!")
        if self.trend is not None:
            await self.show_trend(self.trend)
            if self.trend["periods"]:
                table.focus()

    def on_input_submitted(self, event: Field.Submitted) -> None:
        """Enter in the output dirs or the work folder trends them, as ctrl+r does."""
        if event.input.id in ("trend-targets", "trend-work"):
            self.action_compute()

    def action_compute(self) -> None:
        try:  # as a shell splits them: "out/ünï form" or 'out/ünï form' is one directory
            targets = shlex.split(self.query_one("#trend-targets", Field).value)
        except ValueError:  # an unclosed quote, or a name holding one (out/bob's)
            self.query_one("#trend-status", Note).say(
                "output dirs: a quote is not closed: put a dir with a space in quotes, and one"
                ' whose name holds a quote in the other kind ("out/bob\'s")',
                bad=True,
            )
            return
        if not targets:
            self.query_one("#trend-status", Note).say("give one or more output dirs", bad=True)
            return
        typed = self.query_one("#trend-work", Field).value.strip()
        self.query_one("#trend-status", Note).say("computing the trend…")
        self._compute(targets, Path(typed).expanduser() if typed else None)

    @work(thread=True, exclusive=True, group="trend")
    def _compute(self, targets: list[str], work: Path | None) -> None:
        from judgeaudit.daily import audited_into, daily_files, trend_with_alerts

        # named before anything is written there: the CLI's default unless one was typed
        into = [str(audited_into(Path(t), work)) for t in targets if daily_files(Path(t))]
        where = f"daily files audited into {', '.join(dict.fromkeys(into))}" if into else ""
        if where:
            self.app.call_from_thread(self._say, f"computing the trend; {where}…")
        try:
            trend = trend_with_alerts(targets, work=work)
        except JudgeauditError as exc:
            self.app.call_from_thread(self._failed, str(exc))
            return
        self.app.call_from_thread(self._computed, trend, where)

    def _say(self, message: str) -> None:
        self.query_one("#trend-status", Note).say(message)

    def _computed(self, trend: dict[str, Any], where: str = "") -> None:
        async def shown() -> None:
            await self.show_trend(trend, where)
            if trend["periods"]:  # Enter now opens a period
                self.query_one("#trend-periods", DataTable).focus()

        self.call_later(shown)

    def _failed(self, message: str) -> None:
        self.query_one("#trend-status", Note).say(message, bad=True)

    async def show_trend(self, trend: dict[str, Any], where: str = "") -> None:
        """``where``: the work folders daily files were audited into, said after the figures."""
        from judgeaudit.analysis.trend_fmt import (  # numpy: with the first trend
            alert_label,
            missing_line,
            no_alert,
            ties_cell,
        )

        self.trend = trend
        periods = trend["periods"]
        alerts = trend.get("alerts", [])
        alerted = {a["period"] for a in alerts}
        table = self.query_one("#trend-periods", DataTable)
        table.clear()
        for p in periods:
            mark = "!" if p["period"] in alerted else ""
            missel = with_interval(p["misselection"])
            table.add_row(p["period"][:10], missel, ties_cell(p["misselection"]), mark,
                          key=p["run_id"])  # fmt: skip
        first = next((a for a in alerts if a.get("first")), None)
        tied = sum(a.get("metric") == TIE_AWARE for a in alerts)
        counted = f"{len(periods)} period{'' if len(periods) == 1 else 's'}"
        status = (
            f"{counted}; {len(alerts)} alerts"
            + (f" ({tied} tie-aware)" if tied else "")
            + f", first {first['period']} ({alert_label(first)}: +{first['rise'] * 100:.1f} pts)"
            if first
            else f"{counted}; {no_alert(trend.get('detector') or {})}"  # the CLI's words
        )
        refused = trend.get("daily", {}).get("refused", [])
        if refused:  # the CLI's exit 6: a day left out is said, not hidden
            status += f"; {len(refused)} day(s) refused, not shown: {refused[0]['reason']}"
        missing = trend.get("daily", {}).get("missing", [])
        if missing:  # a log that never arrived: the CLI's line, as its table and stderr say it
            more = len(missing) - 1
            status += f"; {missing_line(missing[0])}" + (f" (+{more} more)" if more else "")
        status += f"; {where}" if where else ""
        self.query_one("#trend-status", Note).say(status, bad=bool(first or refused))
        await self._charts(trend)

    async def _charts(self, trend: dict[str, Any]) -> None:
        """Mounted first, then drawn: a PlotWidget takes data once it is composed."""
        pane = self.query_one("#trend-charts", VerticalScroll)
        await pane.remove_children()
        from textual_plot import HiResMode, PlotWidget  # numpy: when a trend is first drawn

        from judgeaudit.analysis.trend_axis import day_axis, from_daily_files, line_runs, y_ticks
        from judgeaudit.analysis.trend_fmt import chart_alerts
        from judgeaudit.analysis.trend_metrics import series
        from judgeaudit.tui.widgets.day_ticks import label_days

        names = [p["period"] for p in trend["periods"]]
        at, axis = day_axis(names)
        refused = [r["period"] for r in trend.get("daily", {}).get("refused", [])]
        alerts = chart_alerts(trend)
        found = series(trend)
        order = [m for m in FIRST if m in found] + [m for m in found if m not in FIRST]
        widgets = []
        shown: list[Label | PlotWidget] = []  # in the metrics' order
        for metric in order:
            if all(p["rate"] is None for p in found[metric]):
                if why := no_interval_note(
                    found[metric], gaps=True
                ):  # said where its chart would be, not skipped
                    shown.append(Label(f"{metric}: {why}", classes="hint trend-note", markup=False))
                continue
            scale = 1.0 if is_odds(metric) else 100.0
            plot = PlotWidget(allow_pan_and_zoom=False, classes="trend-chart")
            widgets.append((metric, plot, found[metric], scale))
            shown += [Label(_title(metric, found[metric]), classes="hint", markup=False), plot]
        await pane.mount_all(shown)
        for metric, plot, points, scale in widgets:
            for part in line_runs(points, at, refused, daily=from_daily_files(trend)):
                banded = [p for p in part if p["ci_low"] is not None]
                bx = [at[p["period"]] for p in banded]
                plot.plot(bx, [p["ci_high"] * scale for p in banded], line_style="grey50")
                plot.plot(bx, [p["ci_low"] * scale for p in banded], line_style="grey50")
                plot.plot([at[p["period"]] for p in part], [p["rate"] * scale for p in part],
                          line_style="bold white", hires_mode=HiResMode.BRAILLE)  # fmt: skip
            hits = [
                p
                for p in points
                if p["rate"] is not None and p["period"] in alerts.get(metric, set())
            ]
            if hits:
                plot.scatter([at[p["period"]] for p in hits],
                             [p["rate"] * scale for p in hits], marker="!", marker_style="bold red")  # fmt: skip
            plot.set_xlimits(0, max(1, *at.values()))
            # the HTML page's round ticks (0, 20, 40 %), a few for a chart 12 rows high
            ticks = [t * scale for t in y_ticks(points, scale == 100.0, most=Y_TICKS)]
            plot.set_ylimits(0, ticks[-1])
            plot.set_yticks(ticks)
            label_days(plot, names)  # dates on the ticks, as the HTML page's axis
            plot.set_xlabel(axis)
            plot.set_ylabel("%" if scale == 100.0 else "odds ratio")

    def action_open_period(self) -> None:
        table = self.query_one("#trend-periods", DataTable)
        if self.trend is None or not table.row_count:
            return
        point = self.trend["periods"][table.cursor_row]
        from judgeaudit.analysis.engines.history import is_history

        if is_history(Path(point["out"])):  # Results reads an audit.db; a history has none
            self.notify(
                f"{point['period']} is in a Parquet history: "
                + command("report", point["out"], "--engine", "duckdb", "--run", point["run_id"]),
                severity="warning",
            )
            return
        self.post_message(OpenResults(Path(point["out"]), point["run_id"]))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_period()
