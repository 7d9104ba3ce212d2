"""The async client every layer above uses to talk to a model.

One place decides for every transport: exponential backoff with jitter that honours
``Retry-After``, a per-endpoint concurrency limit and pacing, the response cache, usage, and a
final error that says what happened after N tries. No message produced here ever contains the
key.

Two transports carry the calls, and both report failures as
:class:`~judgeaudit.llm.failure.AttemptFailed`: the ``openai`` SDK (:mod:`.sdk_path`) for real
providers, and a direct aiohttp path (:mod:`.direct`) for loopback and private addresses (the
embedded provider, a local vLLM or Ollama), where the SDK's own HTTP stack would be the
bottleneck. ``fast_path`` (the endpoint's setting) forces either one.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import platform
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import yarl

import judgeaudit
from judgeaudit.credentials import scrub_content
from judgeaudit.errors import JudgeauditError
from judgeaudit.llm.cache import ResponseCache
from judgeaudit.llm.direct import DirectTransport, uses_direct
from judgeaudit.llm.failure import RATE_LIMITED, AttemptFailed
from judgeaudit.llm.limits import Pacer, RateLimit
from judgeaudit.llm.reply import CallResult

#: Why a call failed for good (the runner stops a run on auth/not_found/request/unreachable).
ErrorKind = Literal["auth", "request", "not_found", "unreachable", "exhausted"]


class LLMError(JudgeauditError, RuntimeError):
    """A call that failed for good; ``kind`` is auth | request | not_found | unreachable |
    exhausted (unreachable: every attempt was refused at connect)."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class Transport(Protocol):
    """What a transport does for the client; every failure is an ``AttemptFailed``."""

    name: str

    async def complete(self, params: dict[str, Any]) -> CallResult: ...

    async def stream(self, params: dict[str, Any]) -> CallResult: ...

    async def models(self) -> list[str]: ...

    async def aclose(self) -> None: ...


def user_agent(path: str) -> str:
    """Names judgeaudit (and the path) so a gateway's logs say who is calling."""
    return f"judgeaudit/{judgeaudit.__version__} ({path}; Python {platform.python_version()})"


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 5
    base_s: float = 0.2
    max_s: float = 8.0
    retry_after_cap_s: float = 60.0  # a provider asking for longer is treated as exhausted later

    def backoff(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.retry_after_cap_s)
        ceiling = min(self.max_s, self.base_s * 2.0 ** (attempt - 1))
        return ceiling * (0.5 + random.random() / 2)


