"""Runs: every run of one or two output directories, opened or compared (the drift view).

The compare is `judgeaudit compare`'s own entry (:func:`compare_runs`): the same choice of runs
(a blank B means "the other run of directory A", as the CLI's missing OUT_B), the same refusal of
a run against itself, the same warnings and what its gate would do. `a` / `b` on a run of the
picker make it run A / run B; ctrl+t compares; Enter opens the run in Results. The comparison
shows paired or not, the test and interval, every manifest change in a focusable scrolling pane,
then per bucket the change with its interval, the adjusted p-value (weighted Holm) and the flips. `j` shows
the judge leaderboard (`judgeaudit judges`) of the runs in the directories named and picked that
judged the same conversations; Enter on a judge opens its run (that half is
:mod:`judgeaudit.tui.screens.runs_judges`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Footer, Header, Input, Label, Static

from judgeaudit.errors import JudgeauditError
from judgeaudit.tui.drift_view import DRIFT_METHOD, OVERALL, TIE_AWARE, changes_text, chart_text
from judgeaudit.tui.latest import Latest
from judgeaudit.tui.messages import OpenResults
from judgeaudit.tui.recent import recent, remember
from judgeaudit.tui.screens.flipped import FlippedPairs
from judgeaudit.tui.screens.runs_judges import RunsJudges
from judgeaudit.tui.widgets.drift_table import DriftTable
from judgeaudit.tui.widgets.field import Field
from judgeaudit.tui.widgets.fit_table import FitTable
from judgeaudit.tui.widgets.judges_table import JudgesTable
from judgeaudit.tui.widgets.note import Note
from judgeaudit.tui.widgets.run_figures import RunFigures
from judgeaudit.tui.widgets.run_picker import Pick, RunPicker

if TYPE_CHECKING:  # pandas and the analysis load with the first list or compare
    from judgeaudit.analysis.compare_entry import Comparison, RunInfo

#: what the CLI's refusal names as flags, said in the app's keys
APP_HINT = " — here: press a and b on two runs of the list, then ctrl+t"


class RunsScreen(RunsJudges):
    SUB_TITLE = "Runs"
    AUTO_FOCUS = "#run-picker"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "pick('a')", "Run A"),
        Binding("b", "pick('b')", "Run B"),
        Binding("x", "clear_picks", "Clear", show=False),  # in help and the palette: the
        # footer keeps "? Help" whole at 80 columns
        Binding("ctrl+o", "open", "Open", priority=True),
        Binding("ctrl+t", "compare", "Compare", priority=True),
        Binding("g", "chart", "Chart", show=False),
        Binding("j", "judges", "Judges"),
        Binding("f", "figures", "Figures"),
    ]

    def __init__(self, default_out: Path, config: Path | None = None) -> None:
        super().__init__(id="runs")
        self.default_out = default_out
        self.config = config  # where the recently opened directories are kept
        self.compared: Comparison | None = None
        self.pick_a: Pick | None = None
        self.pick_b: Pick | None = None
        self.to_top = False
        self.listing_problem = False  # the status line says why a directory did not list
        self.listed: tuple[Path, Path | None] | None = None  # the fields the picker lists
        self.typed = False  # a directory typed here: the picker lists A's and B's runs only
        # which compare's answer may still be shown: a new compare, another A or B or another
        # pick counts up, so a compare still running for the old inputs is dropped when it ends
        self.compares = Latest()
        self.listings = Latest()  # a slow listing of the directories before is dropped too

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(
            "Runs — a / b pick run A / B, ctrl+t compares (B blank: the other run of A's dir)",
            classes="title",
        )
        with Vertical(classes="form", id="runs-form"):
            for field, value in (("a", str(self.default_out)), ("b", "")):
                with Horizontal():
                    yield Label(f"output dir {field.upper()}")
                    yield Field(value=value, id=f"r-{field}", compact=True)
        yield RunPicker(id="run-picker")
        yield Note("", id="runs-status", classes="hint")
        with VerticalScroll(id="changes-pane"):
            yield Static("", id="changes")
        yield DriftTable(id="drift")
        with VerticalScroll(id="drift-chart-pane"):
            yield Static("", id="drift-chart")
        yield JudgesTable(id="judges")
        yield RunFigures(id="run-figures")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#changes-pane").display = False
        self.query_one("#drift-chart-pane").display = False
        self.query_one("#judges").display = False
        self.query_one(RunFigures).display = False
        self.refresh_runs()

    def on_screen_resume(self) -> None:
        self.refresh_runs()  # a run may have been added or finished since

    # --- the run list --------------------------------------------------------------------------
    def dirs(self) -> tuple[Path, Path | None]:
        a = self.query_one("#r-a", Field).value.strip()
        b = self.query_one("#r-b", Field).value.strip()
        return Path(a), (Path(b) if b else None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.to_top = True  # the cursor goes to the first run of the directory just typed
        self.list_typed()
        self.query_one(RunPicker).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        """Another A or B: the comparison on screen is of runs the fields no longer name."""
        if event.input.id in ("r-a", "r-b") and self.listed not in (None, self.dirs()):
            self.drop_running()
            self.clear_comparison()

    def list_typed(self) -> None:
        """The runs of the fields as they read now, and no others: the directories opened
        before are listed only until one is typed here (a picked run elsewhere is let go)."""
        self.typed = True
        self.listed = self.dirs()
        named = {d.resolve() for d in self.listed if d is not None}
        if self.pick_a is not None and self.pick_a[0].resolve() not in named:
            self.pick_a = None  # a run of a directory no longer named is not compared
        if self.pick_b is not None and self.pick_b[0].resolve() not in named:
            self.pick_b = None
        self.load_runs(self.listed, typed=True)

    def refresh_runs(self) -> None:
        self.listed = self.dirs()
        self.load_runs(self.listed)

    def load_runs(self, dirs: tuple[Path, Path | None], typed: bool = False) -> None:
        self.query_one(RunPicker).wait()
        self.list_runs(self.listings.ask(), dirs, typed)

    @work(thread=True, exclusive=True, group="run-list")
    def list_runs(self, request: int, dirs: tuple[Path, Path | None], typed: bool) -> None:
        """List the runs of ``dirs`` and of the directories opened before; a ``typed`` directory
        that lists is remembered with them, as one opened in Results is."""
        from judgeaudit.analysis.compare_entry import list_runs

        runs: list[RunInfo] = []
        problems: list[str] = []
        for out in dict.fromkeys(d for d in dirs if d is not None):
            try:
                runs += list_runs(out)
            except JudgeauditError as exc:
                problems.append(str(exc))
            else:
                if typed and self.config is not None:
                    remember(self.config, out)
        shown = {r.out.resolve() for r in runs}
        for out in recent(self.config) if self.config and not self.typed else []:  # opened
            # before: listed after, until a directory is typed here
            if out.resolve() not in shown:
                try:
                    runs += list_runs(out)
                except JudgeauditError:
                    continue
        self.app.call_from_thread(self.show_runs, request, runs, problems)

    def show_runs(self, request: int, runs: list[RunInfo], problems: list[str]) -> None:
        if not self.listings.current(request):  # a later listing is asked for or shown
            return
        known = {(r.out, r.run_id) for r in runs}
        self.pick_a = self.pick_a if self.pick_a in known else None
        self.pick_b = self.pick_b if self.pick_b in known else None
        self.query_one(RunPicker).show_runs(runs, self.pick_a, self.pick_b, top=self.to_top)
        self.to_top = False
        if problems:
            self.drop_ranking()  # as the comparison: of directories that could not list
            self.clear_comparison()  # of runs the fields no longer name, or could not list
            self.say(Text("; ".join(problems), style="red"))
            self.listing_problem = True
        elif self.listing_problem:  # the directories list now: the old refusal is not true
            self.say("")

    def say(self, text: str | Text) -> None:
        self.listing_problem = False
        self.query_one("#runs-status", Note).say(text)

    def action_pick(self, side: str) -> None:
        picker = self.query_one(RunPicker)
        run = picker.highlighted()
        if run is None:
            self.notify("no run to pick: open a directory that holds one", severity="warning")
            return
        before = (self.pick_a, self.pick_b)
        if side == "a":
            self.pick_a = (run.out, run.run_id)
        else:
            self.pick_b = (run.out, run.run_id)
        self.picks_changed(before)
        picker.show_runs(picker.runs, self.pick_a, self.pick_b)

    def action_clear_picks(self) -> None:
        before = (self.pick_a, self.pick_b)
        self.pick_a = self.pick_b = None
        self.picks_changed(before)
        picker = self.query_one(RunPicker)
        picker.show_runs(picker.runs, None, None)

    def picks_changed(self, before: tuple[Pick | None, Pick | None]) -> None:
        """Other runs picked: as for another A or B typed, the comparison on screen (or still
        running) is of runs the picks no longer name, and goes (it stayed until ctrl+t)."""
        self.drop_running()
        if (self.pick_a, self.pick_b) != before and not self.of_picks():
            self.clear_comparison()

    def of_picks(self) -> bool:
        """Whether the comparison on screen is of the runs picked (a run it compares, picked on
        its side, keeps it); with none picked, ctrl+t would ask the fields again."""
        c = self.compared
        if c is None or (self.pick_a is None and self.pick_b is None):
            return False
        result = c.result
        sides = ((self.pick_a, c.out_a, result["run_a"]), (self.pick_b, c.out_b, result["run_b"]))
        return all(p is None or (p[0].resolve(), p[1]) == (o.resolve(), r) for p, o, r in sides)

    def focus_field(self, field: str) -> None:
        self.query_one(f"#r-{field}", Field).focus()

    def action_open(self) -> None:
        run = self.query_one(RunPicker).highlighted()
        if run is not None:
            self.post_message(OpenResults(run.out, run.run_id))
        else:
            self.post_message(OpenResults(self.dirs()[0]))

    def on_data_table_row_selected(self, event: FitTable.RowSelected) -> None:
        if event.data_table.id == "run-picker":
            self.action_open()
        elif event.data_table.id == "drift":
            self.open_flips(str(event.row_key.value))
        elif event.data_table.id == "judges":
            run = self.query_one(JudgesTable).run_of(str(event.row_key.value))
            if run is not None:
                self.post_message(OpenResults(*run))

    # --- the compare ---------------------------------------------------------------------------
    def request(self) -> tuple[Path, Path | None, str | None, str | None]:
        """The CLI's arguments: picked runs name their dirs and ids; else the two fields."""
        out_a, out_b = self.dirs()
        run_a = run_b = None
        if self.pick_a is not None:
            out_a, run_a = self.pick_a
        if self.pick_b is not None:
            out_b, run_b = self.pick_b
        if self.pick_a is not None and self.pick_b is not None and out_a == out_b:
            out_b = out_a  # both in one dir: compare's own one-directory rule checks them
        return out_a, out_b, run_a, run_b

    def action_compare(self) -> None:
        if self.dirs() != self.listed:  # a field changed without Enter: list what it names now
            self.list_typed()
        self.show_judges(False)
        out_a, out_b, run_a, run_b = self.request()
        self.say(f"comparing {run_a or out_a} → {run_b or out_b or 'the other run'}…")
        pane = self.query_one("#changes-pane")
        pane.display = True
        pane.loading = True
        self.run_compare(self.compares.ask(), out_a, out_b, run_a, run_b)

    def drop_running(self) -> None:
        """Another A or B, or other runs picked: a compare still running is dropped (its answer
        is of the inputs before), and a judge ranking, running or shown (the one place both
        are, for changed inputs)."""
        self.drop_ranking()
        if self.query_one("#changes-pane").loading:
            self.clear_comparison()
            self.say("")

    @work(thread=True, exclusive=True, group="compare")
    def run_compare(
        self, request: int, out_a: Path, out_b: Path | None, run_a: str | None, run_b: str | None
    ) -> None:
        from judgeaudit.analysis.compare_entry import compare_runs

        try:
            compared = compare_runs(out_a, out_b, run_a, run_b)
        except JudgeauditError as exc:
            message = str(exc)
            if "--run-a" in message:
                message += APP_HINT
            self.app.call_from_thread(self.answered, request, message)
            return
        self.app.call_from_thread(self.answered, request, compared)

    def answered(self, request: int, answer: Comparison | str) -> None:
        """A compare's answer, shown only if nothing changed A, B or the picks since it began
        (a thread cannot be stopped: ``exclusive`` cancels the worker, not its late answer)."""
        if not self.compares.current(request):
            return
        if isinstance(answer, str):
            self.failed(answer)
        else:
            self.show(answer)

    def failed(self, message: str) -> None:
        self.clear_comparison()
        self.say(Text(f"refused: {message}", style="bold red"))

    def clear_comparison(self) -> None:
        """No gate, drift rows, chart or figures of an earlier comparison left on screen, and
        none to come from a compare still running."""
        self.compares.drop()
        self.compared = None
        pane = self.query_one("#changes-pane")
        pane.loading = False
        pane.display = False
        pane.border_subtitle = pane.border_title = ""
        self.query_one("#changes", Static).update("")
        self.query_one(DriftTable).show_comparison(None)
        self.query_one("#drift-chart", Static).update("")
        self.query_one(RunFigures).show(None)

    def show(self, compared: Comparison) -> None:
        self.compared = compared
        self.say("")
        pane = self.query_one("#changes-pane")
        pane.display = not self.query_one(JudgesTable).display  # j while it ran: not beside it
        pane.border_subtitle = DRIFT_METHOD if compared.result.get("method") else ""
        self.query_one("#changes", Static).update(changes_text(compared))
        self.query_one(DriftTable).show_comparison(compared.result)  # its note on the edge
        self.query_one(RunFigures).show(compared.result.get("figures"))
        self.draw_chart()
        pane.loading = False
        pane.scroll_home(animate=False)

    def on_drift_table_edge(self, event: DriftTable.Edge) -> None:
        """Where the row that failed the gate is, said by the drift table on each change."""
        self.query_one("#changes-pane").border_title = event.title

    def draw_chart(self) -> None:
        if self.compared is not None:
            width = max(10, min(40, self.size.width - 50))
            self.query_one("#drift-chart", Static).update(chart_text(self.compared.result, width))

    def action_chart(self) -> None:
        """The drift table, or both rates of each bucket as bars with their intervals."""
        self.toggle_view("#drift-chart-pane")
        self.draw_chart()

    def action_figures(self) -> None:
        """The drift table, or each run's split, tie-aware rate and position bias (its report)."""
        self.toggle_view("#run-figures")

    def open_flips(self, key: str) -> None:
        if self.compared is None:
            return
        result = self.compared.result
        if key == TIE_AWARE:
            self.notify(
                "the tie-aware row lists no flips: Enter on overall lists the pairs whose "
                "misselection flipped",
                severity="information",
            )
            return
        row = result["overall"] if key == OVERALL else result["buckets"][int(key)]
        if not row.get("paired"):
            self.notify("unpaired runs: no pair-by-pair flips to list", severity="warning")
            return
        c = self.compared
        self.app.push_screen(FlippedPairs(c.out_a, result["run_a"], c.out_b, result["run_b"], row))
