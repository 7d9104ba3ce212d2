"""Clients for the spec's endpoints; starts the embedded provider when a spec asks for it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from judgeaudit.audit.spec import Endpoint, ModelRef, RunSpec
from judgeaudit.errors import JudgeauditError
from judgeaudit.llm import LLMClient
from judgeaudit.llm.client import RetryPolicy
from judgeaudit.llm.limits import RateLimit
from judgeaudit.profiles.model import ProfileError
from judgeaudit.profiles.secrets import SecretError, env_key_fix, rejected_key_fix, resolve_key
from judgeaudit.profiles.store import ProfileStore

EMBEDDED_KEY = "judgeaudit-embedded"  # the embedded provider accepts any key


class EndpointError(JudgeauditError, RuntimeError):
    """An endpoint that cannot be used (missing key, server that would not start)."""


#: Looks up a key by environment variable name; profiles plug the keyring in here.
KeyLookup = Callable[[str], str | None]


def env_key(name: str) -> str | None:
    return os.environ.get(name) or None


@dataclass
class EmbeddedProvider:
    """``judgeaudit sim serve`` in a child process on a free loopback port."""

    seed: int
    process: subprocess.Popen[str] | None = None
    base_url: str = ""

    def start(self) -> str:
        cmd = [
            sys.executable,
            "-m",
            "judgeaudit",
            "sim",
            "serve",
            "--port",
            "0",
            "--seed",
            str(self.seed),
            "--stop-on-stdin-eof",
        ]
        self.process = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()
        if not line.startswith("http://"):
            self.stop()
            raise EndpointError(
                "the embedded provider did not start; run `judgeaudit sim serve` to see why"
            )
        self.base_url = line
        return line

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            if self.process.stdin:
                self.process.stdin.close()
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


@dataclass
class Endpoints:
    clients: dict[str, LLMClient] = field(default_factory=dict)
    embedded: EmbeddedProvider | None = None
    urls: dict[str, str] = field(default_factory=dict)
    #: USD per million (input, output) tokens, from the spec or else the endpoint's profile
    prices: dict[str, tuple[float, float]] = field(default_factory=dict)

    @classmethod
    def open(
        cls,
        spec: RunSpec,
        concurrency: int,
        keys: KeyLookup = env_key,
        retry: RetryPolicy | None = None,
    ) -> Endpoints:
        out = cls()
        used = {ref.endpoint for ref in spec_models(spec)}
        try:
            for name in sorted(used):
                endpoint = spec.endpoints[name]
                limit = RateLimit(endpoint.rpm, endpoint.tpm)
                fix = "check the API key"
                if endpoint.embedded:
                    if out.embedded is None:
                        out.embedded = EmbeddedProvider(spec.seed)
                        out.embedded.start()
                    url, key = out.embedded.base_url, EMBEDDED_KEY
                elif endpoint.profile:
                    url, key, profile_prices, declared, fix = profile_endpoint(
                        endpoint.profile, name
                    )
                    if profile_prices is not None:
                        out.prices[name] = profile_prices
                    limit = RateLimit(endpoint.rpm or declared.rpm, endpoint.tpm or declared.tpm)
                else:
                    url, key = endpoint.base_url, env_endpoint_key(name, endpoint, keys)
                    fix = env_key_fix(str(endpoint.key_env))
                if endpoint.price_in is not None and endpoint.price_out is not None:
                    out.prices[name] = (endpoint.price_in, endpoint.price_out)
                out.urls[name] = url
                out.clients[name] = LLMClient(
                    url,
                    key,
                    name=name,
                    concurrency=min(endpoint.concurrency, concurrency),
                    timeout_s=endpoint.timeout_s,
                    retry=retry or RetryPolicy(max_attempts=6),
                    rate_limit=limit,
                    fast_path=endpoint.fast_path,
                    key_fix=fix,
                )
        except BaseException:
            if out.embedded:
                out.embedded.stop()
            raise
        return out

    async def close(self) -> None:
        for client in self.clients.values():
            await client.aclose()
        if self.embedded:
            self.embedded.stop()

    def limits(self) -> dict[str, list[int]]:
        return {name: [c.in_flight, c.limit] for name, c in self.clients.items()}

    def rate_limits(self) -> dict[str, dict[str, Any]]:
        """Per endpoint: the pacing in force (mode, req/s, declared rpm/tpm, 429s seen)."""
        return {name: c.pacer.snapshot() for name, c in self.clients.items()}


def env_endpoint_key(name: str, endpoint: Endpoint, keys: KeyLookup) -> str:
    """The key of a ``base_url`` + ``key_env`` endpoint, or one line saying what to export."""
    if not endpoint.key_env:
        raise EndpointError(
            f"endpoints.{name}: no key_env; set key_env to the "
            "environment variable that holds the API key"
        )
    found = keys(endpoint.key_env)
    if not found:
        raise EndpointError(
            f"endpoints.{name}: environment variable {endpoint.key_env} is empty;"
            f" export {endpoint.key_env}=... (the key is never read from the spec)"
        )
    return found


def check_keys(spec: RunSpec, keys: KeyLookup = env_key) -> None:
    """Resolve every used endpoint's key without starting or calling anything, so a run that
    cannot start is refused before its output directory is created."""
    for name in sorted({ref.endpoint for ref in spec_models(spec)}):
        endpoint = spec.endpoints[name]
        if endpoint.embedded:
            continue
        if endpoint.profile:
            profile_endpoint(endpoint.profile, name)
        else:
            env_endpoint_key(name, endpoint, keys)


def profile_endpoint(
    profile_name: str, endpoint: str
) -> tuple[str, str, tuple[float, float] | None, RateLimit, str]:
    """Base URL, key (keyring, or the profile's key_env), prices, rate limits of a profile, and
    what to do when its key is rejected."""
    try:
        profile = ProfileStore.default().get(profile_name)
        prices = None
        if profile.price_in is not None and profile.price_out is not None:
            prices = (profile.price_in, profile.price_out)
        limit = RateLimit(profile.rpm, profile.tpm)
        key = resolve_key(profile)
        return profile.base_url, key, prices, limit, rejected_key_fix(profile)
    except (ProfileError, SecretError) as exc:
        raise EndpointError(f"endpoints.{endpoint}: {exc}") from None


def spec_models(spec: RunSpec) -> list[ModelRef]:
    refs = [*spec.agents]
    if spec.judge_source != "recorded":  # recorded verdicts need no endpoint
        refs.append(spec.judge)
    if spec.user_simulator:
        refs.append(spec.user_simulator)
    if spec.success_check:
        refs.append(spec.success_check)
    return refs
