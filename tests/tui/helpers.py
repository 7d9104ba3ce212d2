"""Waiting for states, not for time: every TUI test drives the app through these.

`settle` returns once nothing is left that could change the picture: every worker of the app
(except a live audit run, which is waited for by its own state) has finished, its results are
applied, pending messages are processed and animations are done. The app runs `steady` (no
cursor blink, no animations, toasts that stay), so a snapshot is the same on a busy machine."""

from __future__ import annotations

import contextlib
import html
import re
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

from textual.app import App
from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot, WaitForScreenTimeout
from textual.worker import WorkerCancelled, WorkerFailed

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.app import JudgeAuditApp

SIZE = (100, 32)
SMALL = (80, 24)
# Only a guard against a hang, with a message; never a condition a passing test relies on.
STATE_DEADLINE_S = 120.0


#: each app's notifications, in the order it gave them (see `notices`)
_HEARD: weakref.WeakKeyDictionary[App[Any], list[str]] = weakref.WeakKeyDictionary()


def make_app(store: ProfileStore, out: str | Path = "out/tui", **kwargs: Any) -> JudgeAuditApp:
    kwargs.setdefault("demo_spec", Path("examples/demo.toml"))
    app = JudgeAuditApp(store=store, out_dir=Path(out), steady=True, **kwargs)
    heard = _HEARD.setdefault(app, [])
    notify = app.notify

    def recorded(message: str, **how: Any) -> None:
        heard.append(str(message))
        notify(message, **how)

    app.notify = recorded  # type: ignore[method-assign]
    return app


def notices(app: App[Any]) -> list[str]:
    """Every notification (toast) the app gave, oldest first: the message of each call of its
    public `App.notify`, which every screen's and widget's `notify` goes through, recorded by
    `make_app` (`run_test` mounts no toasts, so the screen cannot be read for them)."""
    return list(_HEARD[app])


def no_crash(app: Any) -> None:
    """Fail with the app's own crash log (the app ends an unexpected error by writing one)."""
    log = getattr(app, "crash_log", None)
    if log is not None:
        raise AssertionError(f"the app crashed:\n{Path(log).read_text()}")


async def pause(pilot: Pilot[Any]) -> None:
    try:
        await pilot.pause()
    except WaitForScreenTimeout:
        no_crash(pilot.app)
        raise
    no_crash(pilot.app)


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until every non-audit worker is done and its effects are on screen."""
    app = pilot.app
    deadline = time.monotonic() + STATE_DEADLINE_S
    while True:
        await pause(pilot)
        pending = [w for w in app.workers if not w.is_finished and w.group != "audit"]
        if not pending:
            break
        assert time.monotonic() < deadline, f"workers still running: {pending}"
        with contextlib.suppress(WorkerFailed, WorkerCancelled):
            await app.workers.wait_for_complete(pending)
    await pilot.wait_for_scheduled_animations()
    await pause(pilot)


async def until(pilot: Pilot[Any], ready: Callable[[], bool], what: str) -> None:
    """Process events until `ready()` holds (the app's own state, never a clock)."""
    deadline = time.monotonic() + STATE_DEADLINE_S
    while not ready():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        no_crash(pilot.app)
        await pilot.pause(0.05)


async def wait_until(pilot: Pilot[Any], ready: Callable[[], bool], what: str) -> None:
    """`until`, then settle."""
    await until(pilot, ready, what)
    await settle(pilot)


async def press(pilot: Pilot[Any], *keys: str) -> None:
    """Press keys one at a time, settling after each (a key may start a worker)."""
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


async def palette(pilot: Pilot[Any], query: str, expect: str) -> None:
    """Open the command palette, search, wait for the hit named `expect`, and run it."""
    await press(pilot, "ctrl+p")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, CommandPalette), "the palette")
    await pilot.press(*query)

    def found() -> bool:
        screen = pilot.app.screen
        if not isinstance(screen, CommandPalette):
            return False
        hits = screen.query_one(CommandList)
        return hits.option_count > 0 and expect in str(hits.get_option_at_index(0).prompt)

    await wait_until(pilot, found, f"palette hit {expect!r} for {query!r}")
    await pilot.press("enter")
    await wait_until(
        pilot, lambda: not isinstance(pilot.app.screen, CommandPalette), "the palette to close"
    )


