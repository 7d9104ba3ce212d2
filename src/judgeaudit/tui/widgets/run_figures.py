"""Each compared run's own report figures: the split and tie-aware rate per bucket, then both
position-bias statistics, so the Runs compare shows what `judgeaudit report` prints for A and B."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from judgeaudit.tui.figures import FIGURE_COLUMNS, bias_lines, figure_rows
from judgeaudit.tui.widgets.fit_table import FitTable


class RunFigures(VerticalScroll):
    """The figures pane of the Runs screen (`f`); filled by :meth:`show` after a compare."""

    def compose(self) -> ComposeResult:
        yield FitTable(FIGURE_COLUMNS, id="figures-table", cursor_type="row")
        yield Static("", id="figures-bias")

    def show(self, figures: dict[str, Any] | None) -> None:
        table = self.query_one("#figures-table", FitTable)
        if not figures:
            table.set_rows([])
            self.query_one("#figures-bias", Static).update("")
            return
        table.set_rows(figure_rows(figures))
        self.query_one("#figures-bias", Static).update(bias_lines(figures))
