"""The Pair detail header names an imported pair's own id in the user's log early (at 80
columns the header's end is cut), as text: brackets (``[b]``) are shown as written, not read as
Textual markup, a long id is cut with an ellipsis, and ``Y`` copies the whole id."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from textual.widgets import Static

from judgeaudit.cli import main
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.app import JudgeAuditApp
from judgeaudit.tui.screens.pair import PairDetailScreen
from tests.tui.helpers import settle

LOG = Path(__file__).resolve().parents[2] / "examples" / "rollouts" / "recorded-verdicts.jsonl"
ODD_ID = "batch[b]/7 — ünï (retry)"
LONG_ID = "req-" + "x" * 300


def recorded_out(tmp_path: Path) -> Path:
    text = LOG.read_text(encoding="utf-8")
    text = text.replace('"p007"', f'"{ODD_ID}"').replace('"p009"', f'"{LONG_ID}"')
    log = tmp_path / "log.jsonl"
    log.write_text(text, "utf-8")
    pairs = tmp_path / "pairs.jsonl"
    assert main(["import", "recorded-jsonl", str(log), "--out", str(pairs)]) == 0
    (tmp_path / "spec.toml").write_text(
        '[run]\nname = "rec"\nimported = "pairs.jsonl"\n[judge]\nsource = "recorded"\n'
    )
    out = tmp_path / "out"
    assert main(["run", str(tmp_path / "spec.toml"), "--out", str(out)]) == 0
    return out


def pair_of(out: Path, source_id: str) -> str:
    db = sqlite3.connect(out / "audit.db")
    try:
        (pair_id,) = db.execute(
            "SELECT pair_id FROM audit_pairs WHERE source_id = ?", (source_id,)
        ).fetchone()
    finally:
        db.close()
    return str(pair_id)


def test_pair_header_shows_the_log_id_early_and_as_written(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    out = recorded_out(tmp_path)

    async def seen(pair_id: str, size: tuple[int, int]) -> tuple[str, str, bool]:
        app = JudgeAuditApp(store=isolated, out_dir=out)
        async with app.run_test(size=size) as pilot:
            app.push_screen(PairDetailScreen(out, pair_id))
            await settle(pilot)
            title = str(app.screen.query_one("#pair-title", Static).render())
            offered = app.screen.check_action("copy_log_id", ()) is True
            await pilot.press("Y")
            await settle(pilot)
            return title, app.clipboard, offered

    title, copied, offered = asyncio.run(seen(pair_of(out, ODD_ID), (80, 24)))
    assert f"(support) · log {ODD_ID} · A policy-v7 vs B policy-v8 · " in title
    assert offered and copied == ODD_ID
    title, copied, _ = asyncio.run(seen(pair_of(out, LONG_ID), (120, 40)))
    assert f" · log {LONG_ID[:39]}… · A " in title and copied == LONG_ID


def test_y_copy_log_id_is_not_offered_for_a_pair_without_one(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    """A simulated pair has no log id: no ``Y`` in the footer, no header part."""
    out = recorded_out(tmp_path)
    db = sqlite3.connect(out / "audit.db")
    db.execute("UPDATE audit_pairs SET source_id = NULL WHERE source_id = 'p008'")
    db.commit()
    (pair_id,) = db.execute(
        "SELECT pair_id FROM audit_pairs WHERE task_id = 'prod-8' AND source_id IS NULL"
    ).fetchone()
    db.close()

    async def go() -> tuple[str, bool | None]:
        app = JudgeAuditApp(store=isolated, out_dir=out)
        async with app.run_test(size=(120, 40)) as pilot:
            app.push_screen(PairDetailScreen(out, pair_id))
            await settle(pilot)
            title = str(app.screen.query_one("#pair-title", Static).render())
            return title, app.screen.check_action("copy_log_id", ())

    title, offered = asyncio.run(go())
    assert " · log " not in title and title.startswith("prod-8 ") and offered is False


def test_the_pairs_list_shows_each_pairs_log_id_when_there_is_room(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    """An agent pair's pairs list a `log id` column for an imported run (the first column to go
    on a narrow terminal); a run without log ids has no such column."""
    from judgeaudit.tui.screens.pairs import PairsScreen
    from judgeaudit.tui.widgets.fit_table import FitTable, plain

    out = recorded_out(tmp_path)
    db = sqlite3.connect(out / "audit.db")
    run_id = db.execute("SELECT run_id FROM runs").fetchone()[0]
    stored = dict(db.execute("SELECT pair_id, source_id FROM audit_pairs").fetchall())
    db.close()

    async def listed(size: tuple[int, int]) -> tuple[list[str], dict[str, str]]:
        app = JudgeAuditApp(store=isolated, out_dir=out)
        async with app.run_test(size=size) as pilot:
            app.push_screen(
                PairsScreen(out, run_id, "gap", [], None, agents=("policy-v7", "policy-v8"))
            )
            await settle(pilot)
            table = app.screen.query_one(FitTable)
            shown = [str(c.key.value) for c in table.columns.values()]
            return shown, {key: plain(row.get("log", "")) for key, row in table.rows_data}

    wide, logs = asyncio.run(listed((200, 40)))
    assert "log" in wide and len(logs) == 40
    assert all(logs[p] == s for p, s in stored.items() if len(s) < 40)  # longer ones are cut
    assert logs[pair_of(out, "p008")] == "p008"
    narrow, _ = asyncio.run(listed((80, 24)))
    assert "log" not in narrow and "task" in narrow


def test_a_sort_by_a_column_that_goes_is_dropped() -> None:
    """Sorted by the log id, then a list without log ids: the sort goes with the column (the
    table's state line raised StopIteration)."""
    from judgeaudit.tui.screens.pairs import COLUMNS, LOG_COL
    from judgeaudit.tui.widgets.fit_table import FitTable

    table = FitTable([*COLUMNS, LOG_COL])
    table.sort_key, table.sort_reverse = "log", True
    assert table.state() == "sorted by log id ↓"
    table.set_columns(COLUMNS)
    assert table.sort_key is None and table.state() == ""
