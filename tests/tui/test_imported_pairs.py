"""Pair detail and Review open on imported pairs whose tool results are numbers, booleans,
lists and null (τ-bench's ``calculate`` returns a number): no crash, the values shown as is."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Static

from judgeaudit.cli import main
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.app import JudgeAuditApp
from judgeaudit.tui.screens.pair import PairDetailScreen
from judgeaudit.tui.screens.review import ReviewScreen
from tests.tui.helpers import press, settle

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"


def recorded_run(tmp_path: Path) -> Path:
    pairs = tmp_path / "pairs.jsonl"
    assert (
        main(
            ["import", "openai-jsonl", str(ROLLOUTS / "openai-rollouts.jsonl"), "--out", str(pairs)]
        )
        == 0
    )
    (tmp_path / "spec.toml").write_text(
        '[run]\nname = "imp"\nimported = "pairs.jsonl"\n[judge]\nsource = "recorded"\n'
    )
    assert main(["run", str(tmp_path / "spec.toml"), "--out", str(tmp_path / "out")]) == 0
    return tmp_path / "out"


def shown(screen: PairDetailScreen | ReviewScreen) -> str:
    return "\n".join(str(w.render()) for w in screen.query(Static))


def test_pair_detail_and_review_show_any_json_tool_result(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    out = recorded_run(tmp_path)

    async def go() -> tuple[str, str]:
        app = JudgeAuditApp(store=isolated, out_dir=out)
        async with app.run_test(size=(160, 60)) as pilot:
            app.push_screen(
                PairDetailScreen(out, "imp-" + _run_suffix(out) + "/retail-0/t0/gpt-4o~small-model")
            )
            await settle(pilot)
            assert isinstance(app.screen, PairDetailScreen)
            detail = shown(app.screen)
            await press(pilot, "escape", "f5")
            screen = app.screen
            assert isinstance(screen, ReviewScreen) and screen.data is not None
            seen = [shown(screen)]
            for _ in range(len(screen.data.items) - 1):  # every sampled pair, numeric results too
                await press(pilot, "n")
                seen.append(shown(screen))
            return detail, "\n".join(seen)

    detail, review = asyncio.run(go())
    assert "← 25.0" in detail and "← True" not in detail and "← true" in detail
    assert "Zoë's café mug ☕" in detail  # non-ASCII verbatim inside a string tool result
    # a recorded verdict has no rendered prompt, and says why (not "made before prompts")
    assert "not stored: a recorded verdict: the log it came from holds no prompt" in detail
    assert "before prompts were kept" not in detail
    import sqlite3

    moods = sqlite3.connect(out / "audit.db").execute(
        "SELECT satisfied FROM trajectories WHERE task_id = 'retail-0' AND trial = 0"
        " AND agent IN ('gpt-4o', 'small-model')"
    )
    for (satisfied,) in moods:  # an unrecorded satisfaction is not shown as "not satisfied"
        expected = {None: "satisfaction not recorded", 0: "user not satisfied", 1: "user satisfied"}
        assert expected[satisfied] in detail
    assert "A: " in review and "B: " in review and "← 25.0" in review


def _run_suffix(out: Path) -> str:
    import sqlite3

    run_id = sqlite3.connect(out / "audit.db").execute("SELECT run_id FROM runs").fetchone()[0]
    return str(run_id).split("-", 1)[1]
