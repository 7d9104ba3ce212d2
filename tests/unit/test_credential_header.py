"""One rule for "this header carries a credential" (``redact.is_credential_header``): the switch
moves such a header out of ``ANTHROPIC_CUSTOM_HEADERS`` and the simulator's request log
fingerprints it. The log's own copy knew four name words, so a leaked cookie, session or
password header, or a key under a plain name, never showed in a contract test's log."""

from __future__ import annotations

import pytest

from judgeaudit.profiles.targets.claude import credential_headers
from judgeaudit.redact import is_credential_header

KEYLIKE = "sk-" + "a1B2c3D4e5" * 3


@pytest.mark.parametrize(
    ("name", "value"),
    [("Cookie", "sid=abc"), ("X-Session", "s-123"), ("Proxy-Password", "hunter2"),
     ("x-gateway-key", "whatever"), ("Authorization", "Bearer x"), ("X-Org", KEYLIKE)],
)  # fmt: skip
def test_a_credential_header_by_name_or_by_a_key_shaped_value(name: str, value: str) -> None:
    assert is_credential_header(name, value)
    assert credential_headers(f"{name}: {value}") == [(name, value)]  # the switch's reading


@pytest.mark.parametrize(
    ("name", "value"),
    [("anthropic-beta", "fine-grained-tool-streaming-2025-05-14"), ("X-Org", "acme")],
)
def test_a_header_without_a_credential_is_none(name: str, value: str) -> None:
    assert not is_credential_header(name, value)
    assert credential_headers(f"{name}: {value}") == []


def test_the_simulators_request_log_asks_the_same_rule() -> None:
    import judgeaudit.sim.server as server

    assert getattr(server, "is_credential_header") is is_credential_header  # noqa: B009
    assert not hasattr(server, "CREDENTIAL_HEADER_RE")  # no second, narrower copy
