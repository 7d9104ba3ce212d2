"""What the Runs screen says about a gate, as a new user read it at 80×24 (twenty-third session).

With four runs listed the drift table shows three rows at 80×24: a gate that FAILED on the
tie-aware rate (its row last, under the fold) showed only rows reading "fall". The cursor now
lands on the row that failed the gate. The pane's head said "INCONCLUSIVE — inconclusive
(exit 5): ..." (the outcome, then the CLI's reason led by the same word), and the CLI's verdict
line ("gate (margin 2 points): ...") was shown only for a set-aside pass."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.widgets.fit_table import FitTable
from judgeaudit.tui.widgets.run_picker import RunPicker
from tests.cli_helpers import recorded_runs_in_one
from tests.integration.test_gate_ties import _good, _log
from tests.tui.helpers import SMALL, make_app, painted, press, settle, wait_until


@pytest.fixture(scope="module")
def four_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One output directory: the good judge's run, the always-tie judge's on the same logged
    pairs, and two more runs of the good judge (so the picker takes its five rows)."""
    folder = tmp_path_factory.mktemp("drift-deciding")
    tie = _log("judge-always-tie", lambda rng, right, order: "tie")
    good = [("good", _log("judge-good", _good)), ("tie", tie)]
    return recorded_runs_in_one(folder, [*good, *((f"good{i}", good[0][1]) for i in (2, 3))])


async def _compare(pilot: Pilot[None], b_row: int) -> list[str]:
    """Pick the first listed run as A and the run ``b_row`` rows below it as B, compare."""
    picker = pilot.app.screen.query_one(RunPicker)
    picker.focus()
    picker.move_cursor(row=0)
    await press(pilot, "a")
    picker.move_cursor(row=b_row)
    await press(pilot, "b", "ctrl+t")
    await settle(pilot)
    return painted(pilot.app)


def test_the_row_that_failed_the_gate_is_on_screen_at_80x24(
    isolated: ProfileStore, four_runs: Path
) -> None:
    async def go() -> tuple[list[str], str, list[str], str | None]:
        app = make_app(isolated, four_runs)
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "f6")
            picker = app.screen.query_one(RunPicker)
            await wait_until(pilot, lambda: picker.row_count == 4, "four runs listed")
            order = [r.run_id for r in picker.runs]
            tie = next(i for i, r in enumerate(picker.runs) if "tie" in r.judge)
            good = next(i for i, r in enumerate(picker.runs) if "tie" not in r.judge)
            assert good == 0, order  # the good judge's first run is A
            failed = await _compare(pilot, tie)
            pane = str(app.screen.query_one("#changes", Static).render())
            # a second comparison of two good runs: the table starts at its top again
            other = next(i for i in range(1, 4) if i != tie)
            passed = await _compare(pilot, other)
            return failed, pane, passed, app.screen.query_one("#drift", FitTable).selected_key()

    failed, pane, passed, cursor = asyncio.run(go())
    screen = "\n".join(failed)
    assert "FAILED" in screen, screen
    table_rows = [s.strip() for s in failed if s.strip().startswith(("tie-aware", "overall"))]
    # the deciding row, with its RISE, is painted without scrolling (before: only "fall" rows)
    assert any(s.startswith("tie-aware") and "RISE" in s for s in table_rows), screen
    # the CLI's verdict line names the criterion that failed
    assert "\ngate (margin 2 points): WORSE on the tie-aware rate: ties count half a loss\n" in pane
    assert cursor is not None and cursor == "0", cursor  # the next table starts at its top
    assert any(s.strip().startswith("bucket") for s in passed)


def _rows_above(lines: list[str], labels: list[str]) -> int:
    """How many of the table's rows (``labels``, in their order) are above the first one painted
    under its header: counted on the screen, not from the table's scroll offset."""
    head = next(i for i, line in enumerate(lines) if line.strip().startswith("bucket "))
    shown = [line.strip() for line in lines[head + 1 :]]
    return next(i for i, label in enumerate(labels) if any(s.startswith(label) for s in shown))


