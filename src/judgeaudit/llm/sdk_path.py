"""The transport for real providers: the ``openai`` SDK, with its retries off.

The SDK runs on its aiohttp transport, and a completion goes through its public ``post`` with
the raw HTTP response, read by :mod:`judgeaudit.llm.reply`: that skips the SDK's request
transform and response models (most of its CPU per call) while keeping its URL, headers, auth,
proxies, TLS, timeouts and error classes. Its errors are translated here into
:class:`~judgeaudit.llm.failure.AttemptFailed`, the only thing the retry loop looks at.
"""

from __future__ import annotations

from typing import Any

import httpx2
import openai

from judgeaudit.llm.failure import AttemptFailed, BadReply, error_message, refused, retry_after
from judgeaudit.llm.reply import CallResult, StreamAssembler, parse_completion


class SdkTransport:
    """One ``AsyncOpenAI`` client for one endpoint."""

    name = "sdk"

    def __init__(self, base_url: str, api_key: str, timeout_s: float, user_agent: str) -> None:
        self._sdk = openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key or "unused",
            max_retries=0,
            timeout=timeout_s,
            http_client=openai.DefaultAioHttpClient(timeout=timeout_s),
            default_headers={"User-Agent": user_agent},
        )

    async def aclose(self) -> None:
        await self._sdk.close()

    async def complete(self, params: dict[str, Any]) -> CallResult:
        try:
            response = await self._sdk.post(
                "/chat/completions", body=params, cast_to=httpx2.Response
            )
        except openai.APIError as exc:
            raise translate(exc) from None
        return parse_completion(response.content)

    async def stream(self, params: dict[str, Any]) -> CallResult:
        reply = StreamAssembler()
        try:
            stream = await self._sdk.chat.completions.create(
                **params, stream=True, stream_options={"include_usage": True}
            )
            async for chunk in stream:
                reply.add(chunk.to_dict())
        except openai.APIError as exc:
            raise translate(exc) from None
        except ValueError:  # an event whose data is not JSON
            raise BadReply("malformed reply (a stream event that is not JSON)") from None
        return reply.result()

    async def models(self) -> list[str]:
        try:
            page = await self._sdk.models.list()
        except openai.APIError as exc:
            raise translate(exc) from None
        return [m.id for m in page.data]


def translate(exc: openai.APIError) -> AttemptFailed:
    """The SDK's error classes in the client's own terms (the same ones the direct path uses)."""
    if isinstance(exc, openai.APIStatusError):
        return AttemptFailed(
            "status",
            status=exc.status_code,
            retry_after=retry_after(exc.response.headers),
            detail=error_message(exc.body, str(exc.message)),
        )
    if refused(exc):
        return AttemptFailed("refused")
    if isinstance(exc, openai.APITimeoutError):
        return AttemptFailed("timeout")
    if isinstance(exc, openai.APIConnectionError):  # resets and truncated bodies too
        return AttemptFailed("connection")
    if isinstance(exc, openai.APIResponseValidationError):
        return BadReply("malformed reply (not a completion)")
    # A plain APIError: an error event inside a stream. Not retried, as before.
    return AttemptFailed(
        "other", detail=f"error in the reply: {error_message(exc.body, exc.message)}"
    )
