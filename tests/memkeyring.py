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


class DBusGoneKeyring(MemoryKeyring):
    """A Secret Service whose daemon stops answering: every call raises what secretstorage
    raises then (not a keyring error; keyring passes it through)."""

    def _gone(self) -> None:
        from secretstorage.exceptions import SecretServiceNotAvailableException

        raise SecretServiceNotAvailableException("the D-Bus session closed")

    def get_password(self, service: str, username: str) -> str | None:
        self._gone()
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        self._gone()

    def delete_password(self, service: str, username: str) -> None:
        self._gone()


class SocketResetKeyring(DBusGoneKeyring):
    """The same through a socket that resets mid-call (an OSError)."""

    def _gone(self) -> None:
        raise ConnectionResetError(104, "Connection reset by peer")
