"""Which judge models and prompts gave a run's verdicts: the one answer ``trend``, ``compare``
and ``judges`` show.

A recorded-verdict run's spec names a placeholder judge (``recorded``) and no template was ever
rendered for it, so its manifest cannot say who judged: the log does, per verdict
(``audit_pairs.judge_model``, ``judge_logs.prompt_hash``). A live run's calls carry the hash of
the template they were rendered from (``judge_logs.prompt_template_hash``; ``prompt_hash`` is
the rendered messages', one per call), which its manifest holds too. A history (Parquet) keeps
what the import found.
"""

from __future__ import annotations

import copy
import sqlite3
from collections.abc import Mapping
from typing import Any, NamedTuple

from judgeaudit.analysis.engines.history import kept_judges
from judgeaudit.audit.spec.records import recorded_verdicts


class Judges(NamedTuple):
    """The judge models and prompt hashes a run's verdicts came from, sorted."""

    models: tuple[str, ...]
    prompt_hashes: tuple[str, ...]


def judged_by(db: sqlite3.Connection, run_id: str, manifest: Mapping[str, Any]) -> Judges:
    """The judges that actually gave the run's verdicts. A live run without template hashes on
    its calls (stored before they were kept) falls back on its manifest's; a recorded run never
    does (its manifest's judge template was not used)."""
    kept = kept_judges(db, run_id)
    if kept[0] or kept[1]:
        return Judges(*kept)
    recorded = recorded_verdicts(manifest)
    column = "prompt_hash" if recorded else "prompt_template_hash"
    models = [r[0] for r in db.execute(
        "SELECT DISTINCT judge_model FROM audit_pairs WHERE run_id = ? AND judge_model IS NOT NULL"
        " ORDER BY 1", (run_id,))]  # fmt: skip
    hashes = [r[0] for r in db.execute(
        f"SELECT DISTINCT {column} FROM judge_logs WHERE run_id = ? AND role = 'judge' AND"
        f" {column} IS NOT NULL ORDER BY 1", (run_id,))]  # fmt: skip
    if not hashes and not recorded:
        found = ((manifest.get("prompts") or {}).get("hashes") or {}).get("judge")
        hashes = [found] if found else []
    return Judges(tuple(str(m) for m in models), tuple(str(h) for h in hashes))


def shown(values: tuple[str, ...]) -> str | None:
    """Several judges or prompts as one value ("a, b"), None for none."""
    return ", ".join(values) or None


def as_judged(manifest: Mapping[str, Any], judges: Judges) -> dict[str, Any]:
    """A recorded run's manifest with the judge model and judge prompt hash its verdicts carry
    (``models.judge.model``, ``prompts.hashes.judge``), so a comparison of manifests lists a
    change of judge; any other manifest as it is."""
    found = copy.deepcopy(dict(manifest))
    if not recorded_verdicts(manifest):
        return found
    models = found.setdefault("models", {})
    judge = models.get("judge") if isinstance(models.get("judge"), dict) else {}
    models["judge"] = {**judge, "model": shown(judges.models)}
    prompts = found.setdefault("prompts", {})
    hashes = prompts.get("hashes") if isinstance(prompts.get("hashes"), dict) else {}
    prompts["hashes"] = {**hashes, "judge": shown(judges.prompt_hashes)}
    return found
