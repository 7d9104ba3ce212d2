"""``judgeaudit import FORMAT FILE... --out PAIRS.jsonl``: rollouts you already have → pairs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from judgeaudit.cli.common import UserError

if TYPE_CHECKING:
    from judgeaudit.cli.common import Sub

FORMATS = ("tau-bench", "tau2-bench", "openai-jsonl", "recorded-jsonl")
SHOWN_SKIPS = 10


def register(sub: Sub) -> None:
    imp = sub.add_parser(
        "import",
        help="turn τ-bench / τ²-bench / OpenAI-format rollouts or recorded verdicts into pairs",
        description="Writes the imported-pairs JSONL that `run.imported` audits; prints what it "
        "read, paired and skipped.",
    )
    imp.add_argument("format", choices=FORMATS)
    imp.add_argument("files", type=Path, nargs="+", metavar="FILE")
    imp.add_argument("--out", type=Path, required=True, help="the pairs JSONL to write")
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
    summary = import_rollouts(args.format, files, args.out, args.pairing, agents)
    agents_seen = ", ".join(f"{name} {count}" for name, count in summary.agents.items())
    print(
        f"read {summary.read} trajectories from {len(files)} file(s) "
        f"({summary.tasks} tasks; agents: {agents_seen or 'none'})"
    )
    print(
        f"paired {summary.pairs} ({summary.pairs_agents} across agents, {summary.pairs_trials} "
        f"across trials), {summary.verdicts} recorded verdicts → {args.out}"
    )
    skips = summary.skips
    if skips.count:
        print(f"skipped {skips.count}:", file=sys.stderr)
        for reason in skips.reasons[:SHOWN_SKIPS]:
            print(f"  {reason}", file=sys.stderr)
        if skips.count > SHOWN_SKIPS:
            print(f"  ... and {skips.count - SHOWN_SKIPS} more", file=sys.stderr)
    return 0
