"""The async client every layer above uses to talk to a model.

Built on the ``openai`` SDK with the SDK's own retries off, so that one place decides: exponential
backoff with jitter that honours ``Retry-After``, a per-endpoint concurrency limit, and a final
error that says what happened after N tries. No message produced here ever contains the key.

Speed: the SDK runs on its aiohttp transport, and a completion goes through the SDK's public
``post`` with the raw HTTP response, read by :mod:`judgeaudit.llm.reply`. That skips the SDK's
request transform and response models (most of its CPU per call) while keeping its URL, headers,
auth, timeouts and error classes, so a judge on a local server is not client-bound.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import openai

from judgeaudit.errors import JudgeauditError
from judgeaudit.llm.cache import ResponseCache
from judgeaudit.llm.limits import Pacer, RateLimit
from judgeaudit.llm.reply import BadReply, CallResult, parse_completion

RETRYABLE = (
    openai.RateLimitError,
    openai.InternalServerError,
    openai.APIConnectionError,  # includes timeouts and truncated bodies
    openai.APIResponseValidationError,
)


class LLMError(JudgeauditError, RuntimeError):
    """A call that failed for good; ``kind`` is auth | request | not_found | unreachable |
    exhausted."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


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
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.name = name or self.base_url
        self.limit = concurrency
        self.in_flight = 0
        self.retry = retry or RetryPolicy()
        self._key = api_key
        self._semaphore = asyncio.Semaphore(concurrency)
        self.pacer = Pacer(rate_limit or RateLimit())
        self._sdk = openai.AsyncOpenAI(
            base_url=self.base_url,
            api_key=api_key or "unused",
            max_retries=0,
            timeout=timeout_s,
            http_client=openai.DefaultAioHttpClient(timeout=timeout_s),
        )
        self._cache = ResponseCache(cache_path) if cache_path else None

    def __repr__(self) -> str:
        return f"LLMClient(name={self.name!r}, base_url={self.base_url!r}, key=***)"

    async def aclose(self) -> None:
        await self._sdk.close()
        if self._cache:
            self._cache.close()

    def scrub(self, text: str) -> str:
        """Remove the key (and any bearer header echo) from a message before it leaves."""
        if self._key and len(self._key) >= 4:
            text = text.replace(self._key, "***")
        return text

    async def list_models(self) -> list[str]:
        try:
            page = await self._sdk.models.list()
        except openai.APIError as exc:
            raise self._final(exc, 1) from None
        return [m.id for m in page.data]

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
        cost = self.pacer.cost(params["messages"], params.get("max_tokens"))
        for attempt in range(1, self.retry.max_attempts + 1):
            let_go = await self.pacer.acquire(cost)
            started = time.perf_counter()
            try:
                async with self._semaphore:
                    self.in_flight += 1
                    try:
                        result = await (self._stream(params) if stream else self._once(params))
                    finally:
                        self.in_flight -= 1
            except (*RETRYABLE, BadReply) as exc:
                if isinstance(exc, openai.RateLimitError):
                    self.pacer.rate_limited(let_go)
                    self.pacer.refund(cost)
                errors.append(self._describe(exc))
                if attempt == self.retry.max_attempts:
                    raise self._final(exc, attempt, errors) from None
                await asyncio.sleep(self.retry.backoff(attempt, _retry_after(exc)))
                continue
            except openai.APIError as exc:
                raise self._final(exc, attempt, errors) from None
            result.latency_ms = (time.perf_counter() - started) * 1000
            used = result.prompt_tokens + result.completion_tokens
            self.pacer.settle(let_go, cost, used or None, result.completion_tokens or None)
            result.attempts = attempt
            result.errors = errors
            return result
        raise AssertionError("unreachable")

    async def _once(self, params: dict[str, Any]) -> CallResult:
        response = await self._sdk.post("/chat/completions", body=params, cast_to=httpx2.Response)
        return parse_completion(response.content)

    async def _stream(self, params: dict[str, Any]) -> CallResult:
        stream = await self._sdk.chat.completions.create(
            **params, stream=True, stream_options={"include_usage": True}
        )
        text: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        finish, prompt_tokens, completion_tokens, saw_choice = "", 0, 0, False
        async for chunk in stream:
            if chunk.usage:
                prompt_tokens = chunk.usage.prompt_tokens
                completion_tokens = chunk.usage.completion_tokens
            for choice in chunk.choices:
                saw_choice = True
                delta = choice.delta
                if delta.content:
                    text.append(delta.content)
                for tc in delta.tool_calls or []:
                    slot = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
                    slot["id"] = tc.id or slot["id"]
                    if tc.function:
                        slot["name"] = tc.function.name or slot["name"]
                        slot["arguments"] += tc.function.arguments or ""
                if choice.finish_reason:
                    finish = choice.finish_reason
        if not saw_choice:
            raise BadReply("empty reply (no choices streamed)")
        if not finish:
            raise BadReply("the stream ended before a finish_reason (truncated)")
        return CallResult(
            text="".join(text),
            tool_calls=[calls[i] for i in sorted(calls)],
            finish_reason=finish,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )

    def _describe(self, exc: BaseException) -> str:
        if isinstance(exc, openai.APIStatusError):
            return f"HTTP {exc.status_code}"
        if _refused(exc):  # the aiohttp transport reports a refused connect as a timeout
            return REFUSED
        if isinstance(exc, openai.APITimeoutError):
            return "timeout"
        if isinstance(exc, openai.APIConnectionError):
            return "connection error (reset or truncated body)"
        if isinstance(exc, BadReply):
            return str(exc)
        return self.scrub(type(exc).__name__)

    def _final(
        self, exc: BaseException, attempts: int, errors: list[str] | None = None
    ) -> LLMError:
        where = f"{self.name} ({self.base_url})"
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            return LLMError(
                "auth",
                f"{where} rejected the API key (HTTP {exc.status_code}); "
                "check the key stored for this profile",
            )
        if isinstance(exc, openai.NotFoundError):
            return LLMError("not_found", f"{where} answered 404: wrong base URL or model name?")
        if isinstance(exc, openai.BadRequestError):
            detail = self.scrub(str(exc.message))[:300]
            return LLMError("request", f"{where} rejected the request (HTTP 400): {detail}")
        history = ", ".join(errors or [self._describe(exc)])
        if errors and all(e == REFUSED for e in errors):
            return LLMError(
                "unreachable",
                f"{where}: connection refused ({attempts} attempts): nothing listens there; "
                "check the endpoint's base_url and that its server is running",
            )
        return LLMError("exhausted", f"{where}: gave up after {attempts} attempts ({history})")


REFUSED = "connection refused"


def _refused(exc: BaseException) -> bool:
    """Whether a transport error was, underneath, a refused TCP connect."""
    seen: BaseException | None = exc
    for _ in range(8):  # the SDK's error, the transport's, aiohttp's, the OS error
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError) or isinstance(
            getattr(seen, "os_error", None), ConnectionRefusedError
        ):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    if response is None:
        return None
    headers = response.headers
    try:
        if "retry-after-ms" in headers:
            return float(headers["retry-after-ms"]) / 1000
        if "retry-after" in headers:
            return float(headers["retry-after"])
    except ValueError:
        return None
    return None
