"""API keys: only in the OS keyring (service ``judgeaudit``), or an explicit environment variable.

Never a plaintext file, never argv, never a log line. What is shown is masked to the last four.
"The OS keyring" means an encrypted store on an allow-list (Secret Service, KWallet, macOS
Keychain, Windows Credential Locker): ``keyrings.alt``'s PlaintextKeyring, the usual headless
"fix", keeps keys base64'd in a file, and an unknown backend may too; both are refused unless the
user opts in with ``JUDGEAUDIT_ALLOW_PLAINTEXT_KEYRING=1``, and then every store says so loudly.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets as pysecrets
from collections.abc import Iterator
from typing import TYPE_CHECKING

import keyring
import keyring.errors

from judgeaudit import redact
from judgeaudit.errors import JudgeauditError
from judgeaudit.profiles.keyringkind import (
    ENCRYPTED_BACKENDS,
    OPT_IN_ENV,
    backend,
    backend_name,
    backend_usable,
    encrypted,
    foreign_failures,
    keyring_said,
    opted_in,
    plaintext_warning,
    qualname,
    storage_label,
)
from judgeaudit.profiles.names import check_name

__all__ = [
    "BUNDLE_ENTRY",
    "ENCRYPTED_BACKENDS",
    "OPT_IN_ENV",
    "SERVICE",
    "TOKEN_ENTRY",
    "KeyringUnavailable",
    "SecretError",
    "backend",
    "backend_name",
    "backend_usable",
    "bridge_token",
    "bundled",
    "delete_key",
    "delete_keys",
    "delete_saved",
    "drop_bridge_tokens",
    "encrypted",
    "env_key_fix",
    "get_key",
    "get_keys",
    "key_answer",
    "keyring_said",
    "mask",
    "missing_key_fix",
    "missing_key_note",
    "opted_in",
    "plaintext_warning",
    "qualname",
    "rejected_key_fix",
    "resolve_key",
    "set_bundled",
    "set_key",
    "set_saved",
    "storage_label",
]

if TYPE_CHECKING:
    from judgeaudit.profiles.model import Profile

SERVICE = "judgeaudit"
#: The one entry an import stores all its keys in (a JSON object: key name -> key). Why: the
#: Secret Service daemon rewrites and syncs its whole file on every item written, so 5,000
#: imported keys as 5,000 items took many minutes; as one item it is one write. Not a valid key
#: name (':'), so no profile or ``key set`` can collide with it; an entry of its own name wins.
BUNDLE_ENTRY = "judgeaudit:imported-keys"
#: A bridged profile's local token (what its switched tool gives ``judgeaudit bridge`` instead
#: of the real key) is entry ``TOKEN_ENTRY + profile``; not a valid key name either (':').
TOKEN_ENTRY = "judgeaudit:bridge-token:"


class SecretError(JudgeauditError, RuntimeError):
    """A key that cannot be stored or found; the message says how to fix it."""


def mask(secret: str | None) -> str:
    """A stored key as shown (:func:`judgeaudit.redact.mask`), or ``missing``."""
    return redact.mask(secret) if secret else "missing"


class KeyringUnavailable(keyring.errors.KeyringError):
    """A foreign failure of the backend; its text is the original's type, never its message
    (which is not vetted for secrets)."""


def _why(exc: keyring.errors.KeyringError) -> str:
    return str(exc) if isinstance(exc, KeyringUnavailable) else type(exc).__name__


@contextlib.contextmanager
def _keyring_io() -> Iterator[None]:
    try:
        yield
    except foreign_failures() as exc:
        raise KeyringUnavailable(type(exc).__name__) from exc


def _read(name: str) -> str | None:
    with _keyring_io():
        return backend().get_password(SERVICE, name)


def _write(name: str, value: str) -> None:
    with _keyring_io():
        backend().set_password(SERVICE, name, value)


def _remove(name: str) -> None:
    with _keyring_io():
        backend().delete_password(SERVICE, name)


def set_key(name: str, value: str) -> None:
    check_name(name, "key name")
    value = value.strip()
    if not value:
        raise SecretError("empty key; nothing stored")
    ok, message = backend_usable()
    if not ok:
        raise SecretError(message)
    try:
        _write(name, value)
    except keyring.errors.KeyringError as exc:
        raise SecretError(f"the keyring refused to store {name!r}: {_why(exc)}") from None


def get_key(name: str) -> str | None:
    check_name(name, "key name")
    ok, _ = backend_usable()
    if not ok:
        return None
    try:
        return _read(name) or bundled().get(name)
    except keyring.errors.KeyringError:
        return None


def key_answer(name: str) -> str | None:
    """What the keyring holds for ``name`` (None: nothing); unlike :func:`get_key` a keyring
    that fails to answer raises, so a caller can tell "gone" from "not answering" (the
    standalone bridge refused every caller on one failed read)."""
    check_name(name, "key name")
    return _read(name) or bundled().get(name)


def get_keys(names: list[str]) -> dict[str, str | None]:
    """Several keys at once (a screen listing every profile): each own entry read once and the
    import bundle at most once, instead of once per missing key."""
    for name in names:
        check_name(name, "key name")
    ok, _ = backend_usable()
    if not ok:
        return dict.fromkeys(names)
    found: dict[str, str | None] = {}
    for name in names:
        try:
            found[name] = _read(name) or None
        except keyring.errors.KeyringError:
            found[name] = None
    if any(value is None for value in found.values()):
        held = bundled()
        found = {n: v if v is not None else held.get(n) for n, v in found.items()}
    return found


def delete_key(name: str) -> bool:
    check_name(name, "key name")
    return bool(delete_keys([name]))


def delete_keys(names: list[str]) -> list[str]:
    """Delete entries (their own and their place in the import bundle, rewritten once); the
    names that were there. Without a usable keyring, the one line that says so and how to
    fix it (running again cannot help)."""
    ok, message = backend_usable()
    if names and not ok:
        raise SecretError(message)
    gone = []
    for name in names:
        try:
            _remove(name)
            gone.append(name)
        except keyring.errors.PasswordDeleteError:
            pass
        except keyring.errors.KeyringError as exc:
            raise SecretError(
                f"the keyring refused to delete {name!r}: {_why(exc)}; stopped there, run it again"
            ) from None
    held = bundled()
    if any(name in held for name in names):
        gone += [n for n in names if n in held and n not in gone]
        _write_bundle({k: v for k, v in held.items() if k not in set(names)})
    return gone


def bundled() -> dict[str, str]:
    """The import bundle's keys by name (empty when there is none or it does not parse), read
    afresh each call, so another process's ``key delete`` shows at once. Many keys at once (a
    screen listing 5,000 imported profiles) go through :func:`get_keys`, which reads it once."""
    try:
        raw = _read(BUNDLE_ENTRY)
        data = json.loads(raw) if raw else {}
    except (keyring.errors.KeyringError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def set_bundled(keys: dict[str, str]) -> None:
    """Add imported keys to the bundle in one keyring write (see :data:`BUNDLE_ENTRY`)."""
    for name in keys:
        check_name(name, "key name")
    ok, message = backend_usable()
    if not ok:
        raise SecretError(message)
    _write_bundle({**bundled(), **{k: v.strip() for k, v in keys.items()}})


def _write_bundle(keys: dict[str, str]) -> None:
    try:
        if keys:
            _write(BUNDLE_ENTRY, json.dumps(keys, sort_keys=True))
        else:
            with contextlib.suppress(keyring.errors.PasswordDeleteError):
                _remove(BUNDLE_ENTRY)
    except keyring.errors.KeyringError as exc:
        raise SecretError(f"the keyring refused to store the imported keys: {_why(exc)}") from None


def resolve_key(profile: Profile) -> str:
    """The profile's key: keyring first, then its explicit environment variable."""
    if profile.key:
        found = get_key(profile.key)
        if found:
            return found
    if profile.key_env and os.environ.get(profile.key_env):
        return os.environ[profile.key_env]
    ok, message = backend_usable()
    hint = missing_key_fix(profile)
    if not ok and profile.key:
        hint = message + (f", or export {profile.key_env}" if profile.key_env else "")
    raise SecretError(f"profile {profile.name!r}: no key found ({hint})")


