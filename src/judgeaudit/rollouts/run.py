"""The import command's engine: read every file, pair, validate, write atomically."""

from __future__ import annotations

from pathlib import Path

from judgeaudit.rollouts.formats import (
    Skips,
    read_openai_jsonl,
    read_tau2_bench,
    read_tau_bench,
)
from judgeaudit.rollouts.messages import RolloutError
from judgeaudit.rollouts.pairing import Collector, ImportSummary, pair_rows, write_pairs


def check_out(out: Path, inputs: list[Path]) -> None:
    """The output must be a file path that is not one of the inputs."""
    if out.is_dir():
        raise RolloutError(f"{out}: --out is a directory; give a file name such as pairs.jsonl")
    for path in inputs:
        if path.exists() and out.exists() and path.resolve() == out.resolve():
            raise RolloutError(f"{out}: --out is also an input file; choose another name")


def import_rollouts(
    fmt: str, files: list[Path], out: Path, pairing: str | None, agents: list[str] | None
) -> ImportSummary:
    check_out(out, files)
    if fmt == "recorded-jsonl":
        from judgeaudit.rollouts.recorded import import_recorded

        return import_recorded(files, out)
    summary = ImportSummary()
    skips: Skips = summary.skips
    collector = Collector()
    for index, path in enumerate(files):
        agent = agents[index] if agents else None
        if fmt == "tau-bench":
            for rollout in read_tau_bench(path, agent or path.stem, skips):
                collector.add(rollout)
        elif fmt == "tau2-bench":
            for rollout in read_tau2_bench(path, agent, skips):
                collector.add(rollout)
        else:
            for item in read_openai_jsonl(path, agent, skips):
                collector.add(item)
    if not collector.rollouts:
        raise RolloutError(f"{files[0]}: no usable trajectories; nothing written")
    agents_seen = {r.agent for r in collector.rollouts.values()}
    chosen = pairing or ("agents" if len(agents_seen) > 1 else "trials")
    rows = pair_rows(collector, chosen, summary)
    if not rows:
        raise RolloutError(
            f"{files[0]}: no pairs with --pairing {chosen} (agents: {', '.join(sorted(agents_seen))});"
            " pair trials of one agent with --pairing trials, or import two agents' files"
        )
    write_pairs(rows, out)
    return summary
