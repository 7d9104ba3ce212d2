"""The pairs in one bucket (or outside every bucket, or of one agent pair), misselected first;
Enter opens a pair.

The list is a query on the audit DB run in a worker (filtered and limited in SQLite, so a bucket
of a million-row audit opens as fast as a small one)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from judgeaudit.analysis.fmt import bucket_edges, bucket_name
from judgeaudit.audit.units.ids import pair_trials, shown_source_id
from judgeaudit.errors import JudgeauditError
from judgeaudit.tui.widgets.fit_table import Col, FitTable

if TYPE_CHECKING:  # pandas and the analysis load when first used, not before the first paint
    from judgeaudit.analysis.queries import PairList

OUTSIDE = "outside"
COLUMNS = (
    Col("task", "task", min=10),
    Col("trial", "trial", min=5, drop=2),
    Col("type", "type", min=6, drop=1),
    Col("a", "agent A", min=8),
    Col("b", "agent B", min=8),
    Col("success", "success", min=7),
    Col("judge", "judge", min=5),
    Col("missel", "misselected", min=11),
)
#: An imported pair's own id in its log: shown when the listed pairs have one (first to go when
#: the terminal is narrow; the Pair detail's header keeps it, `/` filters by it).
LOG_COL = Col("log", "log id", min=8, drop=3)
BADGE = Text("MISSELECTED", style="bold red")


class PairsScreen(Screen[None]):
    SUB_TITLE = "Pairs"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("m", "only_missel", "Misselected only"),
    ]

    def __init__(
        self,
        out: Path,
        run_id: str,
        source: str,
        bins: list[float],
        bucket: Mapping[str, Any] | None,
        agents: tuple[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.out, self.run_id, self.source, self.bins = out, run_id, source, bins
        self.bucket = bucket  # None: the pairs outside every bin
        self.agents = agents  # an agent pair's pairs instead of a bucket's
        self.only_missel = False
        self.found_total = 0  # the pairs the last query found (more than are loaded, past a cap)

    def where(self) -> str:
        b = self.bucket
        if self.agents is not None:
            return f"of {self.agents[0]} vs {self.agents[1]}"
        if b is None:
            return f"outside the bins {self.bins}"
        return f"{bucket_name(b)} {bucket_edges(b)}".rstrip()

    def gap(self) -> str:
        return "" if self.agents is not None else f" — {self.source} gap"

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(
            f"Pairs {self.where()}{self.gap()}", id="pairs-title", classes="title", markup=False
        )
        yield FitTable(COLUMNS, id="pairs-table", cursor_type="row", zebra_stripes=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.fill()

    def fill(self) -> None:
        self.query_one(FitTable).loading = True
        self.load(self.only_missel)

    @work(thread=True, exclusive=True, group="pairs")
    def load(self, only_missel: bool) -> None:
        from judgeaudit.analysis.queries import pairs_in_range, pairs_of_agents, pairs_outside

        try:
            if self.agents is not None:
                found = pairs_of_agents(
                    self.out, self.run_id, *self.agents, only_misselected=only_missel
                )
            elif self.bucket is None:
                found = pairs_outside(
                    self.out, self.run_id, self.source, self.bins, only_misselected=only_missel
                )
            else:
                lo, hi = self.bucket["lo"], self.bucket["hi"]
                found = pairs_in_range(
                    self.out, self.run_id, self.source, lo, hi, only_misselected=only_missel
                )
        except JudgeauditError as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error")
            return
        self.app.call_from_thread(self.show, found)

    def show(self, found: PairList) -> None:
        rows = [
            (
                str(r["pair_id"]),
                {
                    "task": str(r["task_id"]),
                    "trial": pair_trials(r),
                    "type": str(r["task_type"]),
                    "a": str(r["agent_a"]),
                    "b": str(r["agent_b"]),
                    "success": f"{r['success_a']}/{r['success_b']}",
                    "judge": str(r["judge_pref"]),
                    "missel": BADGE if r["misselected"] else "",
                    "log": shown_source_id(r) or "",
                },
            )
            for r in found.rows
        ]
        table = self.query_one(FitTable)
        logged = any(r.get("source_id") is not None for r in found.rows)
        table.set_columns([*COLUMNS, LOG_COL] if logged else COLUMNS)
        table.set_rows(rows)
        table.loading = False
        self.found_total = found.total
        self.show_title()

    def show_title(self) -> None:
        """The count of what is shown: the table's filter in it until the filter changes."""
        from judgeaudit.analysis.queries import PAIRS_SHOWN

        table = self.query_one(FitTable)
        loaded = len(table.rows_data)
        total = self.found_total
        shown = f"showing {PAIRS_SHOWN} of {total}" if total > loaded else ""
        count = table.matching("pairs") if table.filter_text else f"{total} pairs"
        only = "misselected only · " if self.only_missel else ""
        self.query_one("#pairs-title", Static).update(
            f"Pairs {self.where()}{self.gap()}: {only}{count} {shown}".strip()
        )

    def on_fit_table_refiltered(self, _message: FitTable.Refiltered) -> None:
        self.show_title()

    def action_only_missel(self) -> None:
        self.only_missel = not self.only_missel
        self.fill()

    def on_data_table_row_selected(self, event: FitTable.RowSelected) -> None:
        from judgeaudit.tui.screens.pair import PairDetailScreen

        self.app.push_screen(PairDetailScreen(self.out, str(event.row_key.value)))
