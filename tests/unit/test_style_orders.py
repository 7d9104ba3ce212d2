"""The style model's judged orders, read by SQL joins into columns, held to their definition by a
reference built here with pandas from the same audit.db: every pair joined to its two stored
trajectories by (task, agent, trial), a key stored twice named by its last trajectory (at the
place of its first), pairs with a side missing left out, one order per verdict for A or B (ties
and orders without a verdict left out), pairs in pair_id order with AB before BA."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from judgeaudit.analysis.features import FEATURES, features
from judgeaudit.analysis.frame import AnalysisError, open_db
from judgeaudit.analysis.why import fit_style
from judgeaudit.analysis.why_data import RunData, load_run
from judgeaudit.audit.spec.lexicon import lexicon
from judgeaudit.audit.store import PAIR_COLUMNS, AuditStore

AGENTS = ("x", "y", "z")


def _events(rng: random.Random) -> str:
    """Short (grouped in SQL) or long (read one by one) transcripts, some repeated."""
    said = rng.choice(["", "Thanks! Done.", "I have processed your refund, order #W123. " * 3])
    events = [{"role": "agent", "content": said}] if said else []
    if rng.random() < 0.3:
        events.append({"role": "tool_call", "content": "lookup"})
    return json.dumps(events)


def _pair(i: int, rng: random.Random) -> dict[str, Any]:
    task = f"t{rng.randrange(9):02d}"
    a, b = rng.sample(AGENTS, 2)
    sa, sb = rng.randint(0, 1), rng.randint(0, 1)
    ab, ba = (rng.choice(["A", "B", "A", "B", "tie", None]) for _ in range(2))
    pref = ab if ab == ba and ab else "tie"
    winner = "A" if sa > sb else "B" if sb > sa else None
    row: dict[str, Any] = dict.fromkeys(PAIR_COLUMNS)
    row.update(
        pair_id=f"p{rng.randrange(10**6):06d}-{i}", task_id=task, agent_a=a, agent_b=b,
        success_a=sa, success_b=sb, judge_pref=pref, run_id="r1", judge_model="j",
        misselected=int(winner is not None and pref not in (winner, "tie")),
        trial=rng.choice([0, 1, None]), trial_b=rng.choice([None, None, 0, 2]),
        pref_ab=ab, pref_ba=ba,
    )  # fmt: skip
    return row


def audit_db(out: Path, seed: int = 3) -> Path:
    """A run of 300 pairs over 9 tasks; trajectories for most (task, agent, trial) keys, some
    stored twice with other events, some missing; agent tokens for some."""
    rng = random.Random(seed)
    out.mkdir()
    AuditStore(out / "audit.db").close()
    pairs = [_pair(i, rng) for i in range(300)]
    trajectories, calls = [], []
    for n, (task, agent, trial) in enumerate(
        (f"t{t:02d}", agent, trial) for t in range(9) for agent in AGENTS for trial in range(3)
    ):
        for copy in range(2 if rng.random() < 0.15 else 1 if rng.random() < 0.9 else 0):
            traj_id = f"{task}/{agent}/{trial}/{copy}"
            trajectories.append((traj_id, task, agent, trial, _events(rng), rng.randint(0, 1)))
            if rng.random() < 0.2:
                calls += [(traj_id, rng.randint(0, 50)) for _ in range(rng.randint(1, 2))]
        if n % 7 == 0:  # another run's trajectory under the same key: not this run's
            trajectories.append((f"other/{n}", task, agent, trial, "[]", 1))
    db = sqlite3.connect(out / "audit.db")
    with db:
        db.execute(
            "INSERT INTO runs (run_id, spec_hash, manifest, status) VALUES ('r1', 'h', ?, 'x')",
            (json.dumps({"settings": {}}),),
        )
        db.executemany(
            f"INSERT INTO audit_pairs ({', '.join(PAIR_COLUMNS)})"
            f" VALUES ({', '.join('?' for _ in PAIR_COLUMNS)})",
            [[r[c] for c in PAIR_COLUMNS] for r in pairs],
        )
        db.executemany(
            "INSERT INTO trajectories (traj_id, run_id, task_id, agent, trial, events, success,"
            " success_source) VALUES (?, CASE WHEN ? LIKE 'other/%' THEN 'r0' ELSE 'r1' END,"
            " ?, ?, ?, ?, ?, 'state')",
            [(t[0], t[0], *t[1:]) for t in trajectories],
        )
        db.executemany(
            "INSERT INTO calls (run_id, scope, role, model, completion_tokens)"
            " VALUES ('r1', ?, 'agent', 'm', ?)",
            calls,
        )
    db.close()
    return out


def reference(path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(every key's features in the order first stored, every judged order), by pandas."""
    db = sqlite3.connect(path)
    traj = pd.read_sql_query(
        "SELECT rowid AS r, traj_id, task_id, agent, trial, events, success FROM trajectories"
        " WHERE run_id = 'r1' ORDER BY rowid",
        db,
    )
    calls = pd.read_sql_query("SELECT scope, role, completion_tokens FROM calls", db)
    pairs = pd.read_sql_query("SELECT * FROM audit_pairs WHERE run_id = 'r1'", db)
    db.close()
    used = calls[(calls.role == "agent") & (calls.completion_tokens > 0)]
    tokens = used.groupby("scope").completion_tokens.sum()
    lex = lexicon(None)
    traj["f"] = pd.Series(
        [
            features(json.loads(e), bool(s), lex, int(tokens[t]) if t in tokens.index else None)
            for t, e, s in zip(traj.traj_id, traj.events, traj.success, strict=True)
        ],
        index=traj.index,
        dtype=object,
    )
    key = ["task_id", "agent", "trial"]
    first = traj.groupby(key).r.min().rename("first")
    sides = traj.drop_duplicates(key, keep="last").join(first, on=key).sort_values("first")
    pairs["trial_a"] = pairs.trial.fillna(0).astype(int)
    pairs["trial_b"] = pairs.trial_b.fillna(pairs.trial).fillna(0).astype(int)
    table = sides[[*key, "f"]]
    joined = pairs.merge(
        table.rename(columns={"agent": "agent_a", "trial": "trial_a", "f": "fa"}),
        on=["task_id", "agent_a", "trial_a"],
    ).merge(
        table.rename(columns={"agent": "agent_b", "trial": "trial_b", "f": "fb"}),
        on=["task_id", "agent_b", "trial_b"],
    )
    ab = joined[joined.pref_ab.isin(["A", "B"])].assign(
        order=0, y=lambda d: (d.pref_ab == "A").astype(float), first=lambda d: d.fa,
        second=lambda d: d.fb, fs=lambda d: d.success_a, ss=lambda d: d.success_b,
    )  # fmt: skip
    ba = joined[joined.pref_ba.isin(["A", "B"])].assign(
        order=1, y=lambda d: (d.pref_ba == "B").astype(float), first=lambda d: d.fb,
        second=lambda d: d.fa, fs=lambda d: d.success_b, ss=lambda d: d.success_a,
    )  # fmt: skip
    orders = pd.concat([ab, ba]).sort_values(["pair_id", "order"]).reset_index(drop=True)
    return sides.reset_index(drop=True), orders


