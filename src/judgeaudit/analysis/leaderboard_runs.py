"""Which runs ``judgeaudit judges`` ranks: every run of the given output directories (each
directory once, however it is spelled), an unfinished one (live, killed, cancelled) left out
with the gate's own reason (:func:`judgeaudit.analysis.unfinished.not_finished`: its figures
decide nothing yet), and why fewer than two can be ranked."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from judgeaudit.analysis.frame import AnalysisError, open_db
from judgeaudit.analysis.unfinished import not_finished, run_status

Left = list[tuple[Path, str, str | None]]


def finished_runs(outs: list[Path]) -> tuple[list[tuple[Path, str]], Left]:
    """The finished runs to rank, and the unfinished ones left out with the reason (its
    status said)."""
    once: dict[str, Path] = {}
    for out in outs:
        once.setdefault(os.path.realpath(out), out)
    found = runs_in(list(once.values()))
    if not found:
        raise AnalysisError("judges: no runs in the given directories")
    left_out: Left = [
        (o, r, f"{not_finished(run_status(o, s))} before ranking it")
        for o, r, s in found
        if s != "finished"
    ]
    return [(o, r) for o, r, s in found if s == "finished"], left_out


def runs_in(outs: list[Path]) -> list[tuple[Path, str, str]]:
    """Every run in the given output directories with its status, oldest first in each."""
    found = []
    for out in outs:
        db = open_db(out)
        try:
            rows = db.execute("SELECT run_id, status FROM runs ORDER BY created_at").fetchall()
        finally:
            db.close()
        found += [(out, str(run_id), str(status)) for run_id, status in rows]
    return found


def too_few(
    outs: list[Path],
    anchor: str | None,
    left_out: Left,
    lineages: Mapping[tuple[Path, str], Any],
) -> str:
    """Why fewer than two runs can be ranked, and what to do."""
    real = [p.resolve() for p in outs]
    if len(set(real)) < len(real):  # `judges out/demo out/demo`: one run, given twice
        return (
            "judges: the same output directory was given twice; give the output directories "
            "of two or more runs that judged the same conversations (e.g. made by judgeaudit "
            "rejudge OUT --judge-model M1 --judge-model M2 --out DIR)"
        )
    why = "; ".join(f"{run}: {because}" for _, run, because in left_out)
    return (
        "judges: fewer than two runs judged the same conversations"
        + (f" as {anchor}" if anchor else "")
        + (f" ({why})" if why else "")
        + "; re-judge one run with several judges: judgeaudit rejudge OUT --judge-model M1 "
        "--judge-model M2 --out DIR"
        + (
            "; to follow recorded verdicts across days: judgeaudit trend DIR"
            if any(x["recorded"] for x in lineages.values())
            else ""
        )
    )
