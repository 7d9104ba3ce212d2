"""API keys: only in the OS keyring (service ``judgeaudit``), or an explicit environment variable.

Never a plaintext file, never argv, never a log line. What is shown is masked to the last four.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

import keyring
import keyring.errors
from keyring.backend import KeyringBackend

from judgeaudit.errors import JudgeauditError
from judgeaudit.profiles.names import check_name

if TYPE_CHECKING:
    from judgeaudit.profiles.model import Profile

SERVICE = "judgeaudit"


class SecretError(JudgeauditError, RuntimeError):
    """A key that cannot be stored or found; the message says how to fix it."""


def mask(secret: str | None) -> str:
    if not secret:
        return "missing"
    return "…" + secret[-4:] if len(secret) > 8 else "…" + "*" * min(len(secret), 4)


def backend() -> KeyringBackend:
    return keyring.get_keyring()


def backend_usable() -> tuple[bool, str]:
    current = backend()
    name = f"{type(current).__module__}.{type(current).__name__}"
    if "fail" in name.lower() or "null" in name.lower() or current.priority <= 0:
        return False, (
            f"no usable OS keyring ({name}); install and unlock one (Linux: gnome-keyring or "
            "KWallet with a D-Bus session), or set the profile's key_env to an environment "
            "variable that holds the key"
        )
    return True, name


def set_key(name: str, value: str) -> None:
    check_name(name, "key name")
    value = value.strip()
    if not value:
        raise SecretError("empty key; nothing stored")
    ok, message = backend_usable()
    if not ok:
        raise SecretError(message)
    try:
        keyring.set_password(SERVICE, name, value)
    except keyring.errors.KeyringError as exc:
        raise SecretError(f"the keyring refused to store {name!r}: {type(exc).__name__}") from None


def get_key(name: str) -> str | None:
    check_name(name, "key name")
    ok, _ = backend_usable()
    if not ok:
        return None
    try:
        return keyring.get_password(SERVICE, name)
    except keyring.errors.KeyringError:
        return None


def delete_key(name: str) -> bool:
    check_name(name, "key name")
    try:
        keyring.delete_password(SERVICE, name)
    except keyring.errors.PasswordDeleteError:
        return False
    return True


def resolve_key(profile: Profile) -> str:
    """The profile's key: keyring first, then its explicit environment variable."""
    if profile.key:
        found = get_key(profile.key)
        if found:
            return found
    if profile.key_env and os.environ.get(profile.key_env):
        return os.environ[profile.key_env]
    ok, message = backend_usable()
    hint = (
        f"run `judgeaudit key set {profile.key}`" if profile.key else "set key = ... in the profile"
    )
    if not ok:
        hint = message
    raise SecretError(f"profile {profile.name!r}: no key found ({hint})")


def set_saved(ref: str, raw: str) -> None:
    """Keep a user's value judgeaudit replaced or removed (a leftover token) for ``off``."""
    ok, message = backend_usable()
    if not ok:
        raise SecretError(
            f"{message}; judgeaudit keeps the value it removes from your settings there "
            "(pass --keep-conflicts to leave it in place)"
        )
    try:
        keyring.set_password(SERVICE, ref, raw)
    except keyring.errors.KeyringError as exc:
        raise SecretError(f"the keyring refused to store {ref!r}: {type(exc).__name__}") from None


def delete_saved(ref: str) -> None:
    """Forget a kept user value nothing refers to any more (a missing entry is fine)."""
    with contextlib.suppress(keyring.errors.KeyringError):
        keyring.delete_password(SERVICE, ref)
