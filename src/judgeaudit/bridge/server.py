"""The bridge's HTTP server (aiohttp): routes, caller auth, and one translate-and-forward path
shared by the Responses and Messages front ends."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from aiohttp import web

from judgeaudit.bridge import errors, guard, messages_in, messages_out, responses_in, responses_out
from judgeaudit.bridge.callers import CallerCheck, Callers
from judgeaudit.bridge.chat import ChatOutcome, ChatStreamReader, Delta, parse_completion
from judgeaudit.bridge.errors import BridgeError
from judgeaudit.bridge.upstream import Reply, Upstream, UpstreamConfig
from judgeaudit.profiles.bridgeopt import url_at

WHAT = web.RequestKey("bridge_what", str)  # model and stream flag, for the request log line
#: Claude Code 2.1.332 sends ``HEAD {ANTHROPIC_BASE_URL}/api/hello`` once at start-up to warm the
#: connection (no key; it ignores the answer and any failure). Answered 200 and not logged: it
#: was a ``-> 404`` line on every start that read as an error.
WARM_UP = "/api/hello"
SSE_HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}


def codex_catalog(raw: bytes) -> bytes:
    """An upstream's OpenAI model list with an empty ``models`` catalog added: Codex, when its
    provider has a key command, decodes ``/models`` as ``{"models": [...]}`` and otherwise logs
    an ERROR and refetches on every lookup; empty, it keeps its bundled model metadata."""
    try:
        body = json.loads(raw)
    except ValueError:
        return raw
    if not isinstance(body, dict) or "models" in body:
        return raw
    return json.dumps({**body, "models": []}).encode()


class Stream(Protocol):
    def start(self) -> bytes: ...
    def delta(self, delta: Delta) -> bytes: ...
    def finish(self, outcome: ChatOutcome) -> bytes: ...
    def fail(self, error: BridgeError) -> bytes: ...


@dataclass(frozen=True)
class FrontEnd:
    """One calling API: how its requests become chat, and how replies and errors go back."""

    name: str
    to_chat: Callable[[dict[str, Any], str | None], tuple[dict[str, Any], Any]]
    render: Callable[[ChatOutcome, Any], dict[str, Any]]
    stream: Callable[[Any], Stream]
    error_body: Callable[[BridgeError], dict[str, Any]]


RESPONSES = FrontEnd(
    "responses",
    responses_in.to_chat,
    responses_out.render,
    responses_out.ResponsesStream,
    errors.openai_body,
)
MESSAGES = FrontEnd(
    "messages",
    messages_in.to_chat,
    messages_out.render,
    messages_out.MessagesStream,
    errors.anthropic_body,
)


@dataclass(frozen=True)
class BridgeConfig:
    upstream: UpstreamConfig
    profile: str = ""
    default_model: str | None = None  # used when a request names no model
    callers: Callers = field(
        default_factory=Callers
    )  # who may call (bridge.callers); empty: anyone
    log: Callable[[str], None] | None = None  # one line per request (never a key)
    idle_timeout_s: float = 30.0  # an idle or half-open connection is closed after this


class BridgeServer:
    def __init__(self, config: BridgeConfig) -> None:
        self.config = config
        self.upstream = Upstream(config.upstream)
        self.callers = CallerCheck(config.callers)

    def app(self) -> web.Application:
        middlewares = [self._log_request] if self.config.log is not None else []
        app = web.Application(client_max_size=guard.MAX_BODY, middlewares=middlewares)
        app.router.add_get("/", self.root)  # also answers HEAD (Claude Code's first probe)
        app.router.add_get("/v1/models", self.models)
        app.router.add_get(WARM_UP, self.warm_up)  # and HEAD
        for path in ("/v1/responses", "/responses"):
            app.router.add_post(path, self.handler(RESPONSES))
        app.router.add_post("/v1/messages", self.handler(MESSAGES))
        app.router.add_post("/v1/messages/count_tokens", self.count_tokens)
        app.on_startup.append(self._start)
        app.on_cleanup.append(self._stop)
        return app

    async def _start(self, app: web.Application) -> None:
        await self.upstream.start()
        await self.callers.start()

    async def _stop(self, app: web.Application) -> None:
        await self.upstream.close()

    async def root(self, request: web.Request) -> web.Response:
        return web.json_response(
            {
                "name": "judgeaudit bridge",
                "profile": self.config.profile,
                "upstream": self.upstream.url,
            }
        )

    async def warm_up(self, request: web.Request) -> web.Response:
        return web.Response(status=200)

    async def _denied(self, request: web.Request, front: FrontEnd) -> web.Response | None:
        header = request.headers.get("Authorization", "")
        given = header[7:] if header.startswith("Bearer ") else request.headers.get("x-api-key", "")
        if await self.callers.allows(given):
            if self.callers.key:
                self.upstream.use_key(self.callers.key)
            return None
        error = BridgeError(
            401,
            self.callers.refusal
            or "the bridge did not get its key (the profile's local token, which `judgeaudit key "
            "bridge-token PROFILE` prints for a switched tool, or the token `judgeaudit exec` "
            "gave the tool)",
            "authentication_error" if front is MESSAGES else "invalid_request_error",
            "invalid_api_key",
        )
        return self._error(front, error)

    def _error(self, front: FrontEnd, error: BridgeError) -> web.Response:
        return web.json_response(
            front.error_body(error), status=error.status, headers=error.headers
        )

    async def models(self, request: web.Request) -> web.Response:
        if (denied := await self._denied(request, RESPONSES)) is not None:
            return denied
        try:
            raw = await self.upstream.models()
        except BridgeError as error:
            return self._error(RESPONSES, error)
        return web.Response(body=codex_catalog(raw), content_type="application/json")

    async def count_tokens(self, request: web.Request) -> web.Response:
        if (denied := await self._denied(request, MESSAGES)) is not None:
            return denied
        body = await self._body(request, MESSAGES)
        if isinstance(body, web.Response):
            return body
        try:
            guard.check_messages(body)
        except BridgeError as error:
            return self._error(MESSAGES, error)
        return web.json_response({"input_tokens": messages_in.estimate_tokens(body)})

    async def _body(self, request: web.Request, front: FrontEnd) -> dict[str, Any] | web.Response:
        try:
            return guard.parse_body(await guard.read_body(request, self.config.idle_timeout_s))
        except BridgeError as error:
            response = self._error(front, error)
            if isinstance(error, guard.CutOff):
                response.force_close()  # the rest of the stream cannot be trusted
            return response

    @web.middleware
    async def _log_request(
        self, request: web.Request, handler: Callable[[web.Request], Any]
    ) -> web.StreamResponse:
        """One line per request, whatever the route (never a header, so never a key)."""
        started = time.perf_counter()
        status = 500
        try:
            response: web.StreamResponse = await handler(request)
            status = response.status
            return response
        except web.HTTPException as exc:  # 404/405 from the router
            status = exc.status
            raise
        finally:
            assert self.config.log is not None
            took = (time.perf_counter() - started) * 1000
            what = request.get(WHAT, "")
            if not (request.path == WARM_UP and status == 200):  # a failure there is still said
                line = f"{request.method} {request.path} {what}-> {status} in {took:.0f} ms"
                self.config.log(line)

    def handler(self, front: FrontEnd) -> Callable[[web.Request], Any]:
        async def handle(request: web.Request) -> web.StreamResponse:
            return await self._translate(request, front)

        return handle

    async def _translate(self, request: web.Request, front: FrontEnd) -> web.StreamResponse:
        if (denied := await self._denied(request, front)) is not None:
            return denied
        body = await self._body(request, front)
        if isinstance(body, web.Response):
            return body
        try:
            (guard.check_messages if front is MESSAGES else guard.check_responses)(body)
            chat, context = front.to_chat(body, self.config.default_model)
            wants_stream = bool(chat.get("stream"))
            request[WHAT] = f"{chat['model']}{' stream' if wants_stream else ''} "
            async with self.upstream.open(chat) as reply:
                if reply.streaming:
                    if wants_stream:
                        return await self._relay(request, front, context, reply)
                    outcome = await _collect(reply)
                else:
                    outcome = parse_completion(guard.check_completion(await reply.json()))
        except BridgeError as error:
            return self._error(front, error)
        if wants_stream:  # the upstream ignored stream=true: replay its whole answer as a stream
            return await self._replay(request, front, context, outcome)
        return web.json_response(front.render(outcome, context))

    async def _relay(
        self, request: web.Request, front: FrontEnd, context: Any, reply: Reply
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers=SSE_HEADERS)
        await response.prepare(request)
        writer = front.stream(context)
        reader = ChatStreamReader()
        try:
            await response.write(writer.start())
            try:
                async for batch in reply.batches():
                    events = b"".join(writer.delta(d) for c in batch for d in reader.feed(c))
                    if events:
                        await response.write(events)
                outcome = reader.finish()
                if outcome.finish_reason is None:
                    raise BridgeError(502, "the upstream stream ended before the reply finished")
                last = writer.finish(outcome)
            except BridgeError as error:
                last = writer.fail(error)
            await response.write_eof(last)
        except ConnectionResetError:
            pass  # the caller went away; leaving closes the upstream stream too
        return response

    async def _replay(
        self, request: web.Request, front: FrontEnd, context: Any, outcome: ChatOutcome
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers=SSE_HEADERS)
        await response.prepare(request)
        writer = front.stream(context)
        events = writer.start()
        for kind, text in (("reasoning", outcome.reasoning), ("text", outcome.text)):
            if text:
                events += writer.delta(Delta(kind, text))
        with contextlib.suppress(ConnectionResetError):  # the caller went away
            await response.write_eof(events + writer.finish(outcome))
        return response


async def _collect(reply: Reply) -> ChatOutcome:
    reader = ChatStreamReader()
    async for batch in reply.batches():
        for chunk in batch:
            reader.feed(chunk)
    outcome = reader.finish()
    if outcome.finish_reason is None:
        raise BridgeError(502, "the upstream stream ended before the reply finished")
    return outcome


async def start(
    config: BridgeConfig, host: str = "127.0.0.1", port: int = 0
) -> tuple[web.AppRunner, str]:
    """Start the bridge; return the runner (to clean up) and its base URL (no path)."""
    runner = web.AppRunner(
        BridgeServer(config).app(),
        access_log=None,
        shutdown_timeout=5.0,
        keepalive_timeout=config.idle_timeout_s,  # also closes a connection that never sends
        lingering_time=min(2.0, config.idle_timeout_s),  # unread body drained this long at most
    )
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=1024)
    try:
        await site.start()
    except OSError:
        await runner.cleanup()  # the upstream session was opened at setup
        raise
    return runner, url_at(host, runner.addresses[0][1])
