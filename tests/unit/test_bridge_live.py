"""What a running standalone bridge reads each second (``bridge/live.py``) and what its caller
check does with it (``bridge/callers.py``): a token removed on its own is a refusal naming
what makes a new one, a read never makes one, and a refusal is told once. In-memory keyring;
the CLI and Secret Service path is tests/integration/test_bridge_local_token.py."""

from __future__ import annotations

import asyncio

import pytest

from judgeaudit.bridge import live
from judgeaudit.bridge.callers import CallerCheck, Callers, ReadFailed, Reading
from judgeaudit.profiles import secrets
from judgeaudit.profiles.model import Profile
from judgeaudit.profiles.store import ProfileStore

KEY = "sk-test-live-1111"


def _bridged(store: ProfileStore) -> Profile:
    profile = Profile(
        name="br",
        app="claude",
        base_url="http://127.0.0.1:9/v1",
        key="gw",
        options={"bridge": "chat"},
    )
    store.save(profile)
    secrets.set_key("gw", KEY)
    return profile


def test_a_token_removed_alone_is_a_refusal_and_no_read_makes_one(isolated: ProfileStore) -> None:
    profile = _bridged(isolated)
    token = secrets.bridge_token("br")
    read = live.reader(profile, token_at_start=token)
    assert read() == Reading(token, KEY)
    secrets.drop_bridge_tokens(["br"])
    reading = read()
    assert reading.token is None and reading.key == KEY
    assert reading.refusal == (
        "profile br's local token was removed, so its bridge refuses every caller: "
        "`judgeaudit profile use br` makes a new one (taken within a second)"
    )
    assert secrets.bridge_token("br", create=False) is None  # the read made none


def test_a_profile_that_never_had_a_token_takes_its_key(isolated: ProfileStore) -> None:
    profile = _bridged(isolated)
    assert live.reader(profile, token_at_start=None)() == Reading(None, KEY)


def test_a_refusal_is_told_once_and_the_key_read_replaces_the_start_key() -> None:
    told: list[str] = []
    readings = iter(
        [Reading("tok", "new-key"), Reading(None, refusal="gone"), Reading(None, refusal="gone")]
    )
    check = CallerCheck(
        Callers(keys=("old-key",), token=lambda: next(readings), notice=told.append)
    )

    async def go() -> list[bool]:
        await check.start()
        allowed = [await check.allows("tok"), await check.allows("new-key")]
        allowed.append(await check.allows("old-key"))  # the start key is no longer taken
        for _ in range(2):
            check._read_at = float("-inf")  # a second later
            allowed.append(await check.allows("tok"))
        return allowed

    assert asyncio.run(go()) == [True, True, False, False, False]
    assert check.key == "new-key" and check.refusal == "gone" and told == ["gone"]


def test_a_keyring_that_fails_to_answer_is_no_refusal(
    isolated: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reviewer: one failed read of the key entry refused every caller for a second and told
    the user to run `key set`; it raises now, and the bridge keeps what it last read."""
    import keyring.errors

    profile = _bridged(isolated)
    read = live.reader(profile, token_at_start=secrets.bridge_token("br"))
    real = secrets._read

    def failing(name: str) -> str | None:
        if name == "gw":
            raise keyring.errors.KeyringError("D-Bus connection reset")
        return real(name)

    monkeypatch.setattr(secrets, "_read", failing)
    with pytest.raises(ReadFailed):
        read()
    monkeypatch.setattr(secrets, "_read", real)
    assert read().refusal is None


def test_the_end_of_a_refusal_is_told_too() -> None:
    told: list[str] = []
    readings = iter([Reading(None, refusal="gone"), Reading("tok", "key")])
    check = CallerCheck(Callers(keys=(), token=lambda: next(readings), notice=told.append))

    async def go() -> bool:
        await check.start()
        check._read_at = float("-inf")  # a second later
        return await check.allows("tok")

    assert asyncio.run(go()) is True
    assert told == ["gone", "serving callers again: what was missing is back"]


def test_a_broken_profile_file_is_said_once_and_the_last_reading_serves(
    isolated: ProfileStore,
) -> None:
    """A review: the once-a-second read swallowed every exception, so a profile file that no
    longer loads left the bridge on its old key with nothing said. It says so once on the log
    (naming the file) and serves with what it last read; the read that answers again is said
    once too (the log's last word stayed the failure)."""
    profile = _bridged(isolated)
    token = secrets.bridge_token("br")
    assert token is not None
    told: list[str] = []
    check = CallerCheck(
        Callers(token=live.reader(profile, token_at_start=token), notice=told.append)
    )
    path = isolated.user_dir / "br.toml"
    good = path.read_text()

    async def go() -> list[bool]:
        await check.start()
        path.write_text(good + "\n[broken\n")
        allowed = []
        for _ in range(2):
            check._read_at = float("-inf")  # a second later
            allowed.append(await check.allows(token))
        path.write_text(good)
        check._read_at = float("-inf")
        allowed.append(await check.allows(token))
        return allowed

    assert asyncio.run(go()) == [True, True, True]
    assert len(told) == 2, told
    assert told[1] == "read again OK after 2 failed reads"
    assert told[0].startswith("could not read profile br or its key (") and "br.toml" in told[0]
    assert told[0].endswith("serving with what was last read until it reads again")


def test_a_bug_in_the_read_is_not_swallowed() -> None:
    def buggy() -> Reading:
        raise TypeError("a bug")

    check = CallerCheck(Callers(token=buggy))
    with pytest.raises(TypeError):
        asyncio.run(check.start())


def test_each_run_of_failed_reads_is_told_at_its_start_and_end_only() -> None:
    told: list[str] = []
    failed = ReadFailed("could not read profile br or its key (D-Bus gone)")
    answers: list[Reading | None] = [None] * 5 + [Reading("tok")] * 3 + [None] + [Reading("tok")]

    def read() -> Reading:
        answer = answers.pop(0)
        if answer is None:
            raise failed
        return answer

    check = CallerCheck(Callers(token=read, notice=told.append))

    async def go() -> None:
        await check.start()
        while answers:
            check._read_at = float("-inf")  # a second later
            await check.allows("tok")

    asyncio.run(go())
    assert told == [
        str(failed),
        "read again OK after 5 failed reads",
        str(failed),
        "read again OK after 1 failed read",
    ]
