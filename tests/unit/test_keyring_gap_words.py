"""The switch preview's line when the keyring cannot give the tool its key reads as a sentence
for either reason (lane-sw: "... but there is the keyring backend X is not an encrypted one")."""

from __future__ import annotations

import keyring
import pytest

from judgeaudit.profiles.model import profile_from_dict
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.targets.keywarnings import codex_key_warnings, helper_warnings
from tests.memkeyring import MemoryKeyring


class PlainFileKeyring(MemoryKeyring):
    """Stands for a plaintext store the user has not opted into (not on the allow-list)."""

    judgeaudit_trusted = False


@pytest.mark.parametrize("app", ["claude", "codex"])
def test_an_unencrypted_keyring_gap_is_one_sentence(
    isolated: ProfileStore, monkeypatch: pytest.MonkeyPatch, app: str
) -> None:
    monkeypatch.delenv("JUDGEAUDIT_ALLOW_PLAINTEXT_KEYRING", raising=False)
    keyring.set_keyring(PlainFileKeyring())
    base = "https://gw.example/api" if app == "claude" else "https://gw.example/v1"
    profile = profile_from_dict({"name": "p", "app": app, "base_url": base, "key": "gw"}, "test")
    warned = (helper_warnings if app == "claude" else codex_key_warnings)(profile)
    assert len(warned) == 1
    assert "but the keyring cannot answer (the keyring backend " in warned[0], warned
    assert "but there is the keyring" not in warned[0]
    assert warned[0].endswith(
        "would get no key, so `profile use` refuses this switch (nothing is written)"
    )
