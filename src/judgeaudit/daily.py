"""A directory of daily recorded-verdict files -> one audited run per file, for the trend.

Each ``DIR/<name>.jsonl`` (recorded-jsonl: pair and verdict lines) is imported and audited with
``[judge] source = "recorded"`` (no model call) into ``WORK/<name>/``; a file whose content was
audited before is not audited again (its digest is kept beside the run). A file whose content
changed (late corrections) is audited again in a staging folder that replaces the day's folder
only once it finished, so the old audit stays until then and a period stays one run. A day
that is refused (no usable verdict, a bad name, a bad line) is left out of the series and
listed with its one-line reason, the rest is still shown (``judgeaudit trend`` then exits
:data:`PARTIAL_EXIT`). A file's period is its lines' ``period`` field, else its name when that
is one (``2026-11-03.jsonl``), else the run's creation time. Sits above the engine (it runs
audits), below the CLI and the terminal app.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgeaudit.analysis.frame import AnalysisError, open_db
from judgeaudit.analysis.trend import TrendOptions, build_trend
from judgeaudit.analysis.trend_alerts import ALPHA, BASELINE, add_alerts
from judgeaudit.analysis.trend_fmt import render
from judgeaudit.audit.store.schema import has_table
from judgeaudit.audit.units.period import PeriodError, parse_period, period_of_name
from judgeaudit.engine import run_audit_blocking
from judgeaudit.errors import InputError, JudgeauditError
from judgeaudit.fsutil import atomic_write_text
from judgeaudit.rollouts.run import import_rollouts

#: A day's audit spec; ``name`` is the run's name, whose id prefixes every pair id, so it holds
#: no space: ``daily-2026-11-03`` (a space made ``report --run`` and ``show`` need quotes).
SPEC = """[run]
name = "{name}"
imported = "pairs.jsonl"
[judge]
source = "recorded"
"""
DIGEST = "source.sha256"
#: What the day's import left out (pairs without a verdict), shown per period by the trend.
IMPORTED = "import.json"
#: Where a re-audited day's earlier audit is kept (the last one), under the work folder.
REPLACED = ".replaced"
#: ``judgeaudit trend``'s exit code when some daily files were refused and the series shows the
#: rest: a cron job must notice a missing day.
PARTIAL_EXIT = 6
#: A stem meant as a date, week or month (``2026-11-31``, ``2026-11-1``, ``2026-W60``).
_PERIOD_LIKE = re.compile(r"^\d{4}-(W\d+|\d{1,2})(-\d{1,2})?([T ].*)?$")


@dataclass
class DailyNotes:
    """What happened to a folder's files besides the series itself (``trend["daily"]``)."""

    reaudited: list[str] = field(default_factory=list)  # files whose content changed
    refused: list[dict[str, str]] = field(default_factory=list)  # period, file, reason
    ignored: list[dict[str, str]] = field(default_factory=list)  # file, reason
    unjudged: dict[str, int] = field(default_factory=dict)  # out -> pairs left without verdict

    def as_json(self) -> dict[str, Any]:
        return {"reaudited": self.reaudited, "refused": self.refused, "ignored": self.ignored}


def daily_files(folder: Path) -> list[Path]:
    """The recorded-verdict files of a folder without audit output, or [] when it is not one."""
    if not folder.is_dir() or (folder / "audit.db").exists():
        return []
    return sorted(p for p in folder.glob("*.jsonl") if p.is_file())


def ignored_files(folder: Path) -> list[dict[str, str]]:
    """The other visible files of a daily folder (``2026-11-02.json``): named, never read."""
    return [
        {"file": str(p), "reason": "not a .jsonl file; a daily file is named DAY.jsonl"}
        for p in sorted(folder.iterdir())
        if p.is_file() and not p.name.startswith(".") and p.suffix != ".jsonl"
    ]


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            sha.update(chunk)
    return sha.hexdigest()


def audit_daily(
    files: list[Path], work: Path, gap_source: str | None, notes: DailyNotes
) -> list[Path]:
    """Import and audit each file into ``work/<stem>`` (skipping unchanged ones); the OUTs of
    the days audited. A refused day goes into ``notes.refused``, a changed one into
    ``notes.reaudited``."""
    outs = []
    stems = [f.stem for f in files]
    if len(set(stems)) != len(stems):
        twice = next(s for s in stems if stems.count(s) > 1)
        raise AnalysisError(f"trend: two daily files are named {twice}; give each day one file")
    made = not work.exists()
    for path in files:
        out = work / path.stem
        earlier = (out / "audit.db").exists()
        try:
            audited = _audit_one(path, out, gap_source)
        except JudgeauditError as exc:
            if exc.exit_code != 2:
                raise  # an interrupted or incomplete audit stops the trend; the next one audits that day again
            kept = f" (its earlier audit is kept in {out}, not shown)" if earlier else ""
            notes.refused.append({"period": path.stem, "file": str(path), "reason": f"{exc}{kept}"})
            continue
        if audited and earlier:
            notes.reaudited.append(str(path))
        outs.append(out)
        if (unjudged := _unjudged(out)) is not None:
            notes.unjudged[str(out)] = unjudged
    if made and work.is_dir() and not any(work.iterdir()):
        work.rmdir()  # a refused first file leaves no empty work dir behind
    return outs


def _unjudged(out: Path) -> int | None:
    try:
        return int(json.loads((out / IMPORTED).read_text())["pairs_without_verdict"])
    except (OSError, ValueError, KeyError, TypeError):
        return None  # audited before the count was kept: not known, not claimed 0


def _one_run(out: Path) -> bool:
    """Whether ``out`` holds one run: a day an earlier version audited twice (a second run when
    its file changed) is audited again, which repairs the series that refused it."""
    if not (out / "audit.db").exists():
        return False
    db = open_db(out)
    try:
        return int(db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]) == 1
    finally:
        db.close()


