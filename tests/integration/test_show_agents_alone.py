"""``show OUT ace~weak``: the two agents alone, no task. It said "not found" where
``show OUT t0/ace~weak`` said the pairs it matches; it lists them and says how to pick one.
Past the first few it says how many more (it printed ``...`` where docs said it lists them),
and the agents typed the other way round get their "did you mean" (twenty-eighth session)."""

from __future__ import annotations

import sqlite3
import unicodedata
from pathlib import Path

from judgeaudit.analysis.pair_detail import SHOW_MATCHES
from tests.audit_helpers import finished_run, write_spec, write_tasks
from tests.cli_helpers import cli

TASKS = SHOW_MATCHES + 2


def test_the_agents_alone_list_their_pairs_and_how_to_pick_one(tmp_path: Path) -> None:
    out = finished_run(tmp_path, TASKS)
    db = sqlite3.connect(out / "audit.db")
    ids = [
        r
        for (r,) in db.execute(
            "SELECT pair_id FROM audit_pairs WHERE agent_a = 'ace' AND agent_b = 'weak'"
            " ORDER BY pair_id"
        )
    ]
    db.close()
    assert len(ids) == TASKS  # one per task
    done = cli("show", str(out), "ace~weak")
    assert done.returncode == 2
    tail = ids[0].partition("/")[2]
    shown = ", ".join(repr(i) for i in ids[:SHOW_MATCHES])
    assert done.stderr.strip() == (
        f"judgeaudit: pair 'ace~weak' matches {TASKS} pairs on {TASKS} tasks ({shown} and 2"
        f" more); put the task and trial first, as {tail!r}, or give the whole id (the run's id"
        " first)"
    )
    picked = cli("show", str(out), tail)  # the way out it names opens the pair
    assert picked.returncode == 0 and picked.stdout.startswith(f"pair {ids[0]}"), picked.stderr
    assert "not found" in cli("show", str(out), "ace~nobody").stderr
    turned = cli("show", str(out), "weak~ace")
    assert turned.returncode == 2
    assert turned.stderr.strip() == (
        "judgeaudit: pair 'weak~ace' not found; did you mean 'ace~weak' (the agents the other"
        f" way round: {TASKS} pairs on {TASKS} tasks)?"
    )


def test_a_tail_without_its_task_says_to_put_the_task_first(tmp_path: Path) -> None:
    """``show OUT t0/ácé~弱い``, the trials part and the agents, no task: it said only "give
    the whole id"; it counts its pairs, lists the first few and names the task that picks one
    (twenty-ninth session). Typed with decomposed accents, as some terminals send them."""
    write_tasks(tmp_path / "tasks.jsonl", TASKS)
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl")
    text = spec.read_text(encoding="utf-8")
    spec.write_text(
        text.replace('name = "ace"', 'name = "ácé"').replace('name = "weak"', 'name = "弱い"'),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    assert cli("run", str(spec), "--out", str(out)).returncode == 0
    db = sqlite3.connect(out / "audit.db")
    ids = [
        r
        for (r,) in db.execute(
            "SELECT pair_id FROM audit_pairs WHERE agent_a = 'ácé' AND agent_b = '弱い'"
            " ORDER BY pair_id"
        )
    ]
    db.close()
    assert len(ids) == TASKS  # one per task
    typed = unicodedata.normalize("NFD", "t0/ácé~弱い")
    done = cli("show", str(out), typed)
    assert done.returncode == 2
    tail = ids[0].partition("/")[2]
    shown = ", ".join(repr(i) for i in ids[:SHOW_MATCHES])
    assert done.stderr.strip() == (
        f"judgeaudit: pair {typed!r} matches {TASKS} pairs on {TASKS} tasks ({shown} and 2"
        f" more); put the task first, as {tail!r}, or give the whole id (the run's id first)"
    )
    picked = cli("show", str(out), tail)  # the way out it names opens the pair
    assert picked.returncode == 0 and picked.stdout.startswith(f"pair {ids[0]}"), picked.stderr
    assert "not found" in cli("show", str(out), "t9/ácé~弱い").stderr
