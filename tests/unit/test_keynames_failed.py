"""A Secret Service that fails to answer a listing (locked, its D-Bus gone) was reported as
"cannot list keys in Secret Service", a claim about the backend; it can list, it failed this
time: ``key status`` says "could not", with the error's kind and no message text."""

from __future__ import annotations

from typing import Any

import pytest
from keyring.backends import SecretService

from judgeaudit.profiles import keynames
from judgeaudit.profiles import secrets as keys


class Gone(Exception):
    """Stands for SecretStorage's D-Bus error."""


def test_a_failing_secret_service_is_could_not_list(monkeypatch: pytest.MonkeyPatch) -> None:
    backend: Any = SecretService.Keyring  # keyring is untyped
    store = backend()

    def fails() -> None:
        raise Gone("org.freedesktop.DBus.Error.ServiceUnknown: sk-not-in-the-line")

    monkeypatch.setattr(store, "get_preferred_collection", fails)
    monkeypatch.setattr(keys, "backend", lambda: store)
    monkeypatch.setattr(keys, "bundled", lambda: [])
    names, line = keynames.stored_names()
    assert names == []
    assert line == "could not list keys in Secret Service (Gone)"


def test_another_backend_still_cannot(monkeypatch: pytest.MonkeyPatch) -> None:
    class Other:
        pass

    monkeypatch.setattr(keys, "backend", lambda: Other())
    monkeypatch.setattr(keys, "bundled", lambda: ["a"])
    names, line = keynames.stored_names()
    assert names == ["a"] and line is not None and line.startswith("cannot list keys in ")
