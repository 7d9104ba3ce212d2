"""The Review screen's method note (`m`): how each 95% interval of its agreement figures is
drawn, or why one has none yet, whole and scrollable (beside the transcripts it was cut
mid-sentence at 120x40 and at 80x24)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class ReviewMethod(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,m,q", "dismiss", "Back", key_display="Esc"),
    ]

    def __init__(self, text: Text) -> None:
        super().__init__(id="review-method", classes="modal")
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="review-method-body", classes="dialog"):
            yield Static(self.text, id="review-method-text")
            yield Static("Esc (or m) back · ↑/↓ scroll", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#review-method-body").focus()
