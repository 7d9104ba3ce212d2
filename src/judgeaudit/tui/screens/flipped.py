"""The pairs of one drift row whose verdict flipped between two runs; Enter opens one."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from judgeaudit.tui.widgets.fit_table import Col, FitTable, Row


class FlippedPairs(Screen[None]):
    """The pairs of one row whose verdict flipped between the runs; Enter opens one (run B)."""

    SUB_TITLE = "Flipped pairs"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Back")]
    COLUMNS = (Col("pair", "pair", min=20), Col("way", "flipped", min=10))

    def __init__(self, out_b: Path, run_b: str, row: dict[str, Any]) -> None:
        super().__init__()
        self.out_b, self.run_b, self.row = out_b, run_b, row

    def compose(self) -> ComposeResult:
        yield Header()
        flips = self.row["paired"]
        yield Static(
            f"{self.row['label']}: {flips['flipped_to_misselected']} pairs flipped to "
            f"misselected, {flips['flipped_to_correct']} to correct (first 200 of each)",
            classes="title",
        )
        yield FitTable(self.COLUMNS, cursor_type="row", id="flips")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        flips = self.row["paired"]
        rows: list[Row] = [
            (pair, {"pair": pair, "way": Text("to misselected", style="red")})
            for pair in flips["flipped_to_misselected_ids"]
        ]
        rows += [
            (pair, {"pair": pair, "way": Text("to correct", style="green")})
            for pair in flips["flipped_to_correct_ids"]
        ]
        self.query_one(FitTable).set_rows(rows)

    def on_data_table_row_selected(self, event: FitTable.RowSelected) -> None:
        from judgeaudit.tui.screens.pair import PairDetailScreen

        pair_id = f"{self.run_b}/{event.row_key.value}"
        self.app.push_screen(PairDetailScreen(self.out_b, pair_id))
