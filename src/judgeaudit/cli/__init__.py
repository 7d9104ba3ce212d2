"""The command-line entry point: parse, call the layers below, print. Nothing else lives here.

Start-up is part of the interface: Claude Code runs ``judgeaudit key print NAME`` before every
session and Codex gives its auth command a few seconds. So this module imports no command group
at import time, and a command imports only its own group (``key`` never pulls in openai, pandas,
aiohttp or textual; ``--version`` and ``--help`` import none at all).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module
from typing import NoReturn

from judgeaudit import __version__
from judgeaudit.errors import JudgeauditError

#: command -> (module under judgeaudit.cli that registers it, one-line help), in help order.
COMMANDS: dict[str, tuple[str, str]] = {
    "sim": ("sim_cmds", "the embedded simulated provider"),
    "run": ("audit_cmds", "run an audit from a spec file"),
    "rejudge": (
        "audit_cmds",
        "judge a finished run's stored trajectories again (no agent or user calls)",
    ),
    "demo": ("audit_cmds", "run the demo audit on the embedded simulated provider"),
    "tui": ("audit_cmds", "open the terminal app (also: judgeaudit with no arguments)"),
    "report": ("audit_cmds", "misselection report for an output directory"),
    "compare": (
        "audit_cmds",
        "drift between two runs (per-bucket change; paired after a re-judge)",
    ),
    "show": (
        "audit_cmds",
        "one pair: outcomes, and each judge call's rendered prompt and raw output",
    ),
    "review": ("audit_cmds", "human review sample export/import"),
    "trend": (
        "trend_cmds",
        "figures over many runs or daily recorded logs, with alerts on rising misselection",
    ),
    "judges": ("report_cmds", "rank the judges of runs that judged the same conversations"),
    "import": (
        "import_cmds",
        "turn τ-bench / τ²-bench / OpenAI-format rollouts or recorded verdicts into pairs",
    ),
    "export": (
        "export_cmds",
        "a finished audit's pairs as preference data for reward models and DPO, as Parquet, "
        "or as OUT's derived files",
    ),
    "profile": ("profile_cmds", "tool profiles for Claude Code, Codex and SDKs"),
    "key": ("key_cmds", "API keys in the OS keyring (service judgeaudit)"),
    "env": ("key_cmds", "print shell exports for a profile"),
    "exec": ("key_cmds", "run one command with a profile's environment"),
    "bridge": (
        "bridge_cmds",
        "serve Responses and Anthropic Messages for a chat-only gateway (Codex, Claude Code)",
    ),
}
DEFAULT_COMMAND = "tui"


def command_help(name: str) -> str:
    """A command's one-line help, written once (here) for ``--help``'s list and its own parser."""
    return COMMANDS[name][1]


class OneLineParser(argparse.ArgumentParser):
    """argparse with its errors on one line (``judgeaudit run: --out: ...; see --help``)."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message}; see `{self.prog} --help`", file=sys.stderr)
        raise SystemExit(2)


