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
            parsed.func = _Refusal(self.refusal(extras))
        return parsed, []

    def refusal(self, extras: list[str]) -> str:
        """The one line for arguments it did not expect: how many, never what they were."""
        command = self.prog.removeprefix("judgeaudit ")  # main() prefixes "judgeaudit: "
        return (
            f"{command}: {len(extras)} unexpected argument(s), not shown ({self.extras_hint});"
            f" see `{self.prog} --help`; {self.nothing_done}"
        )

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

    def refusal(self, extras: list[str]) -> str:
        """An unknown option before NAME is refused as one after it is (exec's parser takes no
        abbreviations, ``allow_abbrev=False``), with the same hint."""
        if not extras[0].startswith("-"):
            return super().refusal(extras)
        return not_an_option(extras[0], long_options(self))


def long_options(parser: argparse.ArgumentParser) -> list[str]:
    """A parser's own ``--`` options (not ``--help``): the one list exec's refusals before and
    after NAME name (its tail gets it as ``args.tail_options``)."""
    return [
        o for a in parser._actions for o in a.option_strings if o.startswith("--") and o != "--help"
    ]


def not_an_option(word: str, options: Sequence[str]) -> str:
    """exec's refusal of a word that starts with ``-`` and is none of its ``options``, before or
    after NAME (``--scrub-other-provider`` after NAME ran as the command: exit 127, nothing
    scrubbed)."""
    import difflib

    from judgeaudit.validate import field_name  # masked if a key, one printable line

    option, equals, _ = word.partition("=")
    # a start of an option first (`--sc`: the scrub, not --as), then a near spelling (reviewer)
    started = [o for o in options if len(option) > 2 and o.startswith(option)]
    close = started or difflib.get_close_matches(option, options, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]}?)" if close else ""
    if option in ("-h", "--help"):
        hint = " (`judgeaudit exec --help` shows its help)"
    shown = field_name(option) + ("=…" if equals else "")  # a value may be a key (reviewer)
    return (
        f"exec: {shown} is not an option of exec{hint}; a command that itself "
        "starts with '-' goes after `--` (judgeaudit exec NAME -- CMD); nothing was run"
    )


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
