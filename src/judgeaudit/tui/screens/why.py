"""Why: what moves this judge, from the Results screen's report (``y``).

The report's ``style`` section as the text report has it, with the forest plot of the odds
ratios drawn in characters (``analysis.why_fmt.forest_text``: one renderer for every front end).
Nothing is computed here: the report the Results screen built already holds the model."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from judgeaudit.analysis.why_fmt import LABELS, forest_text, headline, style_lines


def why_text(style: dict[str, Any] | None) -> Text:
    """The headline, the plot (style terms in red) and the term lines, as plain Rich text."""
    if not style:
        return Text("No report yet: open a run on the Results screen first.")
    out = Text()
    out.append(headline(style) + "\n\n", style="bold")
    if style.get("status") != "ok":
        return out
    out.append("odds ratio of being preferred, 95% CI (task-clustered); │ marks 1\n")
    kinds = {t["feature"]: t["kind"] for t in style["terms"]}
    labels = {LABELS.get(name, name): kind for name, kind in kinds.items()}
    for line in forest_text(style):
        colour = {"style": "red", "process": "yellow", "claim": "magenta"}.get(
            next((k for label, k in labels.items() if line.startswith(label)), ""), ""
        )
        out.append(line + "\n", style=colour)
    out.append("\n" + "\n".join(style_lines(style)[2:]) + "\n")
    return out


class WhyScreen(Screen[None]):
    SUB_TITLE = "Why"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Back")]

    def __init__(self, style: dict[str, Any] | None, run_id: str | None) -> None:
        super().__init__()
        self.style, self.run_id = style, run_id

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="why-body"):
            title = "What moves this judge" + (f" — run {self.run_id}" if self.run_id else "")
            yield Static(title, id="why-title", markup=False)
            yield Static(why_text(self.style), id="why-plot")
        yield Footer()
