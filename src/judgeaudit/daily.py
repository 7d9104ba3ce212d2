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
import re
import shutil
from dataclasses import dataclass, field
from datetime import date, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

from judgeaudit.analysis.engines.history import history_runs, is_history
from judgeaudit.analysis.frame import AnalysisError, open_db
from judgeaudit.analysis.trend import TrendOptions, build_trend
from judgeaudit.analysis.trend_alerts import ALPHA, BASELINE, add_alerts
from judgeaudit.analysis.trend_fmt import render
from judgeaudit.audit.units.period import PeriodError, parse_period, period_of_name
from judgeaudit.day_labels import Carried, carry_labels
from judgeaudit.day_stage import holding, new_stage, replace, stages
from judgeaudit.engine import Terminated, run_audit_blocking
from judgeaudit.errors import IncompleteRun, InputError, JudgeauditError
from judgeaudit.fsutil import atomic_write_text
from judgeaudit.rollouts.run import import_rollouts
from judgeaudit.trend_work import default_work

#: A day's audit spec; ``name`` is the run's name, whose id prefixes every pair id, so it holds
#: no space: ``daily-2026-11-03`` (a space made ``report --run`` and ``show`` need quotes).
SPEC = """[run]
name = "{name}"
imported = "pairs.jsonl"
[judge]
source = "recorded"
"""
DIGEST = "source.sha256"
#: In a ``--work`` folder: the folder of daily files whose days it holds (one folder a --work).
SOURCE = ".judgeaudit-source"
#: What the day's import left out (pairs without a verdict), shown per period by the trend.
IMPORTED = "import.json"
#: ``judgeaudit trend``'s exit code when some daily files were refused and the series shows the
#: rest: a cron job must notice a missing day.
PARTIAL_EXIT = 6
#: A stem meant as a date, week or month (``2026-11-31``, ``2026-11-1``, ``2026-W60``).
_PERIOD_LIKE = re.compile(r"^\d{4}-(W\d+|\d{1,2})(-\d{1,2})?([T ].*)?$")


@dataclass
class Day:
    """One daily file's audit: its content's digest and spec, a staging folder a stopped trend
    left for it (resumed), and the human labels carried into its re-audit."""

    digest: str
    spec: str
    resumed: Path | None = None
    labels: Carried | None = None


@dataclass
class DailyNotes:
    """What happened to a folder's files besides the series itself (``trend["daily"]``)."""

    reaudited: list[str] = field(default_factory=list)  # files whose content changed
    refused: list[dict[str, str]] = field(default_factory=list)  # period, file, reason
    ignored: list[dict[str, str]] = field(default_factory=list)  # file, reason
    unjudged: dict[str, int] = field(default_factory=dict)  # out -> pairs left without verdict
    #: out -> the day's verdicts kept whose winner contradicts their own scores
    contradicting: dict[str, int] = field(default_factory=dict)
    labels: list[dict[str, Any]] = field(default_factory=list)  # period + Carried, re-audits
    given: bool = False  # a folder of daily files (or a Parquet history) was among the targets
    missing: list[dict[str, str]] = field(default_factory=list)  # period, folder: no file

    def as_json(self) -> dict[str, Any]:
        shown = {"reaudited": self.reaudited, "refused": self.refused, "ignored": self.ignored}
        shown |= {"missing": self.missing} if self.missing else {}
        return shown | ({"labels": self.labels} if self.labels else {})


#: A daily file's stem that names one day (weekly or monthly files have no missing day).
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _day(stem: str) -> date | None:
    """The day a file's stem names; None for a week, a month or no date (``2026-11-31`` is
    refused as not a period elsewhere, and is no day here)."""
    if not _DAY.fullmatch(stem):
        return None
    try:
        return date.fromisoformat(stem)
    except ValueError:
        return None


def missing_days(names: list[str]) -> list[str]:
    """The days between a folder's first and last daily file (their stems), or a history's
    first and last period, that have none at the series' step: a gap the charts show and a cron
    job should hear of (a day whose log never arrived was silent)."""
    days = sorted({d for n in names if (d := _day(n)) is not None})
    if len(days) < 2:
        return []
    # the series' step: the shortest between two days (as the charts break lines); weekly: 7
    step = min((b - a).days for a, b in pairwise(days))
    present, span = set(days), (days[-1] - days[0]).days
    every = (days[0] + timedelta(n) for n in range(0, span + 1, step))
    return [d.isoformat() for d in every if d not in present]


