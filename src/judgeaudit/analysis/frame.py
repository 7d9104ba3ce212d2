"""Loading audit_pairs and human_labels into pandas, and the gap definitions the report can switch between."""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgeaudit.analysis.fmt import edges_text
from judgeaudit.audit.store import open_readonly
from judgeaudit.audit.store.damage import damaged_line
from judgeaudit.audit.store.readonly import RUN_ORDER, check_regular
from judgeaudit.audit.units import gap as gaps
from judgeaudit.audit.units.outcome import decisive
from judgeaudit.errors import InputError
from judgeaudit.suggest import command
from judgeaudit.validate import SQLITE_HEADER, duplicates, shown_name

if TYPE_CHECKING:  # pandas is imported where a frame is built: the SQL report needs none
    import pandas as pd

    from judgeaudit.analysis.engines.dialect import Pairs

#: What the gap measures, as report headers name it.
GAP_NAMES = {
    "capability": "capability gap (|success rate A - success rate B|)",
    "judge": "judge-score gap (|score A - score B|)",
    "external": "external reward gap (|reward A - reward B|)",
}
LABELS_ZH = ["近同", "小差", "中差", "大差"]
LABELS_EN = ["near", "small", "medium", "large"]


class AnalysisError(InputError):
    """An output directory or run that cannot be analysed; the message says what to do."""


def _folder_of_runs(out: Path) -> str | None:
    """A folder holding output directories (``demo --monitor``'s runs/), not one: said so,
    with one of them and ``trend``, which reads them all; None for any other folder."""
    if not out.is_dir():
        return None
    for depth in ("*/audit.db", "*/*/audit.db"):
        if found := sorted(out.glob(depth)):
            first = found[0].parent
            return (
                f"{out}: a folder of runs ({len(found)} output directories, e.g. {first}), not "
                f"one run; give one of them, or follow them all with "
                f"`{command('trend', first.parent)}`"
            )
    return None


def open_db(out: Path) -> sqlite3.Connection:
    from judgeaudit.analysis.engines.history import is_history, records_db

    if is_history(out):  # a Parquet history: its run records, its pairs on DuckDB or Spark
        return records_db(out)
    named = not out.is_dir()  # the user named a file, not an OUT directory
    path = out if named else out / "audit.db"
    if not path.exists():
        raise AnalysisError(
            _folder_of_runs(out)
            or f"{path}: no audit database; run `{command('run', 'SPEC', '--out', out)}` first"
        )
    check_regular(path)
    with path.open("rb") as handle:
        head = handle.read(len(SQLITE_HEADER))
    if head != SQLITE_HEADER:
        raise AnalysisError(_not_audit_db(path, out, named, "not SQLite", empty=not head))
    try:
        db = open_readonly(path)
    except InputError as exc:
        raise AnalysisError(str(exc)) from None
    try:
        db.execute("SELECT run_id FROM runs LIMIT 1")
    except sqlite3.DatabaseError:
        db.close()
        raise AnalysisError(_not_audit_db(path, out, named, "no runs table")) from None
    return db


def _not_audit_db(path: Path, out: Path, named: bool, why: str, empty: bool = False) -> str:
    """Worded by what the user gave: a file that is not an OUT directory, or an OUT whose
    audit.db is empty (a run stopped as it began) or damaged."""
    if named:
        return f"{path}: not an audit database ({why}); give an OUT directory"
    if empty:
        return f"{path}: empty, no run was stored in it; run `judgeaudit run SPEC --out {out}`"
    return damaged_line(path, why)


def stored_json(text: Any, what: str) -> Any:
    """A JSON column of ``audit.db`` parsed; a value damaged or edited by hand is one line
    (report, judges, exports and ``show`` read the same columns)."""
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        raise AnalysisError(
            f"audit.db: {what} is not valid JSON (the database was damaged or edited by hand); "
            "rerun the audit into a fresh --out"
        ) from None


def stored_manifest(text: Any, run_id: str) -> dict[str, Any]:
    """A run's stored manifest as an object (the same check a re-judge makes of its source)."""
    from judgeaudit.audit.inputs.source_check import manifest_of

    return manifest_of(text, f"audit.db: run {run_id}", AnalysisError)


