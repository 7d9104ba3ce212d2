"""``import recorded-jsonl FILE --parquet DIR``: a period added to a Parquet history."""

from __future__ import annotations

import argparse
from pathlib import Path

from judgeaudit.cli.common import UserError
from judgeaudit.suggest import command


def import_history(args: argparse.Namespace, files: list[Path], period: str | None) -> int:
    from judgeaudit.cli.import_cmds import print_skips, recorded_verdicts
    from judgeaudit.history import import_to_history

    if args.format != "recorded-jsonl":
        raise UserError("--parquet: only for recorded-jsonl (a history holds recorded verdicts)")
    if args.out is not None:
        raise UserError("--parquet writes the history instead of a pairs file; drop --out")
    if args.pairing or args.agent:
        raise UserError("--pairing/--agent: recorded verdicts name their own pairs; drop them")
    done = import_to_history(files, args.parquet, period)
    summary = done.summary
    print(
        f"read {summary.read} {summary.unit} from {len(files)} file(s) ({summary.tasks} tasks), "
        f"{recorded_verdicts(summary)}"
    )
    print(f"period {done.period}: {done.pairs} pairs audited as run {done.run_id} -> {done.shard}")
    print(f"report: {command('report', args.parquet, '--engine', 'duckdb', '--run', done.run_id)}")
    print_skips(summary)
    return 0
