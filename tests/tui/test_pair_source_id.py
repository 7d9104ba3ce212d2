"""The Pair detail header names an imported pair's own id in the user's log, as text: an id
holding markup-like brackets (``[b]``) is shown as written, not read as Textual markup."""

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
ODD_ID = "batch[b]/7 — ünï"


def test_pair_header_shows_the_log_id_as_written(isolated: ProfileStore, tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(LOG.read_text(encoding="utf-8").replace('"p007"', f'"{ODD_ID}"'), "utf-8")
    pairs = tmp_path / "pairs.jsonl"
    assert main(["import", "recorded-jsonl", str(log), "--out", str(pairs)]) == 0
    (tmp_path / "spec.toml").write_text(
        '[run]\nname = "rec"\nimported = "pairs.jsonl"\n[judge]\nsource = "recorded"\n'
    )
    out = tmp_path / "out"
    assert main(["run", str(tmp_path / "spec.toml"), "--out", str(out)]) == 0
    db = sqlite3.connect(out / "audit.db")
    (odd,) = db.execute("SELECT pair_id FROM audit_pairs WHERE source_id = ?", (ODD_ID,)).fetchone()
    (plain,) = db.execute("SELECT pair_id FROM audit_pairs WHERE source_id = 'p008'").fetchone()
    db.close()

    async def title_of(pair_id: str) -> str:
        app = JudgeAuditApp(store=isolated, out_dir=out)
        async with app.run_test(size=(200, 40)) as pilot:
            app.push_screen(PairDetailScreen(out, pair_id))
            await settle(pilot)
            return str(app.screen.query_one("#pair-title", Static).render())

    assert asyncio.run(title_of(odd)).endswith(f" · (in the log: {ODD_ID})")
    assert asyncio.run(title_of(plain)).endswith(" · (in the log: p008)")