def test_a_table_opened_below_its_top_says_so_and_the_next_opens_at_its_top(
    isolated: ProfileStore, four_runs: Path
) -> None:
    """The table opens at its top row unless the gate failed: then on the row that failed it,
    and the pane's top edge says why the first rows are out of sight and how many (a user at
    80x24 saw the first rows hidden above and no reason); once the table is scrolled back to its
    top (the cursor left where it was) it says how many rows down that row is (nothing pointed
    to it); once the cursor leaves that row, or the next comparison passes, no such line."""

    async def go() -> tuple[list[str], list[str], list[str], list[str], list[str], float]:
        app = make_app(isolated, four_runs)
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "f6")
            picker = app.screen.query_one(RunPicker)
            await wait_until(pilot, lambda: picker.row_count == 4, "four runs listed")
            tie = next(i for i, r in enumerate(picker.runs) if "tie" in r.judge)
            failed = await _compare(pilot, tie)
            table = app.screen.query_one("#drift", FitTable)
            labels = [str(cells["bucket"]) for _, cells in table.rows_data]
            table.scroll_home(animate=False)  # as the mouse wheel does: the cursor stays
            await settle(pilot)
            at_top = painted(app)
            table.focus()
            await press(pilot, "up")  # off the row that failed: the note has done its work
            moved = painted(app)
            other = next(i for i in range(1, 4) if i != tie)
            passed = await _compare(pilot, other)
            return failed, labels, at_top, moved, passed, table.scroll_offset.y

    failed, labels, at_top, moved, passed, top = asyncio.run(go())
    rows = _rows_above(failed, labels)
    assert rows > 0, "the row that failed the gate is below the first rows at 80x24"
    assert labels[-1] == "tie-aware", labels  # the row that failed the gate, last
    noun = "row" if rows == 1 else "rows"
    said = f"cursor on tie-aware, the row that failed the gate · ↑ {rows} {noun} above"
    assert any(said in line for line in failed), "\n".join(failed)
    # scrolled back to the top: the first row is painted and nothing says rows are above it
    assert _rows_above(at_top, labels) == 0, "\n".join(at_top)
    assert not any("rows above" in s or "row above" in s for s in at_top), "\n".join(at_top)
    # ... and the row that failed the gate is under the fold, as many rows down as were above
    down = f"cursor on tie-aware, the row that failed the gate · ↓ {rows} {noun} below"
    assert any(down in line for line in at_top), "\n".join(at_top)
    head = next(i for i, line in enumerate(at_top) if line.strip().startswith("bucket "))
    assert not any(s.strip().startswith(labels[-1]) for s in at_top[head:]), "\n".join(at_top)
    assert not any("the row that failed the gate" in line for line in moved), "\n".join(moved)
    assert top == 0 and not any("failed the gate" in line for line in passed), "\n".join(passed)


FAILED_GATE = "cursor on tie-aware, the row that failed the gate"


def _edge_agrees(lines: list[str], labels: list[str]) -> str:
    """What the pane's top edge must say of the table as painted, counted on the screen: the
    rows above the first one painted, or those down to the failing (last) row when it is under
    the fold, and nothing when it is painted with nothing above it; fails when the screen
    says otherwise, and returns that line."""
    above = _rows_above(lines, labels)
    head = next(i for i, line in enumerate(lines) if line.strip().startswith("bucket "))
    rows = [s.strip() for s in lines[head + 1 :]]
    shown = [i for i, label in enumerate(labels) if any(s.startswith(label) for s in rows)]
    below = len(labels) - 1 - max(shown)
    said = [
        f"{arrow} {n} {'row' if n == 1 else 'rows'} {where}"
        for arrow, n, where in (("↑", above, "above"), ("↓", below, "below"))
        if n
    ]
    edge = [line for line in lines if FAILED_GATE in line]
    screen = "\n".join(lines)
    if not said:
        assert not edge, screen
        return ""
    assert len(edge) == 1 and f"{FAILED_GATE} · {' · '.join(said)}" in edge[0], screen
    return edge[0]


