"""The bridge as a real process between real clients and ``sim serve --apis chat``.

The openai SDK speaks the Responses API to it; Anthropic Messages go over plain HTTP. The sim's
request log shows what reached the chat-only upstream; the bridge's own output never holds the key.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.bridge_helpers import HeldUpstream, events, key_fingerprint, post, request_log, served

KEY = "sk-upstream-bridge-test-0123456789"
READ_TOOL = {
    "name": "Read",
    "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}},
}


class Gateway:
    """A chat-only sim gateway and a profile that points at it (key from the environment)."""

    def __init__(self, tmp: Path, url: str) -> None:
        self.tmp, self.url, self.log = tmp, url, tmp / "requests.jsonl"
        self.env = {"JUDGEAUDIT_CONFIG_DIR": str(tmp / "cfg"), "GWKEY": KEY}

    def profile(self, name: str, **fields: str) -> str:
        directory = self.tmp / "cfg" / "profiles"
        directory.mkdir(parents=True, exist_ok=True)
        data = {
            "name": name,
            "app": "codex",
            "base_url": self.url,
            "model": "sim-chat",
            "key_env": "GWKEY",
            **fields,
        }
        lines = [f"{k} = {json.dumps(v)}" for k, v in data.items()]
        (directory / f"{name}.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
        return name


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    tmp = tmp_path_factory.mktemp("gateway")
    log = tmp / "requests.jsonl"
    args = (
        "sim",
        "serve",
        "--port",
        "0",
        "--apis",
        "chat",
        "--require-key-env",
        "GWKEY",
        "--request-log",
        str(log),
    )
    with served(*args, env={"GWKEY": KEY}) as (url, _):
        gateway = Gateway(tmp, url)
        gateway.profile("gw")
        yield gateway


@pytest.fixture(scope="module")
def bridge(gateway: Gateway) -> Iterator[str]:
    with served("bridge", "gw", env=gateway.env) as (url, proc):
        yield url
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
        assert proc.returncode == 0, err
        assert KEY not in out + err  # the bridge logs requests, never the key
        assert "POST /v1/responses sim-chat" in err


def responses_client(bridge: str, key: str = KEY) -> openai.OpenAI:
    return openai.OpenAI(base_url=bridge + "/v1", api_key=key, max_retries=0)


def test_the_sim_plays_a_chat_only_gateway(gateway: Gateway) -> None:
    for path in ("/responses", "/messages"):
        status, _, raw = post(gateway.url + path, {"model": "sim-chat", "input": "x"}, KEY)
        assert status == 404 and "Invalid URL" in json.loads(raw)["error"]["message"]
    status, _, _ = post(
        gateway.url + "/chat/completions",
        {"model": "sim-chat", "messages": [{"role": "user", "content": "x"}]},
        KEY,
    )
    assert status == 200


def test_sim_serve_refuses_unknown_apis() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "judgeaudit", "sim", "serve", "--apis", "chat,grpc"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert (
        done.stderr.strip()
        == "judgeaudit: --apis: grpc: use a comma-separated list of chat, responses, messages"
    )


def test_responses_whole_and_streamed_through_the_bridge(gateway: Gateway, bridge: str) -> None:
    client = responses_client(bridge)
    before = len(request_log(gateway.log))
    whole = client.responses.create(model="sim-chat", input="hello bridge")
    assert (
        "simulated reply from sim-chat" in whole.output_text and "hello bridge" in whole.output_text
    )
    assert whole.usage is not None and whole.usage.output_tokens > 0
    with client.responses.stream(model="sim-chat", input="hello stream") as stream:
        deltas = [e.delta for e in stream if e.type == "response.output_text.delta"]
        final = stream.get_final_response()
    assert "".join(deltas) == final.output_text and "hello stream" in final.output_text
    seen = request_log(gateway.log)[before:]
    assert [(r["path"], r["model"], r["key_sha256"]) for r in seen] == [
        ("/v1/chat/completions", "sim-chat", key_fingerprint(KEY))
    ] * 2


def test_responses_function_call_round_trip(bridge: str) -> None:
    client = responses_client(bridge)
    tools: Any = [
        {
            "type": "function",
            "name": "lookup",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        }
    ]
    prompt = 'find it\nsim-tool: lookup {"q": "O-1007"}'
    first = client.responses.create(model="sim-chat", input=prompt, tools=tools, stream=False)
    (call,) = [item for item in first.output if item.type == "function_call"]
    assert call.name == "lookup" and json.loads(call.arguments) == {"q": "O-1007"}
    history: Any = [
        {"role": "user", "content": prompt},
        {
            "type": "function_call",
            "call_id": call.call_id,
            "name": call.name,
            "arguments": call.arguments,
        },
        {"type": "function_call_output", "call_id": call.call_id, "output": "status: shipped"},
    ]
    with client.responses.stream(model="sim-chat", input=history, tools=tools) as stream:
        final = stream.get_final_response()
    assert final.output_text == "Tool lookup returned: status: shipped"


def _messages(
    bridge: str, body: dict[str, Any], key: str = KEY
) -> tuple[int, dict[str, str], bytes]:
    return post(bridge + "/v1/messages?beta=true", {"max_tokens": 256, **body}, key)


def test_anthropic_messages_whole_and_streamed_with_a_tool_round_trip(bridge: str) -> None:
    prompt = 'read it\nsim-tool: Read {"file_path": "/tmp/x"}'
    base = {
        "model": "sim-chat",
        "system": [{"type": "text", "text": "You are Claude Code."}],
        "tools": [READ_TOOL],
    }
    status, _, raw = _messages(bridge, {**base, "messages": [{"role": "user", "content": prompt}]})
    assert status == 200
    reply = json.loads(raw)
    assert reply["stop_reason"] == "tool_use"
    (use,) = reply["content"]
    assert (use["type"], use["name"], use["input"]) == ("tool_use", "Read", {"file_path": "/tmp/x"})
    history = [
        {"role": "user", "content": prompt},
        {"role": "assistant", "content": reply["content"]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": use["id"], "content": "1\thello"}],
        },
    ]
    status, headers, raw = _messages(bridge, {**base, "messages": history, "stream": True})
    assert status == 200 and headers["Content-Type"].startswith("text/event-stream")
    out = events(raw)
    assert out[0][0] == "message_start" and out[-1][0] == "message_stop"
    text = "".join(d["delta"].get("text", "") for n, d in out if n == "content_block_delta")
    assert text == "Tool Read returned: 1\thello"


def test_a_429_comes_back_with_retry_after_in_each_format(bridge: str) -> None:
    model = "sim-chat:rate_429=1,retry_after_s=7"
    with pytest.raises(openai.RateLimitError) as caught:
        responses_client(bridge).responses.create(model=model, input="x")
    assert caught.value.response.headers["retry-after"] == "7"
    assert caught.value.response.headers["retry-after-ms"] == "7000"
    assert "upstream HTTP 429" in caught.value.message
    status, headers, raw = _messages(
        bridge, {"model": model, "messages": [{"role": "user", "content": "x"}], "stream": True}
    )
    assert status == 429 and headers["Retry-After"] == "7"
    assert json.loads(raw)["error"]["type"] == "rate_limit_error"


def test_upstream_500_and_a_cut_stream(bridge: str) -> None:
    with pytest.raises(openai.InternalServerError):
        responses_client(bridge).responses.create(model="sim-chat:rate_500=1", input="x")
    status, _, raw = _messages(
        bridge, {"model": "sim-chat:rate_500=1", "messages": [{"role": "user", "content": "x"}]}
    )
    assert status == 500 and json.loads(raw)["type"] == "error"
    cut = "sim-chat:rate_truncate=1"
    status, _, raw = post(
        bridge + "/v1/responses", {"model": cut, "input": "x", "stream": True}, KEY
    )
    last = events(raw)[-1]
    assert status == 200 and last[0] == "response.failed"
    assert "before the reply finished" in last[1]["response"]["error"]["message"]
    status, _, raw = _messages(
        bridge, {"model": cut, "messages": [{"role": "user", "content": "x"}], "stream": True}
    )
    name, data = events(raw)[-1]
    assert (name, data["error"]["type"]) == ("error", "api_error")
    assert "before the reply finished" in data["error"]["message"]


def test_callers_without_the_key_are_refused_in_their_own_format(bridge: str) -> None:
    with pytest.raises(openai.AuthenticationError):
        responses_client(bridge, key="sk-someone-else").responses.create(
            model="sim-chat", input="x"
        )
    status, _, raw = _messages(
        bridge, {"model": "sim-chat", "messages": [{"role": "user", "content": "x"}]}, key="nope"
    )
    assert status == 401 and json.loads(raw)["error"]["type"] == "authentication_error"


def test_count_tokens_models_and_the_head_probe(bridge: str) -> None:
    status, _, raw = post(
        bridge + "/v1/messages/count_tokens?beta=true",
        {"model": "m", "messages": [{"role": "user", "content": "x" * 400}]},
        KEY,
    )
    assert status == 200 and json.loads(raw)["input_tokens"] >= 100
    assert "sim-chat" in [m.id for m in responses_client(bridge).models.list()]
    import urllib.request

    with urllib.request.urlopen(
        urllib.request.Request(bridge + "/", method="HEAD"), timeout=30
    ) as head:
        assert head.status == 200


def test_a_wrong_upstream_key_comes_back_as_401(gateway: Gateway) -> None:
    gateway.profile("gw-badkey", key_env="OTHERKEY")
    with served(
        "bridge", "gw-badkey", env={**gateway.env, "OTHERKEY": "sk-wrong-upstream-key"}
    ) as (url, _):
        status, _, raw = post(
            url + "/v1/responses", {"model": "sim-chat", "input": "x"}, "sk-wrong-upstream-key"
        )
    assert status == 401 and "upstream HTTP 401" in json.loads(raw)["error"]["message"]


def test_unreachable_upstream(gateway: Gateway) -> None:
    gateway.profile("gw-nowhere", base_url="http://127.0.0.1:9/v1")
    with served("bridge", "gw-nowhere", env=gateway.env) as (url, _):
        status, _, raw = post(url + "/v1/responses", {"model": "sim-chat", "input": "x"}, KEY)
    assert status == 502
    assert "cannot reach the upstream http://127.0.0.1:9/v1/chat/completions" in raw.decode()


def test_a_silent_upstream_times_out_with_504(gateway: Gateway) -> None:
    with HeldUpstream() as upstream:
        gateway.profile("gw-held", base_url=upstream.url)
        with served("bridge", "gw-held", "--read-timeout", "0.5", env=gateway.env) as (url, _):
            body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}
            status, _, raw = post(url + "/v1/messages", body, KEY)
    assert status == 504
    assert json.loads(raw)["error"]["message"] == "the upstream sent nothing for 0.5 s"


def test_requests_beyond_the_concurrency_bound_get_503(gateway: Gateway) -> None:
    with HeldUpstream() as upstream:
        gateway.profile("gw-held", base_url=upstream.url)
        args = ("bridge", "gw-held", "--max-concurrency", "1", "--queue-timeout", "0.2")
        with served(*args, env=gateway.env) as (url, _):
            held: list[int] = []
            first = threading.Thread(
                target=lambda: held.append(
                    post(url + "/v1/responses", {"model": "m", "input": "a"}, KEY)[0]
                )
            )
            first.start()
            upstream.arrived.acquire()  # the first request owns the only slot now
            status, headers, raw = post(url + "/v1/responses", {"model": "m", "input": "b"}, KEY)
            upstream.release()
            first.join()
    assert status == 503 and headers["Retry-After"] == "1"
    assert "busy (1 requests in flight)" in json.loads(raw)["error"]["message"]
    assert held == [200]  # the held one finished normally once released


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_the_bridge_stops_cleanly_on_a_signal(gateway: Gateway, signum: int) -> None:
    with served("bridge", "gw", env=gateway.env) as (url, proc):
        assert post(url + "/v1/responses", {"model": "sim-chat", "input": "x"}, KEY)[0] == 200
        proc.send_signal(signum)
        proc.wait(timeout=30)
        assert proc.returncode == 0
        assert proc.stderr is not None and "Traceback" not in proc.stderr.read()


def test_a_bad_profile_is_one_line_and_exit_2(gateway: Gateway) -> None:
    env = {**os.environ, **gateway.env}
    done = subprocess.run(
        [sys.executable, "-m", "judgeaudit", "bridge", "no-such"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    folder = Path(env["JUDGEAUDIT_CONFIG_DIR"]) / "profiles"
    assert done.stderr.strip() == (
        f"judgeaudit: profile 'no-such' not found in {folder} (nor among the presets); "
        "`judgeaudit profile list` shows them ($JUDGEAUDIT_CONFIG_DIR sets that folder)"
    )
    done = subprocess.run(
        [sys.executable, "-m", "judgeaudit", "bridge", "gw", "--read-timeout", "0"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2 and "--read-timeout: must be greater than 0" in done.stderr


def test_a_port_in_use_is_one_line(gateway: Gateway) -> None:
    with served("bridge", "gw", env=gateway.env) as (url, _):
        port = url.rsplit(":", 1)[1]
        env = {**os.environ, **gateway.env}
        done = subprocess.run(
            [sys.executable, "-m", "judgeaudit", "bridge", "gw", "--port", port],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"judgeaudit: cannot listen on 127.0.0.1:{port}:")
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr  # nothing else, no warnings


def test_a_netrc_entry_for_the_upstream_host_does_not_break_it(gateway: Gateway) -> None:
    """aiohttp with trust_env reads ~/.netrc and refuses auth plus an Authorization header."""
    netrc = gateway.tmp / "netrc"
    netrc.write_text("machine 127.0.0.1 login someone password something\n", encoding="utf-8")
    netrc.chmod(0o600)
    with served("bridge", "gw", env={**gateway.env, "NETRC": str(netrc)}) as (url, _):
        status, _, raw = post(url + "/v1/responses", {"model": "sim-chat", "input": "hi"}, KEY)
    assert status == 200, raw


def test_claude_codes_warm_up_probe_is_answered_and_not_logged(gateway: Gateway) -> None:
    """A new user saw `HEAD /api/hello -> 404` in the bridge's log on every Claude Code start:
    Claude Code 2.1.332 sends that HEAD (no key) to warm the connection. It is answered 200 and
    not logged; a path the bridge does not serve is still logged with its 404."""
    import urllib.error
    import urllib.request

    with served("bridge", "gw", env=gateway.env) as (url, proc):
        with urllib.request.urlopen(
            urllib.request.Request(url + "/api/hello", method="HEAD"), timeout=30
        ) as head:
            assert head.status == 200
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(urllib.request.Request(url + "/api/nope"), timeout=30)
        assert missing.value.code == 404
        assert post(url + "/v1/responses", {"model": "sim-chat", "input": "x"}, KEY)[0] == 200
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        assert proc.stderr is not None
        log = proc.stderr.read()
    assert "/api/hello" not in log, log
    assert "GET /api/nope -> 404" in log and "POST /v1/responses sim-chat -> 200" in log, log
