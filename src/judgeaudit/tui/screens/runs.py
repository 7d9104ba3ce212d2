"""Runs: open any past output directory, or compare two (the drift view).

The comparison runs in a worker; every manifest change is listed (prompt, model, task set,
settings: none is cut off) in a scrollable pane above the per-bucket table."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Label, Static

from judgeaudit.analysis.drift import compare
from judgeaudit.errors import JudgeauditError
from judgeaudit.tui.messages import OpenResults
from judgeaudit.tui.widgets.field import Field
from judgeaudit.tui.widgets.fit_table import Col, FitTable
from judgeaudit.tui.widgets.note import Note

DRIFT_COLUMNS = (
    Col("bucket", "bucket", min=8),
    Col("before", "before", min=8),
    Col("after", "after", min=8),
    Col("change", "change", min=9),
    Col("ci", "95% CI", min=10, drop=1),
    Col("flag", "", min=4),
)


def pct(v: float | None) -> str:
    return "n/a" if v is None else f"{v * 100:.1f}%"


def changes_text(result: dict[str, Any]) -> Text:
    changes = result["manifest_changes"]
    text = Text(f"{result['run_a']} → {result['run_b']} ({result['gap_source']} gap); ", "bold")
    text.append(f"manifest changes: {len(changes) or 'none'}\n")
    for c in changes:
        text.append(f"  {c['key']}: ", style="bold")
        text.append(f"{c['before']!r} → {c['after']!r}\n")
    return text


def drift_rows(result: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    rows = []
    for i, r in enumerate(result["buckets"]):
        interval = (
            "n/a"
            if r["ci_low"] is None
            else f"[{r['ci_low'] * 100:+.1f}, {r['ci_high'] * 100:+.1f}]"
        )
        flag: Text | str = ""
        if r["significant_rise"]:
            flag = Text("RISE", style="bold red")
        elif r["significant_fall"]:
            flag = Text("fall", style="green")
        name = r["label"] if r["alias"] == r["label"] else f"{r['label']} {r['alias']}"
        rows.append(
            (
                str(i),
                {
                    "bucket": name,
                    "before": f"{pct(r['before'])} (n={r['n_before']})",
                    "after": f"{pct(r['after'])} (n={r['n_after']})",
                    "change": "n/a" if r["change"] is None else f"{r['change'] * 100:+.1f} pts",
                    "ci": interval,
                    "flag": flag,
                },
            )
        )
    return rows


class RunsScreen(Screen[None]):
    SUB_TITLE = "Runs"
    AUTO_FOCUS = "#r-a"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "open", "Open A", priority=True),
        Binding("ctrl+t", "compare", "Compare A→B", priority=True),
    ]

    def __init__(self, default_out: Path) -> None:
        super().__init__(id="runs")
        self.default_out = default_out
        self.result: dict[str, Any] | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Runs — open an output directory, or compare two (drift)", classes="title")
        with Vertical(classes="form"):
            for field, value in (("a", str(self.default_out)), ("b", "")):
                with Horizontal():
                    yield Label(f"output dir {field.upper()}")
                    yield Field(value=value, id=f"r-{field}", compact=True)
        yield Note("", id="runs-status", classes="hint")
        with VerticalScroll(id="changes-pane", can_focus=False):
            yield Static("", id="changes")
        yield FitTable(DRIFT_COLUMNS, id="drift", cursor_type="none")
        yield Footer(compact=True)

    def dirs(self) -> tuple[Path, Path]:
        a = self.query_one("#r-a", Field).value.strip()
        b = self.query_one("#r-b", Field).value.strip()
        return Path(a), Path(b or a)

    def focus_field(self, field: str) -> None:
        self.query_one(f"#r-{field}", Field).focus()

    def action_open(self) -> None:
        self.post_message(OpenResults(self.dirs()[0]))

    def action_compare(self) -> None:
        a, b = self.dirs()
        self.query_one("#runs-status", Note).say(f"comparing {a} → {b}…")
        self.query_one("#changes-pane").loading = True
        self.run_compare(a, b)

    @work(thread=True, exclusive=True, group="compare")
    def run_compare(self, a: Path, b: Path) -> None:
        try:
            result = compare(a, b)
        except JudgeauditError as exc:
            self.app.call_from_thread(self.failed, str(exc))
            return
        self.app.call_from_thread(self.show, result)

    def failed(self, message: str) -> None:
        self.query_one("#changes-pane").loading = False
        self.query_one("#runs-status", Note).say(Text(message, style="red"))

    def show(self, result: dict[str, Any]) -> None:
        self.result = result
        self.query_one("#runs-status", Note).say("")
        self.query_one("#changes", Static).update(changes_text(result))
        self.query_one("#drift", FitTable).set_rows(drift_rows(result))
        self.query_one("#changes-pane").loading = False
