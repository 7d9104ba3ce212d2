"""Whether two runs judged the same conversations: the one rule ``compare`` (and so the gate)
and ``judges`` pair runs by.

The same conversations are one lineage (a run and its re-judges), or, between runs that made
no conversations of their own (imports, re-judges), the same stored transcripts. In both, a pair
the two runs hold must be the same pair: the same success labels and, where both logs gave one,
the same pair id in the log (``audit_pairs.source_id``). That second test is what tells two days
of a production log apart: their transcripts are usually empty, so they digest alike, while
their pair ids and success labels differ. Runs whose labels differ in a shared pair are not
paired at all: leaving those pairs out and gating the rest (the rule before) gated two
independent days on the pairs whose labels happened to agree.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from judgeaudit.analysis.frame import load_pairs, open_db, resolve_run, stored_manifest
from judgeaudit.analysis.judged_by import as_judged, judged_by
from judgeaudit.analysis.paired import KEY, with_trials
from judgeaudit.audit.spec.records import recorded_verdicts

#: Why two runs are compared as independent samples (``compare``'s line, the gate's refusal,
#: the app's Runs screen): runs that simulated their own conversations are never matched, even
#: when a deterministic provider made the same ones (docs/gate.md: seeds differ far more than
#: binomial noise); imported or re-judged conversations are matched when they are the same.
SIMULATED_APART = "each run simulated its own conversations"
DIFFERENT = "the runs judged different conversations"


@dataclass(frozen=True)
class Pairing:
    """Whether two runs are paired; ``basis`` says on what when they are, ``because`` why not."""

    paired: bool
    basis: str | None = None
    because: str | None = None


def run_lineage(out: Path, run_id: str | None) -> dict[str, Any]:
    """A run's identity, the run whose conversations it judged (itself, unless a re-judge), its
    pairs and its manifest with the judge its verdicts name (:func:`as_judged`)."""
    db = open_db(out)
    try:
        chosen = resolve_run(db, run_id)
        row = db.execute("SELECT * FROM runs WHERE run_id = ?", (chosen,)).fetchone()
        pairs = load_pairs(db, chosen)
        manifest = stored_manifest(row["manifest"], str(row["run_id"]))
        recorded = recorded_verdicts(manifest)
        judged = as_judged(manifest, judged_by(db, chosen, manifest)) if recorded else manifest
    finally:
        db.close()
    key = manifest.get("run_uid") or f"{row['run_id']}:{row['spec_hash']}:{row['created_at']}"
    trajectories = manifest.get("trajectories") or {}
    return {
        "run_id": chosen,
        "key": key,
        "root": trajectories.get("root") or key,
        "source_run_id": trajectories.get("source_run_id"),
        "pairs": pairs,
        "own_agents": bool((manifest.get("models") or {}).get("agents")),
        "recorded": recorded,
        "manifest": judged,
        "period": manifest.get("period"),
    }


def pair_runs(out_a: Path, a: dict[str, Any], out_b: Path, b: dict[str, Any]) -> Pairing:
    """Whether runs ``a`` and ``b`` (:func:`run_lineage`) judged the same conversations. Only
    runs that made no conversations of their own are fingerprinted, so simulated runs are never
    read twice."""
    lineage = a["root"] == b["root"]
    if not lineage and (a["own_agents"] or b["own_agents"]):
        if a["own_agents"] and b["own_agents"]:
            return Pairing(False, because=SIMULATED_APART)
        return Pairing(
            False, because=f"run {'A' if a['own_agents'] else 'B'} simulated its own conversations"
        )
    found = differences(a["pairs"], b["pairs"], lineage)
    if not lineage and a["period"] and b["period"] and a["period"] != b["period"]:
        # a log that restarts its pair ids each day, on a fixed task set (a daily canary), has
        # the same ids and labels on every day: the days are still different conversations
        found.append(f"they are logs of different periods ({a['period']}, {b['period']})")
    if (
        not found
        and not lineage
        and _fingerprint(out_a, a["run_id"]) != _fingerprint(out_b, b["run_id"])
    ):
        found.append("their transcripts differ")
    if found:
        return Pairing(False, because=f"{DIFFERENT}: {'; '.join(found)}")
    return Pairing(True, basis=_basis(a, b, lineage))


def differences(a: pd.DataFrame, b: pd.DataFrame, lineage: bool) -> list[str]:
    """How the pairs both runs hold (matched on task, trials and agents) fail to be the same
    pairs: another log pair id, other success labels; none in common, across lineages."""
    columns = ["source_id", "success_a", "success_b"]
    left, right = (
        with_trials(x if "source_id" in x else x.assign(source_id=None))[[*KEY, *columns]]
        for x in (a, b)
    )
    merged = left.merge(right, on=KEY, suffixes=("_a", "_b"))
    shared = len(merged)
    if not shared:
        return [] if lineage else ["no pair in common"]
    ids_a, ids_b = merged["source_id_a"], merged["source_id_b"]
    ids = int((ids_a.notna() & ids_b.notna() & (ids_a != ids_b)).sum())
    labels = int(
        (
            (merged["success_a_a"] != merged["success_a_b"])
            | (merged["success_b_a"] != merged["success_b_b"])
        ).sum()
    )
    found = [
        f"{what} differ in {count}"
        for what, count in (("the logs' pair ids", ids), ("success labels", labels))
        if count
    ]
    return [f"of the {shared} pairs both hold, {' and '.join(found)}"] if found else []


def _basis(a: dict[str, Any], b: dict[str, Any], lineage: bool) -> str:
    if not lineage:
        return "both judged the same stored conversations (the same imported pairs)"
    if a["key"] == b["key"]:
        return "the same run"
    if b["source_run_id"] == a["run_id"]:
        return f"{b['run_id']} re-judges {a['run_id']}'s trajectories"
    if a["source_run_id"] == b["run_id"]:
        return f"{a['run_id']} re-judges {b['run_id']}'s trajectories"
    return "both re-judge the trajectories of the same run"


def _fingerprint(out: Path, run_id: str) -> str:
    """A digest of a run's conversations (task, agent, trial, events), not of its ids."""
    digest = hashlib.sha256()
    db = open_db(out)
    try:
        rows = db.execute(
            "SELECT task_id, agent, trial, events FROM trajectories WHERE run_id = ? "
            "ORDER BY task_id, agent, trial",
            (run_id,),
        )
        for task_id, agent, trial, events in rows:
            digest.update(f"{task_id}\x1f{agent}\x1f{trial}\x1f".encode())
            digest.update(hashlib.sha256(str(events).encode()).digest())
    finally:
        db.close()
    return digest.hexdigest()
