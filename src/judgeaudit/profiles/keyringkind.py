"""Which keyring backend keys go to, whether it may hold them, and what to call it.

"The OS keyring" is an encrypted store on an allow-list (:data:`ENCRYPTED_BACKENDS`); anything
else is refused unless the user opts in (``JUDGEAUDIT_ALLOW_PLAINTEXT_KEYRING=1``). The one
display name of a backend (``Secret Service``, never its class path when it has a name) is
:func:`backend_name`, for ``key set``, ``key status``, ``profile doctor`` and the app alike.
:mod:`judgeaudit.profiles.secrets` re-exports all of it.
"""

from __future__ import annotations

import contextlib
import os
import platform
import sys

import keyring
from keyring.backend import KeyringBackend

OPT_IN_ENV = "JUDGEAUDIT_ALLOW_PLAINTEXT_KEYRING"
#: Backends that keep secrets encrypted at rest, by class (module.name) -> what to call them.
ENCRYPTED_BACKENDS = {
    "keyring.backends.SecretService.Keyring": "Secret Service",
    "keyring.backends.libsecret.Keyring": "Secret Service (libsecret)",
    "keyring.backends.kwallet.DBusKeyring": "KWallet",
    "keyring.backends.kwallet.DBusKeyringKWallet4": "KWallet",
    "keyring.backends.macOS.Keyring": "macOS Keychain",
    "keyring.backends.Windows.WinVaultKeyring": "Windows Credential Locker",
}


def qualname(store: KeyringBackend) -> str:
    return f"{type(store).__module__}.{type(store).__name__}"


def encrypted(store: KeyringBackend) -> bool:
    """On the allow-list (or a backend that declares itself trusted: the tests' in-memory one)."""
    return qualname(store) in ENCRYPTED_BACKENDS or getattr(store, "judgeaudit_trusted", False)


def backend() -> KeyringBackend:
    """The backend keys go to and come from: for keyring's chainer (several backends found),
    its first encrypted one, so a PlaintextKeyring installed beside Secret Service is never
    read or written; else the chainer's first (what it would write to), else the one found."""
    _skip_macos_api()
    current = keyring.get_keyring()
    chained = getattr(current, "backends", None)
    if isinstance(chained, list) and chained:
        first: KeyringBackend = next((b for b in chained if encrypted(b)), chained[0])
        return first
    return current


#: keyring's macOS backend loads Apple's frameworks through ``ctypes.util.find_library`` when
#: keyring's detection imports it, which off macOS runs ldconfig and a C compiler: about a
#: third of what ``key print`` (Claude Code's ``apiKeyHelper``, Codex's ``auth``) spends in
#: keyring. There the import can only fail, and the backend refuses itself before looking at
#: it ("macOS required", the same ``platform.system()`` test as here): so it fails at once.
MACOS_API = "keyring.backends.macOS.api"


def _skip_macos_api() -> None:
    """Off macOS, make keyring's import of :data:`MACOS_API` fail without searching for the
    frameworks; the backend keyring chooses stays its own (``tests/unit/test_keyring_choice.py``)."""
    if platform.system() != "Darwin":
        sys.modules.setdefault(MACOS_API, None)  # type: ignore[arg-type]  # None: "not importable"


def foreign_failures() -> tuple[type[BaseException], ...]:
    """What a keyring backend raises besides keyring's own errors when its service misbehaves:
    a D-Bus reply that is an error or never comes (jeepney, secretstorage), a socket that
    closes (OSError). keyring passes these through; each call here turns them into a
    :class:`keyring.errors.KeyringError`, so a busy or broken Secret Service gives one clear
    line instead of a crash. Imported lazily: they exist only where Secret Service does."""
    found: list[type[BaseException]] = [OSError]
    with contextlib.suppress(ImportError):
        from jeepney.wrappers import DBusErrorResponse  # type: ignore[import-untyped]

        found.append(DBusErrorResponse)
    with contextlib.suppress(ImportError):
        from secretstorage.exceptions import SecretStorageException

        found.append(SecretStorageException)
    return tuple(found)


def opted_in() -> bool:
    return os.environ.get(OPT_IN_ENV, "") not in ("", "0")


def _priority(store: KeyringBackend) -> float:
    """The backend's own viability check; keyring's way of saying "not viable now" is a
    RuntimeError (Secret Service's daemon did not answer), which here means unusable."""
    not_viable: tuple[type[BaseException], ...] = (RuntimeError, *foreign_failures())
    try:
        return float(store.priority)
    except not_viable:
        return 0.0


def backend_usable() -> tuple[bool, str]:
    current = backend()
    name = qualname(current)
    if "fail" in name.lower() or "null" in name.lower() or _priority(current) <= 0:
        return False, (
            f"no usable OS keyring ({name}); install and unlock one (Linux: gnome-keyring or "
            "KWallet with a D-Bus session), or set the profile's key_env to an environment "
            "variable that holds the key"
        )
    if not encrypted(current) and not opted_in():
        return False, (
            f"the keyring backend {name} is not an encrypted one (it may keep keys in a plain "
            "file); use Secret Service (gnome-keyring with a D-Bus session), KWallet, macOS "
            f"Keychain or Windows, or set the profile's key_env; {OPT_IN_ENV}=1 accepts it"
        )
    return True, name


def backend_name(store: KeyringBackend | None = None) -> str:
    """The backend in words (``Secret Service``), else its class path: the one display name."""
    name = qualname(store or backend())
    return ENCRYPTED_BACKENDS.get(name, name)


def storage_label() -> str:
    """Where ``key set`` says the key went: never "the OS keyring" for a plaintext store."""
    current = backend()
    if encrypted(current):
        return f"the OS keyring ({backend_name(current)})"
    return f"a NOT ENCRYPTED keyring ({qualname(current)}, accepted by {OPT_IN_ENV}=1)"


def keyring_said() -> str:
    """The ``keyring:`` line of ``key status`` and ``profile doctor``: where keys go, or why
    no keyring is usable."""
    ok, why = backend_usable()
    return storage_label() if ok else why


def plaintext_warning() -> str | None:
    """The loud line every store prints while the user has opted into a plaintext backend."""
    current = backend()
    if encrypted(current):
        return None
    return (
        f"WARNING: {qualname(current)} does not encrypt keys: anyone who can read your files "
        f"can read them ({OPT_IN_ENV}=1 accepted it); prefer an encrypted keyring or key_env"
    )