def daily_files(folder: Path) -> list[Path]:
    """The recorded-verdict files of a folder without audit output, or [] when it is not one."""
    if not folder.is_dir() or (folder / "audit.db").exists():
        return []
    return sorted(p for p in folder.glob("*.jsonl") if p.is_file())


def ignored_files(folder: Path) -> list[dict[str, str]]:
    """The other visible files of a daily folder (``2026-11-02.json``), and a folder named as a
    daily file would be (``2026-11-04.jsonl/``, which a reader takes for that day): named,
    never read."""
    return [
        {"file": str(p), "reason": "not a .jsonl file; a daily file is named DAY.jsonl"}
        if p.is_file()
        else {"file": str(p), "reason": "a folder, not a file; a daily file is named DAY.jsonl"}
        for p in sorted(folder.iterdir())
        if not p.name.startswith(".") and (p.suffix != ".jsonl") == p.is_file()
    ]


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            sha.update(chunk)
    return sha.hexdigest()


def audit_daily(
    files: list[Path],
    work: Path,
    gap_source: str | None,
    notes: DailyNotes,
    source: Path | None = None,
) -> list[Path]:
    """Import and audit each file into ``work/<stem>`` (skipping unchanged ones); the OUTs of
    the days audited. A refused day goes into ``notes.refused``, a changed one into
    ``notes.reaudited``. ``source``: the folder of the files, held to one per ``work``."""
    stems = [f.stem for f in files]
    if len(set(stems)) != len(stems):
        twice = next(s for s in stems if stems.count(s) > 1)
        raise AnalysisError(f"trend: two daily files are named {twice}; give each day one file")
    if blocked := next((p for p in (work, *work.parents) if p.is_file()), None):
        raise AnalysisError(f"trend: work folder {work}: {blocked} is a file; give --work a folder")
    made = not work.exists()
    if source is not None:
        _check_source(work, source)
    work.mkdir(parents=True, exist_ok=True)
    try:
        with holding(work):
            outs = _audit_days(files, work, gap_source, notes)
        if source is not None and any(work.iterdir()):
            atomic_write_text(work / SOURCE, str(source.resolve()) + "\n")
        return outs
    finally:
        if made and work.is_dir() and not any(work.iterdir()):
            work.rmdir()  # a refused first file leaves no empty work dir behind


def _check_source(work: Path, source: Path) -> None:
    """One ``--work`` holds one folder's days across calls too: another folder's same day would
    replace its audit (and each trend would re-audit the other's days, setting labels aside)."""
    try:
        held = (work / SOURCE).read_text(encoding="utf-8").strip()
    except (FileNotFoundError, NotADirectoryError):
        return  # a new --work, or one from before the mark: claimed once audited
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"trend: {work / SOURCE}: unreadable ({exc}); move it aside") from None
    if held != str(source.resolve()):
        raise InputError(
            f"trend: --work {work} holds the days of {held}, not of {source}; nothing was "
            f"audited: give {source} its own --work (or, if {held} was moved to {source}, "
            f"delete {work / SOURCE})"
        )


def _audit_days(
    files: list[Path], work: Path, gap_source: str | None, notes: DailyNotes
) -> list[Path]:
    days = {p.stem: Day(_digest(p), _spec(p.stem, gap_source)) for p in files}
    left = stages(
        work, {k: d.digest for k, d in days.items()}, {k: d.spec for k, d in days.items()}
    )
    outs = []
    for path in files:
        out, day = work / path.stem, days[path.stem]
        day.resumed = left.get(path.stem)
        earlier = (out / "audit.db").exists()
        try:
            audited = _audit_one(path, out, day)
        except JudgeauditError as exc:
            if exc.exit_code != 2:
                raise  # interrupted or incomplete: kept, and the next trend resumes that day
            kept = f" (its earlier audit is kept in {out}, not shown)" if earlier else ""
            notes.refused.append({"period": path.stem, "file": str(path), "reason": f"{exc}{kept}"})
            continue
        if audited and earlier:
            notes.reaudited.append(str(path))
        if day.labels is not None:
            notes.labels.append({"period": path.stem, **day.labels.as_json()})
        outs.append(out)
        if (unjudged := _kept_count(out, "pairs_without_verdict")) is not None:
            notes.unjudged[str(out)] = unjudged
        if (contradicting := _kept_count(out, "verdicts_contradicting")) is not None:
            notes.contradicting[str(out)] = contradicting
    return outs


def _kept_count(out: Path, key: str) -> int | None:
    """A count the day's import record keeps (``pairs_without_verdict``,
    ``verdicts_contradicting``); None for a day imported before it was kept."""
    try:
        return int(json.loads((out / IMPORTED).read_text())[key])
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


