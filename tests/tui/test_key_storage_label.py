"""The app's key entry said "in the OS keyring" whatever held the key, where `key set` says
where it went (:func:`judgeaudit.profiles.secrets.storage_label`): with a plaintext store the
user opted into, the app called it the OS keyring (a review). Both the dialog and the status
line now say what `key set` says ("a NOT ENCRYPTED keyring (…)"); at 80×24 the status line
has room for that, not for `key set`'s longer warning line too."""

from __future__ import annotations

import asyncio

import keyring
import pytest
from textual.widgets import Static

from judgeaudit.profiles import secrets
from judgeaudit.profiles.store import ProfileStore
from tests.memkeyring import MemoryKeyring
from tests.tui.helpers import SIZE, make_app, press, settle
from tests.tui.test_flows import select_profile, status_text


class PlainFileKeyring(MemoryKeyring):
    """Stands for a store that does not encrypt (keyrings.alt's PlaintextKeyring)."""

    judgeaudit_trusted = False


def test_the_key_dialog_and_status_say_where_the_key_went(
    isolated: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    keyring.set_keyring(PlainFileKeyring())
    monkeypatch.setenv(secrets.OPT_IN_ENV, "1")
    label = secrets.storage_label()
    assert label.startswith("a NOT ENCRYPTED keyring")

    async def go() -> tuple[str, str]:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            select_profile(app, "taotoken-sdk")
            await press(pilot, "k")
            title = str(app.screen.query_one("#key-where", Static).render())
            await pilot.press(*"sk-tui-secret-4321")
            await press(pilot, "enter")
            return title, status_text(app)

    title, status = asyncio.run(go())
    assert title.endswith(f"stored in {label}") and "OS keyring" not in title
    assert f"stored key taotoken (…4321) in {label}" in status
    assert "OS keyring" not in status
