"""The bridge profile options and what exec hands the tool."""

from __future__ import annotations

import json

import pytest

from judgeaudit.bridge.execlink import TOKEN_VAR, bridged, through
from judgeaudit.profiles import bridgeopt
from judgeaudit.profiles.model import ProfileError, profile_from_dict


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