def _spec(day: str, gap_source: str | None) -> str:
    spec = SPEC.format(name=json.dumps(f"daily-{day}")[1:-1])
    return spec + (f'[gap]\nsource = "{gap_source}"\n' if gap_source else "")


def _audit_one(path: Path, out: Path, day: Day) -> bool:
    """One daily file imported and audited into ``out``; False when its earlier audit is of
    this very content (kept), True when it was audited now. The audit runs in a staging folder
    (:mod:`judgeaudit.day_stage`; one a stopped trend left is resumed) that replaces ``out``
    only once finished: a refusal leaves ``out`` as it was."""
    _check_name(path)
    kept = out / DIGEST
    if kept.is_file() and kept.read_text().strip() == day.digest and _one_run(out):
        return False
    if out.exists() and not kept.is_file():
        raise InputError(
            f"{path}: {out} exists and holds no {DIGEST}, so trend did not make it (a folder of "
            "yours); move it, or give --work another folder; nothing was changed"
        )
    stage = day.resumed or new_stage(out.parent, out.name, path, day.digest, day.spec)
    try:
        if not (stage / IMPORTED).is_file():  # else its import finished before it stopped
            summary = import_rollouts("recorded-jsonl", [path], stage / "pairs.jsonl", None,
                                      None, period_of_name(path.stem), force=True)  # fmt: skip
            record = {"source": path.name, "pairs_read": summary.read,
                      "pairs_without_verdict": summary.without_verdict,
                      "lines_skipped": summary.skips.count,
                      "verdicts_contradicting": summary.contradictions.count}  # fmt: skip
            atomic_write_text(stage / "spec.toml", day.spec)
            atomic_write_text(stage / IMPORTED, json.dumps(record, indent=1) + "\n")
        try:
            run_audit_blocking(stage / "spec.toml", stage, new_run=False)
        except JudgeauditError as exc:
            if exc.exit_code != 2:
                raise
            shown = str(exc).replace(str(stage), str(out))
            raise InputError(f"{path}: its audit refused the imported pairs: {shown}") from None
        if out.exists():
            day.labels = carry_labels(out, stage)
        atomic_write_text(stage / DIGEST, day.digest + "\n")
        aside = replace(stage, out)
        if day.labels is not None and aside is not None:
            day.labels.kept_in = str(aside)
    except (IncompleteRun, Terminated, KeyboardInterrupt):
        raise  # kept, marked: the next trend resumes this audit where it stopped
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return True


def audited_into(target: Path, work: Path | None) -> Path:
    """Where a folder of daily files has its days audited: ``--work``, else its default
    (:func:`default_work`). The CLI's resolve and the app's Trends status both read it, so the
    folder the app names is the one written."""
    return work or default_work(target)


def resolve(
    targets: list[str],
    work: Path | None,
    gap_source: str | None = None,
    notes: DailyNotes | None = None,
) -> list[str]:
    """The targets with each folder of daily files replaced by the folders of its audited runs."""
    notes = notes if notes is not None else DailyNotes()
    daily = [t for t in targets if daily_files(Path(t))]
    if work is not None and len(daily) > 1:
        # one work folder holds one folder's days: two folders' 2026-12-01 would replace each
        # other's audit (and re-audit both on every run), and one's staging would be cleaned
        # away by the other's
        raise InputError(
            f"trend: --work {work} is given to two folders of daily files ({daily[0]} and "
            f"{daily[1]}); nothing was audited: give each folder its own trend and --work"
        )
    resolved: list[str] = []
    for target in targets:
        files = daily_files(Path(target))
        if is_history(Path(target)):  # its periods are daily imports: a day is expected each day
            notes.given = True
            periods = [r.period for r in history_runs(Path(target))]
            notes.missing += [{"period": d, "history": target} for d in missing_days(periods)]
        if not files:
            resolved.append(target)
            continue
        notes.given = True
        notes.ignored += ignored_files(Path(target))
        notes.missing += [
            {"period": d, "folder": target} for d in missing_days([f.stem for f in files])
        ]
        into = audited_into(Path(target), work)
        held = Path(target) if work is not None else None  # the default --work sits inside it
        resolved += [str(o) for o in audit_daily(files, into, gap_source, notes, held)]
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
        if period["out"] in notes.contradicting:
            period["verdicts_contradicting"] = notes.contradicting[period["out"]]
    if notes.given:  # also how the charts know a day is expected each day
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
