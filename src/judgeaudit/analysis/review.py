"""Human review: a stratified sample out, labels in (validated, idempotent), agreement figures."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from judgeaudit import csvsafe
from judgeaudit.analysis.clustered import Sums, interval
from judgeaudit.analysis.fmt import TASK_WILSON
from judgeaudit.analysis.frame import AnalysisError, decisive_mask, open_db, stored_labels
from judgeaudit.analysis.label_conversations import contradicting, side_key, split_marks
from judgeaudit.analysis.review_labels import canonical_pref, cells, rows_of
from judgeaudit.analysis.review_weights import STRATA, stratum_of, weighted_figures
from judgeaudit.analysis.stats import KAPPA_METHOD, cohen_kappa, confusion, kappa_interval
from judgeaudit.audit.spec.limits import RUN_LIMITS
from judgeaudit.credentials import scrub_content
from judgeaudit.fsutil import atomic_write_text
from judgeaudit.score_scale import SATISFIED_AT
from judgeaudit.suggest import command
from judgeaudit.validate import FORCE_HINT, read_text, unless_forced

REVIEW_COLUMNS = (
    "pair_id",
    "stratum",
    "task_id",
    "agent_a",
    "agent_b",
    "judge_pref",
    "success_a",
    "success_b",
    "human_success_a",
    "human_success_b",
    "human_pref",
    "note",
)
#: The sample's size unless asked: `review export` without --n, the app's Review screen and its
#: palette export draw this many, so the app shows the pairs the CLI writes (same strata, seed 0).
SAMPLE_N = 40
#: The sample's default file in OUT (``review export``'s, the app's ``r``).
SAMPLE_FILE = "review_sample.csv"
#: The columns a reviewer fills in: a sample with any of them filled is their work.
REVIEWER_COLUMNS = REVIEW_COLUMNS[-4:]
#: What a blind sample (the default, as the app's Review starts blind) leaves out: the judge's
#: choice, the success check, and the stratum, which names the judge's errors ("misselected");
#: its rows are shuffled too, since the strata came in blocks.
UNBLINDING = ("stratum", "judge_pref", "success_a", "success_b")


def draws(seed: int) -> int | np.random.RandomState:
    """A fresh random state for one seeded draw, for every seed a run spec takes (0 to
    2**63-1): below 2**32 the seed itself, as before (earlier samples draw the same pairs);
    above it numpy's legacy generator, which takes 32 bits, is seeded by the seed's two words."""
    low, high = RUN_LIMITS["seed"]
    if not low <= seed <= high:
        raise AnalysisError(
            f"review export: --seed {seed}: give a seed from {low} to {high} (2^63-1), as a run "
            "spec's seed"
        )
    if seed < 2**32:
        return seed
    return np.random.RandomState([seed & 0xFFFFFFFF, seed >> 32])


def shuffled(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The sample's rows in a seeded random order: drawn in stratum blocks, the order would
    tell a blind reviewer each pair's stratum (the CSV's and the app's Review alike)."""
    return frame.sample(frac=1, random_state=draws(seed)).reset_index(drop=True)


def for_reviewer(frame: pd.DataFrame, blind: bool, seed: int) -> pd.DataFrame:
    """The sample as the reviewer gets it: blind (no :data:`UNBLINDING` column, rows
    :func:`shuffled`), or as drawn."""
    if not blind:
        return frame
    return shuffled(frame, seed).drop(columns=list(UNBLINDING))


