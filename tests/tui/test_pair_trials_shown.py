"""The trial the Pairs table and the Pair detail header show is the pair's own, not a part of
its id: with agents named like ``openai/gpt-4o`` the id's second-to-last '/'-part is a piece of
the agent names (the header said ``retail-0 gpt-4o~acme`` where it means ``retail-0 t1``)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from textual.widgets import Static

from judgeaudit.cli import main
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.app import JudgeAuditApp
from judgeaudit.tui.screens.pair import PairDetailScreen
from judgeaudit.tui.screens.pairs import PairsScreen
from judgeaudit.tui.widgets.fit_table import FitTable, plain
from tests.cli_helpers import cli
from tests.tui.helpers import settle

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"
NAMES = {"gpt-4o": "openai/gpt-4o", "small-model": "acme/small"}


def slash_named_run(tmp_path: Path) -> Path:
    pairs = tmp_path / "pairs.jsonl"
    rollouts = tmp_path / "rollouts.jsonl"
    text = (ROLLOUTS / "openai-rollouts.jsonl").read_text(encoding="utf-8")
    for old, new in NAMES.items():
        text = text.replace(f'"{old}"', f'"{new}"')
    rollouts.write_text(text, encoding="utf-8")
    assert main(["import", "openai-jsonl", str(rollouts), "--out", str(pairs)]) == 0
    (tmp_path / "spec.toml").write_text(
        '[run]\nname = "imp"\nimported = "pairs.jsonl"\n[judge]\nsource = "recorded"\n'
    )
    assert main(["run", str(tmp_path / "spec.toml"), "--out", str(tmp_path / "out")]) == 0
    return tmp_path / "out"


def test_pairs_table_and_pair_header_show_the_trial_with_slashes_in_agent_names(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    out = slash_named_run(tmp_path)
    db = sqlite3.connect(out / "audit.db")
    run_id, pair_id, task, trial, a, b = db.execute(
        "SELECT run_id, pair_id, task_id, trial, agent_a, agent_b FROM audit_pairs"
        " ORDER BY pair_id DESC LIMIT 1"
    ).fetchone()
    stored = sorted(
        f"t{t}" for (t,) in db.execute("SELECT trial FROM audit_pairs WHERE agent_a = ?", (a,))
    )
    db.close()
    assert {a, b} == set(NAMES.values())  # the ids hold slashes beyond the trial's

    async def go() -> tuple[list[str], str]:
        app = JudgeAuditApp(store=isolated, out_dir=out)
        async with app.run_test(size=(160, 50)) as pilot:
            app.push_screen(PairsScreen(out, run_id, "gap", [], None, agents=(a, b)))
            await settle(pilot)
            assert isinstance(app.screen, PairsScreen)
            trials = [plain(r["trial"]) for _, r in app.screen.query_one(FitTable).rows_data]
            app.push_screen(PairDetailScreen(out, pair_id))
            await settle(pilot)
            title = str(app.screen.query_one("#pair-title", Static).render())
            return trials, title

    trials, title = asyncio.run(go())
    assert trial == 1 and sorted(trials) == stored and set(stored) == {"t0", "t1"}
    assert f"{task} t{trial} (" in title and f"A {a} vs B {b}" in title


def test_show_takes_no_tail_that_cuts_an_agent_name(tmp_path: Path) -> None:
    """A tail must hold the trials part: "small" of agent "acme/small" (or "gpt-4o~acme/small",
    naming no agent of the run) opened the pair; "t1/A~B" still does."""
    out = slash_named_run(tmp_path)
    db = sqlite3.connect(out / "audit.db")
    (pair_id,) = db.execute(
        "SELECT pair_id FROM audit_pairs WHERE task_id = 'retail-0' AND trial = 1"
    ).fetchone()
    db.close()
    for cut in ("small", "gpt-4o~acme/small"):
        shown = cli("show", str(out), cut)
        assert shown.returncode == 2 and f"pair {cut!r} not found" in shown.stderr, shown.stderr
    assert cli("show", str(out), "t1/openai/gpt-4o~acme/small").returncode == 2  # two tasks
    whole = cli("show", str(out), "retail-0/t1/openai/gpt-4o~acme/small")
    assert whole.returncode == 0 and f"pair {pair_id}" in whole.stdout
