"""Pilot tests of every flow a user takes through the app; each waits for the state it asserts
(helpers.settle / wait_until), never for a length of time."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from textual.message import Message
from textual.widgets import DataTable, Input, Static
from textual.worker import Worker, WorkerState

from judgeaudit.profiles import active, secrets
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.app import JudgeAuditApp
from judgeaudit.tui.screens.pair import PairDetailScreen
from judgeaudit.tui.screens.pairs import PairsScreen
from judgeaudit.tui.screens.profiles import ProfilesScreen
from judgeaudit.tui.screens.results import ResultsScreen
from judgeaudit.tui.screens.review import ReviewScreen
from judgeaudit.tui.screens.run import RunScreen
from tests.audit_helpers import write_spec
from tests.tui.helpers import SIZE, make_app, palette, press, settle, wait_until

REPO = Path(__file__).resolve().parents[2]


def status_text(app: JudgeAuditApp) -> str:
    return str(app.screen.query_one("#profiles-status", Static).render())


def select_profile(app: JudgeAuditApp, name: str) -> None:
    table = app.screen.query_one(DataTable)
    table.move_cursor(row=table.get_row_index(name))


def shows_conversations_done(app: JudgeAuditApp) -> bool:
    """The Run screen reports conversations finished (the trajectories phase is under way)."""
    screen = app.screen
    if not isinstance(screen, RunScreen) or not screen.query("#stats"):
        return False  # not composed yet
    stats = str(screen.query_one("#stats", Static).render())
    return stats.startswith("trajectories: ") and not stats.startswith("trajectories: 0/")


def test_switch_profile_with_confirm(isolated: ProfileStore, tmp_path: Path) -> None:
    settings = tmp_path / "claude" / "settings.json"
    settings.write_text('{"hooks": {"Stop": []}, "theme": "dark"}\n')

    async def go() -> str:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, ProfilesScreen)
            select_profile(app, "taotoken-claude")
            await press(pilot, "u")
            assert "apiKeyHelper" in str(app.screen.query_one("#diff Static", Static).render())
            await press(pilot, "y")
            return status_text(app)

    status = asyncio.run(go())
    assert "active claude profile: taotoken-claude" in status and "backups: claude-" in status
    data = json.loads(settings.read_text())
    assert data["hooks"] == {"Stop": []} and data["theme"] == "dark" and "apiKeyHelper" in data
    assert active.here(isolated.state())["claude"] == "taotoken-claude"


def test_switch_refused_on_corrupt_file(isolated: ProfileStore, tmp_path: Path) -> None:
    settings = tmp_path / "claude" / "settings.json"
    settings.write_text('{"hooks": [,]}')

    async def go() -> str:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            select_profile(app, "taotoken-claude")
            await press(pilot, "u")
            assert isinstance(app.screen, ProfilesScreen)  # no confirm dialog for a refused plan
            return status_text(app)

    status = asyncio.run(go())
    assert "settings.json:1:" in status and "nothing was changed" in status
    assert settings.read_text() == '{"hooks": [,]}'


def test_set_key_is_masked(isolated: ProfileStore) -> None:
    async def go() -> tuple[str, str]:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            select_profile(app, "taotoken-sdk")
            await press(pilot, "k")
            field = app.screen.query_one("#key", Input)
            assert field.password
            await pilot.press(*"sk-tui-secret-4321")
            await press(pilot, "enter")
            table = app.screen.query_one(DataTable)
            row = table.get_row("taotoken-sdk")
            labels = [str(column.label) for column in table.columns.values()]
            return status_text(app), str(row[labels.index("key")])

    status, cell = asyncio.run(go())
    assert secrets.get_key("taotoken") == "sk-tui-secret-4321"
    assert "…4321" in status and "sk-tui-secret" not in status
    assert cell == "taotoken …4321"


def test_demo_run_to_completion_then_open_a_pair(isolated: ProfileStore, tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.toml")
    messages: list[Message] = []

    async def go() -> tuple[str, str]:
        app = make_app(isolated, tmp_path / "out", demo_spec=spec)
        async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
            await press(pilot, "f2", "ctrl+g")
            await wait_until(
                pilot,
                lambda: isinstance(app.screen, RunScreen) and app.screen.finished,
                "the run to finish",
            )
            stats = str(app.screen.query_one("#stats", Static).render())
            await press(pilot, "r")
            assert isinstance(app.screen, ResultsScreen)
            await press(pilot, "enter")
            assert isinstance(app.screen, PairsScreen)
            await press(pilot, "enter")
            assert isinstance(app.screen, PairDetailScreen)
            texts = " ".join(str(s.render()) for s in app.screen.query(Static))
            return stats, texts

    stats, detail = asyncio.run(go())
    assert "complete; press r for results" in stats
    assert "user:" in detail and "agent:" in detail and "order AB attempt 0" in detail
    assert "order BA attempt 0" in detail and '"winner"' in detail
    states = [
        m.state
        for m in messages
        if isinstance(m, Worker.StateChanged) and m.worker.group == "audit"
    ]
    assert WorkerState.SUCCESS in states


def test_cancel_then_resume(isolated: ProfileStore, tmp_path: Path) -> None:
    spec = write_spec(
        tmp_path / "spec.toml",
        ace="agent-ace:latency_ms=30",
        weak="agent-weak:latency_ms=30",
        pro="agent-pro:latency_ms=30",
        # judging cannot finish before the cancel lands, however fast the machine: every judge
        # call sleeps 10 minutes (the cancel ends them; the provider drops hung-up callers)
        judge="judge-default:latency_ms=600000",
    )
    out = tmp_path / "out"

    async def go() -> tuple[str, str]:
        app = make_app(isolated, out, demo_spec=spec)
        async with app.run_test(size=SIZE) as pilot:
            app.start_run(spec, out)
            await wait_until(pilot, lambda: shows_conversations_done(app), "conversations done")
            await press(pilot, "c", "y")
            screen = app.screen
            assert isinstance(screen, RunScreen)
            await wait_until(pilot, lambda: screen.finished, "the cancelled run to end")
            cancelled = str(screen.query_one("#stats", Static).render())
            first_bridge = screen.bridge
            app.start_run(spec, out)
            rerun = app.screen
            # the same Run screen shows the new run (one instance per screen, never stacked)
            assert rerun is screen and rerun.bridge is not first_bridge

            def title() -> str:
                return str(rerun.query_one("#run-title", Static).render())

            await wait_until(pilot, lambda: "(resumed)" in title(), "the resumed title")
            resumed = title()
            assert rerun.bridge is not None
            rerun.bridge.cancel()
            await wait_until(pilot, lambda: rerun.finished, "the second run to end")
            return cancelled, resumed

    cancelled, title = asyncio.run(go())
    assert "cancelled" in cancelled and "resume" in cancelled
    assert title.startswith("Run t-") and "(resumed)" in title and "pairs stored" in title


def test_review_label_saved_at_once(isolated: ProfileStore, run_copy: Path) -> None:
    async def go() -> str:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f5")
            assert isinstance(app.screen, ReviewScreen)
            await press(pilot, "1", "4", "a")
            title = str(app.screen.query_one("#agreement", Static).render())
            return title + "\n" + str(app.screen.query_one("#review-figures", Static).render())

    agreement = asyncio.run(go())
    db = sqlite3.connect(run_copy / "audit.db")
    rows = db.execute(
        "SELECT human_success_a, human_success_b, human_pref FROM human_labels"
    ).fetchall()
    assert rows == [(1, 0, "A")]
    assert "labelled 1" in agreement and "judge vs human: 1 pairs, as labelled " in agreement


def test_results_gap_source_changes_in_place(isolated: ProfileStore, run_copy: Path) -> None:
    async def go() -> list[str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f4")
            screen = app.screen
            assert isinstance(screen, ResultsScreen)
            screen.query_one("#bins", Input).value = "-0.01,0.5,5"
            screen.query_one("#bins", Input).focus()
            await press(pilot, "enter")
            assert screen.report is not None
            return [b["label"] for b in screen.report["buckets"]]

    assert asyncio.run(go()) == ["(-0.01, 0.5]", "(0.5, 5]"]


def test_command_palette_offers_main_actions(isolated: ProfileStore) -> None:
    async def go() -> str:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await palette(pilot, "launch", "Launch")
            return str(app.screen.id)

    assert asyncio.run(go()) == "launch"


def test_usable_at_80x24(isolated: ProfileStore) -> None:
    async def go() -> tuple[int, int]:
        app = make_app(isolated)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            table = app.screen.query_one(DataTable)
            return table.row_count, table.region.height

    rows, height = asyncio.run(go())
    assert rows >= 10 and height >= 10


def test_no_tty_prints_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "judgeaudit"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "judgeaudit demo --no-tui" in done.stderr


def test_review_head_shows_the_stratum_and_unset_labels_plainly(
    isolated: ProfileStore, run_copy: Path
) -> None:
    """The stratum in brackets is text, not markup (shown once the judge is: blind, it would
    tell the reviewer a side failed); a label not given yet shows as "-"."""

    async def go() -> tuple[str, str, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f5")
            screen = app.screen
            assert isinstance(screen, ReviewScreen) and screen.data is not None
            stratum = str(screen.data.items[0]["stratum"])
            blind = str(screen.query_one("#review-head", Static).render())
            await press(pilot, "j")
            before = str(screen.query_one("#review-head", Static).render())
            await press(pilot, "2")
            after = str(screen.query_one("#review-head", Static).render())
            return stratum, blind, before + "\n" + after

    stratum, blind, both = asyncio.run(go())
    before, after = both.split("\n", 1)
    assert stratum not in blind and "judge, success check and stratum hidden" in blind
    assert before.startswith(f"[{stratum}] ") and "None" not in before
    assert "your labels: A -, B -, prefer -" in before
    assert "your labels: A fail, B -, prefer -" in after