def _as_columns(data: RunData) -> pd.DataFrame:
    o = data.orders
    return pd.DataFrame(
        {
            "pair_id": [o.pair_ids.get(int(p)) for p in o.pair],
            "y": o.y,
            "first": [data.features[int(i)] for i in o.first],
            "second": [data.features[int(i)] for i in o.second],
            "fs": o.first_success,
            "ss": o.second_success,
            "misselected": o.misselected,
            "group": o.group,
        }
    )


def test_orders_and_sides_match_a_pandas_join(tmp_path: Path) -> None:
    out = audit_db(tmp_path / "out")
    sides, orders = reference(out / "audit.db")
    assert sides.traj_id.str.endswith("/1").any()  # a key stored twice: the last one named it
    assert 0 < len(orders) < 2 * 300  # sides missing, ties and orders without a verdict
    db = open_db(out)
    try:
        data = load_run(db, "r1")
        again = load_run(db, "r1")  # TEMP tables dropped, no transaction left open
        assert not db.in_transaction
    finally:
        db.close()
    got = _as_columns(data)
    assert data.pairs == 300 and data.stored == len(sides)
    assert data.side_features() == list(sides.f)
    assert len(got) == len(orders) == len(again.orders)
    assert list(got["first"]) == list(orders["first"])
    assert list(got["second"]) == list(orders["second"])
    np.testing.assert_array_equal(got.y, orders.y)
    np.testing.assert_array_equal(got.fs, orders.fs)
    np.testing.assert_array_equal(got.ss, orders.ss)
    np.testing.assert_array_equal(got.misselected, orders.misselected.astype(bool))
    missel = orders.misselected.astype(bool)
    assert list(got.pair_id[missel]) == list(orders.pair_id[missel])
    tasks = sorted(set(orders.task_id))
    np.testing.assert_array_equal(got.group, [tasks.index(t) for t in orders.task_id])
    assert data.orders.tasks == len(tasks)
    # the SD scale over the run's trajectories, each key once
    for name in FEATURES:
        assert list(data.values(name)[data.sides]) == [getattr(f, name) for f in sides.f]


def test_explained_pairs_are_misselected_pairs_of_the_run(tmp_path: Path) -> None:
    out = audit_db(tmp_path / "out", seed=11)
    _, orders = reference(out / "audit.db")
    db = open_db(out)
    try:
        style = fit_style(load_run(db, "r1"))
    finally:
        db.close()
    assert style["status"] == "ok", style.get("note")
    assert style["orders"] == len(orders) and style["tasks"] == orders.task_id.nunique()
    missel = set(orders.pair_id[orders.misselected.astype(bool)])
    assert style["misselected"] == len(missel)
    assert set(style["explained_pairs"]) <= missel


def test_a_damaged_transcript_is_one_line_and_leaves_the_connection_clean(tmp_path: Path) -> None:
    """A transcript that is not JSON stops the section with the readers' one line, every time,
    and leaves no scratch table or open transaction behind (a long one is read while the
    scratch tables are filled)."""
    out = audit_db(tmp_path / "out")
    db = sqlite3.connect(out / "audit.db")
    with db:
        db.execute("UPDATE trajectories SET events = '[{\"role\": ' || printf('%0100d', 1)")
    db.close()
    db = open_db(out)
    try:
        for _ in range(2):
            with pytest.raises(AnalysisError, match="a trajectory's events is not valid JSON"):
                load_run(db, "r1")
        assert not db.in_transaction
        assert db.execute("SELECT COUNT(*) FROM sqlite_temp_master").fetchone()[0] == 0
    finally:
        db.close()
