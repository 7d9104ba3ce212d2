"""One rule for "this machine only" (``hosts.is_loopback_host``): the plain-http
warning, the Codex id, the app's key-less test and the bridge's listen warning all ask it."""

from __future__ import annotations

import pytest

from judgeaudit.hosts import is_loopback_host
from judgeaudit.profiles.model import Profile
from judgeaudit.profiles.targets.codex import default_provider_id
from judgeaudit.profiles.targets.registry import plaintext_warnings


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "127.0.0.2",
        "127.255.0.9",
        "localhost",
        "LocalHost",
        "localhost.",
        "::1",
        "[::1]",
        "::ffff:127.0.0.1",
        "[::FFFF:127.0.0.9]",
        "127.0.0.1.",
    ],
)
def test_this_machine(host: str) -> None:
    assert is_loopback_host(host)


@pytest.mark.parametrize(
    "host",
    [
        "127.example.com",
        "127.0.0.1.nip.io",
        "0.0.0.0",
        "::",
        "10.0.0.5",
        "",
        "gw.corp",
        "::ffff:10.0.0.5",
        "vllm.localhost",
        "localhost.example.com",
    ],
)
def test_another_machine_or_every_interface(host: str) -> None:
    assert not is_loopback_host(host)


def test_a_name_starting_127_is_warned_about_as_any_other_plain_http_host() -> None:
    """``127.example.com`` counted as loopback: its key went over plain http unwarned."""
    url = "http://127.example.com:8080/v1"
    profile = Profile(name="gw", app="codex", base_url=url, model="m", key="gw")
    assert plaintext_warnings(profile) != []
    assert default_provider_id(url) == "127-example-8080"


def test_a_mapped_loopback_address_is_plain_http_without_a_warning() -> None:
    """Python 3.11 calls ``::ffff:127.0.0.1`` not loopback; the profile warned about this
    machine's own gateway and named its Codex provider like a remote one."""
    url = "http://[::ffff:127.0.0.1]:8080/v1"
    profile = Profile(name="gw", app="codex", base_url=url, model="m", key="gw")
    assert plaintext_warnings(profile) == []
    assert default_provider_id(url) == "local-8080"
