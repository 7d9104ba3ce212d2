"""The CLI's profile tools in the app: remove a profile, delete a key, import from CC Switch,
read the doctor (issue 22, item 17); each asks before it changes anything."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Static

from judgeaudit.profiles import secrets
from judgeaudit.profiles.model import profile_from_dict
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.modals import ConfirmDiff
from judgeaudit.tui.screens.profile_tools import TextView
from judgeaudit.tui.widgets.table_prompt import TextPrompt
from tests.tui.helpers import SIZE, make_app, press, settle
from tests.tui.test_state import select, status


def test_remove_delete_key_import_and_doctor(isolated: ProfileStore, tmp_path: Path) -> None:
    mine = profile_from_dict(
        {"name": "mine-sdk", "app": "sdk", "base_url": "http://127.0.0.1:9/v1", "key": "mine"},
        "test",
    )
    isolated.save(mine)
    secrets.set_key("mine", "test-key-not-real-1234")

    async def go() -> dict[str, object]:
        seen: dict[str, object] = {}
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await select(pilot, app, "mine-sdk")
            await press(pilot, "K")
            seen["key_asks"] = isinstance(app.screen, ConfirmDiff)
            await press(pilot, "y")
            seen["key_said"] = status(app)
            await select(pilot, app, "mine-sdk")
            await press(pilot, "D")
            seen["remove_asks"] = isinstance(app.screen, ConfirmDiff)
            await press(pilot, "y")
            seen["remove_said"] = status(app)
            await select(pilot, app, "taotoken-sdk")
            await press(pilot, "D", "y")
            seen["preset_said"] = status(app)
            await press(pilot, "I")
            prompt = app.screen
            seen["import_asks"] = isinstance(prompt, TextPrompt)
            await press(pilot, "ctrl+u")
            await pilot.press(*str(tmp_path / "nowhere.db"))
            await press(pilot, "enter")
            seen["import_said"] = status(app)
            await press(pilot, "d")
            view = app.screen
            seen["doctor"] = (
                str(view.query_one("#text-view-body", Static).render())
                if isinstance(view, TextView)
                else None
            )
        return seen

    seen = asyncio.run(go())
    assert seen["key_asks"] and seen["key_said"] == "deleted key mine"
    assert secrets.get_key("mine") is None
    assert seen["remove_asks"] and seen["remove_said"] == "removed mine-sdk"
    assert not isolated.exists("mine-sdk")
    assert "preset" in str(seen["preset_said"]) and isolated.exists("taotoken-sdk")
    assert seen["import_asks"] and "nothing imported" in str(seen["import_said"])
    assert "nowhere.db" in str(seen["import_said"])
    assert seen["doctor"] and "claude" in str(seen["doctor"]).lower()


def test_key_set_in_the_app_renews_the_bridge_tokens_as_the_cli_does(
    isolated: ProfileStore,
) -> None:
    """A new key is what a suspected leak gets: the bridged profiles on it get a new local
    token, so the old token (handed to a tool) stops working, with the CLI's notice."""
    for name, options in (("br-claude", {"bridge": "chat"}), ("plain-claude", {})):
        data = {"name": name, "app": "claude", "base_url": "http://127.0.0.1:9/v1", "key": "gw"}
        isolated.save(profile_from_dict({**data, "options": options}, "test"))
    secrets.set_key("gw", "sk-old-key-not-real-1111")
    old = secrets.bridge_token("br-claude")

    async def go() -> str:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await select(pilot, app, "plain-claude")
            await press(pilot, "k")
            await pilot.press(*"sk-new-key-not-real-2222")
            await press(pilot, "enter")
            return status(app)

    said = asyncio.run(go())
    assert secrets.get_key("gw") == "sk-new-key-not-real-2222"
    new = secrets.bridge_token("br-claude", create=False)
    assert new and new != old
    assert secrets.bridge_token("plain-claude", create=False) is None  # not bridged: none made
    assert "stored key gw (…2222)" in said
    assert "new local bridge token for br-claude" in said and "nothing needs a restart" in said