def _check_name(path: Path) -> None:
    """A stem written as a period must be one (``2026-11-31`` would fall to the audit's time)."""
    if _PERIOD_LIKE.match(path.stem):
        try:
            parse_period(path.stem)
        except PeriodError as exc:
            raise InputError(
                f"{path}: the file name is not a period ({exc}); rename it to the day its "
                "verdicts were logged (e.g. 2026-11-03.jsonl)"
            ) from None


def _audit_one(path: Path, out: Path, gap_source: str | None) -> bool:
    """One daily file imported and audited into ``out``; False when its earlier audit is of
    this very content (kept), True when it was audited now. The audit runs in a staging folder
    that replaces ``out`` only once finished: a refusal leaves ``out`` as it was."""
    _check_name(path)
    digest = _digest(path)
    kept = out / DIGEST
    if kept.is_file() and kept.read_text().strip() == digest and _one_run(out):
        return False
    if out.exists() and not kept.is_file():
        raise InputError(
            f"{path}: {out} exists and holds no {DIGEST}, so trend did not make it (a folder of "
            "yours); move it, or give --work another folder; nothing was changed"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    stage = _fresh_dir(out.parent, f".{out.name}.new-")
    try:
        summary = import_rollouts("recorded-jsonl", [path], stage / "pairs.jsonl", None, None,
                                  period_of_name(path.stem))  # fmt: skip
        spec = SPEC.format(name=json.dumps(f"daily-{path.stem}")[1:-1])
        if gap_source:
            spec += f'[gap]\nsource = "{gap_source}"\n'
        atomic_write_text(stage / "spec.toml", spec)
        try:
            run_audit_blocking(stage / "spec.toml", stage, new_run=False)
        except JudgeauditError as exc:
            if exc.exit_code != 2:
                raise
            shown = str(exc).replace(str(stage), str(out))
            raise InputError(f"{path}: its audit refused the imported pairs: {shown}") from None
        record = {"source": path.name, "pairs_read": summary.read,
                  "pairs_without_verdict": summary.without_verdict, "lines_skipped": summary.skips.count}  # fmt: skip
        atomic_write_text(stage / IMPORTED, json.dumps(record, indent=1) + "\n")
        atomic_write_text(stage / DIGEST, digest + "\n")
        _replace(stage, out)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return True


def _replace(stage: Path, out: Path) -> None:
    """``stage`` becomes ``out``. An earlier ``out`` is moved aside first and kept in
    ``WORK/.replaced/<day>/``: the last one per day, and every one that holds human labels
    (numbered, ``<day>.1``: labels are never deleted). Two levels down, so a trend of ``WORK``
    itself does not count it as a second run of the day."""
    if not out.exists():
        os.rename(stage, out)
        return
    shelf = out.parent / REPLACED
    shelf.mkdir(exist_ok=True)
    aside = _fresh_dir(shelf, f".{out.name}-")
    os.rename(out, aside / "run")
    try:
        os.rename(stage, out)
    except BaseException:
        os.rename(aside / "run", out)  # the earlier audit back in its place
        aside.rmdir()
        raise
    earlier = shelf / out.name
    if _holds_labels(earlier):  # a human's labels are never deleted: that copy keeps a number
        earlier.rename(next(shelf / f"{out.name}.{n}" for n in range(1, 10**6)
                            if not (shelf / f"{out.name}.{n}").exists()))  # fmt: skip
    shutil.rmtree(earlier, ignore_errors=True)
    os.rename(aside / "run", earlier)
    aside.rmdir()


def _fresh_dir(parent: Path, prefix: str) -> Path:
    """A new folder under ``parent``, made with the user's umask (a day folder is as readable as
    any other output; ``mkdtemp`` would make it 0700)."""
    while True:
        folder = parent / f"{prefix}{secrets.token_hex(4)}"
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue


def _holds_labels(folder: Path) -> bool:
    """Whether ``folder``'s audit holds human labels (imported into a day's audit by hand)."""
    if not (folder / "audit.db").is_file():
        return False
    try:
        db = open_db(folder)
    except JudgeauditError:
        return True  # unreadable: kept, not judged
    try:
        return has_table(db, "human_labels") and bool(
            db.execute("SELECT 1 FROM human_labels LIMIT 1").fetchone()
        )
    finally:
        db.close()


def resolve(
    targets: list[str],
    work: Path | None,
    gap_source: str | None = None,
    notes: DailyNotes | None = None,
) -> list[str]:
    """The targets with each folder of daily files replaced by the folders of its audited runs."""
    notes = notes if notes is not None else DailyNotes()
    resolved: list[str] = []
    for target in targets:
        files = daily_files(Path(target))
        if not files:
            resolved.append(target)
            continue
        notes.ignored += ignored_files(Path(target))
        into = work or Path(target) / ".judgeaudit-trend"
        resolved += [str(o) for o in audit_daily(files, into, gap_source, notes)]
    if not resolved and notes.refused:
        first = notes.refused[0]["reason"]
        more = len(notes.refused) - 1
        raise InputError(first + (f" (and {more} more daily files refused)" if more else ""))
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
    notes = DailyNotes()
    outs = resolve(targets, work, gap_source, notes)
    trend = build_trend(outs, TrendOptions(gap_source))
    for period in trend["periods"]:
        if period["out"] in notes.unjudged:
            period["pairs_without_verdict"] = notes.unjudged[period["out"]]
    if notes.unjudged or notes.refused or notes.ignored:
        trend["daily"] = notes.as_json()
    return add_alerts(trend, baseline, alpha)


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
