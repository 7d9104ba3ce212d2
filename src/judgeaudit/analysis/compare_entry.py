"""The one entry for comparing two runs: ``judgeaudit compare`` and the app's Runs screen both
call :func:`compare_runs`, so both pick the same two runs, refuse the same things (a run against
itself, an ambiguous directory) and show the same warnings and gate outcome.

The choice of runs is :func:`judgeaudit.analysis.gate.choose_runs`, the warnings
:func:`~judgeaudit.analysis.gate.coverage_lines` and the gate's refusals
:func:`~judgeaudit.analysis.gate.gate_ready`; this module only puts them in one order.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from judgeaudit.analysis.drift import compare
from judgeaudit.analysis.frame import open_db
from judgeaudit.analysis.gate import (
    choose_runs,
    coverage_lines,
    gate_exit,
    gate_ready,
    refuse_unpaired,
)
from judgeaudit.analysis.noninferiority import DEFAULT_MARGIN
from judgeaudit.analysis.report import ReportOptions
from judgeaudit.audit.spec.records import recorded_verdicts
from judgeaudit.audit.store.readonly import RUN_ORDER
from judgeaudit.audit.store.verdict_counts import kept_verdict_counts
from judgeaudit.errors import JudgeauditError

GateOutcome = Literal["refused", "failed", "inconclusive", "passed"]


#: Where an inconclusive gate's reason points for what would settle it: the text's line, or
#: (``--format json``, which has no such line) the field holding the same figures.
NEEDED_LINE = "(see the 'not enough data' line)"
NEEDED_FIELD = "(see `overall.needed`)"


@dataclass(frozen=True)
class RunInfo:
    """One run of an output directory, as a picker lists it."""

    out: Path
    run_id: str
    created_at: str
    judge: str
    status: str


@dataclass(frozen=True)
class Comparison:
    """``compare``'s result with the two directories it read, the warnings it prints above the
    buckets and what ``--fail-on-rise`` would do with it (and why)."""

    result: dict[str, Any]
    out_a: Path
    out_b: Path
    warnings: list[str]
    gate: GateOutcome
    gate_reasons: list[str]  # why, without a verdict's word: the app heads them with ``gate``
    gate_exit: int  # `compare --fail-on-rise`: 0 passed, 3 failed, 5 inconclusive, 2/4 refused
    gate_word: str = ""  # the verdict's word the CLI leads its reasons with ("" for none)

    def said(self, in_json: bool = False) -> list[str]:
        """The reasons as ``compare --fail-on-rise`` says them on stderr, each led by the
        verdict's word (``worse``, ``inconclusive (exit 5)``) where it has one; the app heads
        the same reasons with the outcome instead, so the word is never said twice. JSON has
        no 'not enough data' line: ``in_json`` points at its field instead (a new user)."""
        said = [f"{self.gate_word}: {r}" if self.gate_word else r for r in self.gate_reasons]
        return [r.replace(NEEDED_LINE, NEEDED_FIELD) for r in said] if in_json else said


def list_runs(out: Path) -> list[RunInfo]:
    """Every run in ``out``, oldest first (the order ``compare`` calls A and B); a run marked
    running that no process holds OUT for is listed as stopped (:func:`shown_status`)."""
    from judgeaudit.audit.store.out_lock import shown_status

    db = open_db(out)
    try:
        rows = db.execute(
            f"SELECT run_id, created_at, status, manifest FROM runs {RUN_ORDER}"
        ).fetchall()
        runs = []
        for row in rows:
            try:
                manifest = json.loads(row["manifest"])
            except ValueError:
                manifest = {}
            judge = manifest.get("models", {}).get("judge") or {}
            name = str(judge.get("model") or judge.get("name") or "?")
            if recorded_verdicts(manifest) and (logged := _logged_judges(db, row["run_id"])):
                name = f"recorded: {logged}"  # the judges the log names
            runs.append(
                RunInfo(
                    out,
                    str(row["run_id"]),
                    str(row["created_at"] or ""),
                    name,
                    shown_status(out, str(row["status"])),
                )
            )
    finally:
        db.close()
    return runs


def _logged_judges(db: sqlite3.Connection, run_id: str) -> str:
    """A finished run's judge models as its kept verdict counts name them ("a, b" for two, "N
    judges" past that; "" before it finished): for a recorded run, the judges the log named."""
    models = sorted({str(r[0]) for r in kept_verdict_counts(db, run_id) or () if r[0] is not None})
    return ", ".join(models) if len(models) <= 2 else f"{len(models)} judges"