def missing_key_fix(profile: Profile) -> str:
    """What gives ``profile`` its key: its keyring entry, its variable (named, never read), or
    a keyring entry it does not have yet."""
    if profile.key and profile.key_env:
        return f"run `judgeaudit key set {profile.key}`, or export {profile.key_env}"
    if profile.key:
        return f"run `judgeaudit key set {profile.key}`"
    if profile.key_env:
        return f"export {profile.key_env}: the profile reads its key from it"
    return (
        f"give it one: `judgeaudit profile edit {profile.name} --key NAME`, then "
        f"`judgeaudit key set NAME`"
    )


def missing_key_note(profile: Profile) -> str:
    """Why no key was found, in a few words (the app's key-less test of a local server)."""
    if profile.key_env and not profile.key:
        return f"{profile.key_env} is not exported"
    return "no key stored" + (f" nor {profile.key_env} exported" if profile.key_env else "")


def env_key_fix(variable: str) -> str:
    """What to do when a provider rejects the key read from ``variable`` (named, never read)."""
    return f"put the right one in ${variable}"


def rejected_key_fix(profile: Profile) -> str:
    """What to do when a provider rejects this profile's key: its keyring entry, else its
    variable (the key itself is never shown)."""
    if profile.key:
        return f"`judgeaudit key set {profile.key}` stores the right one"
    if profile.key_env:
        return env_key_fix(profile.key_env)
    return (
        f"give profile {profile.name!r} a key (`judgeaudit profile edit {profile.name} --key NAME`)"
    )


