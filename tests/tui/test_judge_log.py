"""The judge log as a reader sees it while a run streams (issue 23, goal 2: it renders only the
lines on screen): new lines appear and the view follows them; scrolled back, it stays on the
same lines while more arrive, even as the oldest are dropped; it keeps the last 2000; a filter
shows the matching lines, old and new; a judge's control characters stay on their row."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from textual.app import App, ComposeResult
from textual.pilot import Pilot

from judgeaudit.audit import events as ev
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.app import JudgeAuditApp
from judgeaudit.tui.judge_log import KEPT, JudgeLog, LogFilter
from tests.tui.helpers import SIZE, make_app, painted, press, settle


class LogApp(App[None]):
    CSS = "JudgeLog { height: 14; border: round $panel; }"

    def compose(self) -> ComposeResult:
        yield JudgeLog(id="judge-log")


def numbers(rows: list[str]) -> list[int]:
    return [int(n) for row in rows for n in re.findall(r"task-(\d{4})", row)]


def shown(app: App[None]) -> list[int]:
    """The conversation numbers on screen, top to bottom."""
    return numbers(painted(app))


def convs(start: int, n: int, agent: str = "ace") -> list[ev.TrajectoryDone]:
    return [
        ev.TrajectoryDone(f"t{i}", agent, f"task-{i:04d}", True, True, "satisfied")
        for i in range(start, start + n)
    ]


async def feed(pilot: Pilot[None], *events: ev.TrajectoryDone) -> None:
    pilot.app.query_one(JudgeLog).add(events)
    await pilot.pause()
    await pilot.pause()


def test_new_lines_appear_and_the_view_follows_the_tail() -> None:
    async def go() -> tuple[list[int], list[int]]:
        app = LogApp()
        async with app.run_test(size=(100, 20)) as pilot:
            await feed(pilot, *convs(0, 3))
            first = shown(app)
            await feed(pilot, *convs(3, 60))
            return first, shown(app)

    first, later = asyncio.run(go())
    assert first == [0, 1, 2]
    assert later[-1] == 62 and later == list(range(later[0], 63)) and len(later) >= 10


def test_scrolled_back_the_view_stays_on_its_lines_while_lines_arrive() -> None:
    async def go() -> tuple[list[int], list[int], list[int]]:
        app = LogApp()
        async with app.run_test(size=(100, 20)) as pilot:
            await feed(pilot, *convs(0, 50))
            app.query_one(JudgeLog).focus()
            await pilot.press("pageup", "up")
            await pilot.pause()
            before = shown(app)
            await feed(pilot, *convs(50, 40))
            after = shown(app)
            await pilot.press("end")
            await feed(pilot, *convs(90, 5))  # at the bottom again: it follows
            return before, after, shown(app)

    before, after, following = asyncio.run(go())
    assert before and before[-1] < 49
    assert after == before
    assert following[-1] == 94


def test_lines_dropped_from_the_front_do_not_shift_a_scrolled_back_view() -> None:
    async def go() -> tuple[list[int], list[int]]:
        app = LogApp()
        async with app.run_test(size=(100, 20)) as pilot:
            await feed(pilot, *convs(0, KEPT))
            app.query_one(JudgeLog).focus()
            await pilot.press("pageup", "pageup")
            await pilot.pause()
            before = shown(app)
            await feed(pilot, *convs(KEPT, 7))  # the 7 oldest lines go
            return before, shown(app)

    before, after = asyncio.run(go())
    assert before[-1] < KEPT - 1
    assert after == before


def test_the_log_keeps_the_last_2000_lines() -> None:
    async def go() -> tuple[list[int], list[int]]:
        app = LogApp()
        async with app.run_test(size=(100, 20)) as pilot:
            await feed(pilot, *convs(0, 1500))
            await feed(pilot, *convs(1500, 1000))
            app.query_one(JudgeLog).focus()
            await pilot.press("home")
            await pilot.pause()
            top = shown(app)
            await pilot.press("end")
            await pilot.pause()
            return top, shown(app)

    top, bottom = asyncio.run(go())
    assert top[0] == 2500 - KEPT and bottom[-1] == 2499


def test_a_filter_shows_the_matching_lines_old_and_new() -> None:
    def pair(i: int, missel: bool) -> ev.PairDone:
        return ev.PairDone(f"run/task-{i:04d}/t0/ace~weak", "ace", "weak", True, False, "B", missel)

    def call(i: int) -> ev.JudgeCallDone:
        pair_id = f"run/task-{i:04d}/t0/ace~weak"
        return ev.JudgeCallDone(pair_id, "AB", 0, "B", 2.0, 4.0, "weak was shorter", None, "{}")

    async def go() -> tuple[list[str], list[str], list[str]]:
        app = LogApp()
        async with app.run_test(size=(100, 20)) as pilot:
            log = app.query_one(JudgeLog)
            await feed(pilot, *convs(0, 4, "ace"), *convs(4, 4, "weak"))
            log.set_filter(LogFilter("weak"))
            await feed(pilot, *convs(8, 2, "ace"), *convs(10, 2, "weak"))
            by_text = [row for row in painted(app) if "task-" in row]
            log.set_filter(LogFilter(misselected=True))
            log.add([call(20), call(21)])  # a call, before its pair is known misselected
            log.add([pair(20, True), pair(21, False)])
            await pilot.pause()
            missel = [row for row in painted(app) if "task-" in row]
            log.set_filter(LogFilter())
            await pilot.pause()
            return by_text, missel, [row for row in painted(app) if "task-" in row]

    by_text, missel, everything = asyncio.run(go())
    assert numbers(by_text) == [4, 5, 6, 7, 10, 11]
    assert len(missel) == 2 and all("task-0020" in row for row in missel)
    assert "MISSELECTED" in missel[1] and " → weak " in missel[0]
    assert any("task-0021" in row for row in everything) and len(everything) >= 10


def test_a_judges_control_characters_stay_on_its_row_and_never_reach_the_terminal() -> None:
    reason = "first line\nsecond\x1b[2J line\tend"
    call = ev.JudgeCallDone("run/task-0001/t0/ace~pro", "AB", 0, "A", 4.0, 2.0, reason, None, "{}")

    async def go() -> tuple[list[str], list[str]]:
        app = LogApp()
        async with app.run_test(size=(120, 20)) as pilot:
            log = app.query_one(JudgeLog)
            log.add([call])
            log.add(convs(2, 1))
            await pilot.pause()
            strips = [log.render_line(y).text for y in range(3)]
            return [row for row in painted(app) if "task-" in row], strips

    rows, strips = asyncio.run(go())
    assert len(rows) == 2 and "task-0002" in rows[1]
    assert "first line⏎second�[2J line end" in rows[0]
    assert not any("\x1b" in strip or "\n" in strip for strip in strips)


async def run_screen_with_40_lines(app: JudgeAuditApp, pilot: Pilot[None]) -> JudgeLog:
    """The Run screen, its judge log holding 40 lines, settled."""
    app.show_place("run")
    await settle(pilot)
    log = app.screen.query_one(JudgeLog)
    log.add(convs(0, 40))
    await settle(pilot)
    return log


def test_l_hides_and_shows_the_log_and_leaves_the_rest_of_the_run_screen_as_it_was(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    """`l` on the Run screen: the log's lines leave the screen and come back, nothing above it
    moves, and the keys go to the pair table while the log is hidden. (Since issue 23, goal 2
    the log is made invisible instead of taken out of the layout: the key repaints the log's
    rows only, where it laid out and repainted the whole screen.)"""

    async def go() -> tuple[list[str], list[str], list[str], str, list[int]]:
        app = make_app(isolated, tmp_path / "out")
        async with app.run_test(size=SIZE) as pilot:
            await run_screen_with_40_lines(app, pilot)
            before = painted(app)
            await press(pilot, "l")
            hidden = painted(app)
            focus = type(app.focused).__name__
            await press(pilot, "l")
            return before, hidden, painted(app), focus, shown(app)

    before, hidden, after, focus, back = asyncio.run(go())
    assert numbers(before) and not numbers(hidden), "the log's lines leave the screen"
    top = next(i for i, row in enumerate(before) if "judge log" in row)
    assert hidden[:top] == before[:top], "nothing above the log moves"
    assert focus == "FitTable"
    # the footer names the table's keys now (its `/` is its own), as it did with `display`
    assert after[:-1] == before[:-1] and back[-1] == 39, "shown again, on the same lines"


def test_lines_that_arrive_while_the_log_is_hidden_are_ready_when_l_shows_it(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    """While `l` hides the log, a run's lines keep arriving; `l` again shows the newest ones.
    The log renders, while hidden, the lines it will show, so the key paints lines already
    rendered (a whole view of new lines was rendered in the key's frame: about 6 ms while a
    run streams; issue 23, goal 2)."""

    async def go() -> tuple[bool, list[int], int]:
        app = make_app(isolated, tmp_path / "out")
        async with app.run_test(size=SIZE) as pilot:
            log = await run_screen_with_40_lines(app, pilot)
            height = log.scrollable_content_region.height
            await press(pilot, "l")
            log.add(convs(40, 60))  # arrives while hidden
            await settle(pilot)
            ready = all(log.strips.get(row.key) is not None for row in log.rows[-height:])
            await press(pilot, "l")
            return ready, shown(app), height

    ready, back, height = asyncio.run(go())
    assert back[-1] == 99 and back == list(range(100 - len(back), 100)), "the newest lines"
    assert len(back) == height
    assert ready, "rendered before the key that shows them"
