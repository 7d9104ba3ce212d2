"""``profile test --all``: a speed test of every profile's endpoint, as CC Switch has one.

Each profile sends ``calls`` small streamed requests of the kind its tool sends (Messages for
Claude, Responses for Codex, the bridge's chat completions for ``bridge = chat``, a streamed
chat completion for SDK profiles), one after another; profiles run side by side. The figure is
the time to the first token (TTFT): its median and 95th percentile (linear interpolation
between order statistics, numpy's default), over the calls that streamed a token. Results are
kept in ``latency.json`` in the config directory for the Profiles screen's column.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgeaudit.fsutil import atomic_write_text
from judgeaudit.profiles import secrets
from judgeaudit.profiles.model import ProfileError

if TYPE_CHECKING:  # the HTTP side (aiohttp, the probe) loads with a speed test, not with the
    from judgeaudit.profiles.model import Profile  # Profiles screen that only reads the column
    from judgeaudit.profiles.store import ProfileStore

FILE = "latency.json"


@dataclass
class Timing:
    profile: str
    app: str
    endpoint: str
    ttft_ms: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # one per failed call (never a key)
    at: float = 0.0  # when it was measured (epoch seconds)
    skipped: str | None = None  # not timed: why (no key stored)

    @property
    def p50(self) -> float | None:
        return percentile(self.ttft_ms, 50)

    @property
    def p95(self) -> float | None:
        return percentile(self.ttft_ms, 95)

    def cell(self) -> str:
        """The Profiles screen's column: ``p50/p95 ms``, or why there is none."""
        if self.skipped:
            return "no key"
        if self.p50 is None or self.p95 is None:
            return "failed" if self.problems else "-"
        failed = f" ({len(self.problems)} failed)" if self.problems else ""
        return f"{self.p50:.0f}/{self.p95:.0f} ms{failed}"


def percentile(values: list[float], q: float) -> float | None:
    """The ``q``-th percentile with linear interpolation (numpy.percentile's default)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def stream_request(profile: Profile, key: str) -> tuple[str, dict[str, str], dict[str, Any], str]:
    """URL, headers, body and API kind of one streamed request as the profile's tool sends it."""
    from judgeaudit.profiles import bridgeopt
    from judgeaudit.profiles.probe import ANTHROPIC_VERSION, CLAUDE_PROBE_MODEL
    from judgeaudit.profiles.targets.claude import anthropic_base

    auth = {"authorization": f"Bearer {key}", "content-type": "application/json"}
    ping = [{"role": "user", "content": "ping"}]
    if bridgeopt.uses_bridge(profile) or profile.app == "sdk":
        body = {"model": profile.model or "ping", "max_tokens": 8, "stream": True, "messages": ping}
        return profile.base_url.rstrip("/") + "/chat/completions", auth, body, "chat"
    if profile.app == "claude":
        headers = {**auth, "x-api-key": key, "anthropic-version": ANTHROPIC_VERSION}
        model = profile.model or CLAUDE_PROBE_MODEL
        body = {"model": model, "max_tokens": 8, "stream": True, "messages": ping}
        return anthropic_base(profile).rstrip("/") + "/v1/messages", headers, body, "messages"
    body = {"model": profile.model or "ping", "input": "ping", "stream": True}
    return profile.base_url.rstrip("/") + "/responses", auth, body, "responses"


async def _time_one(profile: Profile, key: str, calls: int, timeout_s: float) -> Timing:
    import aiohttp

    from judgeaudit.profiles.probe import _call_stream, _reason, _stream_verdict
    from judgeaudit.redact import redact

    url, headers, body, kind = stream_request(profile, key)
    timing = Timing(profile.name, profile.app, url, at=time.time())
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout_s)) as session:
        for _ in range(calls):
            answer = await _call_stream(session, url, headers, body, kind)
            if answer.status == 200 and answer.events is not None:
                wrong = _stream_verdict(answer, kind)
                if wrong is None and answer.ttft_ms is not None:
                    timing.ttft_ms.append(answer.ttft_ms)
                    continue
                timing.problems.append(wrong or "no token")
            elif answer.status == 200:
                timing.problems.append(_stream_verdict(answer, kind) or "no stream")
            else:
                timing.problems.append(redact(_reason(answer, "call", profile), [key]))
    return timing


def time_all(
    store: ProfileStore, calls: int = 3, timeout_s: float = 15.0, names: list[str] | None = None
) -> list[Timing]:
    """Time every profile (or ``names``); a profile whose key cannot be read gets that reason."""
    jobs: list[tuple[Profile, str]] = []
    out: list[Timing] = []
    for profile in store.list():
        if names is not None and profile.name not in names:
            continue
        try:
            jobs.append((profile, secrets.resolve_key(profile)))
        except (ProfileError, secrets.SecretError) as exc:
            out.append(Timing(profile.name, profile.app, profile.base_url, skipped=str(exc)))

    async def run() -> list[Timing]:
        return list(await asyncio.gather(*(_time_one(p, k, calls, timeout_s) for p, k in jobs)))

    timed = asyncio.run(run()) if jobs else []
    return sorted([*timed, *out], key=lambda t: t.profile)


def save(root: Path, timings: list[Timing]) -> None:
    kept = load(root)
    kept.update({t.profile: t for t in timings})
    data = {name: asdict(t) for name, t in sorted(kept.items())}
    atomic_write_text(root / FILE, json.dumps(data, indent=2) + "\n", mode=0o600)


def load(root: Path) -> dict[str, Timing]:
    """The last speed test of each profile ({} when none ran or the file is unreadable)."""
    try:
        data = json.loads((root / FILE).read_text(encoding="utf-8"))
        return {name: Timing(**entry) for name, entry in data.items()}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}
