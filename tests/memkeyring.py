"""An in-memory keyring backend for unit tests only (integration tests use Secret Service)."""

from __future__ import annotations

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class MemoryKeyring(KeyringBackend):
    priority = 1
    judgeaudit_trusted = True  # in memory, never on disk: judgeaudit's allow-list takes it

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # keyring: an untyped __init__
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.items:
            raise PasswordDeleteError(username)
        del self.items[(service, username)]
