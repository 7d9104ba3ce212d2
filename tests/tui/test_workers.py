"""Slow work off the UI thread (issue 13, item 6): the report, database reads and keyring reads
run in workers while the screen says it is loading and still answers keys.

Each test holds the slow call at a gate (a threading.Event) until the test has seen the
loading state and pressed a key (F10, the help): were the call on the UI thread, the key would never be handled
and the test would time out. The gate also records the thread it was called from."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import keyring
import pytest
from textual.widgets import Input, Static

from judgeaudit.profiles import secrets
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.app import JudgeAuditApp
from judgeaudit.tui.screens.dialogs import HelpScreen
from judgeaudit.tui.screens.pair import PairDetailScreen
from judgeaudit.tui.screens.pairs import PairsScreen
from judgeaudit.tui.widgets.fit_table import FitTable
from tests.tui.helpers import SIZE, make_app, press, settle, until


class Gate:
    """Wraps a slow call: records where it ran and waits until the test opens the gate."""

    def __init__(self, call: Callable[..., Any]) -> None:
        self.call = call
        self.entered = threading.Event()
        self.opened = threading.Event()
        self.on_ui_thread: list[bool] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.on_ui_thread.append(threading.current_thread() is threading.main_thread())
        self.entered.set()
        assert self.opened.wait(60), "the test never opened the gate"
        return self.call(*args, **kwargs)


async def responsive_while_held(pilot: Any, app: JudgeAuditApp, gate: Gate, loading: Any) -> bool:
    """While the gated call waits: the screen shows it is loading and F10 opens the help."""
    await until(pilot, gate.entered.is_set, "the slow call to start")
    shown_loading = bool(loading())
    await pilot.press("f10")  # not `?`: a focused text field would take it as a character
    await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help (UI responsive)")
    await pilot.press("escape")
    await until(pilot, lambda: not isinstance(app.screen, HelpScreen), "the help to close")
    gate.opened.set()
    await settle(pilot)
    return shown_loading


def test_results_report_builds_in_a_worker(
    isolated: ProfileStore, run_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import judgeaudit.analysis.report as results  # the screen imports it when it first builds

    gate = Gate(results.build_report)
    monkeypatch.setattr(results, "build_report", gate)

    async def go() -> tuple[bool, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("f4")
            screen = app.get_screen("results")
            loading = await responsive_while_held(
                pilot, app, gate, lambda: screen.query_one("#results-body").loading
            )
            return loading, str(screen.query_one("#results-title", Static).render())

    loading, title = asyncio.run(go())
    assert loading and gate.on_ui_thread == [False]
    assert title.startswith(f"Results — {run_copy}: run t-"), "names the directory it shows"


def test_pairs_and_pair_detail_read_in_workers(
    isolated: ProfileStore, run_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import judgeaudit.analysis.queries as pair  # the screens import it when they first load
    import judgeaudit.analysis.queries as pairs

    list_gate, detail_gate = Gate(pairs.pairs_in_range), Gate(pair.pair_detail)
    monkeypatch.setattr(pairs, "pairs_in_range", list_gate)
    monkeypatch.setattr(pair, "pair_detail", detail_gate)

    async def go() -> tuple[bool, bool, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f4")
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, PairsScreen), "the pairs screen")
            screen = app.screen
            listed = await responsive_while_held(
                pilot, app, list_gate, lambda: screen.query_one(FitTable).loading
            )
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, PairDetailScreen), "the pair")
            detail = app.screen
            shown = await responsive_while_held(
                pilot, app, detail_gate, lambda: detail.query_one("#pair-columns").loading
            )
            return listed, shown, str(detail.query_one("#judge-outputs", Static).render())

    listed, shown, outputs = asyncio.run(go())
    assert listed and shown and "order AB attempt 0" in outputs
    assert list_gate.on_ui_thread == [False] and detail_gate.on_ui_thread == [False]


def test_review_reads_in_a_worker(
    isolated: ProfileStore, run_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import judgeaudit.analysis.queries as review  # the screen imports it when it first loads

    gate = Gate(review.review_data)
    monkeypatch.setattr(review, "review_data", gate)

    async def go() -> tuple[bool, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("f5")
            screen = app.get_screen("review")
            loading = await responsive_while_held(
                pilot, app, gate, lambda: screen.query_one("#review-item").loading
            )
            return loading, str(screen.query_one("#agreement", Static).render())

    loading, line = asyncio.run(go())
    assert loading and gate.on_ui_thread == [False] and line.startswith("Review 1/40")


def test_runs_compare_in_a_worker(
    isolated: ProfileStore, run_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import judgeaudit.analysis.compare_entry as runs  # the screen imports it on the first compare

    gate = Gate(runs.compare_runs)
    monkeypatch.setattr(runs, "compare_runs", gate)

    async def go() -> bool:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f6")
            app.screen.query_one("#r-b", Input).value = str(run_copy)
            await pilot.press("ctrl+t")
            screen = app.get_screen("runs")
            return await responsive_while_held(
                pilot, app, gate, lambda: screen.query_one("#changes-pane").loading
            )

    assert asyncio.run(go()) and gate.on_ui_thread == [False]


def test_profiles_read_each_key_once_in_a_worker(
    isolated: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = keyring.get_keyring()
    reads: list[tuple[str, bool]] = []
    real = backend.get_password

    def counted(service: str, name: str) -> str | None:
        reads.append((name, threading.current_thread() is threading.main_thread()))
        return real(service, name)

    monkeypatch.setattr(backend, "get_password", counted)

    async def go() -> tuple[int, set[str]]:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            table = app.get_screen("profiles").query_one(FitTable)
            keys = {p.key for p in isolated.list() if p.key}
            return table.row_count, keys

    rows, keys = asyncio.run(go())
    assert rows > len(keys)  # several profiles share a key...
    own = [name for name, _ in reads if name != secrets.BUNDLE_ENTRY]
    assert sorted(own) == sorted(keys)  # ...and each key is read once
    assert len(reads) - len(own) <= 1  # the CC Switch import bundle: at most once for them all
    assert not any(on_ui for _, on_ui in reads)
