"""A seeded audit DB with every awkward value the report must handle, for the golden reports.

Three runs interleaved in one table (a report must read only its own), NULLs in every nullable
column the report reads (scores, rewards, capabilities, verdicts, flags, task type, judge
model, a judge that never scored A), gaps outside the bins, rewards spanning more than 1 (scaled default bins), a run with
more than BOOT_MAX_CLUSTERS tasks (the normal-interval path) and human labels.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from judgeaudit.audit.store import PAIR_COLUMNS, AuditStore

#: run id -> (pairs, tasks, created_at); the last one is the default run.
RUNS = {
    "r-wide": (12000, 6000, "2026-01-01 10:00:00"),
    "r-other": (700, 40, "2026-01-01 11:00:00"),
    "r-main": (4000, 300, "2026-01-01 12:00:00"),
}
AGENTS = {"a0": 0.21, "a1": 0.4375, "a2": 0.6, "a3": 0.875, "a4": None}
TYPES = ["refund", "billing", "运费", "account", None]
#: judge-z never gave A a score (its per-model sums over A stay NULL, as in SQL).
JUDGES = ["judge-x", "judge-y", "judge-z", None]


def _maybe(rng: random.Random, value: Any, share: float) -> Any:
    return None if rng.random() < share else value


def _row(rng: random.Random, run_id: str, index: int, tasks: int) -> dict[str, Any]:
    a, b = rng.sample(sorted(AGENTS), 2)
    sa, sb = int(rng.random() < 0.5), int(rng.random() < 0.45)
    pref_ab = _maybe(rng, rng.choice(["A", "B", "tie"]), 0.02)
    pref_ba = _maybe(rng, rng.choice(["A", "B", "tie"]), 0.1)
    consistent = None if pref_ba is None else int(pref_ab == pref_ba and rng.random() > 0.05)
    pref = pref_ab if consistent and pref_ab else "tie"
    judge = rng.choice(JUDGES)
    decisive = sa != sb
    missel = int(decisive and ((sa and pref == "B") or (sb and pref == "A")))
    return {
        "pair_id": f"{run_id}/{index}",
        "task_id": f"t{rng.randrange(tasks)}",
        "agent_a": a,
        "agent_b": b,
        "success_a": sa,
        "success_b": sb,
        "judge_pref": pref,
        "judge_score_a": _maybe(
            rng, round(rng.uniform(0, 5), 1), 1.0 if judge == "judge-z" else 0.03
        ),
        "judge_score_b": _maybe(rng, round(rng.uniform(0, 5), 1), 0.03),
        "reward_gap": None,
        "misselected": _maybe(rng, missel, 0.02),
        "created_at": "2026-01-01 12:00:00",
        "run_id": run_id,
        "task_type": rng.choice(TYPES),
        "trial": index % 3,
        "pref_ab": pref_ab,
        "pref_ba": pref_ba,
        "consistent": consistent,
        "gap_source": "judge",
        "satisfied_a": _maybe(rng, rng.randint(0, 1), 0.1),
        "satisfied_b": _maybe(rng, rng.randint(0, 1), 0.1),
        "success_source": "state",
        "capability_a": AGENTS[a],
        "capability_b": AGENTS[b],
        "reward_a": _maybe(rng, round(rng.uniform(0, 3), 2), 0.05),
        "reward_b": _maybe(rng, round(rng.uniform(0, 3), 2), 0.05),
        "judge_model": judge,
        "trial_b": index % 2,
        "source_id": None,
    }


def build_audit_db(out: Path, seed: int = 11, indexed: bool = False) -> Path:
    """``out/audit.db`` with the three runs' rows interleaved in rowid order (with the index a
    finished run builds for the report when ``indexed``)."""
    AuditStore(out / "audit.db").close()
    rng = random.Random(seed)
    db = sqlite3.connect(out / "audit.db")
    marks = ", ".join("?" for _ in PAIR_COLUMNS)
    names = ", ".join(PAIR_COLUMNS)
    left = {run_id: spec[0] for run_id, spec in RUNS.items()}
    counters = dict.fromkeys(RUNS, 0)
    with db:
        for run_id, (_pairs, _tasks, created) in RUNS.items():
            manifest = {"run_id": run_id, "settings": {"gap_source": "judge"}, "名前": "ü"}
            db.execute(
                "INSERT INTO runs (run_id, spec_hash, manifest, status, created_at)"
                " VALUES (?, 'h', ?, 'finished', ?)",
                (run_id, json.dumps(manifest, ensure_ascii=False), created),
            )
        while any(left.values()):
            run_id = rng.choice([r for r, n in left.items() if n])
            left[run_id] -= 1
            row = _row(rng, run_id, counters[run_id], RUNS[run_id][1])
            counters[run_id] += 1
            db.execute(
                f"INSERT INTO audit_pairs ({names}) VALUES ({marks})",
                [row[c] for c in PAIR_COLUMNS],
            )
        labelled = [f"r-main/{i}" for i in range(0, 400, 17)]
        db.executemany(
            "INSERT INTO human_labels (pair_id, human_success_a, human_success_b, human_pref,"
            " labelled_at) VALUES (?, ?, ?, ?, '2026-01-02 09:00:00')",
            [
                (pid, i % 2, (i // 2) % 2, ("A", "B", "tie")[i % 3])
                for i, pid in enumerate(labelled)
            ],
        )
    db.close()
    if indexed:
        store = AuditStore(out / "audit.db")
        store.index_for_report()
        store.close()
    return out


@contextmanager
def held_locked(db: Path) -> Iterator[None]:
    """``db`` locked as another process's open write transaction holds it (a ``sqlite3`` shell
    left in ``BEGIN EXCLUSIVE``, rollback-journal mode)."""
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()