def _chosen(argv: Sequence[str]) -> str | None:
    """The command word, found without parsing (top-level options take no values)."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The full parser for the command in ``argv``; the other commands get a stub that carries
    their help line, so ``--help`` lists everything without importing any command group."""
    parser = OneLineParser(
        prog="judgeaudit",
        description="Audit LLM judges GAUGE-style; switch Claude Code / Codex / SDK profiles.",
    )
    parser.add_argument("--version", action="version", version=f"judgeaudit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = _chosen(argv)
    wanted = COMMANDS[chosen][0] if chosen else None
    registered: set[str] = set()
    for name, (module, help_text) in COMMANDS.items():
        if module == wanted and module not in registered:
            import_module(f"judgeaudit.cli.{module}").register(sub)
            registered.add(module)
        if name not in sub.choices:
            sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from judgeaudit.cli.scrubbed import scrubbed_stderr  # keys masked in all stderr, once

    words = list(sys.argv[1:] if argv is None else argv)
    with scrubbed_stderr():
        try:
            return _run(words)
        except BrokenPipeError as exc:
            if not _stdout_reader_gone():
                from judgeaudit.cli import crash

                return crash.handle(exc, words)
            return _quiet_after_closed_pipe()


def _negative_lists_joined(words: list[str]) -> list[str]:
    """``--bins -0.01,0.2,1`` as ``--bins=-0.01,0.2,1``: argparse takes a word that starts with
    a dash for an option unless it is one number, so a list of edges whose first is negative
    was refused ("expected one argument") though ``--help`` shows it so."""
    joined: list[str] = []
    for word in words:
        previous = joined[-1] if joined else ""
        if (
            previous.startswith("--")
            and "=" not in previous
            and len(word) > 1
            and word[0] == "-"
            and (word[1].isdigit() or word[1] == ".")
            and "," in word
        ):
            joined[-1] = f"{previous}={word}"
        else:
            joined.append(word)
    return joined


def _not_utf8(words: list[str]) -> str | None:
    """One line for a word the system could not decode (a path with bytes that are not UTF-8:
    Python keeps them as lone surrogates, which audit.db, reports and JSON cannot hold, so a run
    into such a folder stored its rows and then failed). The word itself is not shown (it may
    be a password typed in the wrong place, as argsafe never shows a stray argument): its
    place, and the option it is the value of."""
    from judgeaudit.safeio import not_utf8

    for place, word in enumerate(words, start=1):
        if not_utf8(word):
            before = words[place - 2] if place > 1 else ""
            # an option that takes the word (never one with its value already: --label=x)
            of = f", the value of {before}" if before.startswith("-") and "=" not in before else ""
            return (
                f"argument {place}{of} is not valid UTF-8 (not shown); judgeaudit records its "
                "arguments as UTF-8 text: rename the file or folder, or retype the value"
            )
    return None


def _run(words: list[str]) -> int:
    if words[:1] == ["exec"]:  # exec hands its words to another program: never rewritten
        return _dispatch(build_parser(words).parse_args(words), words)
    if (problem := _not_utf8(words)) is not None:
        print(f"judgeaudit: {problem}", file=sys.stderr)
        return 2
    words = _negative_lists_joined(words)
    args = build_parser(words).parse_args(words)
    if not getattr(args, "func", None):
        words = [DEFAULT_COMMAND]
        args = build_parser(words).parse_args(words)
    return _dispatch(args, words)


def _dispatch(args: argparse.Namespace, words: list[str]) -> int:
    """Run the parsed command; every error it raises becomes one line and an exit code."""
    try:
        result: int = args.func(args)
        return result
    except JudgeauditError as exc:
        print(f"judgeaudit: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("judgeaudit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        raise  # decided in main: a closed stdout is the reader's choice, anything else a bug
    except OSError as exc:
        from judgeaudit.safeio import refused_write

        if (line := refused_write(exc)) is None:
            from judgeaudit.cli import crash

            return crash.handle(exc, words)
        print(f"judgeaudit: {line}", file=sys.stderr)
        return 2
    except Exception as exc:  # the safety net: one line naming a log file, never a traceback
        from judgeaudit.cli import crash

        return crash.handle(exc, words)


#: The exit status of a process a shell saw killed by SIGPIPE (128 + 13).
SIGPIPE_EXIT = 141


def _stdout_reader_gone() -> bool:
    """True when stdout is a pipe whose reader has closed it (``judgeaudit report | head``)."""
    import select

    try:
        fd = sys.__stdout__.fileno() if sys.__stdout__ else -1
    except (OSError, ValueError):
        return False
    if fd < 0:
        return False
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & select.POLLERR for _, events in poller.poll(0))


def _quiet_after_closed_pipe() -> int:
    """Stop like a shell tool whose reader went away: no message, no crash log, SIGPIPE's status.

    stdout is pointed at /dev/null so the interpreter's final flush cannot raise again.
    """
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.__stdout__.fileno() if sys.__stdout__ else 1)
    finally:
        os.close(devnull)
    return SIGPIPE_EXIT
