"""Names, ids and paths from users' files are shown as written, never read as Textual markup:
an agent named ``llama-3[8b]`` lost its ``[8b]`` in every table and title, and one named
``mix[/i]tral`` raised MarkupError (a crashed screen). Results, an agent pair's pairs, the Pair
detail and the toasts are walked with such names; nothing crashes and the names read whole."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from textual.widgets import Static

from judgeaudit.cli import main
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.pair import PairDetailScreen
from judgeaudit.tui.screens.pairs import PairsScreen
from judgeaudit.tui.widgets.fit_table import FitTable, plain
from tests.tui.helpers import make_app, no_crash, notices, press, settle

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"
NAMES = {"gpt-4o": "llama-3[8b]", "small-model": "mix[/i]tral"}


def bracketed_run(tmp_path: Path) -> Path:
    text = (ROLLOUTS / "openai-rollouts.jsonl").read_text(encoding="utf-8")
    for old, new in NAMES.items():
        text = text.replace(f'"{old}"', f'"{new}"')
    rollouts = tmp_path / "rollouts.jsonl"
    rollouts.write_text(text, encoding="utf-8")
    pairs = tmp_path / "pairs.jsonl"
    assert main(["import", "openai-jsonl", str(rollouts), "--out", str(pairs)]) == 0
    (tmp_path / "spec.toml").write_text(
        '[run]\nname = "imp"\nimported = "pairs.jsonl"\n[judge]\nsource = "recorded"\n'
    )
    out = tmp_path / "out[x]"  # a path with brackets too
    assert main(["run", str(tmp_path / "spec.toml"), "--out", str(out)]) == 0
    return out


def test_bracketed_names_read_whole_everywhere(isolated: ProfileStore, tmp_path: Path) -> None:
    out = bracketed_run(tmp_path)
    db = sqlite3.connect(out / "audit.db")
    run_id, pair_id, a, b = db.execute(
        "SELECT run_id, pair_id, agent_a, agent_b FROM audit_pairs ORDER BY pair_id LIMIT 1"
    ).fetchone()
    db.close()
    assert {a, b} == set(NAMES.values())

    async def go() -> tuple[str, list[str], str, str, list[str], str]:
        app = make_app(isolated, out)
        async with app.run_test(size=(160, 50)) as pilot:
            await press(pilot, "f4")
            results_title = str(app.screen.query_one("#results-title", Static).render())
            await press(pilot, "a")
            agents = [
                plain(cell)
                for _, row in app.screen.query_one("#agent-pairs-table", FitTable).rows_data
                for cell in row.values()
            ]
            app.push_screen(PairsScreen(out, run_id, "gap", [], None, agents=(a, b)))
            await settle(pilot)
            pairs_title = str(app.screen.query_one("#pairs-title", Static).render())
            cells = [
                str(cell)
                for cell in app.screen.query_one(FitTable).get_row_at(0)  # as drawn
            ]
            app.push_screen(PairDetailScreen(out, pair_id))
            await settle(pilot)
            await press(pilot, "c")  # a toast naming the agent
            detail_title = str(app.screen.query_one("#pair-title", Static).render())
            toasts = notices(app)
            no_crash(app)
            return results_title, agents, pairs_title, detail_title, toasts, str(cells)

    results_title, agents, pairs_title, detail_title, toasts, cells = asyncio.run(go())
    assert results_title.startswith(f"Results — {out}: run ")
    assert any("llama-3[8b]" in cell for cell in agents)
    assert "of llama-3[8b] vs mix[/i]tral" in pairs_title or "of mix[/i]tral vs" in pairs_title
    assert "llama-3[8b]" in cells and "mix[/i]tral" in cells
    assert f"A {a} vs B {b}" in detail_title
    assert any(f"copied {a}'s conversation" in t for t in toasts)


def test_a_profile_file_naming_a_closing_tag_does_not_crash_the_first_screen(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    """A broken profile file whose name holds ``[/i]``: the Profiles screen's problem line
    quotes it (it crashed the app on start, every start, until the file was fixed)."""
    from judgeaudit.tui.widgets.note import Note

    isolated.user_dir.mkdir(parents=True, exist_ok=True)
    (isolated.user_dir / "bad.toml").write_text(
        'name = "Mix[/i]tral"\napp = "sdk"\nbase_url = "https://x.example/v1"\n'
    )

    async def go() -> list[str]:
        app = make_app(isolated, tmp_path / "out")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            shown = [str(n.render()) for n in app.screen.query(Note) if n.display]
            no_crash(app)
            return shown

    shown = asyncio.run(go())
    assert any("profile name 'Mix[/i]tral'" in line for line in shown), shown
