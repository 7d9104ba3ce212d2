"""``profile test``: one small request of the kind the tool itself sends, with a clear verdict.

Claude profiles send one streamed Anthropic Messages request (``/v1/messages`` under the
Anthropic base, with the headers Claude Code sends), Codex profiles one streamed Responses
request, bridged profiles the streamed chat completion the bridge sends, SDK profiles one chat
completion (after listing models). Claude Code, Codex and the bridge stream every request, so
the stream's first events are parsed (a gateway that only streams is judged right; one that
answers a stream request with a whole body, or cuts the stream, is not). Each reports the time
to the first token or the precise reason: a rejected key, a wrong path (with the ``/v1``
variant that answers), no such API, a timeout, no connection.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

import aiohttp

from judgeaudit.profiles import bridgeopt
from judgeaudit.profiles.model import Profile
from judgeaudit.profiles.targets.claude import anthropic_base
from judgeaudit.redact import redact

CLAUDE_PROBE_MODEL = "claude-sonnet-4-5"
ANTHROPIC_VERSION = "2023-06-01"


@dataclass
class ProbeResult:
    ok: bool
    lines: list[str]


@dataclass
class Answer:
    status: int | None  # None: no HTTP answer
    body: Any
    latency_ms: float
    problem: str = ""
    ttft_ms: float | None = None  # streamed: until the first token
    events: list[str] | None = None  # streamed: the event types seen, in order


#: Per API: the event that carries a token, and the one that ends a complete stream.
STREAM_EVENTS = {
    "messages": ("content_block_delta", "message_stop"),
    "responses": ("response.output_text.delta", "response.completed"),
    "chat": ("chat.completion.chunk", "[DONE]"),
}


def _event_type(data: str) -> str:
    if data.strip() == "[DONE]":
        return "[DONE]"
    try:
        parsed = json.loads(data)
    except ValueError:
        return "?"
    if not isinstance(parsed, dict):
        return "?"
    if parsed.get("object") == "chat.completion.chunk":
        choices = parsed.get("choices") or [{}]
        delta = choices[0].get("delta") or {} if isinstance(choices[0], dict) else {}
        return (
            "chat.completion.chunk" if delta.get("content") or delta.get("tool_calls") else "chunk"
        )
    if "error" in parsed and parsed.get("type") in (None, "error"):
        return "error"
    return str(parsed.get("type", "?"))


async def _call_stream(
    session: aiohttp.ClientSession, url: str, headers: dict[str, str], body: Any, kind: str
) -> Answer:
    """POST a streamed request; read server-sent events until the stream ends."""
    token_event, last_event = STREAM_EVENTS[kind]
    started = time.perf_counter()
    events: list[str] = []
    ttft = None
    try:
        async with session.post(url, headers=headers, json=body) as response:
            if "text/event-stream" not in response.headers.get("Content-Type", ""):
                return await _whole(response, started)
            try:
                async for raw in response.content:
                    line = raw.decode("utf-8", "replace").strip()
                    if not line.startswith("data:"):
                        continue
                    kind_seen = _event_type(line[5:].strip())
                    events.append(kind_seen)
                    if kind_seen == token_event and ttft is None:
                        ttft = (time.perf_counter() - started) * 1000
                    if kind_seen in (last_event, "error"):
                        break
            except aiohttp.ClientPayloadError:
                pass  # cut mid-stream: judged by the events seen
            total = (time.perf_counter() - started) * 1000
            return Answer(response.status, None, total, ttft_ms=ttft, events=events)
    except (TimeoutError, aiohttp.ClientError) as exc:
        return _failed(exc, session, events)


def _stream_verdict(answer: Answer, kind: str) -> str | None:
    """None when the stream is what the tool needs, else what is wrong with it."""
    token_event, last_event = STREAM_EVENTS[kind]
    events = answer.events
    if events is None:
        return "answered a streamed request with a whole body (the tool streams every request)"
    if "error" in events:
        return "the stream carried an error event"
    if token_event not in events:
        return f"the stream ended without a token ({len(events)} event(s))"
    if last_event not in events:
        return f"the stream was cut before {last_event} ({len(events)} event(s))"
    return None


async def _call(
    session: aiohttp.ClientSession, method: str, url: str, headers: dict[str, str], body: Any
) -> Answer:
    started = time.perf_counter()
    try:
        async with session.request(method, url, headers=headers, json=body) as response:
            return await _whole(response, started)
    except (TimeoutError, aiohttp.ClientError) as exc:
        return _failed(exc, session, [])


async def _whole(response: aiohttp.ClientResponse, started: float) -> Answer:
    """A whole (not streamed) answer: its body as JSON when it parses, else as text."""
    text = await response.text(errors="replace")
    try:
        parsed: Any = json.loads(text)
    except ValueError:
        parsed = text
    return Answer(response.status, parsed, (time.perf_counter() - started) * 1000)


def _failed(exc: BaseException, session: aiohttp.ClientSession, events: list[str]) -> Answer:
    """No (complete) answer: the timeout, refused connection or transport error, in words."""
    if isinstance(exc, TimeoutError):
        waited = session.timeout.total
        problem = f"no answer within {waited:g} s" if waited else "no answer"
        if events:
            problem = f"the stream stopped after {len(events)} event(s) ({problem})"
        return Answer(None, None, 0, problem, events=events or None)
    if isinstance(exc, aiohttp.ClientConnectorError):
        reason = exc.os_error.strerror or exc.os_error
        return Answer(None, None, 0, f"cannot connect to {exc.host}:{exc.port} ({reason})")
    return Answer(None, None, 0, f"connection failed ({type(exc).__name__})")


def _reason(answer: Answer, what: str, profile: Profile) -> str:
    if answer.status is None:
        return f"{what}: {answer.problem}"
    if answer.status in (401, 403):
        from judgeaudit.profiles.secrets import rejected_key_fix  # keyring: only on a 401

        fix = rejected_key_fix(profile)
        return f"{what}: the provider rejected the API key (HTTP {answer.status}); {fix}"
    if answer.status == 404:
        return f"{what}: HTTP 404, no such path on this base URL"
    detail = ""
    if isinstance(answer.body, dict):
        error = answer.body.get("error")
        message = error.get("message") if isinstance(error, dict) else error
        detail = f": {str(message)[:160]}" if message else ""
    return f"{what}: HTTP {answer.status}{detail}"


def _looks_like(kind: str, body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    if kind == "messages":
        return body.get("type") == "message" or "content" in body
    if kind == "responses":
        return body.get("object") == "response" or "output" in body
    return "choices" in body


async def _try(
    session: aiohttp.ClientSession,
    base: str,
    path: str,
    headers: dict[str, str],
    body: Any,
    kind: str,
    what: str,
    alternatives: list[str],
    profile: Profile,
) -> tuple[bool, str]:
    stream = isinstance(body, dict) and body.get("stream") is True
    if stream:
        answer = await _call_stream(session, base + path, headers, body, kind)
        if answer.status == 200 and answer.events is not None:
            wrong = _stream_verdict(answer, kind)
            if wrong:
                return False, f"{what}: {wrong} ({base}{path})"
            first = f"first token in {answer.ttft_ms:.0f} ms, " if answer.ttft_ms else ""
            return (
                True,
                f"{what}: ok, streamed, {first}done in {answer.latency_ms:.0f} ms ({base}{path})",
            )
    else:
        answer = await _call(session, "POST", base + path, headers, body)
    if answer.status == 200 and _looks_like(kind, answer.body):
        if stream:
            return False, f"{what}: {_stream_verdict(answer, kind)} ({base}{path})"
        return True, f"{what}: ok in {answer.latency_ms:.0f} ms ({base}{path})"
    if answer.status == 200:
        return (
            False,
            f"{what}: {base}{path} answered 200 but not with a {kind} reply (a web page? check the base URL)",
        )
    line = _reason(answer, what, profile)
    if answer.status in (404, 405):
        for other in alternatives:
            retry = await _call(session, "POST", other + path, headers, body)
            if retry.status is not None and retry.status not in (404, 405):
                line += f"; {other}{path} answers (HTTP {retry.status}): use base URL {other}"
                break
        else:
            line += f" ({base}{path}); this provider may not offer this API"
    return False, line


def _variants(base: str, app: str) -> list[str]:
    if app == "claude":
        return [base.removesuffix("/v1")] if base.endswith("/v1") else [base + "/anthropic"]
    return [base.removesuffix("/v1")] if base.endswith("/v1") else [base + "/v1"]


async def _probe(profile: Profile, key: str, timeout_s: float) -> ProbeResult:
    lines: list[str] = []
    auth = {"authorization": f"Bearer {key}", "content-type": "application/json"}
    timeout = aiohttp.ClientTimeout(total=timeout_s)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        if bridgeopt.uses_bridge(profile):
            ok, chat_lines = await _chat_probe(session, profile, auth, stream=True)
            head = f"bridge = chat: probing the chat completions the bridge sends to {profile.base_url}"
            return ProbeResult(ok, [redact(x, [key]) for x in [head, *chat_lines]])
        if profile.app == "claude":
            base = anthropic_base(profile).rstrip("/")
            headers = {**auth, "x-api-key": key, "anthropic-version": ANTHROPIC_VERSION}
            model = profile.model or CLAUDE_PROBE_MODEL
            if not profile.model:
                lines.append(
                    f"no model in the profile; probing with {model} (Claude Code's default)"
                )
            body = {
                "model": model,
                "max_tokens": 8,
                "stream": True,  # Claude Code streams every request
                "messages": [{"role": "user", "content": "ping"}],
            }
            ok, line = await _try(
                session,
                base,
                "/v1/messages",
                headers,
                body,
                "messages",
                f"Anthropic Messages with {model}",
                _variants(base, "claude"),
                profile,
            )
            if not ok and "404" in line and (offer := await _offer_bridge(session, profile, auth)):
                line += "; " + offer
            return ProbeResult(ok, [redact(x, [key]) for x in [*lines, line]])
        base = profile.base_url.rstrip("/")
        if profile.app == "codex":
            body = {
                "model": profile.model or "ping",
                "input": "ping",
                "max_output_tokens": 16,
                "stream": True,  # Codex streams every request
            }
            ok, line = await _try(
                session,
                base,
                "/responses",
                auth,
                body,
                "responses",
                f"Responses API with {profile.model or '(no model set)'}",
                _variants(base, "codex"),
                profile,
            )
            if not ok and "404" in line:
                line += ' (Codex only speaks wire_api = "responses"; without it Codex cannot use this provider directly)'
                if offer := await _offer_bridge(session, profile, auth):
                    line += "; " + offer
            return ProbeResult(ok, [redact(line, [key])])
        ok, chat_lines = await _chat_probe(session, profile, auth)
        return ProbeResult(ok, [redact(x, [key]) for x in [*lines, *chat_lines]])


async def _chat_probe(
    session: aiohttp.ClientSession, profile: Profile, auth: dict[str, str], stream: bool = False
) -> tuple[bool, list[str]]:
    """Models and one chat completion at the profile's base URL (SDK profiles, and what the
    bridge sends for a ``bridge = "chat"`` profile)."""
    base = profile.base_url.rstrip("/")
    lines: list[str] = []
    listed = await _call(session, "GET", base + "/models", auth, None)
    if listed.status == 200 and isinstance(listed.body, dict):
        lines.append(
            f"models: {len(listed.body.get('data') or [])} listed in {listed.latency_ms:.0f} ms"
        )
    elif listed.status in (401, 403):
        return False, [_reason(listed, "models", profile)]
    else:
        lines.append(f"models: not listed ({_reason(listed, 'GET /models', profile)})")
    if not profile.model:
        lines.append(
            f"no model in the profile: set one (`judgeaudit profile edit {profile.name} --model ID`) "
            "to send a chat completion"
        )
        return listed.status == 200, lines
    body: dict[str, Any] = {
        "model": profile.model,
        "max_tokens": 8,
        "messages": [{"role": "user", "content": "ping"}],
    }
    if stream:  # the bridge streams upstream whenever the tool streams, which is always
        body["stream"] = True
    ok, line = await _try(
        session,
        base,
        "/chat/completions",
        auth,
        body,
        "chat",
        f"chat completion with {profile.model}",
        _variants(base, "sdk"),
        profile,
    )
    return ok, [*lines, line]


async def _offer_bridge(
    session: aiohttp.ClientSession, profile: Profile, auth: dict[str, str]
) -> str | None:
    """When the tool's own API is missing: does the base URL serve chat completions? Then the
    bridge can carry the tool there."""
    if not profile.model:
        return None
    body = {
        "model": profile.model,
        "max_tokens": 8,
        "messages": [{"role": "user", "content": "ping"}],
    }
    answer = await _call(
        session, "POST", profile.base_url.rstrip("/") + "/chat/completions", auth, body
    )
    if answer.status == 200 and _looks_like("chat", answer.body):
        return (
            f"{profile.base_url}/chat/completions answers: this is a chat-only gateway; "
            f"`judgeaudit profile edit {profile.name} --option bridge=chat` lets {profile.app} "
            "use it through the bridge"
        )
    return None


def probe(profile: Profile, key: str, timeout_s: float = 15.0) -> ProbeResult:
    return asyncio.run(_probe(profile, key, timeout_s))
