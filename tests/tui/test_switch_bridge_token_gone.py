"""`y` on the app's switch preview of the active bridged profile whose local bridge token is
gone from the keyring (a `key delete`, a keyring reset) was blocked ("y applies nothing: … is
active already"), while the CLI's `profile use` makes the token again, which the tool's key
command then prints. The preview says the token is missing and the switch makes it; `y` does
so, as the CLI."""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import Button, Static

from judgeaudit.cli import main
from judgeaudit.profiles import secrets
from judgeaudit.profiles.model import profile_from_dict
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import use_profile
from judgeaudit.tui.screens.modals import ConfirmDiff
from tests.helpers import free_port
from tests.tui.helpers import SIZE, SMALL, make_app, press, settle
from tests.tui.test_state import select, status

NOTE = "note: the local bridge token of br-claude is not in the keyring"
#: after the switch, in the CLI and the app alike (one owner: ``SwitchResult.token_line``)
MADE = "new local bridge token for br-claude (it was not in the keyring)"


def _active_without_token(store: ProfileStore) -> None:
    data = {"name": "br-claude", "app": "claude", "base_url": "http://127.0.0.1:9/v1", "key": "gw"}
    options = {"bridge": "chat", "bridge_port": free_port()}  # nothing listens there
    store.save(profile_from_dict({**data, "options": options}, "test"))
    secrets.set_key("gw", "sk-gw-key-not-real-1111")
    use_profile(store, "br-claude")
    secrets.drop_bridge_tokens(["br-claude"])
    assert secrets.bridge_token("br-claude", create=False) is None


@pytest.mark.parametrize("size", [SIZE, SMALL])
def test_y_makes_the_gone_bridge_token_as_profile_use_does(
    isolated: ProfileStore, size: tuple[int, int]
) -> None:
    _active_without_token(isolated)

    async def go() -> tuple[bool, list[str], bool, str]:
        app = make_app(isolated)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await select(pilot, app, "br-claude")
            await press(pilot, "u")
            dialog = app.screen
            assert isinstance(dialog, ConfirmDiff)
            blocked = bool(dialog.query("#blocked"))
            pinned = [str(s.render()) for s in dialog.query("#pinned Static").results(Static)]
            enabled = not dialog.query_one("#yes", Button).disabled
            await press(pilot, "y")
            await settle(pilot)
            return blocked, pinned, enabled, status(app)

    blocked, pinned, enabled, said = asyncio.run(go())
    assert not blocked and enabled, pinned
    assert any(line.startswith(NOTE) for line in pinned), pinned
    assert said.startswith("active claude profile: br-claude"), said
    assert MADE in said, said
    assert secrets.bridge_token("br-claude", create=False)


def test_profile_use_says_it_made_the_token(
    isolated: ProfileStore, capsys: pytest.CaptureFixture[str]
) -> None:
    """`profile use` said only `active claude profile: br-claude`, nothing of the token it
    made; a switch again with the token in place says nothing of it."""
    _active_without_token(isolated)
    assert main(["profile", "use", "br-claude"]) == 0
    active, made = capsys.readouterr().out.splitlines()[-2:]
    assert active == "active claude profile: br-claude", active
    assert made.startswith(MADE + ": claude's key command prints it"), made
    assert secrets.bridge_token("br-claude", create=False)
    assert main(["profile", "use", "br-claude"]) == 0
    assert MADE not in capsys.readouterr().out


def test_a_first_switch_says_nothing_of_its_token(
    isolated: ProfileStore, capsys: pytest.CaptureFixture[str]
) -> None:
    """A first switch makes the token as every switch of a bridged profile does: no news."""
    _active_without_token(isolated)
    assert main(["profile", "off", "claude"]) == 0
    secrets.drop_bridge_tokens(["br-claude"])
    assert main(["profile", "use", "br-claude"]) == 0
    assert MADE not in capsys.readouterr().out
    assert secrets.bridge_token("br-claude", create=False)


def test_the_cli_preview_says_so_too(isolated: ProfileStore) -> None:
    """`profile use --dry-run` shows the same note (one owner: ``switch.token_note``) and makes
    no token (restored beside the tests above: the lane had replaced it; reviewer)."""
    _active_without_token(isolated)
    plan = use_profile(isolated, "br-claude", dry_run=True)
    assert plan.makes_token and not plan.nothing_to_write("br-claude")
    assert NOTE.removeprefix("note: ") in plan.diff
    assert secrets.bridge_token("br-claude", create=False) is None  # a preview only looks