def set_saved(ref: str, raw: str) -> None:
    """Keep a user's value judgeaudit replaced or removed (a leftover token) for ``off``."""
    ok, message = backend_usable()
    if not ok:
        raise SecretError(
            f"{message}; judgeaudit keeps the value it removes from your settings there "
            "(pass --keep-conflicts to leave it in place)"
        )
    try:
        _write(ref, raw)
    except keyring.errors.KeyringError as exc:
        raise SecretError(f"the keyring refused to store {ref!r}: {_why(exc)}") from None


def delete_saved(ref: str) -> None:
    """Forget a kept user value nothing refers to any more (a missing entry is fine)."""
    with contextlib.suppress(keyring.errors.KeyringError):
        _remove(ref)


def bridge_token(profile: str, *, create: bool = True, renew: bool = False) -> str | None:
    """``profile``'s local bridge token (32 random bytes, URL-safe), created when missing and
    ``create`` (a fresh one when ``renew``); what is stored after a racing creator wins. One
    line naming the fix when there is no usable keyring (the token is never kept elsewhere)."""
    entry = TOKEN_ENTRY + check_name(profile)
    ok, message = backend_usable()
    if not ok:
        raise SecretError(f"{message}; the bridge's local token of profile {profile!r} lives there")
    try:
        if ((found := _read(entry)) or not create) and not renew:
            return found or None
        _write(entry, "ja-local-" + pysecrets.token_urlsafe(32))
        return _read(entry) or None
    except keyring.errors.KeyringError as exc:
        raise SecretError(
            f"the keyring refused the bridge token of {profile!r}: {_why(exc)}"
        ) from None


def drop_bridge_tokens(profiles: list[str]) -> None:
    """Forget these profiles' local tokens (a next switch or bridge start makes new ones)."""
    if profiles and backend_usable()[0]:
        for profile in profiles:
            delete_saved(TOKEN_ENTRY + check_name(profile))
