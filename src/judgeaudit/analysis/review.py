"""Human review: a stratified sample out, labels in (validated, idempotent), agreement figures."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pandas as pd

from judgeaudit.analysis.frame import AnalysisError, decisive_mask
from judgeaudit.analysis.stats import cohen_kappa, confusion
from judgeaudit.fsutil import atomic_write_text
from judgeaudit.validate import read_text

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
STRATA = ("satisfied_but_failed", "inconsistent", "misselected", "control")


def sample(
    pairs: pd.DataFrame,
    n: int,
    seed: int = 0,
    threshold: float = 4.0,
    explained: tuple[str, set[str]] | None = None,
) -> pd.DataFrame:
    """About n pairs: equal shares of each stratum, random controls filling what is short.

    ``explained`` (a name and pair ids, from ``review export --explained-by``) over-samples the
    misselected pairs the style model attributes to that feature: up to half of the sample is
    drawn from them first, as the stratum ``explained_by_NAME``."""
    taken: list[pd.DataFrame] = []
    used: set[str] = set()
    total = n
    if explained is not None:
        name, ids = explained
        pool = pairs[pairs["pair_id"].isin(ids)]
        pick = pool.sample(n=min(max(1, n // 2), len(pool)), random_state=seed)
        used |= set(pick["pair_id"])
        taken.append(pick.assign(stratum=f"explained_by_{name}"))
        n = max(0, n - len(pick))
    masks = {
        "satisfied_but_failed": ((pairs["judge_score_a"] >= threshold) & (pairs["success_a"] == 0))
        | ((pairs["judge_score_b"] >= threshold) & (pairs["success_b"] == 0)),
        "inconsistent": pairs["consistent"].fillna(1).astype(int) == 0,
        "misselected": pairs["misselected"].fillna(0).astype(int) == 1,
    }
    share = max(1, n // len(STRATA)) if n else 0
    for stratum, mask in masks.items():
        pool = pairs[mask & ~pairs["pair_id"].isin(used)]
        pick = pool.sample(n=min(share, len(pool)), random_state=seed)
        used |= set(pick["pair_id"])
        taken.append(pick.assign(stratum=stratum))
    rest = pairs[~pairs["pair_id"].isin(used)]
    remaining = max(0, total - sum(len(t) for t in taken))
    taken.append(
        rest.sample(n=min(remaining, len(rest)), random_state=seed).assign(stratum="control")
    )
    out = pd.concat(taken, ignore_index=True)
    for column in ("human_success_a", "human_success_b", "human_pref", "note"):
        out[column] = ""
    return out[list(REVIEW_COLUMNS)]


def write_sample(frame: pd.DataFrame, path: Path) -> None:
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    atomic_write_text(path, buffer.getvalue())


def _flag(value: str, where: str) -> int | None:
    value = value.strip().lower()
    if value == "":
        return None
    if value in ("1", "true", "yes", "y"):
        return 1
    if value in ("0", "false", "no", "n"):
        return 0
    raise AnalysisError(f"{where}: {value!r} is not 0/1; leave it empty to skip")


def read_labels(path: Path, known: set[str]) -> list[dict[str, Any]]:
    """Validate a filled-in review CSV; every problem names the line and column."""
    text = read_text(path, "review labels", AnalysisError)
    reader = csv.DictReader(io.StringIO(text), restval="")
    missing = {"pair_id", "human_success_a", "human_success_b", "human_pref"} - set(
        reader.fieldnames or []
    )
    if missing:
        raise AnalysisError(
            f"{path}: missing columns {', '.join(sorted(missing))}; export with `judgeaudit review export`"
        )
    rows = []
    try:
        for row in reader:
            label = _label(row, f"{path}:{reader.line_num}", known)
            if label is not None:
                rows.append(label)
    except csv.Error as exc:
        raise AnalysisError(f"{path}:{reader.line_num}: not a readable CSV row ({exc})") from None
    return rows


def _label(row: dict[str, Any], where: str, known: set[str]) -> dict[str, Any] | None:
    """One filled-in review row, or None when nothing was labelled on it."""
    pair_id = row["pair_id"].strip()
    if pair_id not in known:
        raise AnalysisError(f"{where}: pair_id: {pair_id!r} is not in this audit")
    pref = row["human_pref"].strip()
    if pref not in ("", "A", "B", "tie"):
        raise AnalysisError(f"{where}: human_pref: {pref!r} must be A, B, tie or empty")
    label = {
        "pair_id": pair_id,
        "human_success_a": _flag(row["human_success_a"], f"{where}: human_success_a"),
        "human_success_b": _flag(row["human_success_b"], f"{where}: human_success_b"),
        "human_pref": pref or None,
        "note": (row.get("note") or "").strip() or None,
    }
    if any(label[k] is not None for k in ("human_success_a", "human_success_b", "human_pref")):
        return label
    return None


def agreement(pairs: pd.DataFrame, labels: pd.DataFrame) -> dict[str, Any]:
    """Judge vs human (preference) and success check vs human (per side)."""
    if labels.empty:
        return {"labelled": 0}
    joined = pairs.merge(labels, on="pair_id")
    out: dict[str, Any] = {"labelled": len(joined)}
    pref = joined[joined["human_pref"].notna()]
    if len(pref):
        judge, human = pref["judge_pref"].tolist(), pref["human_pref"].tolist()
        out["judge_vs_human"] = {
            "n": len(pref),
            "agreement": sum(x == y for x, y in zip(judge, human, strict=True)) / len(pref),
            "kappa": cohen_kappa(judge, human),
            "confusion": confusion(judge, human),
        }
    check, human_s = [], []
    for side in ("a", "b"):
        part = joined[joined[f"human_success_{side}"].notna()]
        check += part[f"success_{side}"].astype(int).tolist()
        human_s += part[f"human_success_{side}"].astype(int).tolist()
    if check:
        out["success_check_vs_human"] = {
            "n": len(check),
            "agreement": sum(x == y for x, y in zip(check, human_s, strict=True)) / len(check),
            "kappa": cohen_kappa(check, human_s),
            "confusion": confusion(check, human_s),
        }
    return out


def decisive_share(pairs: pd.DataFrame) -> float:
    return float(decisive_mask(pairs).mean()) if len(pairs) else 0.0
