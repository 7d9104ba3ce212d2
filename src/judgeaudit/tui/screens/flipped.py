"""The pairs of one drift row whose verdict flipped between two runs; Enter shows one as both
runs judged it, side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from judgeaudit.errors import JudgeauditError
from judgeaudit.tui.safe_text import safe
from judgeaudit.tui.widgets.fit_table import Col, FitTable, Row


class FlippedPairs(Screen[None]):
    """The pairs of one row whose verdict flipped between the runs; Enter opens one (run B)."""

    SUB_TITLE = "Flipped pairs"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Back")]
    COLUMNS = (Col("pair", "pair", min=20), Col("way", "flipped", min=10))

    def __init__(
        self, out_a: Path, run_a: str, out_b: Path, run_b: str, row: dict[str, Any]
    ) -> None:
        super().__init__()
        self.out_a, self.run_a, self.out_b, self.run_b, self.row = out_a, run_a, out_b, run_b, row

    def compose(self) -> ComposeResult:
        yield Header()
        flips = self.row["paired"]
        yield Static(
            f"{self.row['label']}: {flips['flipped_to_misselected']} pairs flipped to "
            f"misselected, {flips['flipped_to_correct']} to correct (first 200 of each)",
            classes="title",
            markup=False,
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
        rest = str(event.row_key.value)
        sides = ((self.out_a, f"{self.run_a}/{rest}"), (self.out_b, f"{self.run_b}/{rest}"))
        self.app.push_screen(FlipScreen(sides))


class FlipScreen(Screen[None]):
    """One flipped pair as both runs judged it, side by side: the verdict in agents' names and
    every judge call's raw output; Enter opens the whole pair (conversations) as run B has it."""

    SUB_TITLE = "Flipped pair"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("enter,o", "open_b", "Open pair (run B)", key_display="enter"),
    ]

    def __init__(self, sides: tuple[tuple[Path, str], tuple[Path, str]]) -> None:
        super().__init__()
        self.sides = sides

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(
            f"{self.sides[1][1]} — loading both verdicts…",
            id="flip-title",
            classes="title",
            markup=False,
        )
        with Horizontal(classes="columns", id="flip-columns"):
            for side in ("a", "b"):
                with VerticalScroll(classes="column"):
                    yield Static("", id=f"flip-{side}")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#flip-columns").loading = True
        self.load()

    @work(thread=True, exclusive=True, group="flip")
    def load(self) -> None:
        from judgeaudit.analysis.queries import pair_detail

        try:
            details = [pair_detail(out, pair_id) for out, pair_id in self.sides]
        except JudgeauditError as exc:
            self.app.call_from_thread(self.show_error, str(exc))
            return
        self.app.call_from_thread(self.show, details)

    def show_error(self, message: str) -> None:
        self.query_one("#flip-columns").loading = False
        self.query_one("#flip-title", Static).update(message)

    def show(self, details: list[Any]) -> None:
        from judgeaudit.tui.screens.pair import judge_outputs, pair_title

        rest = self.sides[1][1].split("/", 1)[1]
        self.query_one("#flip-title", Static).update(f"{rest}: the verdict of each run")
        for key, label, (out, pair_id), detail in zip(
            ("a", "b"), ("run A", "run B"), self.sides, details, strict=True
        ):
            text = Text(f"{label}: {pair_id.split('/', 1)[0]} ({out})\n", style="bold")
            judge = detail.judge_logs[0]["model"] if detail.judge_logs else "?"
            text.append(f"judge {judge}\n", style="dim")
            text.append(pair_title(detail.pair) + "\n\n")
            text.append_text(judge_outputs(detail.judge_logs))
            self.query_one(f"#flip-{key}", Static).update(safe(text))
        self.query_one("#flip-columns").loading = False

    def action_open_b(self) -> None:
        from judgeaudit.tui.screens.pair import PairDetailScreen

        out, pair_id = self.sides[1]
        self.app.push_screen(PairDetailScreen(out, pair_id))