def snapshot(
    snap_compare: Any,
    app: JudgeAuditApp,
    keys: Iterable[str] = (),
    size: tuple[int, int] = SIZE,
    before: Callable[[Pilot[Any]], Awaitable[None]] | None = None,
) -> bool:
    """A snapshot taken after the app settled, after each key and after `before`."""

    async def drive(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        if before is not None:
            await before(pilot)
            await settle(pilot)
        await press(pilot, *keys)

    return bool(snap_compare(app, terminal_size=size, run_before=drive))


async def run_from_launch(pilot: Pilot[Any], app: JudgeAuditApp, key: str, what: str) -> str:
    """Press ``key`` on the Run screen (ctrl+g the demo, ctrl+b Launch's spec), wait for the run
    to end (a refused one ends at once) and return its stats line, white space folded."""
    from textual.widgets import Static

    from judgeaudit.tui.screens.run import RunScreen

    await press(pilot, "f2")
    await press(pilot, key)
    screen = app.get_screen("run")
    assert isinstance(screen, RunScreen)
    await until(pilot, lambda: screen.finished, what)
    return " ".join(str(screen.query_one("#stats", Static).render()).split())


TEXT = re.compile(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', re.S)


def painted(app: App[Any]) -> list[str]:
    """The screen's rows as text, from the same render the terminal gets (what a cut column, a
    line below the fold or a scrolled-off cell leaves out is not there)."""
    rows: dict[float, list[tuple[float, str]]] = {}
    for x, y, body in TEXT.findall(app.export_screenshot()):
        rows.setdefault(float(y), []).append((float(x), html.unescape(body)))
    return ["".join(t for _, t in sorted(p)).replace("\xa0", " ") for _, p in sorted(rows.items())]


async def runs_with_b(pilot: Pilot[Any], app: App[Any], out_b: str | Path) -> Any:
    """The Runs screen (F6) with ``out_b`` typed as B, returned (the caller moves the focus)."""
    from textual.widgets import Input

    from judgeaudit.tui.screens.runs import RunsScreen

    await press(pilot, "f6")
    screen = app.screen
    assert isinstance(screen, RunsScreen)
    screen.query_one("#r-b", Input).value = str(out_b)
    return screen


async def runs_listed(pilot: Pilot[Any], app: App[Any], out_b: str | Path) -> tuple[Any, list[str]]:
    """The Runs screen with ``out_b`` as B and Enter in B's field: A's and B's runs listed in
    the picker (focused), returned with the picker's run keys (two: one run in each)."""
    from textual.widgets import Input

    from judgeaudit.tui.widgets.run_picker import RunPicker

    screen = await runs_with_b(pilot, app, out_b)
    screen.query_one("#r-b", Input).focus()
    await press(pilot, "enter")
    keys = [key for key, _ in screen.query_one(RunPicker).rows_data]
    assert len(keys) == 2, keys
    return screen, keys


async def compare_in_runs(pilot: Pilot[Any], app: App[Any], out_b: str | Path) -> None:
    """The Runs screen (F6) with ``out_b`` typed as B and ctrl+t: the app's compare of the
    app's own output dir (A) and B, as a user starts one."""
    await runs_with_b(pilot, app, out_b)
    await press(pilot, "ctrl+t")


def hold(
    monkeypatch: Any,
    module: Any,
    name: str,
    first: Path | None = None,
    when: Callable[..., bool] | None = None,
) -> tuple[threading.Event, threading.Event, list[list[Any]]]:
    """Hold ``module.name`` (the real function) until released, for calls whose first argument
    is ``first`` (None: every call) and for which ``when(*args)`` holds (if given); returns the release and started events and the arguments
    of each call that answered (with its value or its error): a worker's late answer, made to
    arrive when a test wants it."""
    real = getattr(module, name)
    release, started = threading.Event(), threading.Event()
    answered: list[list[Any]] = []

    def held(*args: Any) -> Any:
        if (first is None or args[:1] == (first,)) and (when is None or when(*args)):
            started.set()
            assert release.wait(60)
        try:
            return real(*args)
        finally:
            answered.append(list(args))

    monkeypatch.setattr(module, name, held)
    return release, started, answered
