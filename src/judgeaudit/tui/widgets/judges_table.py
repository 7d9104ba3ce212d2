"""The judge leaderboard in the app: `judgeaudit judges`' own rows (analysis.leaderboard), fitted
to the terminal. The cells are the CLI's; latency is left out here (it is measured per call and
differs from one run of the same judge to the next, so it reads as noise beside the figures that
decide; `judgeaudit judges` prints it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text

from judgeaudit.analysis.judge_rank import RANK_NAME
from judgeaudit.tui.widgets.fit_table import Cell, Col, FitTable, Row

#: leaderboard header -> (column key, shown label, narrowest width, drop order: the highest goes
#: first when the terminal is narrow, 0 never goes). The intervals and the verdict against the
#: best are never cut (``WHOLE``): shown whole or not at all, while other columns narrow, so the
#: table fits the screen (at 80 columns the verdict ran off its edge, ``inconclusive (-2``). At
#: 80 columns the rank (with the frontier's ``*``), judge, the rank's key (the tie-aware rate)
#: and the verdict against the best stay; at 120 misselection and the top style term too; at 160
#: the near bucket, ties and satisfied-but-failed, each with its interval. The judge is cut
#: where it parts from the others, the style term in its name (its odds ratio whole).
SHOWN: tuple[tuple[str, str, str, int, int], ...] = (
    ("#", "rank", "#", 1, 0),
    ("judge", "judge", "judge", 18, 0),
    ("tie-aware [95% CI]", "tieaware", "tie-aware [95% CI]", 15, 0),
    ("misselection [95% CI]", "missel", "missel. [95% CI]", 15, 2),
    ("near [95% CI]", "near", "near [95% CI]", 15, 4),
    ("ties [95% CI]", "ties", "ties [95% CI]", 15, 5),
    ("sat.-but-failed [95% CI]", "sbf", "sat.-but-failed", 15, 6),
    ("tokens", "tokens", "tokens", 7, 7),
    ("$/1k verdicts", "cost", "$/1k verdicts", 6, 8),
    ("top style OR", "style", "top style OR", 12, 3),
    ("vs best", "vs", "vs best", 12, 0),
    ("run", "run", "run", 8, 9),
)
WHOLE = ("rank", "tieaware", "missel", "near", "ties", "sbf", "vs")
JUDGES_COLUMNS = tuple(
    Col(
        key,
        label,
        min=width,
        drop=drop,
        whole=key in WHOLE,
        apart=key == "judge",
        figure=key == "style",
    )
    for _, key, label, width, drop in SHOWN
)


def judge_key(row: dict[str, Any]) -> str:
    return f"{row['out']}#{row['run_id']}"


def judges_rows(board: dict[str, Any]) -> list[Row]:
    """One table row per judge, keyed ``OUT#RUN`` (Enter opens that run)."""
    from judgeaudit.analysis.leaderboard import cells, judge_cell  # pandas: not before a paint

    rows: list[Row] = []
    for judge in board["judges"]:
        printed = cells(judge)
        row: dict[str, Cell] = {key: printed[header] for header, key, *_ in SHOWN}
        if judge.get("frontier"):  # beside the rank: a judge cut to fit would lose it
            row["rank"], row["judge"] = f"{printed['#']} *", judge_cell(judge)
        vs = judge["vs_best"]
        if vs is not None and vs["verdict"] == "worse":
            row["vs"] = Text(printed["vs best"], style="bold red")
        elif vs is not None and vs["verdict"] == "not worse":
            row["vs"] = Text(printed["vs best"], style="green")
        rows.append((judge_key(judge), row))
    return rows


def judges_note(board: dict[str, Any]) -> str:
    """What the table holds, in one line under it (the CLI prints the same notes)."""
    left = len(board["left_out"])
    tail = f"; {left} run(s) judged other conversations, left out" if left else ""
    return (
        f"{len(board['judges'])} judges of the same conversations, best first by {RANK_NAME} "
        f"(ties count half a loss; 95% task-clustered CIs; vs best: the paired gate, margin "
        f"{board['margin'] * 100:g} pts, and its change; * unbeaten on it and "
        f"{board['cost_axis']}{tail}) — Enter opens a judge's run"
    )


class JudgesTable(FitTable):
    """The leaderboard's rows; remembers which run each row is."""

    DEFAULT_CSS = "JudgesTable { height: 1fr; max-height: 100%; }"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(JUDGES_COLUMNS, cursor_type="row", **kwargs)
        self.runs: dict[str, tuple[Path, str]] = {}

    def show_board(self, board: dict[str, Any]) -> None:
        self.runs = {judge_key(j): (Path(j["out"]), str(j["run_id"])) for j in board["judges"]}
        self.set_rows(judges_rows(board), cursor=next(iter(self.runs), None))

    def run_of(self, key: str) -> tuple[Path, str] | None:
        return self.runs.get(key)
