"""``judgeaudit sim serve``."""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING

from judgeaudit.cli import command_help
from judgeaudit.cli.common import UserError
from judgeaudit.sim.modelspec import API_NAMES, ModelSpecError, SimConfig
from judgeaudit.sim.server import serve_forever

if TYPE_CHECKING:
    from judgeaudit.cli.common import Sub


def register(sub: Sub) -> None:
    sim = sub.add_parser("sim", help=command_help("sim"))
    sim_sub = sim.add_subparsers(dest="sim_command", metavar="SUBCOMMAND", required=True)
    serve = sim_sub.add_parser("serve", help="serve the simulated OpenAI-compatible API")
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: loopback)"
    )
    serve.add_argument("--port", type=int, default=0, help="0 picks a free port")
    serve.add_argument("--config", type=Path, help="sim config TOML (seed, faults, presets)")
    serve.add_argument("--seed", type=int, help="override the config's seed")
    serve.add_argument(
        "--require-key-env",
        metavar="VAR",
        help="answer 401 unless requests carry the key held in this environment variable",
    )
    serve.add_argument(
        "--read-timeout",
        type=float,
        default=30.0,
        metavar="S",
        help="close connections idle or still sending their request after S seconds (30)",
    )
    serve.add_argument(
        "--apis",
        default=",".join(API_NAMES),
        help="comma-separated APIs to answer (chat,responses,messages); the others get 404, "
        "e.g. --apis chat plays a chat-only gateway",
    )
    serve.add_argument(
        "--request-log",
        type=Path,
        metavar="FILE",
        help="append one JSON line per request (path, model, a SHA-256 fingerprint of the key)",
    )
    serve.add_argument(
        "--stop-on-stdin-eof",
        action="store_true",
        help="exit when standard input closes (used when a runner starts it)",
    )
    serve.set_defaults(func=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    try:
        config = SimConfig.load(args.config)
    except ModelSpecError as exc:
        raise UserError(str(exc)) from None
    if not 0 < args.read_timeout < float("inf"):
        raise UserError("--read-timeout: give a number of seconds above 0, e.g. --read-timeout 30")
    if args.seed is not None:
        config.seed = args.seed
    apis = {a.strip() for a in args.apis.split(",") if a.strip()}
    unknown = sorted(apis - set(API_NAMES))
    if unknown or not apis:
        raise UserError(
            f"--apis: {', '.join(unknown) or 'nothing given'}: use a comma-separated list of "
            f"{', '.join(API_NAMES)}"
        )
    config.apis = frozenset(apis)
    if args.request_log is not None:
        try:
            args.request_log.open("a", encoding="utf-8").close()
        except OSError as exc:
            raise UserError(f"--request-log {args.request_log}: {exc.strerror}") from None
    config.request_log = args.request_log
    if args.require_key_env:
        key = os.environ.get(args.require_key_env)
        if not key:
            raise UserError(
                f"--require-key-env: environment variable {args.require_key_env} is empty"
            )
        config.auth_key = key

    def announce(base_url: str) -> None:
        print(base_url, flush=True)

    try:
        asyncio.run(
            serve_forever(
                config, args.host, args.port, announce, args.stop_on_stdin_eof, args.read_timeout
            )
        )
    except OSError as exc:
        raise UserError(f"cannot listen on {args.host}:{args.port}: {exc.strerror}") from None
    return 0
