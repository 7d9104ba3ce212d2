"""The switch and the off share one apply (``profile_switch._apply``): when the transaction
refuses after its preview was shown (the file made read-only meanwhile), the status line says
which one failed, that nothing changed and why, and the file is as it was."""

from __future__ import annotations

import asyncio
from pathlib import Path

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import use_profile
from judgeaudit.tui.screens.modals import ConfirmDiff
from tests.tui.helpers import SIZE, make_app, press, settle
from tests.tui.test_state import select, status


def _y_after_read_only(store: ProfileStore, key: str, settings: Path) -> str:
    """Open the preview (``key``), make ``settings`` read-only, press y: the status."""

    async def go() -> str:
        app = make_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await select(pilot, app, "taotoken-claude")
            await press(pilot, key)
            assert isinstance(app.screen, ConfirmDiff)
            settings.chmod(0o444)
            await press(pilot, "y")
            await settle(pilot)
            return status(app)

    return asyncio.run(go())


def _settings(tmp_path: Path) -> Path:
    path = tmp_path / "claude" / "settings.json"
    if not path.exists():
        path.write_text("{}\n")
    return path


def test_a_switch_refused_after_its_preview_says_nothing_changed(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    settings = _settings(tmp_path)
    before = settings.read_bytes()
    said = _y_after_read_only(isolated, "u", settings)
    assert said.startswith("switch failed, nothing changed: "), said
    assert "read-only" in said and settings.read_bytes() == before


def test_an_off_refused_after_its_preview_says_nothing_changed(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    _settings(tmp_path)
    use_profile(isolated, "taotoken-claude")
    settings = _settings(tmp_path)
    before = settings.read_bytes()
    said = _y_after_read_only(isolated, "o", settings)
    assert said.startswith("not turned off, nothing changed: "), said
    assert "read-only" in said and settings.read_bytes() == before
