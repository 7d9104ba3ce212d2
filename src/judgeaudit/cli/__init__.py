"""The command-line entry point: parse, call the layers below, print. Nothing else lives here."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from judgeaudit import __version__
from judgeaudit.cli import audit_cmds, bridge_cmds, key_cmds, profile_cmds, sim_cmds
from judgeaudit.errors import JudgeauditError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="judgeaudit",
        description="Audit LLM judges GAUGE-style; switch Claude Code / Codex / SDK profiles.",
    )
    parser.add_argument("--version", action="version", version=f"judgeaudit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sim_cmds.register(sub)
    audit_cmds.register(sub)
    profile_cmds.register(sub)
    key_cmds.register(sub)
    bridge_cmds.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        args = parser.parse_args(["tui"])
    try:
        result: int = args.func(args)
        return result
    except JudgeauditError as exc:
        print(f"judgeaudit: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("judgeaudit: interrupted", file=sys.stderr)
        return 130
