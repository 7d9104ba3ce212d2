"""Which transport an endpoint gets, and the pieces both transports share.

Local endpoints (loopback, private addresses, ``localhost``) go direct, others through the
openai SDK; ``fast_path`` in ``[endpoints.X]`` forces either. Changing it is a speed setting: the
run id (spec hash) stays the same, so a run resumes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from judgeaudit.audit.inputs import load_spec
from judgeaudit.audit.spec import SpecError
from judgeaudit.audit.spec.endpoints import Endpoints
from judgeaudit.llm import LLMClient, LLMError
from judgeaudit.llm.direct import is_local, uses_direct
from judgeaudit.llm.failure import AttemptFailed, error_message, retry_after


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8000/v1", True),
        ("http://127.5.6.7/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://LOCALHOST./v1", True),
        ("http://vllm.localhost/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://10.1.2.3:8000/v1", True),
        ("http://172.16.0.9/v1", True),
        ("http://192.168.1.20:11434/v1", True),
        ("http://[fd12:3456::1]/v1", True),
        ("http://[::ffff:127.0.0.1]:8000/v1", True),
        ("http://[::ffff:192.168.0.4]/v1", True),
        ("http://[::ffff:8.8.8.8]/v1", False),
        ("https://api.openai.com/v1", False),
        ("https://8.8.8.8/v1", False),
        ("http://172.32.0.1/v1", False),  # just outside 172.16.0.0/12
        ("http://gpu-box:8000/v1", False),  # a name: not resolved, opt in with fast_path
        ("http://localhost.example.com/v1", False),
        ("not a url", False),
    ],
)
def test_local_addresses_are_recognised(url: str, local: bool) -> None:
    assert is_local(url) is local


def test_fast_path_setting_overrides_the_address() -> None:
    assert uses_direct("http://127.0.0.1/v1", None) is True
    assert uses_direct("http://127.0.0.1/v1", False) is False
    assert uses_direct("https://api.openai.com/v1", None) is False
    assert uses_direct("https://api.openai.com/v1", True) is True


@pytest.mark.parametrize("url", ["http://[bad/v1", "http://:80/v1", "http://h:99999/v1"])
def test_a_base_url_that_is_not_a_url_fails_at_once(url: str, transport: str) -> None:
    with pytest.raises(LLMError) as info:
        LLMClient(url, "sk-secret-0001", name="gw", fast_path=transport == "direct")
    assert info.value.kind == "request"
    assert str(info.value).startswith(f"gw: base URL {url!r} is not a URL (")
    assert str(info.value).endswith("; fix base_url")


def test_retry_after_reads_ms_first_and_ignores_what_is_not_seconds() -> None:
    assert retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after({"retry-after": "2"}) == 2.0
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None
    assert retry_after({"retry-after": "nan"}) is None
    assert retry_after({"retry-after": "-3"}) is None
    assert retry_after({}) is None


def test_error_message_finds_the_providers_words() -> None:
    assert error_message(b'{"error": {"message": "bad model"}}', "x") == "bad model"
    assert error_message(b'{"error": "quota"}', "x") == "quota"
    assert error_message(b'{"message": "flat"}', "x") == "flat"
    assert error_message(b"<html>oops</html>", "x") == "<html>oops</html>"
    assert error_message(b"", "Error code: 502") == "Error code: 502"
    assert error_message({"message": "from the SDK"}, "x") == "from the SDK"


@pytest.mark.parametrize(
    ("failure", "retryable"),
    [
        (AttemptFailed("status", status=429), True),
        (AttemptFailed("status", status=500), True),
        (AttemptFailed("status", status=503), True),
        (AttemptFailed("status", status=400), False),
        (AttemptFailed("status", status=409), False),
        (AttemptFailed("timeout"), True),
        (AttemptFailed("connection"), True),
        (AttemptFailed("bad_reply", detail="empty reply"), True),
        (AttemptFailed("other", detail="error in the reply"), False),
    ],
)
def test_what_is_retried(failure: AttemptFailed, retryable: bool) -> None:
    assert failure.retryable is retryable


def spec_with(tmp_path: Path, endpoint: str) -> Path:
    spec = tmp_path / "spec.toml"
    spec.write_text(
        '[run]\nname = "p"\nimported = "pairs.jsonl"\n'
        f"[endpoints.gw]\n{endpoint}\n"
        '[judge]\nmodel = "judge-default"\nendpoint = "gw"\n'
    )
    (tmp_path / "pairs.jsonl").write_text("")
    return spec


@pytest.mark.parametrize(
    ("endpoint", "path"),
    [
        ('base_url = "http://127.0.0.1:8000/v1"', "direct"),
        ('base_url = "http://127.0.0.1:8000/v1"\nfast_path = false', "sdk"),
        ('base_url = "https://api.example.com/v1"', "sdk"),
        ('base_url = "https://api.example.com/v1"\nfast_path = true', "direct"),
    ],
)
def test_the_spec_picks_the_transport(tmp_path: Path, endpoint: str, path: str) -> None:
    spec = load_spec(spec_with(tmp_path, endpoint + '\nkey_env = "GW_KEY"'))
    endpoints = Endpoints.open(spec, 4, keys=lambda _: "k")
    try:
        assert endpoints.clients["gw"].path == path
    finally:
        asyncio.run(endpoints.close())


def test_fast_path_is_a_speed_setting_not_part_of_the_run_id(tmp_path: Path) -> None:
    plain = load_spec(spec_with(tmp_path, 'base_url = "http://127.0.0.1/v1"\nkey_env = "K"'))
    forced = load_spec(
        spec_with(tmp_path, 'base_url = "http://127.0.0.1/v1"\nkey_env = "K"\nfast_path = false')
    )
    assert forced.endpoints["gw"].fast_path is False and plain.endpoints["gw"].fast_path is None
    assert forced.spec_hash() == plain.spec_hash()


def test_fast_path_must_be_true_or_false(tmp_path: Path) -> None:
    spec = spec_with(tmp_path, 'base_url = "http://127.0.0.1/v1"\nkey_env = "K"\nfast_path = "yes"')
    with pytest.raises(SpecError) as info:
        load_spec(spec)
    assert "endpoints.gw.fast_path: must be bool, got str" in str(info.value)
