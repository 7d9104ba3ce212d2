"""``profile test``: one small request to the profile's endpoint, with a clear verdict."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import openai

from judgeaudit.llm import LLMClient, LLMError
from judgeaudit.llm.client import RetryPolicy
from judgeaudit.profiles.model import Profile


@dataclass
class ProbeResult:
    ok: bool
    lines: list[str]


async def _probe(profile: Profile, key: str, timeout_s: float) -> ProbeResult:
    lines: list[str] = []
    client = LLMClient(
        profile.base_url,
        key,
        name=profile.name,
        timeout_s=timeout_s,
        retry=RetryPolicy(max_attempts=1),
    )
    ok = True
    try:
        started = time.perf_counter()
        try:
            models = await client.list_models()
            lines.append(
                f"models: {len(models)} listed in {(time.perf_counter() - started) * 1000:.0f} ms"
            )
        except LLMError as exc:
            if exc.kind == "auth":
                return ProbeResult(False, [str(exc)])
            lines.append(f"models: not listed ({exc})")
        if profile.model:
            try:
                result = await client.chat(
                    profile.model, [{"role": "user", "content": "ping"}], max_tokens=8
                )
                lines.append(
                    f"chat completion with {profile.model}: ok in {result.latency_ms:.0f} ms"
                )
            except LLMError as exc:
                ok = False
                lines.append(f"chat completion with {profile.model}: {exc}")
        if profile.app == "codex":
            sdk = openai.AsyncOpenAI(
                base_url=profile.base_url, api_key=key, max_retries=0, timeout=timeout_s
            )
            try:
                started = time.perf_counter()
                await sdk.responses.create(model=profile.model or "ping", input="ping")
                lines.append(
                    f"Responses API: ok in {(time.perf_counter() - started) * 1000:.0f} ms"
                )
            except openai.NotFoundError:
                ok = False
                lines.append(
                    "Responses API: 404. This provider has no Responses API, so Codex "
                    'cannot use it directly (Codex only speaks wire_api = "responses")'
                )
            except openai.APIError as exc:
                ok = False
                lines.append(f"Responses API: failed ({type(exc).__name__})")
            finally:
                await sdk.close()
    finally:
        await client.aclose()
    return ProbeResult(ok, [client.scrub(line) for line in lines])


def probe(profile: Profile, key: str, timeout_s: float = 15.0) -> ProbeResult:
    return asyncio.run(_probe(profile, key, timeout_s))
