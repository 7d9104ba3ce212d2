"""The run picker: every run of the open output directories (id, time, judge, status), with
which one is run A and which run B of the next compare."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events

from judgeaudit.tui.widgets.fit_table import Cell, Col, FitTable, Row

if TYPE_CHECKING:  # the analysis (pandas) loads when the runs are listed
    from judgeaudit.analysis.compare_entry import RunInfo

#: A run id and a directory cut in their middle name another run or place, so both are shown
#: whole; the directory (also in the "output dir" fields above) is the first to go. A judge is
#: cut where it parts from the others (two re-judges of judge-default read ``judge-defau…``).
PICKER_COLUMNS = (
    Col("side", "", min=3),
    Col("run", "run", whole=True),
    Col("time", "created (UTC)", min=13, drop=2, time=True),  # 12-06 10:49 at its narrowest
    Col("judge", "judge", min=10, drop=3, apart=True),
    Col("status", "status", min=9),
    Col("dir", "dir", whole=True, drop=4),
)
#: the list's keys: pressed before its first runs are listed (the screen just opened, its
#: directories read in a worker) they wait for them, where they moved and picked nothing
HELD = frozenset({"up", "down", "home", "end", "pageup", "pagedown", "enter", "a", "b", "x"})
STATUS_STYLE = {"finished": "green", "running": "yellow", "cancelled": "yellow"}

Pick = tuple[Path, str]  # (output dir, run id)


def run_key(run: RunInfo) -> str:
    return f"{run.out}\t{run.run_id}"


def picker_rows(runs: Sequence[RunInfo], a: Pick | None, b: Pick | None) -> list[Row]:
    rows: list[Row] = []
    for run in runs:
        pick = (run.out, run.run_id)
        side = " ".join(s for s, p in (("A", a), ("B", b)) if p == pick)
        cells: dict[str, Text | str] = {
            "side": Text(side, style="bold reverse") if side else "",
            "run": run.run_id,
            "time": run.created_at,
            "judge": run.judge,
            "status": Text(run.status, style=STATUS_STYLE.get(run.status, "red")),
            "dir": str(run.out),
        }
        rows.append((run_key(run), cells))
    return rows


class RunPicker(FitTable):
    """A FitTable of runs; the screen owns the picks and re-renders on a change."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(PICKER_COLUMNS, cursor_type="row", **kwargs)
        self.runs: list[RunInfo] = []
        self.waiting = False  # a listing is on its way (`wait`)
        self.held: list[str] = []

    def wait(self) -> None:
        """The screen asked for a listing: while the list is empty, its keys wait for it."""
        self.waiting = True

    def on_key(self, event: events.Key) -> None:
        if self.waiting and not self.row_count and event.key in HELD:
            event.stop()  # neither the table's bindings nor the screen's (a, b) see it yet
            event.prevent_default()
            self.held.append(event.key)

    def show_runs(
        self, runs: Sequence[RunInfo], a: Pick | None, b: Pick | None, top: bool = False
    ) -> None:
        """``top``: the cursor goes to the first run (another directory was opened). Keys held
        while the list was empty are pressed again, in order, on the runs now listed."""
        self.runs = list(runs)
        first = run_key(runs[0]) if top and runs else None
        self.set_rows(picker_rows(runs, a, b), cursor=first)
        self.waiting, held, self.held = False, self.held, []
        for key in held:
            self.app.simulate_key(key)

    def copy_text(self, key: str, row: Mapping[str, Cell]) -> str:
        return key.split("\t")[-1]  # the run id

    def highlighted(self) -> RunInfo | None:
        key = self.selected_key()
        return next((r for r in self.runs if run_key(r) == key), None)
