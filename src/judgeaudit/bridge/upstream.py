"""The one upstream: Chat Completions at the profile's base URL, with the profile's key.

Bounded: at most ``max_concurrency`` requests in flight (a caller waits up to
``queue_timeout_s`` for a slot, then gets a 503 with ``Retry-After``), a connect timeout, and a
read timeout that also bounds the silence between two chunks of a stream.
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from judgeaudit import __version__, safeio
from judgeaudit.bridge import guard
from judgeaudit.bridge.errors import BridgeError, from_upstream, scrub
from judgeaudit.bridge.sse import SSEDecoder


@dataclass(frozen=True)
class UpstreamConfig:
    base_url: str  # the OpenAI-compatible base, e.g. https://taotoken.net/api/v1
    key: str
    max_concurrency: int = 32
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 300.0
    queue_timeout_s: float = 60.0
    profile: str = "PROFILE"  # named in the hint of a 404 (:func:`wrong_path`)
    #: told that hint once, where the user reads it (the bridge's log; after exec's command):
    #: Claude Code shows a 404 as "an issue with the selected model", not its message
    notice: Callable[[str], None] | None = None


MB = guard.MB


class Reply:
    """An upstream 2xx answer: a whole JSON body, or a stream of chunk objects."""

    def __init__(self, response: aiohttp.ClientResponse, upstream: Upstream) -> None:
        self._response = response
        self._upstream = upstream
        self.streaming = response.content_type == "text/event-stream"

    async def json(self) -> dict[str, Any]:
        raw = await self._upstream._capped(self._response, guard.MAX_UPSTREAM_BODY)
        try:
            body = safeio.parse_json(raw)
        except safeio.TooDeep:
            raise BridgeError(502, "upstream sent JSON nested too deeply") from None
        except ValueError:  # not UTF-8, not JSON, an integer too long to parse
            raise BridgeError(502, "upstream sent a body that is not JSON") from None
        if not isinstance(body, dict):
            raise BridgeError(502, "upstream sent JSON that is not an object")
        return body

    async def batches(self) -> AsyncIterator[list[dict[str, Any]]]:
        """The chunk objects of each read, until ``[DONE]`` or the end of the body (one batch
        per read, so the caller writes once per upstream packet, not once per chunk); an error
        object the upstream sends mid-stream is raised."""
        decoder = SSEDecoder()
        content = self._response.content
        total = 0
        while True:
            raw = await self._upstream._read(content.readany())
            total += len(raw)
            if total > guard.MAX_UPSTREAM_STREAM:
                raise BridgeError(
                    502,
                    f"the upstream stream is over the {guard.MAX_UPSTREAM_STREAM // MB} MB limit",
                )
            batch: list[dict[str, Any]] = []
            done = not raw
            for payload in decoder.feed(raw) if raw else decoder.close():
                if payload.strip() == "[DONE]":
                    done = True
                    break
                try:
                    chunk = safeio.parse_json(payload)
                except safeio.TooDeep:
                    raise BridgeError(502, "upstream sent JSON nested too deeply") from None
                except ValueError:
                    continue  # keep-alive noise some gateways send
                if isinstance(chunk, dict) and chunk.get("error"):
                    raise from_upstream(502, payload.encode(), {}, self._upstream.secrets)
                if isinstance(chunk, dict):
                    batch.append(guard.check_chunk(chunk))
            if batch:
                yield batch
            if done:
                return


def wrong_path(url: str, profile: str) -> str:
    """What a 404 or 405 of the upstream adds to its message (and tells ``notice`` once): the
    URL the bridge called and the fix. A base URL without its ``/v1`` (a Claude profile's usual
    one) is not wrong on its face (DeepSeek serves chat at its root), so it is said at use."""
    return (
        f"the bridge called POST {url}; if the gateway serves chat completions elsewhere, "
        "give the profile the OpenAI-compatible base they hang off, usually ending in /v1: "
        f"`judgeaudit profile test {profile}` tries it with and without /v1"
    )


def env_proxy(url: str) -> str | None:
    """The proxy the environment names for ``url`` (``HTTPS_PROXY``, ``NO_PROXY``...), if any."""
    host = urlsplit(url).hostname or ""
    if not host or urllib.request.proxy_bypass(host):
        return None
    return urllib.request.getproxies().get(urlsplit(url).scheme)


class Upstream:
    def __init__(self, config: UpstreamConfig) -> None:
        self.config = config
        self.url = config.base_url.rstrip("/") + "/chat/completions"
        self.key = config.key  # `use_key` rotates it (the standalone bridge re-reads it)
        self.secrets: tuple[str, ...] = (config.key,)  # every key used: scrubbed from errors
        self.proxy = env_proxy(self.url)
        self._slots = asyncio.Semaphore(config.max_concurrency)
        self._told = False  # the wrong-path hint, given to ``config.notice`` once
        self._session: aiohttp.ClientSession | None = None

    async def start(self) -> None:
        connector = aiohttp.TCPConnector(limit=self.config.max_concurrency, ttl_dns_cache=300)
        timeout = aiohttp.ClientTimeout(
            total=None, connect=self.config.connect_timeout_s, sock_read=self.config.read_timeout_s
        )
        # trust_env would look up ~/.netrc and the proxy variables in a thread on every request
        # (and a netrc entry for the host would clash with our Authorization header): the proxy
        # is looked up once instead.
        self._session = aiohttp.ClientSession(
            connector=connector, timeout=timeout, auto_decompress=True, trust_env=False
        )

    def use_key(self, key: str) -> None:
        """Send ``key`` from the next request on (``key set`` rotated the profile's key)."""
        if key != self.key:
            self.key, self.secrets = key, (key, *self.secrets)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    async def _read(self, awaitable: Any) -> bytes:
        try:
            data: bytes = await awaitable
        except TimeoutError:
            raise BridgeError(
                504, f"the upstream sent nothing for {self.config.read_timeout_s:g} s"
            ) from None
        except aiohttp.ClientError as exc:
            raise BridgeError(
                502,
                f"the upstream connection broke before the reply finished ({type(exc).__name__})",
            ) from None
        return data

    async def _capped(
        self, response: aiohttp.ClientResponse, limit: int, *, cut: bool = False
    ) -> bytes:
        """At most ``limit`` bytes of the (decompressed) body: a 300 MB reply or a gzip bomb is
        never held whole. Past the limit: a 502, or with ``cut`` the first ``limit`` bytes."""
        chunks: list[bytes] = []
        size = 0
        while chunk := await self._read(response.content.readany()):
            size += len(chunk)
            if size > limit:
                if cut:
                    chunks.append(chunk[: limit - size + len(chunk)])
                    break
                raise BridgeError(
                    502, f"the upstream reply is over the {limit // MB} MB limit; not relayed"
                )
            chunks.append(chunk)
        return b"".join(chunks)

    async def models(self) -> bytes:
        """``GET /models`` passed through (some tools list models before they start)."""
        assert self._session is not None, "start() first"
        url = self.url.removesuffix("/chat/completions") + "/models"
        try:
            async with self._session.get(
                url, headers={"Authorization": f"Bearer {self.key}"}, proxy=self.proxy
            ) as response:
                raw = await self._capped(response, guard.MAX_UPSTREAM_BODY)
                if response.status >= 300:
                    raise from_upstream(response.status, raw, dict(response.headers), self.secrets)
                return raw
        except (TimeoutError, aiohttp.ClientError) as exc:
            raise BridgeError(
                502, f"cannot reach the upstream {url}: {type(exc).__name__}"
            ) from None

    @asynccontextmanager
    async def open(self, body: dict[str, Any]) -> AsyncIterator[Reply]:
        """POST one chat completion; yield the 2xx reply, raise BridgeError for anything else."""
        assert self._session is not None, "start() first"
        try:
            await asyncio.wait_for(self._slots.acquire(), self.config.queue_timeout_s)
        except TimeoutError:
            raise BridgeError(
                503,
                f"the bridge is busy ({self.config.max_concurrency} requests in flight)",
                headers={"Retry-After": "1"},
            ) from None
        try:
            headers = {
                "Authorization": f"Bearer {self.key}",
                "Content-Type": "application/json",
                "Accept": "text/event-stream" if body.get("stream") else "application/json",
                "User-Agent": f"judgeaudit-bridge/{__version__}",
            }
            try:
                response = await self._session.post(
                    self.url, data=json.dumps(body), headers=headers, proxy=self.proxy
                )
            except aiohttp.ConnectionTimeoutError:
                raise BridgeError(
                    504,
                    f"cannot connect to the upstream within {self.config.connect_timeout_s:g} s",
                ) from None
            except TimeoutError:
                raise BridgeError(
                    504, f"the upstream sent nothing for {self.config.read_timeout_s:g} s"
                ) from None
            except aiohttp.ClientError as exc:
                reason = scrub(str(exc), self.secrets)
                raise BridgeError(502, f"cannot reach the upstream {self.url}: {reason}") from None
            async with response:
                if response.status >= 300:
                    raw = await self._capped(response, guard.MAX_UPSTREAM_ERROR, cut=True)
                    error = from_upstream(
                        response.status, raw, dict(response.headers), self.secrets
                    )
                    if response.status in (404, 405) and error.code != "model_not_found":
                        hint = scrub(wrong_path(self.url, self.config.profile), self.secrets)
                        error.message += f" ({hint})"
                        if self.config.notice is not None and not self._told:
                            self._told = True
                            self.config.notice(f"upstream HTTP {response.status}: {hint}")
                    raise error
                yield Reply(response, self)
        finally:
            self._slots.release()
