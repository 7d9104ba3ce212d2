"""What a switch's preview says when the tool would get no key: the keyring cannot answer, the
entry is not stored yet, or the variable it reads is not set in this terminal (the registry's
``warnings``; kept apart from the target table so each stays short)."""

from __future__ import annotations

import os

from judgeaudit.profiles import bridgeopt, secrets
from judgeaudit.profiles.execguard import CLIENTS
from judgeaudit.profiles.model import Profile
from judgeaudit.profiles.targets import codex


def helper_warnings(profile: Profile) -> list[str]:
    """An apiKeyHelper that cannot answer (no keyring, or no key in it) would leave Claude Code
    without a key: say so in the preview and in ``--dry-run``, before it is written."""
    if bridgeopt.uses_bridge(profile):
        return _token_gaps(profile, CLIENTS["claude"])
    if profile.option("key_mode", "helper") != "helper":
        return []
    if not profile.key:  # a key_env profile: the helper prints the variable Claude Code has
        return _unset(profile.key_env, "apiKeyHelper prints", CLIENTS["claude"])
    return _keyring_gaps(profile.key, "apiKeyHelper runs", CLIENTS["claude"])


def codex_key_warnings(profile: Profile) -> list[str]:
    """The same for Codex (a switch with no stored key said nothing): its ``auth`` command
    prints the keyring's key, or it reads the ``env_key`` variable."""
    if bridgeopt.uses_bridge(profile):
        return _token_gaps(profile, CLIENTS["codex"])
    if codex.key_mode(profile) == "command" and profile.key:
        return _keyring_gaps(profile.key, "Codex's auth command runs", CLIENTS["codex"])
    return _unset(codex.env_key_name(profile), "Codex reads", CLIENTS["codex"])


def _token_gaps(profile: Profile, tool: str) -> list[str]:
    """A bridged profile's tool prints its local bridge token, kept only in the keyring."""
    ok, message = secrets.backend_usable()
    if ok:
        return []
    return [
        f"{tool} runs `judgeaudit key bridge-token {profile.name}`, but the keyring cannot "
        f"answer ({message}); the switch needs it for the bridge's local token"
    ]


def _unset(variable: str | None, reads: str, tool: str) -> list[str]:
    if variable and not os.environ.get(variable):
        return [
            f"{reads} ${variable}, which is not set in this terminal; {tool} gets its key "
            f"only where {variable} is exported"
        ]
    return []


def _keyring_gaps(key: str, runs: str, tool: str) -> list[str]:
    command = f"{runs} `judgeaudit key print {key}`"
    ok, message = secrets.backend_usable()
    if not ok:
        return [
            f"{command}, but the keyring cannot answer ({message}); {tool} would get no key, "
            "so `profile use` refuses this switch (nothing is written)"
        ]
    if secrets.get_key(key) is None:
        return [
            f"{command}, but the keyring has no key {key!r} yet: set it first "
            f"(`judgeaudit key set {key}`, or k on the app's Profiles screen), else {tool} gets "
            "no key"
        ]
    return []
