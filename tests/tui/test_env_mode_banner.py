"""The Profiles screen's doctor lines asked whose key a terminal token displaces with no
profile at all, so with a ``key_mode = "env"`` profile switched in (its key *is* the terminal's
token) they said the token goes "instead of the key Claude Code would use otherwise (its login
…) (unset it)". They ask with the active Claude profile, as `profile use` and doctor do."""

from __future__ import annotations

import asyncio

import pytest

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import use_profile
from tests.tui.helpers import SIZE, make_app, settle
from tests.tui.test_profiles_state import problems


def test_the_banner_says_the_terminal_token_is_the_env_mode_profile_s_key(
    isolated: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolated.user_dir.mkdir(parents=True, exist_ok=True)
    (isolated.user_dir / "pe.toml").write_text(
        'name = "pe"\napp = "claude"\nbase_url = "https://gw.example.com/api"\n'
        'key_env = "GW_KEY"\n[options]\nkey_mode = "env"\n'
    )
    use_profile(isolated, "pe")
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "sk-shell-token-" + "7" * 16 + "WXYZ")

    async def go() -> str:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            return problems(app)

    shown = " ".join(asyncio.run(go()).split())
    assert (
        "ANTHROPIC_AUTH_TOKEN is set (…WXYZ): Claude Code sends it to gw.example.com as the "
        "bearer token, as profile pe's key (key_mode env" in shown
    ), shown
    assert "instead of" not in shown and "unset it" not in shown
