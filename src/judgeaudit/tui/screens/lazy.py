"""The screens the first paint does not show, built (and their modules imported) the first time
the app names one: a function key, the palette, a run starting, the help listing every screen.

Importing Launch, Run, Runs, Review, Results and Trends up front cost about 70 ms of the app's
first paint (issue 23, goal 3: first paint within 2x a minimal Textual app). Each is built with
the output directory the app was started with, as when they were all built at start."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.screen import Screen

    from judgeaudit.tui.app import JudgeAuditApp


def build_screen(app: JudgeAuditApp, name: str) -> Screen[Any] | None:
    """A new screen for the place ``name``, or None for a name that is not a place."""
    if name == "launch":
        from judgeaudit.tui.screens.launch import LaunchScreen

        return LaunchScreen(app.demo_spec, app.start_out)
    if name == "run":
        from judgeaudit.tui.screens.run import RunScreen

        return RunScreen()
    if name == "results":
        from judgeaudit.tui.screens.results import ResultsScreen

        return ResultsScreen()
    if name == "review":
        from judgeaudit.tui.screens.review import ReviewScreen

        return ReviewScreen()
    if name == "runs":
        from judgeaudit.tui.screens.runs import RunsScreen

        return RunsScreen(app.start_out, app.store.root)
    if name == "trends":
        from judgeaudit.tui.screens.trends import TrendsScreen

        return TrendsScreen(str(app.start_out), app.trend)
    return None
