"""Results: buckets with 95% intervals, a bar chart, satisfied-but-failed, position bias and task
types; gap source and bins change in place; a bucket row opens its pairs."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Label, Select, Static

from judgeaudit.analysis.fmt import ci, pct
from judgeaudit.analysis.frame import AnalysisError, gap_series, load_pairs, open_db
from judgeaudit.analysis.report import ReportOptions, build_report
from judgeaudit.tui.widgets.bars import BucketBars
from judgeaudit.tui.widgets.field import Field


class ResultsScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("v", "review", "Review"),
        Binding("escape", "app.pop_screen", "Back", show=False),
    ]

    def __init__(self, out: Path) -> None:
        super().__init__()
        self.out = out
        self.report: dict[str, Any] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"Results — {self.out}", id="results-title", classes="title")
        with Horizontal(classes="form"):
            yield Label("gap source")
            yield Select(
                [(s, s) for s in ("capability", "judge", "external")],
                allow_blank=False,
                value="capability",
                id="gap-source",
            )
            yield Label("bins")
            yield Field(
                placeholder="default bins (e.g. -0.01,0.2,0.5,1,5), Enter applies", id="bins"
            )
        with VerticalScroll():
            yield BucketBars(id="bars")
            buckets: DataTable[str] = DataTable(id="buckets", cursor_type="row")
            yield buckets
            yield Static("", id="satisfied")
            yield Static("", id="bias")
            yield Static("By task type", classes="section")
            yield DataTable(id="task-types", cursor_type="none")
        yield Static("Enter on a bucket opens its pairs", classes="hint")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#buckets", DataTable).add_columns(
            "bucket", "gap", "pairs", "decisive", "misselected", "rate", "95% CI"
        )
        self.query_one("#task-types", DataTable).add_columns(
            "task type", "decisive", "misselected", "rate", "95% CI"
        )
        self.load(ReportOptions())
        self.query_one("#buckets", DataTable).focus()

    def load(self, options: ReportOptions) -> None:
        try:
            self.report = build_report(self.out, options)
        except (AnalysisError, KeyError, ValueError) as exc:
            self.query_one("#results-title", Static).update(f"Results — {exc}")
            return
        r = self.report
        simulated = r["manifest"].get("models", {}).get("judge", {}).get("base_url") == "embedded"
        tag = " — simulated provider" if simulated else ""
        self.query_one("#results-title", Static).update(
            f"Results — run {r['run_id']} ({r['status']}): {r['pairs']} pairs, {r['decisive']} decisive{tag}"
        )
        select = self.query_one("#gap-source", Select)
        if select.value != r["gap_source"]:
            with select.prevent(Select.Changed):
                select.value = r["gap_source"]
        self.query_one(BucketBars).show(r["buckets"])
        table: DataTable[str] = self.query_one("#buckets", DataTable)
        table.clear()
        for b in r["buckets"]:
            table.add_row(
                f"{b['label']} {b['alias']}",
                f"({b['lo']:g}, {b['hi']:g}]",
                str(b["pairs"]),
                str(b["decisive"]),
                str(b["misselected"]),
                pct(b["rate"]),
                ci(b),
                key=b["label"],
            )
        sbf = r["satisfied_but_failed"]
        self.query_one("#satisfied", Static).update(
            f"Satisfied but failed: judge (score ≥ {sbf['threshold']:g}) {pct(sbf['judge']['rate'])} "
            f"({sbf['judge']['failed']}/{sbf['judge']['satisfied']}) · user simulator "
            f"{pct(sbf['user_simulator']['rate'])} ({sbf['user_simulator']['failed']}/"
            f"{sbf['user_simulator']['satisfied']})"
        )
        bias = "; ".join(
            f"{b['judge_model']}: swap-consistent {pct(b['consistency_rate'])}, first position "
            f"wins {pct(b['first_position_win_rate'])} of inconsistent"
            for b in r["position_bias"]
        )
        self.query_one("#bias", Static).update(f"Position bias: {bias or 'swap off'}")
        tasks: DataTable[str] = self.query_one("#task-types", DataTable)
        tasks.clear()
        for t in r["by_task_type"]:
            tasks.add_row(
                str(t["task_type"]),
                str(t["decisive"]),
                str(t["misselected"]),
                pct(t["rate"]),
                ci(t),
            )

    def on_select_changed(self, event: Select.Changed) -> None:
        if (
            event.select.id == "gap-source"
            and self.report
            and event.value != self.report.get("gap_source")
        ):
            self.query_one("#bins", Input).value = ""
            self.load(ReportOptions(gap_source=str(event.value)))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        try:
            bins = [float(x) for x in text.split(",")] if text else None
        except ValueError:
            self.notify("bins must be comma-separated numbers", severity="error")
            return
        if bins is not None and (len(bins) < 2 or sorted(bins) != bins):
            self.notify("bins must be an increasing list of at least two numbers", severity="error")
            return
        self.load(
            ReportOptions(gap_source=str(self.query_one("#gap-source", Select).value), bins=bins)
        )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id != "buckets":
            return
        bucket = next(b for b in self.report["buckets"] if b["label"] == event.row_key.value)
        self.app.push_screen(
            PairsScreen(self.out, self.report["run_id"], self.report["gap_source"], bucket)
        )

    def action_review(self) -> None:
        from judgeaudit.tui.screens.review import ReviewScreen

        self.app.push_screen(ReviewScreen(self.out))


class PairsScreen(Screen[None]):
    """The pairs in one bucket; Enter opens a pair."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("m", "only_missel", "Misselected only"),
    ]

    def __init__(self, out: Path, run_id: str, source: str, bucket: dict[str, Any]) -> None:
        super().__init__()
        self.out, self.run_id, self.source, self.bucket = out, run_id, source, bucket
        self.only_missel = False

    def compose(self) -> ComposeResult:
        b = self.bucket
        yield Header()
        yield Static(
            f"Pairs in {b['label']} {b['alias']} ({b['lo']:g}, {b['hi']:g}] — {self.source} gap",
            classes="title",
        )
        yield DataTable(id="pairs-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(
            "task", "type", "agent A", "agent B", "success", "judge", "misselected"
        )
        self.fill()

    def fill(self) -> None:
        db = open_db(self.out)
        try:
            pairs = load_pairs(db, self.run_id)
        finally:
            db.close()
        gap = gap_series(pairs, self.source)
        mask = (gap > self.bucket["lo"]) & (gap <= self.bucket["hi"])
        if self.only_missel:
            mask &= pairs["misselected"] == 1
        chosen = pairs[mask].sort_values(["misselected", "pair_id"], ascending=[False, True])
        table: DataTable[str] = self.query_one(DataTable)
        table.clear()
        for row in chosen.head(2000).itertuples():
            table.add_row(
                str(row.task_id),
                str(row.task_type),
                str(row.agent_a),
                str(row.agent_b),
                f"{row.success_a}/{row.success_b}",
                str(row.judge_pref),
                "YES" if row.misselected else "",
                key=str(row.pair_id),
            )

    def action_only_missel(self) -> None:
        self.only_missel = not self.only_missel
        self.fill()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        from judgeaudit.tui.screens.pair import PairDetailScreen

        self.app.push_screen(PairDetailScreen(self.out, str(event.row_key.value)))
