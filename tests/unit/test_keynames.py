"""`key status`'s list of stored keys comes from the Secret Service through the keyring
backend's public parts (its collection, its scheme's attribute names, SecretStorage's search),
never keyring's private ``_query``: a backend set to another scheme (KeePassXC's ``Title`` and
``UserName``) is listed by that scheme's attributes."""

from __future__ import annotations

import contextlib
import secrets as pysecrets
from collections.abc import Iterator
from typing import Any

import keyring
import pytest
from keyring.backends import SecretService

from judgeaudit.profiles import keynames
from judgeaudit.profiles import secrets as keys

pytestmark = pytest.mark.usefixtures("secret_service")


@pytest.fixture
def keepassxc() -> Iterator[Any]:
    previous = keyring.get_keyring()
    backend: Any = SecretService.Keyring  # keyring is untyped
    store = backend().with_properties(scheme="KeePassXC")
    keyring.set_keyring(store)
    yield store
    keyring.set_keyring(previous)


def test_a_keepassxc_scheme_secret_service_lists_its_keys(
    keepassxc: Any,
) -> None:
    name = f"kpx-{pysecrets.token_hex(6)}"
    keepassxc.set_password(keys.SERVICE, name, "sk-kpx-" + "2" * 16)
    try:
        collection = keepassxc.get_preferred_collection()
        with contextlib.closing(collection.connection):
            found = collection.search_items({"Title": keys.SERVICE})
            attributes = [item.get_attributes() for item in found]
        assert {"Title": keys.SERVICE, "UserName": name}.items() <= next(
            a for a in attributes if a.get("UserName") == name
        ).items()  # stored under KeePassXC's attribute names, not service/username
        names, unlisted = keynames.stored_names()
        assert name in names and unlisted is None
    finally:
        keepassxc.delete_password(keys.SERVICE, name)
    assert name not in keynames.stored_names()[0]
