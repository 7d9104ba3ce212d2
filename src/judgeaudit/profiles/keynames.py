"""The names of the keys the keyring holds under service ``judgeaudit``, so ``key status`` can
list a stored key that no profile uses (a new user could not find one to delete it).

The keyring API reads, writes and deletes one named entry and cannot list them; the Secret
Service can (its items carry the service and the name as attributes, readable without their
secrets), and the import bundle is one entry naming its keys. Another backend (macOS Keychain,
Windows, KWallet) lists the bundle's only, and :func:`stored_names` says so. Names only: no
secret is read here.
"""

from __future__ import annotations

import contextlib
from typing import Any

from judgeaudit.profiles import secrets
from judgeaudit.profiles.ledger import SECRET_REF

SECRET_SERVICE = "keyring.backends.SecretService.Keyring"


def stored_names() -> tuple[list[str], str | None]:
    """The key names stored (the bundle's and the backend's own entries, without judgeaudit's
    internal entries: names holding ``:``, and the values a switch holds back,
    :data:`~judgeaudit.profiles.ledger.SECRET_REF`, any config's), and, when the backend could
    not list its own, the line that says so (``cannot list keys in macOS Keychain``)."""
    names = set(secrets.bundled())
    unlisted = None
    store = secrets.backend()  # the one asked is the one named
    try:
        own = _secret_service_names(store)
    except _Failed as exc:  # it can list, but did not answer this time: not "cannot"
        own, unlisted = None, f"could not list keys in {secrets.backend_name(store)} ({exc})"
    if own is not None:
        names |= own
    elif unlisted is None:
        unlisted = f"cannot list keys in {secrets.backend_name(store)}"
    internal = [n for n in names if not n or ":" in n or SECRET_REF.fullmatch(n)]
    return sorted(names.difference(internal)), unlisted


class _Failed(Exception):
    """The Secret Service failed to answer a listing (locked, D-Bus gone): its reason."""


def _secret_service_names(store: Any) -> set[str] | None:
    """The names of the Secret Service's ``judgeaudit`` items, through the backend's public
    parts: its collection (:meth:`get_preferred_collection`, the one it writes to), SecretStorage's
    attribute search, and the attribute names of its ``scheme`` (keyring's selectable schemes:
    ``service``/``username``, KeePassXC's ``Title``/``UserName``). None for another backend;
    :class:`_Failed` when the Secret Service does not answer (the caller says so)."""
    if secrets.qualname(store) != SECRET_SERVICE:
        return None
    try:
        scheme = store.schemes[store.scheme]
        collection = store.get_preferred_collection()
        with contextlib.closing(collection.connection):
            items = collection.search_items({scheme["service"]: secrets.SERVICE})
            return {str(item.get_attributes().get(scheme["username"], "")) for item in items}
    except Exception as exc:  # it failed to answer: the caller says why, in one line
        raise _Failed(type(exc).__name__) from None
