"""The Run screen's title and figures (LiveText) lay the screen out only when their line count
changes (issue 23, goal 2): a longer figure line still gets its second row at 80 columns, and a
shorter one gives it back, while an unchanged one is not redrawn at all."""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult
from textual.widgets import Static

from judgeaudit.tui.widgets.live_text import LiveText

SHORT = "judging: 10/1260 · whole run 514/1764"
LONG = (
    "judging: 100/1260 · whole run 604/1764, ETA 3s · 1426 calls/s · 1813k tokens · retries 0 · "
    "failed 0   limits: judge 64/64"
)


class Two(App[None]):
    CSS = "LiveText { height: auto; } #below { height: 1; }"

    def compose(self) -> ComposeResult:
        yield LiveText(SHORT, id="stats")
        yield Static("below", id="below")


def test_the_figures_take_the_rows_they_need_as_they_change() -> None:
    async def go() -> tuple[list[tuple[int, int]], int]:
        app = Two()
        seen = []
        async with app.run_test(size=(80, 12)) as pilot:
            stats, below = app.query_one(LiveText), app.query_one("#below")
            for text in (SHORT, LONG, LONG, SHORT):
                stats.show(text)
                await pilot.pause()
                seen.append((stats.region.height, below.region.y))
            repaints = 0
            real = stats.refresh

            def counted(*args: object, **kwargs: bool) -> LiveText:
                nonlocal repaints
                repaints += 1
                return real(*args, **kwargs)  # type: ignore[arg-type]

            stats.refresh = counted  # type: ignore[method-assign]
            stats.show(SHORT)  # the same text again
            await pilot.pause()
        return seen, repaints

    seen, repaints = asyncio.run(go())
    assert seen == [(1, 1), (2, 2), (2, 2), (1, 1)]
    assert repaints == 0
