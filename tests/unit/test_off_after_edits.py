"""`profile off` after hand edits and mixed key modes: the file comes back byte for byte, and a
credential never goes back beside a base URL it was not saved with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgeaudit.profiles import secrets
from judgeaudit.profiles.model import profile_from_dict
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import turn_off, use_profile

OLD_TOKEN = "sk-old-provider-0123456789abcdef"
GATEWAY_KEY = "gk-old-provider-fedcba9876543210"


def settings(tmp_path: Path) -> Path:
    return tmp_path / "claude" / "settings.json"


def add_profiles(store: ProfileStore) -> None:
    secrets.set_key("ka", "sk-profile-a-0000000000000000")
    secrets.set_key("ki", "sk-profile-i-1111111111111111")
    profiles: dict[str, dict[str, object]] = {
        "a-claude": {"base_url": "http://127.0.0.1:1", "key": "ka"},
        "b-claude": {"base_url": "http://127.0.0.1:2", "key": "ka"},
        "i-claude": {
            "base_url": "http://127.0.0.1:3",
            "key": "ki",
            "options": {"key_mode": "inline"},
        },
    }
    for name, data in profiles.items():
        store.save(profile_from_dict({"name": name, "app": "claude", **data}, "test"))


FULL = {
    "env": {
        "ANTHROPIC_AUTH_TOKEN": OLD_TOKEN,
        "ANTHROPIC_BASE_URL": "https://old.example.com/api",
        "ANTHROPIC_DEFAULT_OPUS_MODEL": "old-opus",
        "ANTHROPIC_CUSTOM_HEADERS": f"x-gateway-key: {GATEWAY_KEY}\nX-Org: acme",
        "FOO": "1",
    },
    "permissions": {"allow": []},
}
MINIMAL = {
    "env": {"ANTHROPIC_AUTH_TOKEN": OLD_TOKEN, "ANTHROPIC_BASE_URL": "https://o/", "FOO": "1"}
}


@pytest.mark.parametrize("start", [FULL, MINIMAL], ids=["full", "minimal"])
@pytest.mark.parametrize(
    "sequence",
    [
        ["a-claude", "i-claude"],
        ["i-claude", "a-claude"],
        ["i-claude"],
        ["a-claude", "i-claude", "b-claude"],
    ],
)
def test_off_gives_the_file_back_byte_for_byte(
    isolated: ProfileStore, tmp_path: Path, start: dict[str, object], sequence: list[str]
) -> None:
    original = json.dumps(start, indent=2) + "\n"
    settings(tmp_path).write_text(original)
    add_profiles(isolated)
    for name in sequence:
        use_profile(isolated, name)
    turn_off(isolated, "claude")
    assert settings(tmp_path).read_text() == original
