"""What the standalone bridge (``judgeaudit bridge PROFILE``) reads again once a second
(:data:`~judgeaudit.bridge.callers.REREAD_S`): the profile, its real key and its local token,
so ``key set`` takes effect without a restart and ``key delete`` / ``profile remove`` leave
nothing that opens the upstream. Only the start creates the token: a read never does, or a
running bridge would bring back what ``key delete`` and ``profile remove`` removed."""

from __future__ import annotations

from collections.abc import Callable

import keyring.errors

from judgeaudit.bridge.callers import ReadFailed, Reading
from judgeaudit.credentials import scrub
from judgeaudit.profiles import secrets
from judgeaudit.profiles.model import Profile, ProfileError
from judgeaudit.profiles.store import ProfileStore


def reader(profile: Profile, *, token_at_start: str | None) -> Callable[[], Reading]:
    """Reads what the bridge of ``profile`` stands for. A keyring or profile file that fails to
    answer raises :class:`ReadFailed` naming it (the bridge keeps what it last read and says so
    once); what is gone is a refusal naming what
    brings it back. A token is missed only once the bridge has seen one (a profile that is
    not bridged has none, and its bridge takes the real key)."""
    name, base_url = profile.name, profile.base_url
    seen = [token_at_start is not None]

    def refused(why: str, fix: str, key: str | None = None) -> Reading:
        return Reading(None, key, f"{why}, so its bridge refuses every caller: {fix}")

    def read() -> Reading:
        try:
            return read_now()
        except (secrets.SecretError, keyring.errors.KeyringError, ProfileError, OSError) as exc:
            raise ReadFailed(
                f"could not read profile {name} or its key ({scrub(str(exc))}); serving with "
                "what was last read until it reads again"
            ) from exc

    def read_now() -> Reading:
        store = ProfileStore.default()
        if not store.exists(name):
            return refused(f"profile {name} was removed", "stop this bridge (nothing uses it)")
        now = store.get(name)
        if now.base_url != base_url:
            return refused(
                f"profile {name}'s base_url is not {base_url} any more",
                f"restart `judgeaudit bridge {name}`",
            )
        token = secrets.bridge_token(name, create=False)
        seen[0] = seen[0] or token is not None
        try:
            key = secrets.resolve_key(now)
        except secrets.SecretError:
            # absent, or a keyring that failed to answer: that raises and the last reading
            # stays (get_key says None to both); a key that is there by now is taken
            there = secrets.key_answer(now.key) if now.key else None
            if there:
                return Reading(token, there)
            fix = secrets.missing_key_fix(now)
            return refused(f"profile {name} has no key now", f"{fix} (taken within a second)")
        if token is None and seen[0]:
            return refused(
                f"profile {name}'s local token was removed",
                f"`judgeaudit profile use {name}` makes a new one (taken within a second)",
                key,
            )
        return Reading(token, key)

    return read