class LLMClient:
    """One endpoint (base URL + key). Share an instance to share its concurrency limit."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        name: str = "",
        concurrency: int = 16,
        timeout_s: float = 60.0,
        retry: RetryPolicy | None = None,
        cache_path: Path | None = None,
        rate_limit: RateLimit | None = None,
        fast_path: bool | None = None,
        key_fix: str = "check the API key",
    ) -> None:
        self.base_url = base_url.rstrip("/")
        #: what to do when the provider rejects the key: where it came from (a variable's name,
        #: a keyring entry), never the key (``profiles.secrets`` words it)
        self.key_fix = key_fix
        self.name = name or self.base_url
        self._key = api_key
        self._check_url()
        self.limit = concurrency
        self.in_flight = 0
        self.retry = retry or RetryPolicy()
        self._semaphore = asyncio.Semaphore(concurrency)
        self.pacer = Pacer(rate_limit or RateLimit())
        self.transport: Transport
        if uses_direct(self.base_url, fast_path):
            self.transport = DirectTransport(
                self.base_url, api_key, timeout_s, concurrency, user_agent("direct")
            )
        else:  # imported here: a run on local endpoints never loads the SDK
            from judgeaudit.llm.sdk_path import SdkTransport

            self.transport = SdkTransport(self.base_url, api_key, timeout_s, user_agent("sdk"))
        self._cache = ResponseCache(cache_path) if cache_path else None

    def _check_url(self) -> None:
        """A base URL that cannot be parsed fails here, as one line, on either transport
        (rather than as a connection error on every attempt)."""
        try:
            url = yarl.URL(self.base_url)
            problem = "" if url.scheme in ("http", "https") and url.host else "no http(s) host"
        except ValueError as exc:
            problem = str(exc)
        if problem:
            raise LLMError(
                "request",
                self.scrub(
                    f"{self.name}: base URL {self.base_url!r} is not a URL ({problem}); fix base_url"
                ),
            )

    def __repr__(self) -> str:
        return (
            f"LLMClient(name={self.name!r}, base_url={self.base_url!r}, "
            f"path={self.path!r}, key=***)"
        )

    @property
    def path(self) -> str:
        """``direct`` (aiohttp, local endpoints) or ``sdk`` (the openai SDK)."""
        return self.transport.name

    async def aclose(self) -> None:
        await self.transport.aclose()
        if self._cache:
            self._cache.close()

    def scrub(self, text: str) -> str:
        """Remove the key (and any key-shaped word: a provider's error may quote the key it was
        sent, or another) from a message before it leaves."""
        if self._key and len(self._key) >= 4:
            text = text.replace(self._key, "***")
        return scrub_content(text)

    async def list_models(self) -> list[str]:
        try:
            return await self.transport.models()
        except AttemptFailed as failure:
            raise self._final(failure, 1, [failure.describe()]) from None

    async def chat(
        self,
        model: str,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: Any = None,
        temperature: float | None = None,
        seed: int | None = None,
        json_mode: bool = False,
        stream: bool = False,
        max_tokens: int | None = None,
    ) -> CallResult:
        params: dict[str, Any] = {"model": model, "messages": messages}
        if tools:
            params["tools"] = tools
            if tool_choice is not None:
                params["tool_choice"] = tool_choice
        if temperature is not None:
            params["temperature"] = temperature
        if seed is not None:
            params["seed"] = seed
        if json_mode:
            params["response_format"] = {"type": "json_object"}
        if max_tokens is not None:
            params["max_tokens"] = max_tokens
        if self._cache is None:  # no request hash to compute: it costs as much as a parse
            return await self._with_retries(params, stream)
        key = self._cache_key(params)
        if (hit := self._cache.get(key)) is not None:
            return CallResult(**{**hit, "cached": True, "latency_ms": 0.0})
        result = await self._with_retries(params, stream)
        self._cache.put(key, result.to_json())
        return result

    def _cache_key(self, params: dict[str, Any]) -> str:
        blob = json.dumps([self.base_url, params], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()

    async def _with_retries(self, params: dict[str, Any], stream: bool) -> CallResult:
        errors: list[str] = []
        pacer = self.pacer  # a token estimate only matters to a tpm bucket
        cost = pacer.cost(params["messages"], params.get("max_tokens")) if pacer.tokens else 0
        transport = self.transport
        for attempt in range(1, self.retry.max_attempts + 1):
            let_go = await pacer.acquire(cost)
            started = time.perf_counter()
            try:
                async with self._semaphore:
                    self.in_flight += 1
                    try:
                        call = transport.stream(params) if stream else transport.complete(params)
                        result = await call
                    finally:
                        self.in_flight -= 1
            except AttemptFailed as failure:
                if failure.status == RATE_LIMITED:
                    pacer.rate_limited(let_go)
                    pacer.refund(cost)
                errors.append(failure.describe())
                if not failure.retryable or attempt == self.retry.max_attempts:
                    raise self._final(failure, attempt, errors) from None
                await asyncio.sleep(self.retry.backoff(attempt, failure.retry_after))
                continue
            result.latency_ms = (time.perf_counter() - started) * 1000
            used = result.prompt_tokens + result.completion_tokens
            pacer.settle(let_go, cost, used or None, result.completion_tokens or None)
            result.attempts = attempt
            result.errors = errors
            return result
        raise AssertionError("unreachable")

    def _final(self, failure: AttemptFailed, attempts: int, errors: list[str]) -> LLMError:
        where = f"{self.name} ({self.base_url})"
        if failure.status in (401, 403):
            return LLMError(
                "auth",
                f"{where} rejected the API key (HTTP {failure.status}); {self.key_fix}",
            )
        if failure.status == 404:
            return LLMError("not_found", f"{where} answered 404: wrong base URL or model name?")
        if failure.status == 400:
            detail = self.scrub(failure.detail)[:300]
            return LLMError("request", f"{where} rejected the request (HTTP 400): {detail}")
        history = self.scrub(", ".join(errors))
        tries = f"{attempts} attempt" + ("s" if attempts != 1 else "")
        if failure.what == "refused" and all(e == failure.describe() for e in errors):
            return LLMError(
                "unreachable",
                f"{where}: connection refused ({tries}): nothing listens there; "
                "check the endpoint's base_url and that its server is running",
            )
        return LLMError("exhausted", f"{where}: gave up after {tries} ({history})")
