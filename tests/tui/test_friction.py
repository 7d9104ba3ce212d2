"""Friction items of issue 22: Results at the top for another directory, verdict health and
human agreement there (refreshed while a run runs), the open directory named, the apiKeyHelper
warning, the SDK switch explained and its mark clearable, focus that shows."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Input, Static

from judgeaudit.cli import main
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.modals import ConfirmDiff
from judgeaudit.tui.screens.results import ResultsScreen
from judgeaudit.tui.screens.run import RunScreen
from judgeaudit.tui.widgets.run_picker import RunPicker
from tests.audit_helpers import write_spec
from tests.tui.helpers import SIZE, SMALL, make_app, press, settle, wait_until
from tests.tui.test_state import marked, select


def text(widget: Static) -> str:
    return str(widget.render())


def test_another_directory_opens_at_the_top_and_is_named(
    isolated: ProfileStore, run_copy: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    shutil.copytree(run_copy, other)

    async def go() -> tuple[float, float, str, str, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "f4", "a")
            body = app.screen.query_one("#results-body", VerticalScroll)
            scrolled = body.scroll_y
            await press(pilot, "f6")
            field = app.screen.query_one("#r-a", Input)
            field.value = str(other)
            field.focus()
            await press(pilot, "enter")  # lists other's runs, the picker takes the focus
            picker = app.screen.query_one(RunPicker)
            await wait_until(pilot, lambda: str(picker.rows_data[0][1]["dir"]) == str(other), "")
            await press(pilot, "ctrl+o")
            screen = app.screen
            assert isinstance(screen, ResultsScreen)
            await settle(pilot)
            title = text(screen.query_one("#results-title", Static))
            return scrolled, body.scroll_y, title, screen.sub_title or "", str(app.out_dir)

    scrolled, top, title, header, out = asyncio.run(go())
    assert scrolled > 0 and top == 0
    assert title.startswith(f"Results — {other}: run ") and str(other) in header
    assert out == str(other)


def test_results_show_verdict_health_and_human_agreement(
    isolated: ProfileStore, run_copy: Path
) -> None:
    async def go() -> tuple[str, str, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f4")
            health = text(app.screen.query_one("#health", Static))
            before = text(app.screen.query_one("#human", Static))
            await press(pilot, "f5", "1", "3", "a", "f4")
            await settle(pilot)
            return health, before, text(app.screen.query_one("#human", Static))

    health, before, after = asyncio.run(go())
    assert health.startswith("no verdict (unparsable judge output after retries): ")
    assert "judge-default: no verdict " in health and "parse failures" in health
    assert before.startswith("human review: no labels yet")
    assert after.startswith("human review: 1 labelled pairs")
    assert "success check vs human: n=2" in after


def test_results_follow_a_running_run(isolated: ProfileStore, tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.toml", judge="judge-default:latency_ms=150")
    out = tmp_path / "out"

    async def go() -> tuple[str, str]:
        app = make_app(isolated, out, demo_spec=spec)
        async with app.run_test(size=SIZE) as pilot:
            app.start_run(spec, out)
            run = app.get_screen("run")
            assert isinstance(run, RunScreen)
            await wait_until(pilot, lambda: bool(run.run_id), "the run to start")
            await press(pilot, "f4")
            results = app.screen
            assert isinstance(results, ResultsScreen)
            title = results.query_one("#results-title", Static)
            await wait_until(pilot, lambda: "(running)" in text(title), "the running report")
            first = text(title)
            # no key pressed: the screen re-reads the run until it is finished
            await wait_until(pilot, lambda: "(finished)" in text(title), "the finished report")
            return first, text(title)

    first, last = asyncio.run(go())
    assert "(running)" in first and "(finished)" in last


def test_helper_without_a_key_is_warned_in_preview_and_dry_run(
    isolated: ProfileStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "claude" / "settings.json").write_text("{}\n")

    async def go() -> list[str]:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await select(pilot, app, "taotoken-claude")
            await press(pilot, "u")
            dialog = app.screen
            assert isinstance(dialog, ConfirmDiff)
            return dialog.warnings

    warnings = asyncio.run(go())
    assert any("apiKeyHelper" in w and "no key 'taotoken'" in w for w in warnings), warnings
    assert main(["profile", "use", "taotoken-claude", "--dry-run"]) == 0
    err = capsys.readouterr().err
    assert "warning: apiKeyHelper runs `judgeaudit key print taotoken`" in err
    assert "no key 'taotoken'" in err


def test_sdk_switch_is_explained_and_its_mark_clears(isolated: ProfileStore) -> None:
    async def go() -> tuple[str, list[str], list[str]]:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await select(pilot, app, "taotoken-sdk")
            await press(pilot, "u")
            dialog = app.screen
            assert isinstance(dialog, ConfirmDiff)
            body = dialog.diff
            await press(pilot, "y")
            on = marked(app)
            await press(pilot, "o")
            assert isinstance(app.screen, ConfirmDiff), "off asks, then clears the mark"
            await press(pilot, "y")
            return body, on, marked(app)

    body, on, off = asyncio.run(go())
    assert (
        "judgeaudit exec taotoken-sdk -- CMD" in body and "no file changes" not in body.lower()[:3]
    )
    assert "taotoken-sdk" in on and "taotoken-sdk" not in off


def test_focus_is_visible(isolated: ProfileStore, run_copy: Path) -> None:
    async def go() -> tuple[object, object, object, object, bool]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f6")
            field = app.screen.query_one("#r-a", Input)
            field.focus()
            await settle(pilot)
            focused = field.styles.background
            app.screen.query_one(RunPicker).focus()
            await settle(pilot)
            unfocused = field.styles.background
            await press(pilot, "ctrl+t")
            pane = app.screen.query_one("#changes-pane", VerticalScroll)
            still = pane.styles.border_top[1]
            pane.focus()
            await settle(pilot)
            return focused, unfocused, still, pane.styles.border_top[1], pane.has_focus

    focused, unfocused, still, lit, pane_focused = asyncio.run(go())
    assert pane_focused, "the change pane takes the focus"
    assert focused != unfocused and lit != still
    a, b = focused, unfocused
    assert sum(abs(x - y) for x, y in zip(a.rgb, b.rgb, strict=True)) > 30  # type: ignore[attr-defined]


def test_runs_lists_the_directories_opened_before(
    isolated: ProfileStore, run_copy: Path, tmp_path: Path
) -> None:
    async def first() -> None:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f4")  # opening a directory remembers it

    async def later() -> list[str]:
        app = make_app(isolated, tmp_path / "elsewhere")  # a new start, another default dir
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f6")
            picker = app.screen.query_one(RunPicker)
            await wait_until(pilot, lambda: picker.row_count > 0, "the recent runs")
            return [str(r["dir"]) for _, r in picker.rows_data]

    asyncio.run(first())
    assert asyncio.run(later()) == [str(run_copy.resolve())]


def test_runs_drops_a_listing_refusal_once_the_directory_lists(
    isolated: ProfileStore, run_copy: Path, tmp_path: Path
) -> None:
    """Typing a directory that lists its runs left the red "no audit database" line of the
    default directory on screen, under the runs it had just listed."""

    async def go() -> tuple[str, bool, bool]:
        app = make_app(isolated, tmp_path / "missing")
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "f6")
            note = app.screen.query_one("#runs-status", Static)
            await wait_until(pilot, lambda: bool(note.display), "the refusal of the missing dir")
            refused = text(note)
            field = app.screen.query_one("#r-a", Input)
            field.value = str(run_copy)
            field.focus()
            await press(pilot, "enter")
            picker = app.screen.query_one(RunPicker)
            await wait_until(pilot, lambda: str(picker.rows_data[0][1]["dir"]) == str(run_copy), "")
            await settle(pilot)
            return refused, bool(note.display), "no audit database" in text(note)

    refused, shown, still = asyncio.run(go())
    assert "missing: no audit database" in refused
    assert not shown and not still


def test_runs_remembers_a_directory_typed_there(
    isolated: ProfileStore, run_copy: Path, tmp_path: Path
) -> None:
    """Only a directory opened in Results was kept for the next start; one typed into Runs'
    field (which lists its runs) was forgotten."""

    async def first() -> None:
        app = make_app(isolated, tmp_path / "missing")
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f6")
            field = app.screen.query_one("#r-a", Input)
            field.value = str(run_copy)
            field.focus()
            await press(pilot, "enter")
            picker = app.screen.query_one(RunPicker)
            await wait_until(pilot, lambda: picker.row_count > 0, "the typed directory's runs")
            field.value = str(tmp_path / "nothing here")  # one that does not list: not kept
            field.focus()
            await press(pilot, "enter")
            note = app.screen.query_one("#runs-status", Static)
            await wait_until(pilot, lambda: "no audit database" in text(note), "the refusal")
            await settle(pilot)

    async def later() -> list[str]:
        app = make_app(isolated, tmp_path / "elsewhere")
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f6")
            picker = app.screen.query_one(RunPicker)
            await wait_until(pilot, lambda: picker.row_count > 0, "the recent runs")
            return sorted({str(r["dir"]) for _, r in picker.rows_data})

    asyncio.run(first())
    assert asyncio.run(later()) == [str(run_copy.resolve())]