@pytest.mark.parametrize("first", [SMALL, (120, 40)], ids=["80x24-first", "120x40-first"])
def test_the_edge_is_said_again_when_the_terminal_is_resized(
    isolated: ProfileStore, four_runs: Path, first: tuple[int, int]
) -> None:
    """How many rows are out of sight was worked out when the comparison was shown and when the
    table scrolled: scrolled back to its top at 80x24, then widened to 120x40 (every row
    painted), the pane still said "↓ 2 rows below". Now, at each size, it says what the screen
    shows."""

    async def go() -> tuple[list[tuple[str, list[str]]], list[str]]:
        app = make_app(isolated, four_runs)
        seen: list[tuple[str, list[str]]] = []
        async with app.run_test(size=first) as pilot:
            await press(pilot, "f6")
            picker = app.screen.query_one(RunPicker)
            await wait_until(pilot, lambda: picker.row_count == 4, "four runs listed")
            tie = next(i for i, r in enumerate(picker.runs) if "tie" in r.judge)
            seen.append((f"{first} opened", await _compare(pilot, tie)))
            table = app.screen.query_one("#drift", FitTable)
            for size in (SMALL, (120, 40), SMALL):
                await pilot.resize_terminal(*size)
                await settle(pilot)
                seen.append((f"{size}", painted(app)))
                table.scroll_home(animate=False)  # as the mouse wheel does: the cursor stays
                await settle(pilot)
                seen.append((f"{size} at the top", painted(app)))
            return seen, [str(cells["bucket"]) for _, cells in table.rows_data]

    seen, labels = asyncio.run(go())
    said = {what: _edge_agrees(lines, labels) for what, lines in seen}
    assert "↓ 2 rows below" in said["(80, 24) at the top"], said  # the case that was stale next
    assert said["(120, 40) at the top"] == "", said


def test_no_edge_over_a_hidden_table(isolated: ProfileStore, four_runs: Path) -> None:
    """`g` (the chart) and `f` (the figures) take the drift table's place under the change pane:
    its top edge kept "cursor on tie-aware, the row that failed the gate · ↑ 2 rows above" over
    a chart with no cursor and no rows. Now it says nothing while the table is hidden (a resize
    meanwhile too), and the table back says again where that row is."""

    async def go() -> tuple[dict[str, list[str]], list[str]]:
        app = make_app(isolated, four_runs)
        seen: dict[str, list[str]] = {}
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "f6")
            picker = app.screen.query_one(RunPicker)
            await wait_until(pilot, lambda: picker.row_count == 4, "four runs listed")
            tie = next(i for i, r in enumerate(picker.runs) if "tie" in r.judge)
            seen["table"] = await _compare(pilot, tie)
            for key in ("g", "f"):
                await press(pilot, key)
                seen[key] = painted(app)
                await pilot.resize_terminal(120, 40)
                await settle(pilot)
                seen[f"{key} at 120x40"] = painted(app)
                await pilot.resize_terminal(*SMALL)
                await press(pilot, key)  # the drift table again
                seen[f"{key} again"] = painted(app)
            table = app.screen.query_one("#drift", FitTable)
            return seen, [str(cells["bucket"]) for _, cells in table.rows_data]

    seen, labels = asyncio.run(go())
    assert "↑" in _edge_agrees(seen["table"], labels)
    for key in ("g", "f"):
        for hidden in (key, f"{key} at 120x40"):
            screen = "\n".join(seen[hidden])
            assert "gate (--fail-on-rise): FAILED" in screen, screen  # the pane is there
            assert "change [95% CI]" not in screen, screen  # the drift table's header
            assert FAILED_GATE not in screen, screen
        assert "↑" in _edge_agrees(seen[f"{key} again"], labels)
