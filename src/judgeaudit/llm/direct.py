"""The direct transport for local endpoints: one aiohttp session, no SDK in between.

A judge on the embedded provider, a local vLLM or Ollama answers in tens of milliseconds, and
then the SDK's own HTTP stack (request building, httpx2 on top of aiohttp: about 0.5 ms of CPU a
call) is what limits throughput. This path posts the same JSON with the headers that matter
(auth, content type, accept, a user agent naming judgeaudit) straight through aiohttp, applies
the same timeouts as the SDK transport (connect, pool and per-read, no total), and translates
every outcome into the same :class:`~judgeaudit.llm.failure.AttemptFailed` the SDK path
produces, so retries, errors and messages are the same; the test suite runs the llm tests
against both paths to prove it.

What it leaves out on purpose, because a loopback or private address does not need it: proxies
from the environment and ``~/.netrc`` (``trust_env`` off), cookies, and the SDK's telemetry
headers (``x-stainless-*``). An endpoint that needs a proxy stays on the SDK (``fast_path =
false``); remote endpoints do by default.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import yarl

from judgeaudit.hosts import is_local_host
from judgeaudit.llm.failure import AttemptFailed, BadReply, error_message, refused, retry_after
from judgeaudit.llm.reply import CallResult, StreamAssembler, parse_completion

#: Idle connections are dropped after this long: under uvicorn's 5 s keep-alive (vLLM), so a
#: reused connection is not one the server is closing at that very moment.
KEEPALIVE_S = 4.0


def is_local(base_url: str) -> bool:
    """A loopback or private address (or ``localhost``): the embedded provider, a local server.

    Host names other than ``localhost`` are not resolved (no DNS look-up to pick a transport);
    such endpoints opt in with ``fast_path = true``. The rule is :func:`judgeaudit.hosts.is_local_host`."""
    try:
        host = yarl.URL(base_url).host
    except ValueError:
        return False
    return bool(host) and is_local_host(host or "")


def uses_direct(base_url: str, fast_path: bool | None) -> bool:
    """``fast_path`` decides when set; otherwise local endpoints go direct, others via the SDK."""
    return is_local(base_url) if fast_path is None else fast_path


class DirectTransport:
    """One endpoint over one aiohttp session (opened on first use, inside the running loop)."""

    name = "direct"

    def __init__(
        self, base_url: str, api_key: str, timeout_s: float, concurrency: int, user_agent: str
    ) -> None:
        self._chat_url = yarl.URL(base_url + "/chat/completions")
        self._models_url = yarl.URL(base_url + "/models")
        self._headers = {
            "Authorization": f"Bearer {api_key or 'unused'}",  # as the SDK sends an empty key
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": user_agent,
        }
        # The SDK transport's mapping: connect -> sock_connect, read -> sock_read, pool -> connect.
        self._timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=timeout_s, sock_read=timeout_s, connect=timeout_s
        )
        self._concurrency = concurrency
        self._session: aiohttp.ClientSession | None = None

    def __repr__(self) -> str:  # the headers hold the key
        return f"DirectTransport({str(self._chat_url)!r}, key=***)"

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(
                    limit=self._concurrency, keepalive_timeout=KEEPALIVE_S
                ),
                headers=self._headers,
                timeout=self._timeout,
                cookie_jar=aiohttp.DummyCookieJar(),
                trust_env=False,
            )
        return self._session

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def complete(self, params: dict[str, Any]) -> CallResult:
        return parse_completion(await self._post(params))

    async def stream(self, params: dict[str, Any]) -> CallResult:
        body = {**params, "stream": True, "stream_options": {"include_usage": True}}
        reply = StreamAssembler()
        try:
            async with self._open().post(self._chat_url, data=_dumps(body)) as response:
                if not 200 <= response.status < 300:
                    raise await _status_failure(response)
                done = False
                async for data in _sse_data(response):  # read to the end: the connection is reused
                    done = done or data.startswith("[DONE]")
                    if done:
                        continue
                    try:
                        chunk = json.loads(data)
                    except ValueError:
                        raise BadReply(
                            "malformed reply (a stream event that is not JSON)"
                        ) from None
                    if isinstance(chunk, dict) and chunk.get("error"):
                        detail = error_message(chunk, "An error occurred during streaming")
                        raise AttemptFailed("other", detail=f"error in the reply: {detail}")
                    reply.add(chunk)
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            raise _transport_failure(exc) from None
        return reply.result()

    async def models(self) -> list[str]:
        try:
            async with self._open().get(self._models_url) as response:
                raw = await response.read()
                if not 200 <= response.status < 300:
                    raise _failure(response, raw)
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            raise _transport_failure(exc) from None
        try:
            return [str(m["id"]) for m in json.loads(raw)["data"]]
        except (ValueError, KeyError, TypeError):
            raise BadReply("malformed reply (not a model list)") from None

    async def _post(self, params: dict[str, Any]) -> bytes:
        try:
            async with self._open().post(self._chat_url, data=_dumps(params)) as response:
                raw = await response.read()
                if not 200 <= response.status < 300:
                    raise _failure(response, raw)
                return raw
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            raise _transport_failure(exc) from None


def _dumps(body: dict[str, Any]) -> bytes:
    """The SDK's encoding: compact JSON, UTF-8 (not ASCII escapes)."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def _failure(response: aiohttp.ClientResponse, raw: bytes) -> AttemptFailed:
    return AttemptFailed(
        "status",
        status=response.status,
        retry_after=retry_after(response.headers),
        detail=error_message(raw, f"Error code: {response.status}"),
    )


async def _status_failure(response: aiohttp.ClientResponse) -> AttemptFailed:
    try:
        raw = await response.read()
    except (TimeoutError, aiohttp.ClientError, OSError):
        raw = b""
    return _failure(response, raw)


def _transport_failure(exc: BaseException) -> AttemptFailed:
    if refused(exc):
        return AttemptFailed("refused")
    if isinstance(exc, TimeoutError):  # aiohttp's ServerTimeoutError is one too
        return AttemptFailed("timeout")
    return AttemptFailed("connection")  # refused, reset, truncated body, bad URL


async def _sse_data(response: aiohttp.ClientResponse) -> AsyncIterator[str]:
    """The ``data`` of each server-sent event (multi-line data joined by newlines)."""
    pending = b""
    data: list[str] = []
    async for chunk in response.content.iter_any():
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            line = line.rstrip(b"\r")
            if not line:
                if data:
                    yield "\n".join(data)
                    data = []
            elif line.startswith(b"data:"):
                data.append(line[5:].removeprefix(b" ").decode("utf-8", "replace"))
    # An event the stream ended in the middle of is dropped (as the SSE rules say); what is
    # missing then shows as a stream without a finish_reason.
