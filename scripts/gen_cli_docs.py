"""Write the CLI reference of docs/cli.md from the argparse parser itself, so it cannot go stale.

The reference is the block between the two markers below; the rest of docs/cli.md (exit codes,
notes) is written by hand. ``--check`` exits 1 when the block differs from the parser (the docs
test runs the same comparison); ``--write`` rewrites the block in place; with neither, the block
is printed.

Help text is laid out for 100 columns whatever the terminal, so the output is the same everywhere.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import import_module
from pathlib import Path

BEGIN = "<!-- BEGIN GENERATED: scripts/gen_cli_docs.py -->"
END = "<!-- END GENERATED: scripts/gen_cli_docs.py -->"
CLI_PAGE = Path(__file__).resolve().parent.parent / "docs" / "cli.md"
WIDTH = "100"


def full_parser() -> argparse.ArgumentParser:
    """The top-level parser with every command group registered (the CLI registers only the one
    it runs, to start fast)."""
    from judgeaudit import cli

    parser = cli.build_parser()
    sub = _subparsers(parser)
    assert sub is not None
    for name in list(sub.choices):  # the stubs build_parser leaves for unchosen commands
        del sub.choices[name]
    sub._choices_actions.clear()
    done: set[str] = set()
    for module, _help in cli.COMMANDS.values():
        if module not in done:
            import_module(f"judgeaudit.cli.{module}").register(sub)
            done.add(module)
    return parser


def _subparsers(
    parser: argparse.ArgumentParser,
) -> argparse._SubParsersAction[argparse.ArgumentParser] | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def _walk(
    parser: argparse.ArgumentParser, path: list[str], summary: str
) -> list[tuple[list[str], str, argparse.ArgumentParser]]:
    """Every parser under ``parser``, depth first, in the order the CLI lists them."""
    found = [(path, summary, parser)]
    sub = _subparsers(parser)
    if sub is None:
        return found
    helps = {choice.dest: choice.help or "" for choice in sub._choices_actions}
    seen: set[int] = set()
    for name, child in sub.choices.items():
        if id(child) in seen:  # an alias
            continue
        seen.add(id(child))
        found += _walk(child, [*path, name], helps.get(name, ""))
    return found


@contextmanager
def _columns(width: str) -> Iterator[None]:
    """argparse wraps help to the terminal's width (``COLUMNS``); pin it, then put it back."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = width
    try:
        yield
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def render() -> str:
    """The generated block, markers included."""
    with _columns(WIDTH):
        return _render()


def _render() -> str:
    lines = [
        BEGIN,
        "<!-- Do not edit by hand: run `.venv/bin/python scripts/gen_cli_docs.py --write`. -->",
        "",
    ]
    for path, summary, parser in _walk(full_parser(), ["judgeaudit"], ""):
        title = " ".join(path)
        lines += [f"### `{title}`", ""]
        if summary:
            lines += [summary[0].upper() + summary[1:] + ".", ""]
        lines += ["```text", parser.format_help().rstrip(), "```", ""]
    lines.append(END)
    return "\n".join(lines)


def splice(page: str, block: str) -> str:
    """``page`` with its generated block replaced by ``block``."""
    start, end = page.find(BEGIN), page.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"{CLI_PAGE}: the markers {BEGIN!r} and {END!r} are missing")
    return page[:start] + block + page[end + len(END) :]


def main(argv: list[str]) -> int:
    block = render()
    if "--write" in argv:
        CLI_PAGE.write_text(splice(CLI_PAGE.read_text(encoding="utf-8"), block), encoding="utf-8")
        return 0
    if "--check" in argv:
        page = CLI_PAGE.read_text(encoding="utf-8")
        if splice(page, block) != page:
            print(
                f"{CLI_PAGE}: the CLI reference is stale; run "
                "`.venv/bin/python scripts/gen_cli_docs.py --write`",
                file=sys.stderr,
            )
            return 1
        return 0
    print(block)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
