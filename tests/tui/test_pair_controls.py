"""Escape sequences in a logged judge reply or conversation stay on the page: `show` and the
app's Pair detail print every control character but line breaks as `�` (an ESC drew the
terminal's text in red, a tab pushed the Pair detail's column border; a new user's finding)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

from textual.widgets import Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.terminal import printable
from judgeaudit.tui.app import JudgeAuditApp
from judgeaudit.tui.screens.pair import PairDetailScreen
from tests.cli_helpers import cli
from tests.tui.helpers import settle

LOG = Path(__file__).resolve().parents[2] / "examples" / "rollouts" / "recorded-verdicts.jsonl"
REPLY = "verdict B for \x1b[31mred\x1b[0m-id\x07bell\ttab \x9b2J\r\nsecond line"
SAID = "all good \x1b]0;title\x07 done"
CONTROLS = ("\x1b", "\x07", "\x9b", "\t")


def hostile_out(tmp_path: Path) -> Path:
    rows = [json.loads(line) for line in LOG.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        if row.get("pair_id") == "p004" and row["type"] == "verdict":
            row["raw_output"] = REPLY
        if row.get("pair_id") == "p004" and row["type"] == "pair":
            row["trajectory_b"][-1]["content"] = SAID
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert (
        cli("import", "recorded-jsonl", str(log), "--out", str(tmp_path / "p.jsonl")).returncode
        == 0
    )
    (tmp_path / "s.toml").write_text(
        '[run]\nname = "rec"\nimported = "p.jsonl"\n[judge]\nsource = "recorded"\n'
    )
    assert cli("run", str(tmp_path / "s.toml"), "--out", str(tmp_path / "out")).returncode == 0
    return tmp_path / "out"


def test_printable_keeps_line_breaks_and_length() -> None:
    shown = printable(REPLY)
    assert len(shown) == len(REPLY) and shown.count("\n") == 1
    assert shown.startswith("verdict B for �[31mred�[0m-id�bell tab �2J�\n")  # a CR too


def test_show_and_pair_detail_print_no_control_character(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    out = hostile_out(tmp_path)
    db = sqlite3.connect(out / "audit.db")
    (pair_id,) = db.execute("SELECT pair_id FROM audit_pairs WHERE source_id = 'p004'").fetchone()
    stored = [
        r[0] for r in db.execute("SELECT raw_output FROM judge_logs WHERE raw_output IS NOT NULL")
    ]
    db.close()
    assert REPLY in stored  # kept verbatim in audit.db (the data contract)
    done = cli("show", str(out), "p004")
    assert done.returncode == 0, done.stderr
    assert not any(c in done.stdout for c in CONTROLS)
    assert "verdict B for �[31mred�[0m-id�bell tab �2J\nsecond line" in done.stdout
    shown = json.loads(cli("show", str(out), "p004", "--format", "json").stdout)
    assert REPLY in [c["raw_output"] for c in shown["judge_calls"]]  # JSON: as stored

    async def go() -> list[str]:
        app = JudgeAuditApp(store=isolated, out_dir=out)
        async with app.run_test(size=(120, 40)) as pilot:
            app.push_screen(PairDetailScreen(out, pair_id))
            await settle(pilot)
            return [
                str(getattr(app.screen.query_one(f"#{name}", Static).render(), "plain", ""))
                for name in ("side-b", "judge-outputs")
            ]

    side_b, judged = asyncio.run(go())
    assert "all good �]0;title" in side_b and "�[31mred" in judged  # (Rich drops the BEL)
    assert not any(c in side_b + judged for c in CONTROLS)
