"""Every argument of every command says what it is in ``--help`` (``report --help`` listed
``out``, ``--run`` and ``--format`` with nothing beside them), and where a help names a default
it is the code's."""

from __future__ import annotations

import argparse

from judgeaudit.cli import build_parser


def _without_help(parser: argparse.ArgumentParser, path: list[str]) -> list[str]:
    missing = []
    for action in parser._actions:  # argparse keeps them nowhere public
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                missing += _without_help(sub, [*path, name])
        elif action.help is None and not isinstance(action, argparse._HelpAction):
            missing.append(f"{' '.join(path)} {'/'.join(action.option_strings) or action.dest}")
    return missing


def _commands() -> list[str]:
    top = build_parser()
    subs = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(subs.choices)


def test_every_argument_has_a_help() -> None:
    missing = []
    for command in _commands():
        full = build_parser([command])  # a command's own arguments are built on demand
        subs = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
        missing += _without_help(subs.choices[command], [command])
    assert missing == []


def test_review_exports_default_sample_size_is_the_codes() -> None:
    from judgeaudit.analysis.review import SAMPLE_N

    full = build_parser(["review"])
    subs = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    review = subs.choices["review"]
    export = next(a for a in review._actions if isinstance(a, argparse._SubParsersAction))
    n = next(a for a in export.choices["export"]._actions if a.dest == "n")
    assert f"default {SAMPLE_N})" in str(n.help)


def test_report_help_names_its_cache_and_how_to_turn_it_off() -> None:
    from judgeaudit.analysis.report_memo import __doc__ as memo_doc
    from judgeaudit.audit.store.check_memo import __doc__ as check_doc

    full = build_parser(["report"])
    subs = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    said = str(subs.choices["report"].description)
    for variable in ("JUDGEAUDIT_CACHE_DIR", "JUDGEAUDIT_REPORT_MEMO=0"):
        assert variable in said
        assert variable.split("=")[0] in str(memo_doc) + str(check_doc)  # the code's names
