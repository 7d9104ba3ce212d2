"""Running the bridge: in the foreground until SIGINT/SIGTERM (``judgeaudit bridge``), or in a
background thread for the life of one command (``judgeaudit exec`` on a ``bridge = "chat"``
profile)."""

from __future__ import annotations

import asyncio
import secrets as pysecrets
import signal
import threading
from collections.abc import Callable
from dataclasses import replace
from types import TracebackType

from aiohttp import web

from judgeaudit.bridge.callers import Callers, Reading
from judgeaudit.bridge.server import BridgeConfig, start
from judgeaudit.bridge.upstream import UpstreamConfig
from judgeaudit.profiles.model import Profile


def config_for(
    profile: Profile,
    key: str,
    *,
    max_concurrency: int = 32,
    connect_timeout_s: float = 10.0,
    read_timeout_s: float = 300.0,
    queue_timeout_s: float = 60.0,
    idle_timeout_s: float = 30.0,
    log: Callable[[str], None] | None = None,
    token: Callable[[], Reading] | None = None,
    notice: Callable[[str], None] | None = None,
) -> BridgeConfig:
    """A bridge in front of the profile's upstream. Callers present the profile's local token
    (``token`` reads it, with the real key, which then replaces ``key``: ``bridge.live``; what a
    tool switched with ``profile use`` sends) or, as a tool switched
    by an older judgeaudit does, the profile's key, which ``notice`` is told about once (as it
    is of the first 404 at the upstream's path: :func:`judgeaudit.bridge.upstream.wrong_path`)."""
    upstream = UpstreamConfig(
        base_url=profile.base_url,
        key=key,
        max_concurrency=max_concurrency,
        connect_timeout_s=connect_timeout_s,
        read_timeout_s=read_timeout_s,
        queue_timeout_s=queue_timeout_s,
        profile=profile.name,
        notice=notice,
    )
    return BridgeConfig(
        upstream=upstream,
        profile=profile.name,
        default_model=profile.model,
        callers=Callers(
            keys=(key,),
            token=token,
            legacy_note=(
                f"a caller sent profile {profile.name}'s real key, not its local token: a tool "
                f"switched by an older judgeaudit; `judgeaudit profile use {profile.name}` again "
                "makes it send the token (the real key then never leaves for this port)"
            ),
            notice=notice,
        ),
        log=log,
        idle_timeout_s=idle_timeout_s,
    )


async def serve_forever(
    config: BridgeConfig, host: str, port: int, announce: Callable[[str], None]
) -> None:
    """Serve until SIGINT or SIGTERM; in-flight requests get a few seconds to finish."""
    runner, url = await start(config, host, port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    handled = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(signum, stop.set)
            handled.append(signum)
        except NotImplementedError:  # Windows: Ctrl-C arrives as KeyboardInterrupt instead
            pass
    announce(url)
    try:
        await stop.wait()
    finally:
        for signum in handled:
            loop.remove_signal_handler(signum)
        await runner.cleanup()


class BackgroundBridge:
    """A bridge on a free loopback port in its own thread and event loop.

    ``token`` is a fresh random key the bridge accepts instead of the real one, so the tool it
    serves never sees the profile's key.
    """

    def __init__(self, config: BridgeConfig, host: str = "127.0.0.1") -> None:
        self.token = "ja-bridge-" + pysecrets.token_urlsafe(24)
        self.config = replace(config, callers=Callers(keys=(self.token,)))
        self.host = host
        self.url = ""
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="judgeaudit-bridge", daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._runner, self.url = self._loop.run_until_complete(start(self.config, self.host, 0))
        except BaseException as exc:  # reported to the starting thread
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        self._loop.run_forever()
        if self._runner is not None:
            self._loop.run_until_complete(self._runner.cleanup())
        self._loop.close()

    def start(self) -> BackgroundBridge:
        """Serve; raise what stopped it from starting (e.g. OSError from the socket)."""
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            raise self._error
        return self

    def __enter__(self) -> BackgroundBridge:
        return self.start()

    def stop(self) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
