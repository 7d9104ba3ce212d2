"""Text an agent sends beside its tool calls is part of the conversation.

Real models often answer a turn with a sentence and a tool call together ("Let me look that up
for you."). The customer reads that sentence, so it is stored as an ``agent`` event before the
calls, the judge's transcript shows it, and the user simulator hears it. The embedded provider
never sends such text, so a real HTTP gateway in front of it adds a sentence to every agent
reply that calls a tool; the run goes through the real client and the real store.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.audit.inputs import load_spec
from judgeaudit.audit.runner import AuditRunner
from tests.audit_helpers import write_spec
from tests.helpers import loopback_http, sim_server

SENTENCE = "Let me look that up for you — один момент."
#: what the user simulator was sent, request by request (the gateway records it)
USER_REQUESTS: list[str] = []


def _gateway(upstream: str) -> type[BaseHTTPRequestHandler]:
    class Gateway(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            request = urllib.request.Request(
                upstream.removesuffix("/v1") + self.path,
                data=body,
                headers={"Content-Type": "application/json"},
                method="POST",
            )
            with urllib.request.urlopen(request, timeout=30) as answer:
                reply: dict[str, Any] = json.loads(answer.read())
            asked = json.loads(body)
            if str(asked.get("model", "")).startswith("user-"):
                USER_REQUESTS.append(json.dumps(asked["messages"], ensure_ascii=False))
            message = reply["choices"][0]["message"]
            if str(asked.get("model", "")).startswith("agent-") and message.get("tool_calls"):
                message["content"] = SENTENCE
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Gateway


@pytest.fixture(scope="module")
def gateway() -> Iterator[str]:
    with sim_server() as sim, loopback_http(_gateway(sim)) as url:
        yield url


def test_text_beside_tool_calls_is_stored_judged_and_heard(
    gateway: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEWAY_TEST_KEY", "gateway-test-key")
    spec = write_spec(tmp_path / "spec.toml", tasks="builtin:retail", trials=1)
    text = spec.read_text(encoding="utf-8")
    spec.write_text(
        text.replace(
            'base_url = "embedded"', f'base_url = "{gateway}"\nkey_env = "GATEWAY_TEST_KEY"'
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    finished = asyncio.run(AuditRunner(load_spec(spec), out).run())
    assert finished.complete

    db = sqlite3.connect(out / "audit.db")
    stored = [json.loads(e) for (e,) in db.execute("SELECT events FROM trajectories")]
    with_tools = [events for events in stored if any(e["role"] == "tool_call" for e in events)]
    assert with_tools, "no agent called a tool: the gateway had nothing to add to"
    for events in with_tools:
        for i, event in enumerate(events):
            if event["role"] == "tool_call" and events[i - 1]["role"] != "tool_call":
                # the sentence comes first, then the turn's calls (results interleave after)
                assert events[i - 1] == {"role": "agent", "content": SENTENCE}

    # the judge read it: a judge prompt about a trajectory that used tools shows it
    judged = [
        json.loads(m)
        for (m,) in db.execute(
            "SELECT DISTINCT p.messages_json FROM judge_logs j JOIN prompts p"
            " ON p.prompt_hash = j.prompt_hash"
        )
    ]
    assert judged and any(SENTENCE in json.dumps(m, ensure_ascii=False) for m in judged)
    # the user simulator heard it, in the same message as the agent's answer after the calls
    assert any(SENTENCE + "\\n\\n" in request for request in USER_REQUESTS)
