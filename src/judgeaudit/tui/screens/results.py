"""Results: buckets with 95% intervals, a bar chart, the agent pairs (with ranking misselection),
satisfied-but-failed, position bias and task types, as the report has them.

The report is built in a thread worker (seconds on a large audit) while the screen shows that it
is loading and stays responsive. It opens with the run's declared gap source and bins; the gap
source and bins change in place, and pairs no bin holds are counted and can be opened."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Label, Select, Static

from judgeaudit.analysis.fmt import bias as bias_text
from judgeaudit.analysis.fmt import bucket_name, review_lines, simulated
from judgeaudit.analysis.unfinished import run_status
from judgeaudit.errors import JudgeauditError
from judgeaudit.tui.bins import distinct_labels, parse_bins
from judgeaudit.tui.health import health_text
from judgeaudit.tui.latest import Latest
from judgeaudit.tui.results_tables import (
    AGENT_COLUMNS,
    BAR_TAIL,
    BUCKET_COLUMNS,
    METHOD,
    OVERALL,
    TASK_COLUMNS,
    agent_rows,
    bucket_rows,
    outside_note,
    satisfied_text,
    shares_line,
    task_rows,
)
from judgeaudit.tui.screens.pairs import OUTSIDE, PairsScreen
from judgeaudit.tui.screens.why import WhyScreen
from judgeaudit.tui.widgets.bars import WIDTH, BucketBars
from judgeaudit.tui.widgets.field import Field
from judgeaudit.tui.widgets.fit_table import FitTable
from judgeaudit.tui.widgets.note import Note

if TYPE_CHECKING:  # loaded when first used, not before the first paint
    from judgeaudit.analysis.report import ReportOptions
    from judgeaudit.analysis.report_types import Report

JUMP_REFRESHES = 20  # a bound, not a wait: each is one screen refresh
LIVE_EVERY_S = 2.0  # how often Results re-reads a run that is still running


class ResultsScreen(Screen[None]):
    SUB_TITLE = "Results"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("g", "focus_gap", "Gap source"),
        Binding("ctrl+e", "focus_bins", "Bins"),
        Binding("a", "agent_pairs", "Agent pairs"),
        Binding("v", "app.goto('review')", "Review"),
        Binding("x", "export_preferences", "Export"),
        Binding("w", "why", "Why"),
    ]

    def __init__(self) -> None:
        super().__init__(id="results")
        self.out: Path | None = None
        self.run_id: str | None = None  # None: the directory's latest run
        self.version: tuple[int, int, int] | None = None
        self.report: Report | None = None  # the shown run's report, once built
        self.shown: ReportOptions | None = None  # the gap source and bins it was built with
        self.shown_bins = ""  # the bins field's text for it
        self.loaded = False
        self.mounted = False
        self.jump_when_loaded = False  # "Agent pairs" asked for while the report was loading
        self.control_chosen = False  # g / ctrl+e (or the palette) while the report was loading
        self.fresh = True  # the next report shown is another run's
        self.builds = Latest()  # a slower build of a run asked for before is dropped

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(
            "Results — no output dir yet", id="results-title", classes="title", markup=False
        )
        with Horizontal(classes="form", id="results-controls"):
            yield Label("gap source")
            yield Select(
                [(s, s) for s in ("capability", "judge", "external")],
                allow_blank=True,
                id="gap-source",
                compact=True,
            )
            yield Label("bins", id="bins-label")
            yield Field(placeholder="e.g. -0.01,0.2,0.5,1,5 then Enter", id="bins", compact=True)
        yield Note("", id="results-error", classes="-bad")
        with VerticalScroll(id="results-body"):
            yield BucketBars(id="bars")
            yield FitTable(BUCKET_COLUMNS, id="buckets", cursor_type="row")
            yield Static("", id="outside", classes="-muted", markup=False)
            yield Static("", id="satisfied", markup=False)
            yield Static("", id="bias", markup=False)
            yield Static("Judge verdicts", classes="section")
            yield Static("", id="health", markup=False)
            yield Static("Human review (success check and judge vs your labels)", classes="section")
            yield Static("", id="human", markup=False)
            yield Static("Agent pairs", classes="section")
            yield FitTable(AGENT_COLUMNS, id="agent-pairs-table", cursor_type="row")
            yield Static("", id="agent-pair-shares", classes="-muted", markup=False)
            yield Static("By task type", classes="section")
            yield FitTable(TASK_COLUMNS, id="task-types", cursor_type="none")
            yield Static(METHOD, id="task-method", classes="-muted", markup=False)
        yield Footer(compact=True)

    # --- loading -------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.mounted = True
        if self.out is not None:
            out, self.out = self.out, None
            self.show_output(out, self.run_id)

    def show_output(self, out: Path, run_id: str | None = None) -> None:
        """Show run `run_id` (None: the latest) of `out`: reload when it is another run or a
        run wrote to it since the last load; another run opens at the top."""
        if not self.mounted:
            self.out, self.run_id = out, run_id  # loaded once the screen is composed
            return

        from judgeaudit.analysis.queries import db_version  # pandas: after the first paint

        version = db_version(out)
        same = (out, run_id) == (self.out, self.run_id)
        if same and version == self.version and self.loaded:
            return
        if not same:
            self.fresh = True  # focus the table and start at the top once it is loaded
            self.reset_controls()
        self.out, self.run_id, self.version = out, run_id, version
        self.sub_title = f"Results · {out}"  # which output directory is open, on every view
        self.load(self.options())

    def reset_controls(self) -> None:
        select = self.query_one("#gap-source", Select)
        with select.prevent(Select.Changed):
            select.clear()
        self.query_one("#bins", Field).value = ""

    def options(self) -> ReportOptions:
        """What the controls say; an empty control means the run's declared choice."""
        source = self.query_one("#gap-source", Select).value
        bins = parse_bins(self.query_one("#bins", Field).value)
        from judgeaudit.analysis.report import ReportOptions

        return ReportOptions(
            run_id=self.run_id,
            gap_source=None if source is Select.NULL else str(source),
            bins=bins,
            labels=distinct_labels(bins) if bins else None,
        )

    def load(self, options: ReportOptions, live: bool = False) -> None:
        """Build the report; ``live`` (a running run's refresh) keeps the old one on screen."""
        assert self.out is not None
        self.loaded = False
        if not live:
            self.query_one("#results-body").loading = True
            self.query_one("#results-title", Static).update(f"Results — loading {self.out}…")
        self.query_one("#results-error", Note).say("")
        self.build(self.builds.ask(), self.out, options)

    def poll_running(self) -> None:
        """While the shown run is running: reload when it stored more (as the CLI report would
        show now), without a loading overlay or a scroll jump."""
        if self.out is None or self.report is None or self.report["status"] != "running":
            return
        if self.app.screen is self and self.loaded:
            from judgeaudit.analysis.queries import db_version

            version = db_version(self.out)
            if version != self.version:
                self.version = version
                self.load(self.options(), live=True)
                return
        self.set_timer(LIVE_EVERY_S, self.poll_running)

    @work(thread=True, exclusive=True, group="results")
    def build(self, request: int, out: Path, options: ReportOptions) -> None:
        """``exclusive`` does not stop the thread: each answer brings its request's number, and
        only the newest is shown (run A's slow build, ending after run B's, showed A)."""
        from judgeaudit.analysis.report import build_report

        try:
            report = build_report(out, options)
        except JudgeauditError as exc:
            self.app.call_from_thread(self.failed, request, out, exc.in_app())
            return
        self.app.call_from_thread(self.show_report, request, out, report, options)

    def failed(self, request: int, out: Path, message: str) -> None:
        if not self.builds.current(request):
            return  # a newer request is on its way
        # coming back tries again, as the message may say to (a lock released, a file restored)
        self.loaded, self.version = True, None
        self.query_one("#results-body").loading = False
        self.query_one("#results-error", Note).say(message)
        if self.report is not None and not self.fresh:
            # a gap source or bins refused for the run on screen: its report stays, and so do
            # the controls and title that say what it is (they said `external` over capability)
            self.show_controls(out, self.report)
        else:
            self.query_one("#results-title", Static).update(f"Results — {out}")

    def show_controls(self, out: Path, r: Report) -> None:
        """The title, gap source and bins of the report on screen."""
        tag = " — simulated provider" if simulated(r) else ""
        status = run_status(out, str(r["status"]))  # "stopped" as Runs lists it
        self.query_one("#results-title", Static).update(
            f"Results — {out}: run {r['run_id']} ({status}), {r['pairs']} pairs, "
            f"{r['decisive']} decisive{tag}"
        )
        select = self.query_one("#gap-source", Select)
        if select.value != r["gap_source"]:
            with select.prevent(Select.Changed):
                select.value = r["gap_source"]
        self.query_one("#bins", Field).value = self.shown_bins

    # --- rendering -----------------------------------------------------------------------------
    def show_report(self, request: int, out: Path, report: Report, options: ReportOptions) -> None:
        if not self.builds.current(request):
            return  # a newer request is on its way
        first, self.fresh = self.fresh, False
        self.report, self.loaded, self.shown = report, True, options
        r = report
        self.shown_bins = self.query_one("#bins", Field).value  # as typed (empty: the default)
        self.show_controls(out, r)
        self.render_buckets(r)
        self.render_sections(r)
        self.query_one("#results-body").loading = False
        if r["status"] == "running":
            self.set_timer(LIVE_EVERY_S, self.poll_running)
        if first and not self.jump_when_loaded:  # another run starts at the top
            body = self.query_one("#results-body", VerticalScroll)
            body.scroll_home(animate=False)
            self.call_after_refresh(body.scroll_home, animate=False)
        if first and not self.control_chosen:  # a control chosen while loading keeps focus
            # no scroll: while the loading overlay goes the table's place is not final, and a
            # scroll to it could leave the bar chart above the view
            self.query_one("#buckets", FitTable).focus(scroll_visible=False)
        self.control_chosen = False
        if self.jump_when_loaded:
            self.call_after_refresh(self.jump_once_laid_out, JUMP_REFRESHES)

    def bar_width(self) -> int:
        names = [cell_len(bucket_name(b)) for b in (self.report["buckets"] if self.report else [])]
        room = self.size.width - 4 - max(names, default=0) - BAR_TAIL
        return max(10, min(WIDTH, room))

    def on_resize(self) -> None:
        if self.report:
            self.query_one(BucketBars).show(self.report["buckets"], self.bar_width())

    def render_buckets(self, r: Report) -> None:
        from judgeaudit.analysis.gap_model import model_line  # numpy: after the first paint

        self.query_one(BucketBars).show(r["buckets"], self.bar_width())
        self.query_one("#buckets", FitTable).set_rows(bucket_rows(r))
        self.query_one("#outside", Static).update(
            f"{outside_note(r)}\n{model_line(r.get('gap_model')).strip()}\n"
            f"95% CI: {r.get('intervals', 'Wilson')}; tie-aware = (wrong + tie/2) / decisive"
        )

    def render_sections(self, r: Report) -> None:
        self.query_one("#satisfied", Static).update(satisfied_text(r))
        bias = "; ".join(bias_text(b) for b in r["position_bias"])
        self.query_one("#bias", Static).update(f"Position bias: {bias or 'swap off'}")
        self.query_one("#health", Static).update(health_text(r))
        self.query_one("#human", Static).update("\n".join(review_lines(r["human_review"])))
        self.query_one("#agent-pairs-table", FitTable).set_rows(agent_rows(r))
        self.query_one("#agent-pair-shares", Static).update(shares_line(r, None))
        self.query_one("#task-types", FitTable).set_rows(task_rows(r))

    # --- controls ------------------------------------------------------------------------------
    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id != "gap-source" or not self.loaded or self.out is None:
            return
        shown = self.report["gap_source"] if self.report else None
        if event.value is Select.NULL or event.value == shown:
            return
        self.query_one("#bins", Field).value = ""  # another source has its own default bins
        from judgeaudit.analysis.report import ReportOptions

        self.load(ReportOptions(run_id=self.run_id, gap_source=str(event.value)))

    def on_input_submitted(self, event: Field.Submitted) -> None:
        if event.input.id != "bins" or self.out is None:
            return
        try:
            options = self.options()
        except JudgeauditError as exc:
            self.query_one("#results-error", Note).say(str(exc))
            return
        self.load(options)

    def action_agent_pairs(self) -> None:
        """Jump to the agent-pair table (below the fold at 80×24)."""
        if not self.loaded:
            self.jump_when_loaded = True
            return
        table = self.query_one("#agent-pairs-table", FitTable)
        table.focus(scroll_visible=False)  # Enter opens the highlighted agent pair's pairs
        self.query_one("#results-body", VerticalScroll).scroll_to_widget(table, top=True)

    def jump_once_laid_out(self, refreshes_left: int) -> None:
        """The loading overlay goes, then the tables are laid out, over a few refreshes: scroll
        once the agent-pair table has its place (its rows are in), not before."""
        table = self.query_one("#agent-pairs-table", FitTable)
        if table.region.height == 0 and refreshes_left > 0:
            self.call_after_refresh(self.jump_once_laid_out, refreshes_left - 1)
            return
        self.jump_when_loaded = False
        self.action_agent_pairs()

    def action_export_preferences(self) -> None:
        """The shown run's pairs as preference data with a data card (a dialog)."""
        from judgeaudit.tui.screens.export_prefs import ExportPreferences

        if self.out is None:
            self.notify("no output dir yet: run an audit first", severity="warning")
            return
        run_id = self.report["run_id"] if self.report else None
        # bucketed as shown: the data card's gap is the one on screen, not the run's declared
        self.app.push_screen(ExportPreferences(self.out, run_id, self.shown_buckets()))

    def shown_buckets(self) -> ReportOptions | None:
        """The gap source and bins on screen (the report resolved them), with their labels."""
        if self.report is None or self.shown is None:
            return None
        from dataclasses import replace

        r = self.report
        return replace(self.shown, gap_source=str(r["gap_source"]), bins=list(r["bins"]))

    def action_focus_gap(self) -> None:
        self.control_chosen = not self.loaded
        self.query_one("#gap-source", Select).focus()

    def action_focus_bins(self) -> None:
        """The bins field with its edges selected: what is typed replaces them (it was added
        to the end: "0,0.1,10,0.2,1")."""
        self.control_chosen = not self.loaded
        field = self.query_one("#bins", Field)
        field.focus()
        field.select_all()

    def on_data_table_row_highlighted(self, event: FitTable.RowHighlighted) -> None:
        if event.data_table.id == "agent-pairs-table" and self.report is not None:
            key = str(event.row_key.value)
            self.query_one("#agent-pair-shares", Static).update(shares_line(self.report, key))

    def on_data_table_row_selected(self, event: FitTable.RowSelected) -> None:
        if event.data_table.id == "buckets" and str(event.row_key.value) != OVERALL:
            self.open_bucket(str(event.row_key.value))
        elif event.data_table.id == "agent-pairs-table":
            self.open_agent_pair(str(event.row_key.value))

    def open_agent_pair(self, key: str) -> None:
        """Enter on an agent pair: its pairs, misselected first (as a bucket's)."""
        r = self.report
        if r is None:
            return
        found = [p for p in r["agent_pairs"] if f"{p['agent_a']}~{p['agent_b']}" == key]
        if found and self.out is not None:
            agents = (str(found[0]["agent_a"]), str(found[0]["agent_b"]))
            screen = PairsScreen(self.out, r["run_id"], r["gap_source"], r["bins"], None, agents)
            self.app.push_screen(screen)

    def open_bucket(self, key: str) -> None:
        if not self.report or self.out is None:
            return
        r = self.report
        bucket = None if key == OUTSIDE else r["buckets"][int(key)]
        self.app.push_screen(PairsScreen(self.out, r["run_id"], r["gap_source"], r["bins"], bucket))

    def action_why(self) -> None:
        """What moves this judge: the report's style model, drawn in the terminal."""
        if self.loaded:
            r = self.report
            self.app.push_screen(
                WhyScreen(r.get("style") if r else None, r["run_id"] if r else None)
            )
