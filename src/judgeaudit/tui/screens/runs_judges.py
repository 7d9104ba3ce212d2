"""The Runs screen's judge leaderboard: `j` shows `judgeaudit judges` for the runs in the
directories named and picked that judged the same conversations, in place of the drift table;
Enter on a judge opens its run (the screen's row handler). The list of runs and the compare
live in :mod:`judgeaudit.tui.screens.runs`, which builds on this class."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.screen import Screen

from judgeaudit.errors import JudgeauditError
from judgeaudit.tui.latest import Latest
from judgeaudit.tui.widgets.judges_table import JudgesTable, judges_note
from judgeaudit.tui.widgets.run_picker import Pick

if TYPE_CHECKING:  # pandas and the analysis load with the first compare
    from judgeaudit.analysis.compare_entry import Comparison

#: the views that take the drift table's place, one shown at a time
VIEWS = ("#drift", "#drift-chart-pane", "#run-figures", "#judges")


class RunsJudges(Screen[None]):
    """The leaderboard half of the Runs screen; the screen supplies the fields and the status."""

    pick_a: Pick | None
    pick_b: Pick | None
    compared: Comparison | None  # the comparison on screen (the screen's compare)

    def __init__(self, id: str) -> None:
        super().__init__(id=id)
        # a ranking still running when the view is left (j again, ctrl+t, g, f) is dropped: its
        # late answer took the focus and the status line; when A, B or the picks change, or
        # they do not list, a finished one goes too (drop_ranking)
        self.rankings = Latest()

    def dirs(self) -> tuple[Path, Path | None]:
        raise NotImplementedError  # the screen's fields A and B

    def say(self, text: str | Text) -> None:
        raise NotImplementedError  # the screen's status line

    def show_view(self, shown: str) -> None:
        """One of the views; the change pane (the gate's outcome) beside every view but the
        leaderboard, which takes its room, whenever a comparison is on screen (leaving the
        leaderboard by j, g or f brought the table back without it: one owner here)."""
        for view in VIEWS:
            self.query_one(view).display = view == shown
        self.query_one("#changes-pane").display = shown != "#judges" and (
            self.compared is not None or self.query_one("#changes-pane").loading
        )
        table = self.query_one(JudgesTable)
        if shown != "#judges":
            self.rankings.drop()
            if table.loading:  # "ranking the judges…" is no longer true
                table.loading = False
                self.say("")

    def toggle_view(self, view: str) -> None:
        """``g`` and ``f``: a comparison's chart or figures in place of the drift table, or the
        table back. Before a comparison there is nothing to show: the view (the judges' too)
        stays and a notice says so (``g`` showed an empty pane, ``f`` the notice)."""
        shown = self.query_one(view).display
        if self.compared is None and not shown:
            self.notify("no comparison yet: ctrl+t compares run A with run B", severity="warning")
            return
        self.show_view("#drift" if shown else view)

    def drop_ranking(self) -> None:
        """A, B or the picks changed, or the directories did not list: a ranking shown or still
        running is of the inputs before, so its view is left as j would (a running one's late
        answer took the focus and the status line; a finished one stayed, ranking runs the
        fields no longer named, with its note on the status line)."""
        if self.query_one(JudgesTable).display:
            self.show_judges(False)
            self.say("")

    def judge_dirs(self) -> list[Path]:
        """Directories A and B and those of the picked runs, each once."""
        a, b = self.dirs()
        picked = [p[0] for p in (self.pick_a, self.pick_b) if p is not None]
        return list(dict.fromkeys(d for d in (a, b, *picked) if d is not None))

    def show_judges(self, shown: bool) -> None:
        """The leaderboard takes the change pane's room too; leaving it brings the pane back
        with the drift table when a comparison is on screen (it stayed hidden: the table
        without its gate line)."""
        self.show_view("#judges" if shown else "#drift")

    def action_judges(self) -> None:
        """The leaderboard in place of the drift table (again: back to it)."""
        table = self.query_one(JudgesTable)
        if table.display:
            self.show_judges(False)
            self.say("")
            return
        self.show_judges(True)
        table.set_rows([])
        table.loading = True
        self.say("ranking the judges of the same conversations…")
        self.load_judges(self.rankings.ask(), self.judge_dirs())

    @work(thread=True, exclusive=True, group="judges")
    def load_judges(self, request: int, dirs: list[Path]) -> None:
        from judgeaudit.analysis.leaderboard import leaderboard  # pandas: on the first ranking

        try:
            board = leaderboard(dirs)
        except JudgeauditError as exc:
            self.app.call_from_thread(self.judges_failed, request, str(exc))
            return
        self.app.call_from_thread(self.judges_shown, request, board)

    def judges_shown(self, request: int, board: dict[str, Any]) -> None:
        if not self.rankings.current(request):
            return
        table = self.query_one(JudgesTable)
        table.loading = False
        table.show_board(board)
        table.focus()
        self.say(judges_note(board))

    def judges_failed(self, request: int, message: str) -> None:
        if not self.rankings.current(request):
            return
        table = self.query_one(JudgesTable)
        table.loading = False
        self.show_judges(False)
        said = message if message.startswith("judges: ") else f"judges: {message}"
        self.say(Text(said, style="bold red"))  # the ranking's own lines name the command
