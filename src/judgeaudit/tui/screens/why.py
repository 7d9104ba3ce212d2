"""Why: what moves this judge, from the Results screen's report (``y``).

The report's ``style`` section as the text report has it, with the forest plot of the odds
ratios drawn in characters (``analysis.why_fmt.forest_text``: one renderer for every front end).
Nothing is computed here: the report the Results screen built already holds the model."""

from __future__ import annotations

import textwrap
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from judgeaudit.analysis.why_fmt import LABELS, forest_text, headline, style_lines, term_lines

UNIT_INDENT = "    "


def why_text(style: dict[str, Any] | None, width: int = 1000) -> Text:
    """The headline, the plot (style terms in red) and the term lines, as plain Rich text. A
    term line wider than ``width`` gives its unit a line of its own, and a longer note goes on
    indented (wrapped at the edge, at 80 columns each unit's end read as a term of its own:
    `minus no, first minus second`)."""
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
    split = {" ".join(p): f"{p[0].rstrip()}\n{UNIT_INDENT}{p[1]}" for p in term_lines(style)}
    lines = [
        line
        if cell_len(line) <= width
        else split.get(line)
        or textwrap.fill(line, width, subsequent_indent=UNIT_INDENT, break_on_hyphens=False)
        for line in style_lines(style)[2:]
    ]
    out.append("\n" + "\n".join(lines) + "\n")
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
            yield Static(why_text(self.style, self.app.size.width - 2), id="why-plot")
        yield Footer()

    def on_resize(self) -> None:
        """Laid out again for the new width (less the scrollbar's)."""
        self.query_one("#why-plot", Static).update(why_text(self.style, self.size.width - 2))
