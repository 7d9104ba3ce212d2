"""``judgeaudit bridge PROFILE``: Responses / Anthropic Messages in, Chat Completions out."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from judgeaudit.cli import command_help
from judgeaudit.cli.argsafe import quiet
from judgeaudit.cli.common import UserError

if TYPE_CHECKING:
    from judgeaudit.bridge.callers import Reading
    from judgeaudit.cli.common import Sub
    from judgeaudit.profiles.model import Profile


def register(sub: Sub) -> None:
    bridge = quiet(
        sub.add_parser(
            "bridge",
            help=command_help("bridge"),
            description="A loopback bridge: Codex (Responses API) and Claude Code (Anthropic "
            "Messages) talk to it; it sends Chat Completions to the profile's base_url with the "
            "profile's keyring key. The first line printed is its base URL.",
        )
    )
    bridge.add_argument("profile", help="the profile whose upstream and key to use")
    bridge.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: loopback)"
    )
    bridge.add_argument(
        "--port",
        type=int,
        help='0 picks a free port (default: for a bridge = "chat" profile its bridge_port, '
        "8787 unless set; else 0)",
    )
    bridge.add_argument(
        "--max-concurrency", type=int, default=32, help="upstream requests in flight (32)"
    )
    bridge.add_argument(
        "--connect-timeout", type=float, default=10.0, help="seconds to connect upstream (10)"
    )
    bridge.add_argument(
        "--read-timeout",
        type=float,
        default=300.0,
        help="seconds of upstream silence before giving up, also between stream chunks (300)",
    )
    bridge.add_argument(
        "--queue-timeout",
        type=float,
        default=60.0,
        help="seconds a request waits for a free upstream slot before a 503 (60)",
    )
    bridge.add_argument(
        "--idle-timeout",
        type=float,
        default=30.0,
        help="seconds a connection may sit idle, or a request body may stall, before it is "
        "closed (30)",
    )
    bridge.add_argument("--quiet", action="store_true", help="no per-request lines on stderr")
    bridge.set_defaults(func=cmd_bridge)


def _log(line: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {line}", file=sys.stderr, flush=True)


def _token_reader(profile: Profile) -> Callable[[], Reading] | None:
    """Reads the profile's local token and key once a second (``bridge.live``); the token is
    made here, at the start, for a bridged profile (so a bridge started before `profile use`
    accepts it), never by a read. None without a usable keyring, where only the profile's key
    opens the bridge."""
    from judgeaudit.bridge import live
    from judgeaudit.profiles import bridgeopt, secrets

    if not secrets.backend_usable()[0]:
        return None
    try:
        token = secrets.bridge_token(profile.name, create=bridgeopt.uses_bridge(profile))
    except secrets.SecretError:
        token = None  # the keyring refused: the bridge asks it again on the next request
    return live.reader(profile, token_at_start=token)


def cmd_bridge(args: argparse.Namespace) -> int:
    from judgeaudit.bridge.run import config_for, serve_forever
    from judgeaudit.hosts import is_loopback_host
    from judgeaudit.profiles import bridgeopt, secrets
    from judgeaudit.profiles.store import ProfileStore

    for flag, value in (
        ("--max-concurrency", args.max_concurrency),
        ("--connect-timeout", args.connect_timeout),
        ("--read-timeout", args.read_timeout),
        ("--queue-timeout", args.queue_timeout),
        ("--idle-timeout", args.idle_timeout),
    ):
        if value <= 0:
            raise UserError(f"{flag}: must be greater than 0")
    profile = ProfileStore.default().get(args.profile)
    key = secrets.resolve_key(profile)
    port = args.port
    if port is None:
        port = bridgeopt.bridge_port(profile) if bridgeopt.uses_bridge(profile) else 0
    if not 0 <= port <= 65535:
        raise UserError(f"--port {port}: use 0-65535 (0 picks a free port)")
    config = config_for(
        profile,
        key,
        max_concurrency=args.max_concurrency,
        connect_timeout_s=args.connect_timeout,
        read_timeout_s=args.read_timeout,
        queue_timeout_s=args.queue_timeout,
        idle_timeout_s=args.idle_timeout,
        log=None if args.quiet else _log,
        token=_token_reader(profile),
        notice=_log,
    )

    def announce(url: str) -> None:
        print(url, flush=True)
        if not is_loopback_host(args.host):  # said once it really listens there
            print(
                f"warning: listening on {args.host}, not loopback: other machines can reach "
                "this bridge (they still need the profile's key)",
                file=sys.stderr,
            )
        print(
            f"bridge for profile {profile.name} -> {profile.base_url}/chat/completions "
            f"(Codex: base_url = {url}/v1, Claude Code: ANTHROPIC_BASE_URL = {url}); "
            "Ctrl-C stops it",
            file=sys.stderr,
            flush=True,
        )

    try:
        asyncio.run(serve_forever(config, args.host, port, announce))
    except OSError as exc:
        raise UserError(
            f"cannot listen on {args.host}:{port}: {_in_use_by(exc, args.host, port)}"
        ) from None
    return 0


def _in_use_by(exc: OSError, host: str, port: int) -> str:
    """Why the port could not be taken; when a judgeaudit bridge holds it, which one (asked
    on ``host``; a wildcard address, taken on every address, on loopback)."""
    import errno

    from judgeaudit.profiles import bridgeopt

    if exc.errno != errno.EADDRINUSE:
        return str(exc.strerror)
    info = bridgeopt.answer_at(
        bridgeopt.url_at("127.0.0.1" if host in ("", "0.0.0.0", "::") else host, port)
    )
    if not info:
        return str(exc.strerror)
    held = info.get("profile")
    return (
        f"{exc.strerror}: `judgeaudit bridge {held}` is running there (a switched tool may be "
        f"using it); stop it first, or pick another port (--port, or {bridgeopt.port_fix()})"
    )
