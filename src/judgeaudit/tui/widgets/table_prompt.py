"""A one-line prompt at the bottom of the screen: `/` opens it over a table to filter its rows
(harlequin's and lazygit's habit), Review opens it for a note. Enter keeps, Esc drops."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from judgeaudit.tui.widgets.field import Field

FILTER_HINT = "Filter rows (any cell contains it; empty shows all) — Enter, Esc"


class TextPrompt(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, current: str, hint: str = FILTER_HINT) -> None:
        super().__init__(classes="modal")
        self.current, self.hint = current, hint

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="filter-prompt"):
            yield Static(self.hint, classes="hint")
            yield Field(value=self.current, id="filter-text", compact=True)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
