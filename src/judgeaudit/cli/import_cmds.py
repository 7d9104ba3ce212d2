"""``judgeaudit import FORMAT FILE... --out PAIRS.jsonl``: rollouts you already have → pairs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from judgeaudit.cli import command_help
from judgeaudit.cli.common import UserError

if TYPE_CHECKING:
    from judgeaudit.cli.common import Sub
    from judgeaudit.rollouts.formats import Skips
    from judgeaudit.rollouts.pairing import ImportSummary

FORMATS = ("tau-bench", "tau2-bench", "openai-jsonl", "recorded-jsonl")
SHOWN_SKIPS = 10


def register(sub: Sub) -> None:
    imp = sub.add_parser(
        "import",
        help=command_help("import"),
        description="Writes the imported-pairs JSONL that `run.imported` audits; prints what it "
        "read, paired and skipped.",
    )
    imp.add_argument("format", choices=FORMATS, help="the files' format (docs/rollouts.md)")
    imp.add_argument(
        "files", type=Path, nargs="+", metavar="FILE", help="the files to read (one or more)"
    )
    imp.add_argument(
        "--out",
        type=Path,
        help="the pairs JSONL to write (recorded-jsonl: with OUT.checked.json beside it, the "
        "record of what was checked, so a recorded run does not validate the same pairs again)",
    )
    imp.add_argument(
        "--force",
        action="store_true",
        help="replace --out even when it is not a pairs file an earlier import wrote (one whose "
        "OUT.checked.json matches it); without it such a file is refused, never overwritten",
    )
    imp.add_argument(
        "--parquet",
        type=Path,
        metavar="DIR",
        help="recorded-jsonl: audit the verdicts and add them to the Parquet history DIR "
        "(DIR/period=…/, read by `report DIR --engine duckdb` and `trend DIR`) instead of "
        "writing --out",
    )
    imp.add_argument(
        "--pairing",
        choices=["trials", "agents", "both"],
        help="agents: same task and trial across agents (default with two or more agents); "
        "trials: different trials of one agent (default with one agent); both",
    )
    imp.add_argument(
        "--agent",
        action="append",
        metavar="NAME",
        help="agent name per FILE, in order (default: the file's model or file name)",
    )
    imp.add_argument(
        "--period",
        help="recorded-jsonl: the day/week/month these verdicts were logged (ISO: 2026-11-03, "
        "2026-11, 2026-W45), stamped on every pair line without a period; the audit keeps it "
        "as the run's point on `judgeaudit trend`",
    )
    imp.set_defaults(func=cmd_import)


def cmd_import(args: argparse.Namespace) -> int:
    from judgeaudit.rollouts.run import import_rollouts

    files: list[Path] = args.files
    agents: list[str] | None = args.agent
    if agents is not None and len(agents) != len(files):
        raise UserError(
            f"--agent: given {len(agents)} time(s) for {len(files)} file(s); give one --agent "
            "per FILE, in order, or none"
        )
    period: str | None = args.period
    if period is not None:
        from judgeaudit.audit.units.period import PeriodError, parse_period

        if args.format != "recorded-jsonl":
            raise UserError("--period: only for recorded-jsonl (a period is a day of logs)")
        try:
            period = parse_period(period)
        except PeriodError as exc:
            raise UserError(f"--period: {exc}") from None
    if args.parquet is not None:
        from judgeaudit.cli.history_cmds import import_history

        return import_history(args, files, period)
    if args.out is None:
        raise UserError("import: give --out PAIRS.jsonl (or, for recorded-jsonl, --parquet DIR)")
    from judgeaudit.analysis.outputs import check_output

    check_output(args.out, "--out", files)  # never an input or a run's own file, even --force
    summary = import_rollouts(
        args.format, files, args.out, args.pairing, agents, period, force=args.force
    )
    agents_seen = ", ".join(f"{name} {count}" for name, count in summary.agents.items())
    print(
        f"read {summary.read} {summary.unit} from {len(files)} file(s) "
        f"({summary.tasks} tasks; agents: {agents_seen or 'none'})"
    )
    print(
        f"paired {summary.pairs} ({summary.pairs_agents} across agents, {summary.pairs_trials} "
        f"across trials), {recorded_verdicts(summary)} → {args.out}"
    )
    if summary.partial_rewards:
        noun = "reward" if summary.partial_rewards == 1 else "rewards"
        print(
            f"{summary.partial_rewards} {noun} neither 0 nor 1 counted as a failure (success is "
            f"reward == 1; first: {summary.first_partial})",
            file=sys.stderr,
        )
    print_skips(summary)
    return 0


def recorded_verdicts(summary: ImportSummary) -> str:
    """``N recorded verdicts``, and how many of them have no winner (``"winner": null``)."""
    unjudged = (
        f" ({summary.no_verdicts} with winner null: no verdict)" if summary.no_verdicts else ""
    )
    return f"{summary.verdicts} recorded verdicts{unjudged}"


def print_skips(summary: ImportSummary) -> None:
    """What the import left out, then the verdicts kept whose winner contradicts their own
    scores, on stderr (the first few of each, then a count)."""
    from judgeaudit.audit.inputs.verdict_rules import low_scale

    _listed(f"skipped {summary.skips.count}:", summary.skips)
    if (scale := low_scale(summary.scores, summary.top_score)) is not None:
        print(f"warning: {scale}", file=sys.stderr)
    found = summary.contradictions
    _listed(
        f"{found.count} verdict(s) whose winner contradicts its own scores, kept as recorded "
        "(the winner was the reward signal):",
        found,
    )


def _listed(title: str, found: Skips) -> None:
    if found.count:
        print(title, file=sys.stderr)
        for reason in found.reasons[:SHOWN_SKIPS]:
            print(f"  {reason}", file=sys.stderr)
        if found.count > SHOWN_SKIPS:
            print(f"  ... and {found.count - SHOWN_SKIPS} more", file=sys.stderr)
