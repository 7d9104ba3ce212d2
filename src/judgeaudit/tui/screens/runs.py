"""Runs: open any past output directory, or compare two (the drift view).

The comparison runs in a worker and shows what `judgeaudit compare --format json` holds: paired
(the runs judged the same stored conversations) or not, the test and interval used, every
manifest change (none is cut off) in a scrollable pane, then per bucket and overall the change
with its interval, the Holm-adjusted p-value and, paired, how many pairs flipped each way. Enter
on a row lists the flipped pairs; Enter on one opens it as run B judged it."""

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

from judgeaudit.errors import JudgeauditError
from judgeaudit.tui.messages import OpenResults
from judgeaudit.tui.widgets.field import Field
from judgeaudit.tui.widgets.fit_table import Col, FitTable, Row
from judgeaudit.tui.widgets.note import Note

# minimum widths that keep each value whole: at 80 columns whole columns go (the rates first,
# their change stays) instead of every column being cut short
DRIFT_COLUMNS = (
    Col("bucket", "bucket", min=9),
    Col("before", "before", min=14, drop=5),
    Col("after", "after", min=14, drop=4),
    Col("change", "change", min=6),
    Col("ci", "95% CI", min=14, drop=1),
    Col("p", "p (Holm)", min=14, drop=2),
    Col("flips", "flipped +/−", min=9, drop=3),
    Col("flag", "", min=4),
)
OVERALL = "overall"


def pct(v: float | None) -> str:
    return "n/a" if v is None else f"{v * 100:.1f}%"


def pts(v: float | None) -> str:
    return "n/a" if v is None else f"{v * 100:+.1f}"


def changes_text(result: dict[str, Any]) -> Text:
    changes = result["manifest_changes"]
    text = Text(f"{result['run_a']} → {result['run_b']} ({result['gap_source']} gap)\n", "bold")
    pairing = result.get("pairing")
    if result.get("paired") and pairing:
        text.append(
            f"paired: {pairing['basis']}; {pairing['matched']} pairs matched, "
            f"{pairing['decisive']} decisive in both\n",
            style="green",
        )
    else:
        text.append("unpaired: the runs judged different conversations\n", style="yellow")
    method = result.get("method")
    if method:
        text.append(f"interval {method['interval']}; test {method['test']}\n", style="dim")
    text.append(f"manifest changes: {len(changes) or 'none'}\n")
    for c in changes:
        text.append(f"  {c['key']}: ", style="bold")
        text.append(f"{c['before']!r} → {c['after']!r}\n")
    if result.get("decided_by"):
        text.append(f"decided by: {result['decided_by']}", style="dim")
    return text


def p_text(row: dict[str, Any]) -> str:
    if row.get("p_adjusted") is None:
        return "no flips" if row.get("paired") and row["n_before"] else "n/a"
    return f"{row['p_value']:.3g} ({row['p_adjusted']:.3g})"


def drift_rows(result: dict[str, Any]) -> list[Row]:
    rows: list[Row] = []
    overall = result.get("overall")
    for i, r in enumerate([*result["buckets"], *([overall] if overall else [])]):
        interval = "n/a" if r["ci_low"] is None else f"[{pts(r['ci_low'])}, {pts(r['ci_high'])}]"
        flag: Text | str = ""
        if r["significant_rise"]:
            flag = Text("RISE", style="bold red")
        elif r["significant_fall"]:
            flag = Text("fall", style="green")
        name = (
            r["label"] if r.get("alias") in (None, "", r["label"]) else f"{r['label']} {r['alias']}"
        )
        flips = r.get("paired")
        cells: dict[str, Text | str] = {
            "bucket": name,
            "before": f"{pct(r['before'])} (n={r['n_before']})",
            "after": f"{pct(r['after'])} (n={r['n_after']})",
            "change": pts(r["change"]),
            "ci": interval,
            "p": p_text(r),
            "flips": f"+{flips['flipped_to_misselected']}/−{flips['flipped_to_correct']}"
            if flips
            else "",
            "flag": flag,
        }
        rows.append((OVERALL if r is overall else str(i), cells))
    return rows


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
        self.compared: tuple[Path, Path] | None = None

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
        yield FitTable(DRIFT_COLUMNS, id="drift", cursor_type="row")
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
        from judgeaudit.analysis.drift import compare  # pandas: loaded on the first compare

        try:
            result = compare(a, b)
        except JudgeauditError as exc:
            self.app.call_from_thread(self.failed, str(exc))
            return
        self.app.call_from_thread(self.show, (a, b), result)

    def failed(self, message: str) -> None:
        self.query_one("#changes-pane").loading = False
        self.query_one("#runs-status", Note).say(Text(message, style="red"))

    def show(self, dirs: tuple[Path, Path], result: dict[str, Any]) -> None:
        self.result, self.compared = result, dirs
        self.query_one("#runs-status", Note).say("")
        self.query_one("#changes", Static).update(changes_text(result))
        self.query_one("#drift", FitTable).set_rows(drift_rows(result))
        self.query_one("#changes-pane").loading = False

    def on_data_table_row_selected(self, event: FitTable.RowSelected) -> None:
        if self.result is None or self.compared is None:
            return
        key = str(event.row_key.value)
        row = self.result["overall"] if key == OVERALL else self.result["buckets"][int(key)]
        if not row.get("paired"):
            self.notify("unpaired runs: no pair-by-pair flips to list", severity="warning")
            return
        self.app.push_screen(FlippedPairs(self.compared[1], self.result["run_b"], row))
