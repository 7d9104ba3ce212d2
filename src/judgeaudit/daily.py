"""A directory of daily recorded-verdict files -> one audited run per file, for the trend.

Each ``DIR/<name>.jsonl`` (recorded-jsonl: pair and verdict lines) is imported and audited with
``[judge] source = "recorded"`` (no model call) into ``WORK/<name>/``; a file whose content was
audited before is not audited again (its digest is kept beside the run). A file's period is its
lines' ``period`` field, else its name when that is one (``2026-11-03.jsonl``), else the run's
creation time. Sits above the engine (it runs audits), below the CLI and the terminal app.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from judgeaudit.analysis.frame import AnalysisError
from judgeaudit.analysis.trend import TrendOptions, build_trend
from judgeaudit.analysis.trend_alerts import ALPHA, BASELINE, add_alerts
from judgeaudit.analysis.trend_fmt import render
from judgeaudit.audit.units.period import period_of_name
from judgeaudit.engine import run_audit_blocking
from judgeaudit.errors import JudgeauditError
from judgeaudit.fsutil import atomic_write_text
from judgeaudit.rollouts.run import import_rollouts

SPEC = """[run]
name = "daily {name}"
imported = "pairs.jsonl"
[judge]
source = "recorded"
"""
DIGEST = "source.sha256"


def daily_files(folder: Path) -> list[Path]:
    """The recorded-verdict files of a folder without audit output, or [] when it is not one."""
    if not folder.is_dir() or (folder / "audit.db").exists():
        return []
    return sorted(p for p in folder.glob("*.jsonl") if p.is_file())


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            sha.update(chunk)
    return sha.hexdigest()


def audit_daily(files: list[Path], work: Path, gap_source: str | None = None) -> list[Path]:
    """Import and audit each file into ``work/<stem>`` (skipping unchanged ones); the OUTs."""
    outs = []
    stems = [f.stem for f in files]
    if len(set(stems)) != len(stems):
        twice = next(s for s in stems if stems.count(s) > 1)
        raise AnalysisError(f"trend: two daily files are named {twice}; give each day one file")
    made = not work.exists()
    try:
        for path in files:
            outs.append(_audit_one(path, work / path.stem, gap_source))
    except JudgeauditError:
        if made and work.is_dir() and not any(work.iterdir()):
            work.rmdir()  # a refused first file leaves no empty work dir behind
        raise
    return outs


def _audit_one(path: Path, out: Path, gap_source: str | None) -> Path:
    """One daily file imported and audited into ``out`` (or its earlier audit, if unchanged)."""
    digest = _digest(path)
    kept = out / DIGEST
    if kept.is_file() and kept.read_text().strip() == digest and (out / "audit.db").exists():
        return out
    fresh = not out.exists()
    try:
        import_rollouts("recorded-jsonl", [path], out / "pairs.jsonl", None, None,
                        period_of_name(path.stem))  # fmt: skip
    except JudgeauditError:
        if fresh:  # a shard that does not read leaves nothing behind
            shutil.rmtree(out, ignore_errors=True)
        raise
    spec = SPEC.format(name=json.dumps(path.stem)[1:-1])
    if gap_source:
        spec += f'[gap]\nsource = "{gap_source}"\n'
    atomic_write_text(out / "spec.toml", spec)
    run_audit_blocking(out / "spec.toml", out, new_run=(out / "audit.db").exists())
    atomic_write_text(kept, digest + "\n")
    return out


def resolve(targets: list[str], work: Path | None, gap_source: str | None = None) -> list[str]:
    """The targets with each folder of daily files replaced by the folders of its audited runs."""
    resolved: list[str] = []
    for target in targets:
        files = daily_files(Path(target))
        if not files:
            resolved.append(target)
            continue
        into = work or Path(target) / ".judgeaudit-trend"
        resolved += [str(o) for o in audit_daily(files, into, gap_source)]
    return resolved


def trend_with_alerts(
    targets: list[str],
    gap_source: str | None = None,
    baseline: int = BASELINE,
    alpha: float = ALPHA,
    work: Path | None = None,
) -> dict[str, Any]:
    """``judgeaudit trend``'s whole answer (the CLI and the Trends screen): daily files audited,
    the series built, the alerts added."""
    if baseline < 1:
        raise AnalysisError(f"trend: --baseline {baseline}: give 1 or more periods")
    if not 0 < alpha < 1:
        raise AnalysisError(f"trend: --alpha {alpha:g}: give a level between 0 and 1, e.g. 0.05")
    outs = resolve(targets, work, gap_source)
    return add_alerts(build_trend(outs, TrendOptions(gap_source)), baseline, alpha)


def monitor_demo(
    out: Path, days: int = 30, change_day: int = 20, tasks: int = 40, baseline: int = BASELINE
) -> dict[str, Any]:
    """A month of the embedded judge's recorded verdicts (the judge changes on ``change_day``),
    audited into ``out/runs`` and trended: ``out/trend.html`` and ``out/trend.json``."""
    from judgeaudit.sim.stream import write_stream

    write_stream(out / "logs", days=days, change_day=change_day, tasks=tasks)
    trend = trend_with_alerts([str(out / "logs")], baseline=baseline, work=out / "runs")
    atomic_write_text(out / "trend.html", render(trend, "html"))
    atomic_write_text(out / "trend.json", render(trend, "json"))
    return trend
