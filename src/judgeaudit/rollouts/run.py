"""The import command's engine: read every file, pair, validate, write atomically."""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Iterator
from pathlib import Path

from judgeaudit import safeio
from judgeaudit.audit.inputs.checked import forget_checked, written_by_import
from judgeaudit.rollouts.formats import (
    Rollout,
    Skips,
    Verdict,
    agent_name,
    file_agent,
    read_openai_jsonl,
)
from judgeaudit.rollouts.messages import RolloutError
from judgeaudit.rollouts.pairing import Collector, ImportSummary, pair_rows, write_pairs
from judgeaudit.rollouts.tau import read_tau2_bench, read_tau_bench

CHUNK = 1 << 20


def check_out(out: Path, inputs: list[Path], force: bool = False) -> None:
    """The output must be a file path that is not one of the inputs, and replaces only a pairs
    file an earlier import wrote (a raw log given as ``--out`` by mistake is kept) or ``force``."""
    if out.is_dir():
        raise RolloutError(f"{out}: --out is a directory; give a file name such as pairs.jsonl")
    if (blocker := safeio.file_in_path(out)) is not None:
        raise RolloutError(
            f"{out}: --out: {blocker} is a file, not a directory; choose another --out"
        )
    if out.parent.is_dir():  # a missing parent is created later; an immutable one refused now
        safeio.check_writable(out.parent, "--out", RolloutError)
    for path in inputs:
        if path.exists() and out.exists() and os.path.realpath(path) == os.path.realpath(out):
            raise RolloutError(f"{out}: --out is also an input file; choose another name")
    if out.is_file() and not force and not written_by_import(out):  # a FIFO: the writer says
        raise RolloutError(
            f"{out}: --out exists and no matching {out.name}.checked.json says an import wrote "
            "it (only recorded-jsonl imports keep that record); give --force to replace it, or "
            "another --out (nothing written)"
        )


def check_distinct(files: list[Path]) -> None:
    """The same results file twice (a glob or copy mistake) would turn a cross-agent audit into
    one agent against itself; refuse it, by path and by content."""
    by_path: dict[Path, int] = {}
    for number, path in enumerate(files, start=1):
        if not path.is_file():
            continue  # the reader names a missing file or a directory
        first = by_path.setdefault(Path(os.path.realpath(path)), number)
        if first != number:
            raise RolloutError(
                f"{path}: given twice (FILE {first} and {number}); give each results file once"
            )
    by_size: dict[int, list[Path]] = {}
    for path in files:
        if path.is_file():
            by_size.setdefault(path.stat().st_size, []).append(path)
    for same_size in by_size.values():
        if len(same_size) < 2:
            continue
        digests: dict[str, Path] = {}
        for path in same_size:
            first_path = digests.setdefault(_digest(path), path)
            if first_path is not path:
                raise RolloutError(
                    f"{path}: same content as {first_path}; each file holds one agent's results, "
                    "so drop the copy"
                )


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            sha.update(chunk)
    return sha.hexdigest()


def import_rollouts(
    fmt: str,
    files: list[Path],
    out: Path,
    pairing: str | None,
    agents: list[str] | None,
    period: str | None = None,
    *,
    force: bool = False,
) -> ImportSummary:
    """Read, pair and write ``out``; a refusal leaves ``out`` and its record as they were."""
    check_out(out, files, force)
    check_distinct(files)
    for name in agents or []:
        agent_name(name, "--agent")
    if fmt == "recorded-jsonl":
        from judgeaudit.rollouts.recorded import import_recorded

        return import_recorded(files, out, period)
    summary = ImportSummary()
    collector = Collector()
    for index, path in enumerate(files):
        agent = agents[index] if agents else None
        _read_file(fmt, path, agent, collector, summary, alone=len(files) == 1)
    agents_seen = {r.agent for r in collector.rollouts.values()}
    chosen = pairing or ("agents" if len(agents_seen) > 1 else "trials")
    rows = pair_rows(collector, chosen, summary)
    if not rows:
        raise RolloutError(
            f"{files[0]}: no pairs with --pairing {chosen} (agents: {', '.join(sorted(agents_seen))});"
            " pair trials of one agent with --pairing trials, or import two agents' files"
        )
    write_pairs(rows, out)
    forget_checked(out)  # a record of what an earlier import checked must not outlive its file
    return summary


def _read_file(
    fmt: str,
    path: Path,
    agent: str | None,
    collector: Collector,
    summary: ImportSummary,
    *,
    alone: bool,
) -> None:
    """One file's records into ``collector``; a file that gives none is refused, because the
    audit would silently become something else (two agents' files, one of them empty, pair
    one agent's trials with each other)."""
    skips: Skips = summary.skips
    skipped_before = skips.count
    given = 0
    name: str | None
    items: Iterator[Rollout | Verdict] | Iterator[Rollout]
    if fmt == "tau-bench":
        name = agent or file_agent(path)
        items = read_tau_bench(path, name, skips)
    elif fmt == "tau2-bench":
        name = agent
        items = read_tau2_bench(path, agent, skips)
    else:
        name = agent
        items = read_openai_jsonl(path, agent, skips)
    for item in items:
        collector.add(item)
        given += 1
        if isinstance(item, Rollout):
            _note_reward(item, summary)
    if given:
        return
    skipped = skips.count - skipped_before
    why = f"all {skipped} record(s) skipped" if skipped else "an empty results list"
    who = f" for agent {name!r}" if name else ""
    if not alone:
        raise RolloutError(
            f"{path}: no trajectories{who} ({why}); the audit would pair the other files' trials "
            "instead, so fix the file or leave it out (nothing written)"
        )
    raise RolloutError(f"{path}: no trajectories{who} ({why}); nothing to audit, nothing written")


def _note_reward(rollout: Rollout, summary: ImportSummary) -> None:
    reward = rollout.reward
    if rollout.reward_at is None or reward is None:
        return
    if math.isclose(reward, 0.0, abs_tol=1e-9) or math.isclose(reward, 1.0, abs_tol=1e-9):
        return
    summary.partial_rewards += 1
    if not summary.first_partial:
        summary.first_partial = f"{rollout.reward_at} = {reward:g}"
