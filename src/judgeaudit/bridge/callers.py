"""Who may use the bridge: the key a caller presents, compared in constant time.

A globally switched tool presents its profile's local token (``secrets.bridge_token``), never
the real key, so a program that holds ``bridge_port`` while the bridge is stopped learns
nothing that opens the upstream. The token is read from the keyring when the bridge starts and
again by the first request after it is a second old, so a token created, renewed or removed
after the start counts within a second, without a restart (and a wrong key in a loop reads the
keyring at most once a second). A read that fails to answer (a keyring that does not answer, a
profile file that no longer loads: :class:`ReadFailed`) keeps what was last read and says so
once on the log, and once when a read answers again; anything else is a bug and is not swallowed. The same read gives the real key (``key set`` rotated it: sent
upstream from then on) and a refusal when what the bridge stands for is gone (the profile, its
key or its token): every caller then gets a 401 saying why, said once on the log. The real key
is still accepted (a tool switched by an older judgeaudit sends it), with one log line saying
how to stop that.
"""

from __future__ import annotations

import asyncio
import hmac
import time
from collections.abc import Callable
from dataclasses import dataclass

#: How long a token read from the keyring is trusted before the next request reads it again.
REREAD_S = 1.0


class ReadFailed(Exception):
    """A read that failed to answer (``bridge.live`` says which); its text is the log line."""


@dataclass(frozen=True)
class Reading:
    """One read of the keyring (``bridge.live``): the profile's local token, its real key now
    (None: the one the bridge has), and why every caller is refused now (None: served)."""

    token: str | None
    key: str | None = None
    refusal: str | None = None


@dataclass(frozen=True)
class Callers:
    """``keys``: accepted as they are (exec's fresh token; the standalone bridge's real key).
    ``token``: reads the profile's local token from the keyring, with its real key, which
    then replaces ``keys`` (None: there is none).
    ``legacy_note``: given to ``notice`` once, when a caller presents one of ``keys`` while
    there is a token (even with ``--quiet``: it says what to do)."""

    keys: tuple[str, ...] = ()
    token: Callable[[], Reading] | None = None
    legacy_note: str | None = None
    notice: Callable[[str], None] | None = None

    @property
    def open(self) -> bool:
        return not self.keys and self.token is None


def _same(given: str, key: str | None) -> bool:
    return bool(key) and hmac.compare_digest(given.encode(), str(key).encode())


class CallerCheck:
    def __init__(self, callers: Callers) -> None:
        self.callers = callers
        self._token: str | None = None
        self.key: str | None = None  # the real key last read (None: the one at the start)
        self.refusal: str | None = None  # why every caller is refused now
        self._read_at = float("-inf")
        self._noted = False
        self._failed: str | None = None  # the read failure last told (told once)
        self._failures = 0  # reads failed in a row (their end is told once, with the count)

    async def _read(self) -> None:
        """The stored token and key; a read that fails to answer (:class:`ReadFailed`) keeps
        the last ones read (a token deleted since is None, and then no longer opens the bridge).
        A new refusal, and a new read failure, is told to ``notice`` once; so is the first read
        that answers after failed ones, with how many failed."""
        assert self.callers.token is not None
        self._read_at = time.monotonic()
        try:
            reading = await asyncio.to_thread(self.callers.token)
        except ReadFailed as exc:
            if str(exc) != self._failed and self.callers.notice is not None:
                self.callers.notice(str(exc))
            self._failed, self._failures = str(exc), self._failures + 1
            return
        if self._failures and self.callers.notice is not None:
            many = "s" if self._failures > 1 else ""
            self.callers.notice(f"read again OK after {self._failures} failed read{many}")
        self._failed, self._failures = None, 0
        self._token, self.key = reading.token, reading.key or self.key
        if reading.refusal != self.refusal:
            cleared, self.refusal = self.refusal, reading.refusal
            if self.callers.notice is not None and (reading.refusal or cleared):
                # a refusal told once; its end too, or the log's last word stays the refusal
                self.callers.notice(
                    reading.refusal or "serving callers again: what was missing is back"
                )

    async def start(self) -> None:
        if self.callers.token is not None:
            await self._read()

    async def allows(self, given: str) -> bool:
        if self.callers.open:
            return True
        if self.callers.token is not None and time.monotonic() - self._read_at >= REREAD_S:
            await self._read()
        if self.refusal:
            return False
        if _same(given, self._token):
            return True
        if any(_same(given, key) for key in ((self.key,) if self.key else self.callers.keys)):
            note, notice = self.callers.legacy_note, self.callers.notice
            if note and notice is not None and self._token and not self._noted:
                self._noted = True
                notice(note)
            return True
        return False