def gate_verdict(result: dict[str, Any]) -> tuple[GateOutcome, str, list[str], int]:
    """What ``--fail-on-rise`` does with a comparison, as the CLI does it: refuse (an unfinished
    or empty run, nothing shared, different conversations), fail (worse in a row, or run B's
    judge gave too few verdicts), inconclusive (the data cannot tell yet) or pass (not worse);
    with the verdict's word the CLI leads the reasons with (:meth:`Comparison.said`)."""
    try:
        gate_ready(result)
        refuse_unpaired(result)
    except JudgeauditError as exc:
        return "refused", "", [str(exc)], exc.exit_code
    code = gate_exit(result)
    if result["verdicts"]["failed"]:
        return (
            "failed",
            "",
            [
                f"the judge of run B often gave no verdict: "
                f"{'; '.join(result['verdicts']['failed'])}; its misselection figures would "
                "understate it (see `judgeaudit report OUT_B`)"
            ],
            code,
        )
    verdict = result["gate"]["verdict"]
    if verdict == "worse":
        rose = ", ".join(
            f"{r['label']} (p={r['p_value']:.3g}, adjusted {r['p_adjusted']:.3g})"
            for r in [*result["buckets"], result["overall"]]
            if r.get("verdict") == "worse"
        )
        why = [f"misselection rose in: {rose}"] if rose else []
        tie = result["overall"].get("tie_aware") or {}
        if tie.get("verdict") == "worse":
            why.append(
                f"the tie-aware rate rose {tie['before'] * 100:.1f}% -> {tie['after'] * 100:.1f}% "
                f"(ties count half a loss; p={tie['p_value']:.3g}, alpha {tie['alpha']:g}): "
                "run B's judge decides less often"
            )
        return (
            "failed",
            "worse",
            [f"{'; '.join(why)}; decided by the paired test: {result['decided_by']}"],
            code,
        )
    if code != 0:
        margin = result["gate"]["margin"] * 100
        tie_only = result["overall"].get("verdict") == "not worse"
        return (
            "inconclusive",
            f"inconclusive (exit {code})",
            [
                (
                    f"misselection is not worse, but the tie-aware rate (ties count half a "
                    f"loss) is not shown within {margin:g} points and did not rise "
                    "significantly; the data cannot tell yet"
                    if tie_only
                    else f"not worse is not shown within {margin:g} points and no rise is "
                    "significant; the data cannot tell yet " + NEEDED_LINE
                )
            ],
            code,
        )
    return "passed", "", [], 0


def compare_runs(
    out_a: Path,
    out_b: Path | None = None,
    run_a: str | None = None,
    run_b: str | None = None,
    options: ReportOptions | None = None,
    margin: float = DEFAULT_MARGIN,
) -> Comparison:
    """Choose the two runs as ``compare`` does (refusing a run against itself), compare them
    and say what a gate would do. Raises AnalysisError on a refused choice."""
    out_a, chosen_b, run_a, run_b = choose_runs(out_a, out_b, run_a, run_b)
    result = compare(out_a, chosen_b, run_a, run_b, options, margin=margin)
    gate, word, reasons, code = gate_verdict(result)
    compared = Comparison(
        result, out_a, chosen_b, coverage_lines(result), gate, reasons, code, word
    )
    if result.get("gate") is not None:  # the JSON's: what --fail-on-rise does and says on stderr
        result["gate"] |= {"outcome": gate, "reasons": compared.said(in_json=True)}
    return compared
