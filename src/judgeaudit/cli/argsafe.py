"""argparse for the commands that handle keys (``profile``, ``key``, ``env``, ``exec``,
``bridge``): argv is where users paste keys by mistake (``judgeaudit key set NAME sk-...``), so
extra arguments are refused without being echoed, and parse errors are one line (anything
that looks like a key is masked in every stderr line by :mod:`judgeaudit.cli.scrubbed`). The command never runs, so nothing is stored or written."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from judgeaudit.cli.common import UserError

GENERIC_HINT = "one may be a key"


class QuietParser(argparse.ArgumentParser):
    """An ArgumentParser that never prints an argument it did not expect."""

    extras_hint: str = GENERIC_HINT
    nothing_done: str = "nothing was changed"

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            command = self.prog.removeprefix("judgeaudit ")  # main() prefixes "judgeaudit: "
            message = (
                f"{command}: {len(extras)} unexpected argument(s), not shown ({self.extras_hint});"
                f" see `{self.prog} --help`; {self.nothing_done}"
            )
            parsed.func = _Refusal(message)
        return parsed, []

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message}; see `{self.prog} --help`", file=sys.stderr)  # scrubbed
        raise SystemExit(2)


class TailParser(QuietParser):
    """``exec``'s parser: argparse drops a ``--`` right after NAME from the command it collects
    (``REMAINDER``), so ``exec NAME -- -x`` and ``exec NAME -x`` (a typo of an option) read
    alike; this one records which it was, as ``after_dashes``."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        raw = list(sys.argv[1:] if args is None else args)
        tail = list(getattr(parsed, "command", None) or [])
        at = len(raw) - len(tail) - 1
        parsed.after_dashes = bool(tail) and at >= 0 and raw[at] == "--" and raw[at + 1 :] == tail
        return parsed, extras


class _Refusal:
    """The command an over-long command line runs instead of its own: one line, exit 2."""

    def __init__(self, message: str) -> None:
        self.message = message

    def __call__(self, args: Any) -> int:
        raise UserError(self.message)


def quiet(
    parser: argparse.ArgumentParser,
    extras_hint: str = GENERIC_HINT,
    nothing_done: str = "nothing was changed",
) -> QuietParser:
    """Make ``parser`` (one of ours, fresh from ``add_parser``) a :class:`QuietParser`; call it
    before adding subcommands, which then inherit the class."""
    parser.__class__ = QuietParser
    assert isinstance(parser, QuietParser)
    parser.extras_hint, parser.nothing_done = extras_hint, nothing_done
    return parser
