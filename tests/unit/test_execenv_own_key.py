"""A `key_env` that does not hold the key in use is another account's (a review: with a
Claude profile's key in the keyring and `key_env = ANTHROPIC_API_KEY`, exec kept the shell's
real Anthropic key beside the gateway's token, and the Anthropic SDK sends the API key first)."""

from __future__ import annotations

from pathlib import Path

from judgeaudit.profiles.execenv import plan_launch, profile_environment
from judgeaudit.profiles.model import Profile, profile_from_dict
from judgeaudit.profiles.store import ProfileStore

GATEWAY_KEY = "gw-key-" + "7" * 24
REAL = "real-anthropic-" + "4" * 24


def _profile() -> Profile:
    return profile_from_dict(
        {"name": "gw", "app": "claude", "base_url": "https://gw.example.com", "key": "gw",
         "key_env": "ANTHROPIC_API_KEY"},
        "test",
    )  # fmt: skip


def test_another_accounts_key_in_key_env_is_cleared(isolated: ProfileStore, tmp_path: Path) -> None:
    profile = _profile()
    launch = plan_launch(profile, GATEWAY_KEY, ["python", "app.py"], {"ANTHROPIC_API_KEY": REAL})
    assert "ANTHROPIC_API_KEY" not in launch.env
    assert launch.env["ANTHROPIC_AUTH_TOKEN"] == GATEWAY_KEY
    _, gone = profile_environment(profile, GATEWAY_KEY, {"ANTHROPIC_API_KEY": REAL})
    assert "ANTHROPIC_API_KEY" in gone  # `judgeaudit env` unsets it too


def test_key_env_holding_the_profiles_own_key_stays(isolated: ProfileStore) -> None:
    """Unset in a shell, the next `judgeaudit env` (which reads key_env) would find no key."""
    profile = _profile()
    _, gone = profile_environment(profile, GATEWAY_KEY, {"ANTHROPIC_API_KEY": GATEWAY_KEY})
    assert "ANTHROPIC_API_KEY" not in gone
