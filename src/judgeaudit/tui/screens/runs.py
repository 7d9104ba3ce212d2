"""Runs: open any past output directory, or compare two (the drift view)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Label, Static

from judgeaudit.analysis.drift import compare
from judgeaudit.analysis.frame import AnalysisError
from judgeaudit.tui.messages import OpenResults
from judgeaudit.tui.widgets.field import Field


class RunsScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "open", "Open A", priority=True),
        Binding("ctrl+t", "compare", "Compare A → B", priority=True),
    ]

    def __init__(self, default_out: Path) -> None:
        super().__init__(id="runs")
        self.default_out = default_out

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Runs — open an output directory, or compare two (drift)", classes="title")
        with Vertical(classes="form"):
            for field, value in (("a", str(self.default_out)), ("b", "")):
                with Horizontal():
                    yield Label(f"output dir {field.upper()}")
                    yield Field(value=value, id=f"r-{field}")
        yield Static("", id="changes")
        yield DataTable(id="drift", cursor_type="none")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#drift", DataTable).add_columns(
            "bucket", "before", "after", "change", "95% CI", ""
        )

    def action_open(self) -> None:
        self.post_message(OpenResults(Path(self.query_one("#r-a", Input).value)))

    def action_compare(self) -> None:
        a = Path(self.query_one("#r-a", Input).value)
        b = Path(self.query_one("#r-b", Input).value or a)
        try:
            result = compare(a, b)
        except AnalysisError as exc:
            self.query_one("#changes", Static).update(str(exc))
            return
        changes = result["manifest_changes"]
        lines = [
            f"{result['run_a']} → {result['run_b']}; manifest changes: "
            + ("none" if not changes else "")
        ]
        lines += [f"  {c['key']}: {c['before']!r} → {c['after']!r}" for c in changes[:12]]
        self.query_one("#changes", Static).update("\n".join(lines))
        table: DataTable[str] = self.query_one("#drift", DataTable)
        table.clear()

        def pct(v: float | None) -> str:
            return "n/a" if v is None else f"{v * 100:.1f}%"

        for r in result["buckets"]:
            interval = (
                "n/a"
                if r["ci_low"] is None
                else f"[{r['ci_low'] * 100:+.1f}, {r['ci_high'] * 100:+.1f}]"
            )
            flag = "RISE" if r["significant_rise"] else ("fall" if r["significant_fall"] else "")
            change = "n/a" if r["change"] is None else f"{r['change'] * 100:+.1f} pts"
            table.add_row(
                f"{r['label']} {r['alias']}",
                f"{pct(r['before'])} (n={r['n_before']})",
                f"{pct(r['after'])} (n={r['n_after']})",
                change,
                interval,
                flag,
            )