def resolve_run(db: sqlite3.Connection, run_id: str | None) -> str:
    rows = db.execute(f"SELECT run_id FROM runs {RUN_ORDER}").fetchall()
    if not rows:
        raise AnalysisError("the audit database holds no runs")
    ids = [r[0] for r in rows]
    if run_id is None:
        return str(ids[-1])
    if run_id not in ids:
        raise AnalysisError(f"run {shown_name(run_id)} not found; runs here: {', '.join(ids)}")
    return run_id


def load_pairs(db: sqlite3.Connection, run_id: str) -> pd.DataFrame:
    import pandas as pd

    return pd.read_sql_query("SELECT * FROM audit_pairs WHERE run_id = ?", db, params=(run_id,))


def stored_labels(db: sqlite3.Connection) -> pd.DataFrame:
    """The human labels stored in an audit.db: the one reader the report, Review, the review
    sample and the one-mark-per-conversation checks use."""
    import pandas as pd

    return pd.read_sql_query("SELECT * FROM human_labels", db)


def pairs_by_id(
    engine: Pairs, run_id: str, ids: Iterable[str], columns: Sequence[str]
) -> pd.DataFrame:
    """``columns`` of the pairs of ``run_id`` named in ``ids`` (the labelled handful of a large
    run: only those are read), each chunk in the run's order; what agreement and the split
    conversations' check read of the pairs :func:`stored_labels` names."""
    import pandas as pd

    wanted = sorted(set(ids))
    found: list[tuple[Any, ...]] = []
    for start in range(0, len(wanted), 500):  # SQLite's default limit is 999 parameters
        chunk = wanted[start : start + 500]
        found += map(
            tuple,
            engine.execute(
                f"SELECT {', '.join(columns)} FROM audit_pairs WHERE run_id = ?"
                f" AND pair_id IN ({', '.join('?' * len(chunk))}) ORDER BY {engine.dialect.seq}",
                (run_id, *chunk),
            ).fetchall(),
        )
    return pd.DataFrame.from_records(found, columns=list(columns))


def gap_series(pairs: pd.DataFrame, source: str) -> pd.Series:
    """The gap under a declared source (:func:`judgeaudit.audit.units.gap.gap_series`)."""
    try:
        return gaps.gap_series(pairs, source)
    except gaps.GapSourceError as exc:
        raise AnalysisError(str(exc)) from None


def default_bins(source: str, pairs: pd.DataFrame) -> list[float]:
    """Default bin edges (:func:`judgeaudit.audit.units.gap.default_bins`) over the run's rewards."""
    if source != "external" or not len(pairs):
        return gaps.default_bins(source)
    import pandas as pd

    rewards = pd.concat([pairs["reward_a"], pairs["reward_b"]]).dropna().astype(float)
    if not len(rewards):
        return gaps.default_bins(source)
    return gaps.default_bins(source, float(rewards.min()), float(rewards.max()))


def decisive_mask(pairs: pd.DataFrame) -> pd.Series:
    """Pairs where exactly one agent succeeded (the engine's one definition, elementwise)."""
    return decisive(pairs["success_a"].astype(bool), pairs["success_b"].astype(bool))


def labels_for(bins: list[float], labels: list[str] | None) -> list[str]:
    if labels is not None:
        preset = labels[0] if labels in (["en"], ["zh"]) else None
        if preset is not None:
            labels = LABELS_EN if preset == "en" else LABELS_ZH
        if len(labels) != len(bins) - 1:
            if preset is not None:  # the user named a set, not a list: say what it holds
                raise AnalysisError(
                    f"--labels {preset}: names {len(labels)} buckets, but {len(bins)} bin edges"
                    f" make {len(bins) - 1}; give {len(bins) - 1} comma-separated names instead"
                )
            raise AnalysisError(
                f"--labels: {len(bins) - 1} labels needed for {len(bins)} bin edges"
            )
        duplicates(labels, "--labels", AnalysisError)  # a report row per bucket, each its own
        return labels
    if len(bins) - 1 == len(LABELS_ZH):
        return LABELS_ZH
    return [edges_text(bins[i], bins[i + 1]) for i in range(len(bins) - 1)]


def nan_to_none(value: object) -> object:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value
