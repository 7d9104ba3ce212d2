"""The bridge profile options and what exec hands the tool."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from pathlib import Path

import pytest

from judgeaudit.bridge.execlink import TOKEN_VAR, bridged, through
from judgeaudit.profiles import bridgeopt
from judgeaudit.profiles.model import ProfileError, profile_from_dict
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import use_profile
from tests.helpers import json_on_get, loopback_http, loopback_port


def profile(app: str = "codex", **options: object):  # type: ignore[no-untyped-def]
    data = {
        "name": "gw",
        "app": app,
        "base_url": "https://gw.example/v1",
        "model": "m",
        "key": "gw",
        "options": options,
    }
    return profile_from_dict(data, "test")


def test_bridge_options_are_validated() -> None:
    assert bridgeopt.uses_bridge(profile(bridge="chat"))
    assert not bridgeopt.uses_bridge(profile(bridge="off"))
    assert bridgeopt.bridge_port(profile(bridge="chat")) == 8787
    assert (
        bridgeopt.local_url(profile(bridge="chat", bridge_port="9100")) == "http://127.0.0.1:9100"
    )
    assert bridgeopt.bridge_port(profile("claude", bridge="chat", bridge_port=9101)) == 9101
    with pytest.raises(ProfileError, match=r"options\.bridge: 'responses' is not one of chat, off"):
        profile(bridge="responses")
    with pytest.raises(
        ProfileError, match=r"options.bridge_port: '70000' is not a port \(1-65535\)"
    ):
        profile(bridge_port="70000")
    with pytest.raises(ProfileError, match="unknown option for app sdk"):
        profile("sdk", bridge="chat")


def test_exec_points_codex_at_the_bridge_with_a_token_instead_of_the_key() -> None:
    seen = through(
        profile(bridge="chat", provider_id="gw-id", key_mode="command"), "http://127.0.0.1:5000"
    )
    assert seen.base_url == "http://127.0.0.1:5000/v1"
    assert (seen.key, seen.key_env) == (None, TOKEN_VAR)
    assert seen.options == {"provider_id": "gw-id", "key_mode": "env_key", "env_key": TOKEN_VAR}
    # Without an explicit id it keeps the upstream's, so `codex resume` sees the same sessions.
    assert through(profile(bridge="chat"), "http://127.0.0.1:5000").options["provider_id"] == "gw"
    assert seen.model == "m"


def test_exec_points_claude_at_the_bridge_with_a_token_instead_of_the_key() -> None:
    seen = through(profile("claude", bridge="chat", small_fast_model="s"), "http://127.0.0.1:5000")
    assert seen.options == {
        "small_fast_model": "s",
        "anthropic_base_url": "http://127.0.0.1:5000",
        "key_mode": "env",
        "default_haiku_model": "m",  # background calls go to a model the gateway serves
    }
    assert seen.key is None


@pytest.mark.parametrize(
    ("app", "options", "tool"),
    [
        ("codex", {}, "codex"),  # no bridge option
        ("codex", {"bridge": "off"}, "codex"),
        ("codex", {"bridge": "chat"}, None),  # not the profile's tool
        ("claude", {"bridge": "chat"}, "codex"),
    ],
)
def test_exec_starts_no_bridge_unless_the_profile_wants_one_for_its_tool(
    app: str, options: dict[str, object], tool: str | None
) -> None:
    original = profile(app, **options)
    with bridged(original, "sk-real", tool) as (seen, key):
        assert (seen, key) == (original, "sk-real")


def test_the_upstream_proxy_comes_from_the_environment_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from judgeaudit.bridge.upstream import env_proxy

    for name in ("https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY", "http_proxy", "HTTP_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert env_proxy("https://gw.example/v1/chat/completions") is None
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    assert env_proxy("https://gw.example/v1/chat/completions") == "http://proxy.internal:3128"
    monkeypatch.setenv("NO_PROXY", "gw.example")
    assert env_proxy("https://gw.example/v1/chat/completions") is None


def test_the_bridge_model_list_also_decodes_as_a_codex_catalog() -> None:
    from judgeaudit.bridge.server import codex_catalog

    openai_list = b'{"object": "list", "data": [{"id": "m", "object": "model"}]}'
    body = json.loads(codex_catalog(openai_list))
    assert body["models"] == [] and body["data"] == [{"id": "m", "object": "model"}]
    catalog = b'{"models": [{"slug": "x"}]}'
    assert codex_catalog(catalog) == catalog  # already one: untouched
    assert codex_catalog(b"not json") == b"not json"


def test_use_refuses_a_bridge_port_held_by_something_else(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    """The tool would hand that listener the profile's upstream key (seen with a gateway on the
    port: it logged key C), so `use` refuses, as doctor says, and writes nothing."""
    with loopback_http(json_on_get(b'{"ok": true}')) as url:
        port = loopback_port(url)
        bridged_ = profile("claude", bridge="chat", bridge_port=port)
        isolated.save(bridged_)
        live = tmp_path / "claude" / "settings.json"
        live.write_text("{}")
        assert "is not a judgeaudit bridge" in bridgeopt.status(bridged_)  # doctor's line
        with pytest.raises(
            ProfileError,
            match=r"is not a judgeaudit bridge \(it did not answer as one within 1 s\), and claude would send",
        ):
            use_profile(isolated, "gw")
        assert live.read_text() == "{}"
    use_profile(isolated, "gw")  # nothing on the port now: the switch goes ahead, with its note


@pytest.mark.parametrize("banner", [None, b"SSH-2.0-OpenSSH_9.6\r\n"])
def test_use_refuses_a_port_held_by_a_silent_or_non_http_listener(
    isolated: ProfileStore, tmp_path: Path, banner: bytes | None
) -> None:
    """A review: a listener that accepts and never replies counted as "nothing listens" (the
    switch went ahead, and the key would have gone to it), and one that speaks another protocol
    crashed `use` (exit 70, BadStatusLine)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    held: list[socket.socket] = []

    def accept() -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = listener.accept()
                held.append(conn)
                if banner is not None:
                    conn.sendall(banner)
                    conn.close()

    threading.Thread(target=accept, daemon=True).start()
    try:
        bridged_ = profile("claude", bridge="chat", bridge_port=listener.getsockname()[1])
        isolated.save(bridged_)
        live = tmp_path / "claude" / "settings.json"
        live.write_text("{}")
        with pytest.raises(ProfileError, match=r"is not a judgeaudit bridge"):
            use_profile(isolated, "gw")
        assert live.read_text() == "{}"
        assert "is not a judgeaudit bridge" in bridgeopt.status(bridged_)
    finally:
        listener.close()
        for conn in held:
            conn.close()
