"""The switch preview's `y` when there is nothing to apply. It applied anyway: on the preview of
a switch `profile use` refuses (a keyring profile with no usable keyring: the preview warns so)
`y` closed the dialog and ran the switch into its refusal ("switch failed"), and on the preview
of the profile already active ("no file changes") it closed it and said "active claude profile:
…" as if it had switched. Now such a preview says first why there is nothing to apply, `y` does
nothing (the dialog stays), Apply is off and `n` closes it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import keyring
from keyring.backends import fail
from textual.widgets import Button, Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import use_profile
from judgeaudit.tui.screens.modals import ConfirmDiff
from tests.tui.helpers import SIZE, SMALL, make_app, press, settle
from tests.tui.test_state import select, status


def _press_y_on_the_preview(
    store: ProfileStore, name: str, size: tuple[int, int] = SIZE
) -> tuple[str, bool, bool, str]:
    """(the preview's first pinned line, still open after y, Apply enabled, the status)."""

    async def go() -> tuple[str, bool, bool, str]:
        app = make_app(store)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await select(pilot, app, name)
            await press(pilot, "u")
            dialog = app.screen
            assert isinstance(dialog, ConfirmDiff)
            blocked = dialog.query("#blocked")
            line = str(blocked.first(Static).render()) if blocked else ""
            enabled = not dialog.query_one("#yes", Button).disabled
            await press(pilot, "y")
            await settle(pilot)
            still = app.screen is dialog
            said = status(app)
            if still:
                await press(pilot, "n")
                assert not isinstance(app.screen, ConfirmDiff)
            return line, still, enabled, said

    return asyncio.run(go())


def test_y_does_nothing_on_the_preview_of_a_switch_that_refuses(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    keyring.set_keyring(fail.Keyring())  # type: ignore[no-untyped-call]  # put back by `isolated`
    settings = tmp_path / "claude" / "settings.json"
    before = settings.read_bytes() if settings.exists() else None
    line, still, enabled, said = _press_y_on_the_preview(isolated, "taotoken-claude")
    assert line.startswith("y applies nothing: the switch refuses (no usable OS keyring"), line
    assert still and not enabled
    assert "switch failed" not in said
    assert (settings.read_bytes() if settings.exists() else None) == before


def test_y_does_nothing_on_the_preview_of_the_active_profile(isolated: ProfileStore) -> None:
    use_profile(isolated, "taotoken-claude")
    for size in (SIZE, SMALL):
        line, still, enabled, said = _press_y_on_the_preview(isolated, "taotoken-claude", size)
        assert line == (
            "y applies nothing: taotoken-claude is active already and claude's files hold what "
            "it writes"
        )
        assert still and not enabled and "active claude profile" not in said


def test_y_does_nothing_on_the_preview_of_the_active_sdk_profile(isolated: ProfileStore) -> None:
    use_profile(isolated, "taotoken-sdk")
    line, still, enabled, _ = _press_y_on_the_preview(isolated, "taotoken-sdk")
    assert line == "y applies nothing: taotoken-sdk is the active SDK profile (*) already"
    assert still and not enabled


def test_y_still_applies_a_switch_with_something_to_write(isolated: ProfileStore) -> None:
    line, still, enabled, said = _press_y_on_the_preview(isolated, "taotoken-claude")
    assert line == "" and enabled and not still
    assert said.startswith("active claude profile: taotoken-claude"), said
