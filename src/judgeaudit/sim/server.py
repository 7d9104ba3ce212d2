"""The embedded provider's HTTP server (aiohttp) on loopback.

Hostile input gets the API's own 400, never a 500: the body is read with a deadline, must be
UTF-8 JSON (no recursion bombs, no 5,000-digit numbers) and an object, and each wire parser
checks the types it reads. Idle or half-open connections are closed after ``read_timeout_s``.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import math
import os
import sys
from typing import Any

from aiohttp import web

from judgeaudit.redact import is_credential_header
from judgeaudit.sim.engine import simulate
from judgeaudit.sim.faults import Decision, FaultPlanner, RateLimits
from judgeaudit.sim.modelspec import SHARED_RATES, ModelSpec, ModelSpecError, SimConfig
from judgeaudit.sim.types import digest, to_json
from judgeaudit.sim.wire import WireError, usage_of
from judgeaudit.sim.wire import anthropic as anthropic_wire
from judgeaudit.sim.wire import chat as chat_wire
from judgeaudit.sim.wire import responses as responses_wire

JSON = "application/json"
BANNER = "judgeaudit embedded provider (simulated models, not a real LLM)"
#: Seconds a connection may sit idle or take to send its request before it is closed.
READ_TIMEOUT_S = 30.0
SHUTDOWN_S = 2.0  # longest wait for in-flight handlers when the server stops


#: Headers the request log fingerprints by name beside the key (a gateway key a client sent in a
#: custom header); the two usual ones are ``key_sha256`` / ``x_api_key_sha256`` already.
PLAIN_CREDENTIALS = frozenset({"authorization", "x-api-key"})


class SimServer:
    """Owns the config and fault state; builds the aiohttp application."""

    def __init__(self, config: SimConfig, read_timeout_s: float = READ_TIMEOUT_S) -> None:
        self.config = config
        self.faults = FaultPlanner(config.seed)
        self.limits = RateLimits(config.faults)
        self.read_timeout_s = read_timeout_s
        self.requests = 0
        self._specs: dict[str, ModelSpec] = {}
        #: Per model id, the fixed decision when its faults leave nothing to chance, else None.
        self._fixed: dict[str, Decision | None] = {}

    def app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/", self.root)
        app.router.add_get("/v1/models", self.models)
        apis = self.config.apis
        for name, path, wire in (
            ("chat", "/v1/chat/completions", chat_wire),
            ("responses", "/v1/responses", responses_wire),
            ("messages", "/v1/messages", anthropic_wire),
        ):
            app.router.add_post(path, self.handler(wire) if name in apis else self.missing)
        count = self.count_tokens if "messages" in apis else self.missing
        app.router.add_post("/v1/messages/count_tokens", count)
        return app

    async def missing(self, request: web.Request) -> web.Response:
        """What a chat-only gateway answers for an API it lacks (``--apis``)."""
        self._record(request, None, 404)
        message = f"Invalid URL (POST {request.path})"
        body = chat_wire.error(404, message, "invalid_request_error")
        return web.json_response(body, status=404)

    def _record(
        self, request: web.Request, sim_request: Any, status: int, stream: bool | None = None
    ) -> None:
        """One request-log line: the API, model and a fingerprint of the key, never the key."""
        if self.config.request_log is None:
            return
        header = request.headers.get("Authorization", "")
        given = header[7:] if header.startswith("Bearer ") else request.headers.get("x-api-key", "")
        presented = [header[7:] if header.startswith("Bearer ") else header]
        presented.append(request.headers.get("x-api-key", ""))
        line = {
            "path": request.path,
            "status": status,
            "key_sha256": hashlib.sha256(given.encode()).hexdigest()[:16] if given else None,
            # every credential the request carried (a client may send two), fingerprinted
            "keys_sha256": sorted(
                {hashlib.sha256(k.encode()).hexdigest()[:16] for k in presented if k}
            ),
        }
        other_headers = {  # a key in a custom header (ANTHROPIC_CUSTOM_HEADERS), fingerprinted
            name.lower(): hashlib.sha256(value.encode()).hexdigest()[:16]
            for name, value in request.headers.items()
            if is_credential_header(name, value) and name.lower() not in PLAIN_CREDENTIALS
        }
        if other_headers:
            line["headers_sha256"] = other_headers
        # which headers came at all (names only): a client's own custom headers show there
        line["header_names"] = sorted({name.lower() for name in request.headers})
        if header and request.headers.get("x-api-key"):  # a client that sends both (doctor)
            other = request.headers["x-api-key"]
            line["x_api_key_sha256"] = hashlib.sha256(other.encode()).hexdigest()[:16]
        if sim_request is not None:
            line["model"] = sim_request.model
            line["roles"] = [m.role for m in sim_request.messages]
            line["tools"] = len(sim_request.tools)
        if stream is not None:
            line["stream"] = stream
        with self.config.request_log.open("a", encoding="utf-8") as log:
            log.write(json.dumps(line, ensure_ascii=False) + "\n")

    async def root(self, request: web.Request) -> web.Response:
        return web.json_response({"name": BANNER, "simulated": True})

    async def models(self, request: web.Request) -> web.Response:
        if (denied := self._auth(request, chat_wire)) is not None:
            self._record(request, None, 401)
            return denied
        self._record(request, None, 200)
        data = [
            {"id": name, "object": "model", "created": 0, "owned_by": "judgeaudit-sim"}
            for name in self.config.model_ids()
        ]
        # `data` is the OpenAI list; `models` the catalog Codex decodes when its provider has a
        # key command (`auth = {command}`): empty, so Codex keeps its bundled model metadata,
        # caches the answer, and neither refetches three times nor logs an ERROR per start.
        return web.json_response({"object": "list", "data": data, "models": []})

    async def count_tokens(self, request: web.Request) -> web.Response:
        if (denied := self._auth(request, anthropic_wire)) is not None:
            return denied
        try:
            sim_request = anthropic_wire.parse(await self._body(request))
        except WireError as exc:
            return _invalid(anthropic_wire, exc)
        tokens = sum(len(m.content) // 4 + 1 for m in sim_request.messages)
        return web.json_response({"input_tokens": tokens})

    async def _body(self, request: web.Request) -> dict[str, Any]:
        """The request body as a JSON object; WireError (a 400) for anything else."""
        try:
            if request.content.is_eof():  # all of it has arrived: nothing to wait for
                raw = await request.read()
            else:
                async with asyncio.timeout(self.read_timeout_s):
                    raw = await request.read()
        except TimeoutError:
            if request.transport is not None:
                request.transport.close()  # a half-sent body: nobody is there to answer
            raise WireError(
                f"the request body did not arrive within {self.read_timeout_s:g}s"
            ) from None
        try:
            body = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise WireError("the request body is not UTF-8 text") from None
        except RecursionError:
            raise WireError("the request body nests too deeply") from None
        except ValueError as exc:  # invalid JSON, or a number too long to convert
            raise WireError(f"the request body is not valid JSON ({exc})") from None
        if not isinstance(body, dict):
            raise WireError("the request body must be a JSON object")
        return body

    def _spec(self, model_id: str) -> ModelSpec:
        """Resolved once per model id: the config does not change while serving."""
        spec = self._specs.get(model_id)
        if spec is None:
            spec = self._specs[model_id] = self.config.resolve(model_id)
        return spec

    def _decide(self, spec: ModelSpec, model: str, canonical: str) -> Decision:
        """The attempt's latency and fault. A model with no jitter and no fault rate needs no
        draw (hashing the request and seeding a generator was a fifth of the CPU per call);
        its spec is fixed while serving, so skipping the draw changes no other decision."""
        if spec.model_id not in self._fixed:
            faults = spec.faults
            by_chance = faults["jitter_ms"] > 0 or any(faults[rate] > 0 for rate in SHARED_RATES)
            fixed = None if by_chance else Decision(faults["latency_ms"] / 1000, None)
            self._fixed[spec.model_id] = fixed
        fixed = self._fixed[spec.model_id]
        return fixed or self.faults.decide(digest(model, canonical), spec.faults)

    def _auth(self, request: web.Request, wire: Any) -> web.Response | None:
        expected = self.config.auth_key
        if not expected:
            return None
        header = request.headers.get("Authorization", "")
        given = header[7:] if header.startswith("Bearer ") else request.headers.get("x-api-key", "")
        if hmac.compare_digest(given.encode(), expected.encode()):
            return None
        body = wire.error(401, "Incorrect API key provided.", "invalid_request_error")
        return web.json_response(body, status=401)

    def handler(self, wire: Any) -> Any:
        async def handle(request: web.Request) -> web.StreamResponse:
            self.requests += 1
            if (denied := self._auth(request, wire)) is not None:
                self._record(request, None, 401)
                return denied
            try:
                body = await self._body(request)
                sim_request = wire.parse(body)
                spec = self._spec(sim_request.model)
            except (WireError, ModelSpecError) as exc:
                self._record(request, None, 400)
                return _invalid(wire, exc)
            self._record(request, sim_request, 200, stream=bool(body.get("stream")))
            if (wait := self.limits.take(spec.model_id, spec.faults)) is not None:
                return _too_many(wire, wait, "Rate limit reached: too many requests per second.")
            decision = self._decide(spec, sim_request.model, sim_request.canonical)
            if decision.delay_s > 0:
                await asyncio.sleep(decision.delay_s)
            fault = decision.fault
            if fault == "429":
                return _too_many(wire, spec.faults["retry_after_s"], "Rate limit reached.")
            if fault in ("500", "503"):
                status = int(fault)
                err = wire.error(status, f"Simulated server error {status}.", "server_error")
                return web.json_response(err, status=status)
            reply = simulate(self.config, spec, sim_request)
            usage = usage_of(sim_request, reply)
            if fault == "hang":
                await asyncio.sleep(spec.faults["hang_s"])
            if fault == "empty":
                return web.json_response(wire.empty(sim_request, usage))
            if body.get("stream"):
                return await self._stream(
                    request, wire.stream(sim_request, reply, usage), truncate=fault == "truncate"
                )
            payload = to_json(wire.render(sim_request, reply, usage))
            if fault == "truncate":
                return await self._truncated(request, payload.encode())
            return web.Response(text=payload, content_type=JSON)

        return handle

    async def _stream(
        self, request: web.Request, events: list[bytes], truncate: bool
    ) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        cut = max(1, len(events) // 2) if truncate else len(events)
        for event in events[:cut]:
            await response.write(event)
        if truncate:
            request.transport.close() if request.transport else None
            return response
        await response.write_eof()
        return response

    async def _truncated(self, request: web.Request, payload: bytes) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": JSON})
        response.content_length = len(payload)
        await response.prepare(request)
        await response.write(payload[: len(payload) // 2])
        if request.transport is not None:
            request.transport.close()
        return response


def _invalid(wire: Any, exc: Exception) -> web.Response:
    body = wire.error(400, f"invalid request: {exc}", "invalid_request_error")
    return web.json_response(body, status=400)


def _too_many(wire: Any, wait_s: float, message: str) -> web.Response:
    headers = {
        "Retry-After": str(max(1, math.ceil(wait_s))),
        "retry-after-ms": str(max(1, math.ceil(wait_s * 1000))),
    }
    body = wire.error(429, f"{message} (simulated)", "rate_limit_error")
    return web.json_response(body, status=429, headers=headers)


async def start(
    config: SimConfig,
    host: str = "127.0.0.1",
    port: int = 0,
    read_timeout_s: float = READ_TIMEOUT_S,
) -> tuple[web.AppRunner, str]:
    """Start the server; return the runner (to clean up) and the base URL ending in /v1.

    ``keepalive_timeout`` closes a connection that sent no complete request for that long
    (aiohttp starts that clock when the connection opens); the body read has its own deadline.
    """
    server = SimServer(config, read_timeout_s)
    # A caller that hangs up cancels its handler (a simulated latency or hang stops with it),
    # and shutting down waits at most SHUTDOWN_S for what is still in flight: a cancelled run's
    # embedded provider ends at once instead of sleeping out its simulated delays.
    runner = web.AppRunner(
        server.app(),
        access_log=None,
        keepalive_timeout=read_timeout_s,
        handler_cancellation=True,
        shutdown_timeout=SHUTDOWN_S,
    )
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=1024)
    await site.start()
    sockets = runner.addresses
    bound_port = sockets[0][1]
    return runner, f"http://{host}:{bound_port}/v1"


async def serve_forever(
    config: SimConfig,
    host: str,
    port: int,
    announce: Any,
    stop_on_stdin_eof: bool = False,
    read_timeout_s: float = READ_TIMEOUT_S,
) -> None:
    """Serve until interrupted; with ``stop_on_stdin_eof``, also when the parent's pipe closes
    (so a runner killed with SIGKILL never leaves an orphaned server behind)."""
    runner, base_url = await start(config, host, port, read_timeout_s)
    announce(base_url)
    stop = asyncio.Event()
    if stop_on_stdin_eof:
        loop = asyncio.get_running_loop()

        def on_stdin() -> None:
            if not os.read(sys.stdin.fileno(), 4096):
                loop.remove_reader(sys.stdin.fileno())
                stop.set()

        loop.add_reader(sys.stdin.fileno(), on_stdin)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()
