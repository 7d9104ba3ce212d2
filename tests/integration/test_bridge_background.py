"""The in-process bridge ``judgeaudit exec`` uses: up on a free port, only its token accepted,
the profile's key sent upstream, gone when the block ends."""

from __future__ import annotations

import json
import urllib.error
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgeaudit.bridge.execlink import bridged
from judgeaudit.profiles.model import profile_from_dict
from tests.bridge_helpers import key_fingerprint, post, request_log, served

KEY = "sk-background-bridge-0123456789"


@pytest.fixture(scope="module")
def chat_only(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    log = tmp_path_factory.mktemp("bg") / "requests.jsonl"
    args = (
        "sim",
        "serve",
        "--port",
        "0",
        "--apis",
        "chat",
        "--require-key-env",
        "K",
        "--request-log",
        str(log),
    )
    with served(*args, env={"K": KEY}) as (url, _):
        yield url, log


def test_exec_bridge_lives_for_the_block_and_takes_only_its_token(
    chat_only: tuple[str, Path],
) -> None:
    url, log = chat_only
    data = {
        "name": "gw",
        "app": "codex",
        "base_url": url,
        "model": "sim-chat",
        "key": "gw",
        "options": {"bridge": "chat"},
    }
    profile = profile_from_dict(data, "test")
    with bridged(profile, KEY, "codex") as (seen, token):
        assert token != KEY and KEY not in json.dumps(seen.options)
        base = seen.base_url
        status, _, raw = post(base + "/responses", {"model": "sim-chat", "input": "hello"}, token)
        assert status == 200 and "hello" in raw.decode()
        assert post(base + "/responses", {"model": "sim-chat", "input": "x"}, KEY)[0] == 401
    assert request_log(log)[-1]["key_sha256"] == key_fingerprint(KEY)
    with pytest.raises(urllib.error.URLError):
        post(base + "/responses", {"model": "sim-chat", "input": "x"}, token, timeout=10)