def sample(
    pairs: pd.DataFrame,
    n: int,
    seed: int = 0,
    threshold: float = SATISFIED_AT,
    explained: tuple[str, set[str]] | None = None,
    stored: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """About n pairs: equal shares of each stratum (a partition of the run, so every pair has
    one known sampling probability), random controls filling what is short.

    ``explained`` (a name and pair ids, from ``review export --explained-by``) over-samples the
    misselected pairs the style model attributes to that feature: up to half of the sample is
    drawn from them first, as the stratum ``explained_by_NAME``. Such a sample is for looking
    at those cases: within their stratum they are over-represented, so the weighted agreement
    figures of a review built on it lean towards them (docs/why.md says so).

    ``stored`` (the ``human_labels`` rows) fills in the labels already given to sampled pairs."""
    strata = stratum_of(pairs, threshold)
    taken: list[pd.DataFrame] = []
    used = pd.Series(False, index=pairs.index)
    if explained is not None:
        name, ids = explained
        pool = pairs[pairs["pair_id"].isin(ids)]
        pick = pool.sample(n=min(max(1, n // 2), len(pool)), random_state=draws(seed))
        used |= pairs["pair_id"].isin(set(pick["pair_id"]))
        taken.append(pick.assign(stratum=f"explained_by_{name}"))
        n = max(0, n - len(pick))
    pools = {stratum: pairs[(strata == stratum) & ~used] for stratum in STRATA}
    counts = _stratum_counts({k: len(v) for k, v in pools.items()}, n)
    for stratum in STRATA:
        taken.append(
            pools[stratum]
            .sample(n=counts[stratum], random_state=draws(seed))
            .assign(stratum=stratum)
        )
    out = pd.concat(taken, ignore_index=True)
    for column in REVIEWER_COLUMNS:
        out[column] = ""
    if stored is not None and len(stored):
        _fill_stored(out, stored)
    return out[list(REVIEW_COLUMNS)]


def _stratum_counts(sizes: dict[str, int], n: int) -> dict[str, int]:
    """How many pairs each stratum gives: an equal share of ``n`` each but control, control
    what is left of ``n``; what control is short of goes, one at a time, to the
    other strata with pairs left (a new user: ``--n 40`` on a 40-pair run wrote 30), so the
    sample is ``n`` pairs whenever the run has them."""
    share = max(1, n // len(STRATA)) if n else 0
    counts = {s: min(share, sizes[s]) for s in STRATA[:-1]}
    wanted = max(0, n - sum(counts.values()))
    counts["control"] = min(wanted, sizes["control"])
    short = wanted - counts["control"]
    while short > 0:
        open_ = [s for s in STRATA[:-1] if counts[s] < sizes[s]]
        if not open_:
            break
        for stratum in open_[:short]:
            counts[stratum] += 1
            short -= 1
    return counts


def _fill_stored(out: pd.DataFrame, stored: pd.DataFrame) -> None:
    """The labels already stored for the sampled pairs, as a reviewer would type them: a pair
    shown blank was labelled again, and its import silently replaced the earlier labels."""
    by_pair = stored.set_index("pair_id")
    for column in REVIEWER_COLUMNS:
        if column not in by_pair:
            continue
        known = out["pair_id"].map(by_pair[column])
        out[column] = [_typed(v) for v in known]


def _as_stored(row: dict[str, Any]) -> tuple[str, ...]:
    """A sample row's reviewer cells as :func:`_stored_cells` shows a stored label: a
    preference in the case `review import` stores it (`a` imported is `A`)."""
    return tuple(
        canonical_pref(value) if column == "human_pref" else value
        for column in REVIEWER_COLUMNS
        for value in [(row.get(column) or "").strip()]
    )


def _stored_cells(out: Path) -> dict[str, tuple[str, ...]]:
    """The stored labels as a sample shows them (a row equal to them is no unsaved work)."""
    try:
        db = open_db(out)
    except AnalysisError:
        return {}
    try:
        labels = stored_labels(db)
    finally:
        db.close()
    return {
        str(row["pair_id"]): tuple(_typed(row[c]).strip() for c in REVIEWER_COLUMNS)
        for _, row in labels.iterrows()
    }


def _typed(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def sample_csv(frame: pd.DataFrame) -> str:
    """The sample as the CSV a reviewer fills in (key shapes in its content masked)."""
    buffer = io.StringIO()
    frame.map(csvsafe.cell).to_csv(buffer, index=False)  # a formula-like name shown as text
    return scrub_content(buffer.getvalue())


def write_sample(frame: pd.DataFrame, path: Path) -> None:
    atomic_write_text(path, sample_csv(frame))


class HeldSample(AnalysisError):
    """A sample not written over a reviewer's file; the app has no --force to name."""

    def in_app(self) -> str:
        return str(self).replace(FORCE_HINT, "or move that file aside, then export again")


def check_replace(path: Path, out: Path, force: bool) -> None:
    """Before a sample is written to ``path``: a sample a reviewer has filled in (any label or
    note) is their work, and so is a file that is no review sample at all; either is refused
    unless ``force``. An earlier sample with nothing filled in, or an empty file, is replaced."""
    unless_forced(force, _held(path, out), HeldSample)


def _held(path: Path, out: Path) -> str | None:
    """What replacing ``path`` would lose, as the start of the refusal; None: nothing."""
    if not path.is_file() or path.stat().st_size == 0:
        return None  # absent, or not a file (the writer refuses those with its own line)
    where = f"review export: --out {path}"
    try:
        rows = rows_of(read_text(path, "review sample", AnalysisError))
        if not set(REVIEWER_COLUMNS) <= set(rows.fieldnames or ()):
            return f"{where} is not a review sample (no {', '.join(REVIEWER_COLUMNS)} columns)"
        stored = _stored_cells(out)
        filled = sum(
            any(cells) and cells != stored.get((row.get("pair_id") or "").strip())
            for row in map(cells, rows)
            for cells in [_as_stored(row)]
        )
    except (AnalysisError, csv.Error):
        return f"{where} is not a readable review sample"
    if not filled:
        return None
    again = command("review", "import", out, path)
    rows_text = f"{filled} row{'' if filled == 1 else 's'} with labels or notes"
    return f"{where} holds {rows_text}; store the labels first with `{again}`"


def agreement(
    pairs: pd.DataFrame,
    labels: pd.DataFrame,
    population: dict[str, int] | None = None,
    threshold: float = SATISFIED_AT,
) -> dict[str, Any]:
    """Judge vs human (per pair) and success check vs human (per conversation, once each),
    unweighted as labelled and weighted back to the audit by stratum (``population``: pairs
    per stratum in the run; by default counted from ``pairs``)."""
    if labels.empty:
        return {"labelled": 0}
    if population is None:
        population = {
            str(k): int(v) for k, v in stratum_of(pairs, threshold).value_counts().items()
        }
    joined = pairs.merge(labels, on="pair_id")
    joined = joined.assign(stratum=stratum_of(joined, threshold))
    out: dict[str, Any] = {"labelled": len(joined)}
    conflicting = contradicting(joined)
    if conflicting:  # which of its parts is wrong is unknown: the whole label is left out
        out["contradicting"] = {"count": len(conflicting), "pair_ids": conflicting}
        joined = joined[~joined["pair_id"].isin(set(conflicting))]
    pref = joined[joined["human_pref"].notna()]
    if len(pref):
        judge, human = pref["judge_pref"].tolist(), pref["human_pref"].tolist()
        out["judge_vs_human"] = _compared(
            judge, human, pref["stratum"].tolist(), population, pref["task_id"].tolist()
        )
    check, human_s, strata, tasks = [], [], [], []
    seen, split = split_marks(joined)  # a conversation whose marks disagree: left out, said
    if split["count"]:
        out["marks_disagreeing"] = split
    for _, row in joined.iterrows():
        for side in ("a", "b"):
            key = side_key(row, side)
            if pd.isna(row[f"human_success_{side}"]) or key in seen:
                continue
            seen.add(key)
            check.append(int(row[f"success_{side}"]))
            human_s.append(int(row[f"human_success_{side}"]))
            strata.append(row["stratum"])
            tasks.append(row["task_id"])
    if check:
        out["success_check_vs_human"] = {
            **_compared(check, human_s, strata, population, tasks, per_pair=False),
            "unit": "conversation (task, agent, trial), counted once",
        }
    return out


#: How the figures as labelled get their intervals, as every output names them.
UNWEIGHTED = f"agreement: {TASK_WILSON}, clustered by task; kappa: {KAPPA_METHOD}"


def _compared(
    x: list[Any],
    y: list[Any],
    strata: list[str],
    population: dict[str, int],
    tasks: list[Any],
    per_pair: bool = True,
) -> dict[str, Any]:
    """Agreement as labelled with the report's interval (the items of one task share its
    conversations: clustered by task), kappa with its asymptotic interval clustered the same
    way, then the weighted figures."""
    per_task: dict[Any, tuple[int, int]] = {}
    for a, b, task in zip(x, y, tasks, strict=True):
        k, n = per_task.get(task, (0, 0))
        per_task[task] = (k + (a == b), n + 1)
    agreed = interval(Sums.of([(float(k), float(n)) for k, n in per_task.values()]))
    return {
        "n": len(x),
        "agreement": agreed["rate"],
        "agreement_ci": [agreed["ci_low"], agreed["ci_high"]],
        "kappa": cohen_kappa(x, y),
        "kappa_ci": list(kappa_interval(x, y, tasks)),
        "unweighted_interval": UNWEIGHTED,
        "confusion": confusion(x, y),
        **weighted_figures(x, y, strata, population, tasks, per_pair=per_pair),
    }


def decisive_share(pairs: pd.DataFrame) -> float:
    return float(decisive_mask(pairs).mean()) if len(pairs) else 0.0
