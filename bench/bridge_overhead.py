"""What the bridge costs: the same streamed completions directly against the embedded provider
and through ``judgeaudit bridge`` in front of ``sim serve --apis chat``, side by side in one run.

Direct: the client streams the Responses API (or Anthropic Messages) from the embedded provider,
which speaks both. Bridged: the same client and requests go to the bridge, which streams Chat
Completions from a chat-only embedded provider with the same latency and translates back. Both
servers and the bridge run in their own processes; rounds alternate direct/bridge so machine
load drifts over both sides alike.

Prints, per API, time to first token (p50, p95) and throughput at the given concurrency, the
bridge/direct ratio of each, and the median of the per-round ratios (each bridge round paired with
the direct round just before it) (aims: TTFT ratio <= 1.10 at 100 ms upstream latency, throughput
ratio >= 0.90 at concurrency 16). Usage: python bench/bridge_overhead.py [--n 240] [--c 16]
[--latency-ms 100] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.bridge_helpers import served

KEY = "sk-bench-bridge-key"
FIRST_TOKEN = {"responses": b"response.output_text.delta", "messages": b"text_delta"}
LAST_EVENT = {"responses": b"response.completed", "messages": b"message_stop"}


@dataclass
class Side:
    ttft_ms: list[float] = field(default_factory=list)
    rates: list[float] = field(default_factory=list)  # requests/s, one per round
    p50s: list[float] = field(default_factory=list)  # TTFT p50, one per round


def body(api: str, model: str, i: int) -> tuple[str, dict[str, object]]:
    prompt = f"bench request {i}: please reply"
    if api == "responses":
        return "/v1/responses", {"model": model, "input": prompt, "stream": True}
    return "/v1/messages", {
        "model": model,
        "max_tokens": 256,
        "stream": True,
        "messages": [{"role": "user", "content": prompt}],
    }


async def one(session: aiohttp.ClientSession, root: str, api: str, model: str, i: int) -> float:
    """Stream one completion; return the time to its first text delta in ms."""
    path, payload = body(api, model, i)
    started = time.perf_counter()
    first = 0.0
    headers = {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"}
    async with session.post(root + path, data=json.dumps(payload), headers=headers) as reply:
        assert reply.status == 200, await reply.text()
        done = False
        async for line in reply.content:
            if not first and FIRST_TOKEN[api] in line:
                first = time.perf_counter()
            if LAST_EVENT[api] in line:
                done = True
        assert first and done, "stream ended early"
    return (first - started) * 1000


async def round_(root: str, api: str, model: str, n: int, c: int, side: Side) -> None:
    slots = asyncio.Semaphore(c)
    connector = aiohttp.TCPConnector(limit=c)
    async with aiohttp.ClientSession(connector=connector) as session:
        await one(session, root, api, model, -1)  # warm-up: connections, first-call costs

        async def guarded(i: int) -> float:
            async with slots:
                return await one(session, root, api, model, i)

        started = time.perf_counter()
        ttfts = await asyncio.gather(*(guarded(i) for i in range(n)))
        side.rates.append(n / (time.perf_counter() - started))
        side.ttft_ms += ttfts
        side.p50s.append(statistics.median(ttfts))


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=240, help="requests per side per round")
    parser.add_argument("--c", type=int, default=16, help="concurrency")
    parser.add_argument("--latency-ms", type=float, default=100.0, help="upstream latency")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    model = f"sim-chat:latency_ms={args.latency_ms:g}"
    with tempfile.TemporaryDirectory() as tmp:
        env = {"JUDGEAUDIT_CONFIG_DIR": tmp, "BENCH_KEY": KEY}
        with (
            served("sim", "serve", "--port", "0") as (direct_url, _),
            served("sim", "serve", "--port", "0", "--apis", "chat") as (chat_url, _),
        ):
            profiles = Path(tmp) / "profiles"
            profiles.mkdir()
            (profiles / "bench.toml").write_text(
                f'name = "bench"\napp = "codex"\nbase_url = "{chat_url}"\nkey_env = "BENCH_KEY"\n'
            )
            with served("bridge", "bench", "--quiet", env=env) as (bridge_url, bridge_proc):
                direct_root = direct_url.removesuffix("/v1")
                results: dict[tuple[str, str], Side] = {}
                bridge_cpu = 0.0
                for api in ("responses", "messages"):
                    for _ in range(args.rounds):
                        for name, root in (("direct", direct_root), ("bridge", bridge_url)):
                            side = results.setdefault((api, name), Side())
                            before = cpu_seconds(bridge_proc.pid)
                            asyncio.run(round_(root, api, model, args.n, args.c, side))
                            bridge_cpu += cpu_seconds(bridge_proc.pid) - before
    print(
        f"bridge overhead: {args.n} streamed requests x {args.rounds} rounds per side, "
        f"concurrency {args.c}, upstream latency {args.latency_ms:g} ms"
    )
    print(f"{'':<22}{'direct':>12}{'bridge':>12}{'ratio':>8}")
    for api in ("responses", "messages"):
        direct, bridge = results[(api, "direct")], results[(api, "bridge")]
        for label, q in (("TTFT p50", 0.5), ("TTFT p95", 0.95)):
            d, b = pct(direct.ttft_ms, q), pct(bridge.ttft_ms, q)
            print(f"{api + ' ' + label:<22}{d:>9.1f} ms{b:>9.1f} ms{b / d:>8.3f}")
        d, b = statistics.median(direct.rates), statistics.median(bridge.rates)
        print(f"{api + ' throughput':<22}{d:>8.1f} r/s{b:>8.1f} r/s{b / d:>8.3f}")
        # Each bridge round ran right after a direct one: their ratios cancel slow drifts in load.
        ttft = statistics.median(b / d for d, b in zip(direct.p50s, bridge.p50s, strict=True))
        rate = statistics.median(b / d for d, b in zip(direct.rates, bridge.rates, strict=True))
        print(f"{api + ' paired rounds':<22}{'':>24}TTFT {ttft:.3f}, throughput {rate:.3f}")
    bridged = 2 * args.rounds * (args.n + 1)
    print(f"bridge process CPU: {bridge_cpu / bridged * 1000:.2f} ms per request")


if __name__ == "__main__":
    main()
