"""Pair detail: both transcripts side by side with tool calls, the success check's verdict and
why, and the judge's raw outputs in both orders."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from judgeaudit.analysis.frame import open_db
from judgeaudit.audit.ids import pair_trial_b
from judgeaudit.audit.transcript import lines as transcript_lines


def transcript(events: list[dict[str, Any]]) -> Text:
    """Both columns' transcript; tool results of any JSON type (the engine formats them)."""
    out = Text()
    for kind, body in transcript_lines(events):
        if kind in ("user", "agent"):
            out.append(f"{kind}: ", style="bold cyan" if kind == "user" else "bold green")
            out.append(body + "\n")
        elif kind == "tool_call":
            out.append(f"  → {body}\n", style="magenta")
        else:
            out.append(f"  ← {body[:160]}\n", style="red" if kind == "tool_error" else "dim")
    return out


def verdict(traj: sqlite3.Row) -> Text:
    ok = bool(traj["success"])
    text = Text("SUCCESS" if ok else "FAILED", style="bold green" if ok else "bold red")
    text.append(
        f" ({traj['success_source']}) · ending {traj['ending']} · user "
        f"{'satisfied' if traj['satisfied'] else 'not satisfied'}\n"
    )
    detail = json.loads(traj["success_detail"] or "{}")
    for line in detail.get("state_diff", []):
        text.append(f"state: {line}\n", style="red")
    for fact in detail.get("missing_facts", []):
        text.append(f"never told the user: {fact}\n", style="red")
    if traj["llm_success"] is not None:
        text.append(
            f"LLM success check (candidate only): {bool(traj['llm_success'])}\n", style="yellow"
        )
    return text


class PairDetailScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Back")]

    def __init__(self, out: Path, pair_id: str) -> None:
        super().__init__()
        self.out, self.pair_id = out, pair_id

    def compose(self) -> ComposeResult:
        db = open_db(self.out)
        try:
            pair = db.execute(
                "SELECT * FROM audit_pairs WHERE pair_id = ?", (self.pair_id,)
            ).fetchone()
            sides = [
                db.execute(
                    "SELECT * FROM trajectories WHERE run_id = ? AND task_id = ? AND trial = ? "
                    "AND agent = ?",
                    (pair["run_id"], pair["task_id"], trial, agent),
                ).fetchone()
                for agent, trial in (
                    (pair["agent_a"], pair["trial"]),
                    (pair["agent_b"], pair_trial_b(pair)),
                )
            ]
            logs = db.execute(
                'SELECT * FROM judge_logs WHERE pair_id = ? ORDER BY "order", attempt',
                (self.pair_id,),
            ).fetchall()
        finally:
            db.close()
        yield Header()
        flag = "  MISSELECTED" if pair["misselected"] else ""
        yield Static(
            f"{pair['task_id']} ({pair['task_type']}) · judge prefers {pair['judge_pref']} "
            f"(AB: {pair['pref_ab']}, BA: {pair['pref_ba']}) · scores {pair['judge_score_a']}/"
            f"{pair['judge_score_b']}{flag}",
            classes="title",
        )
        with Horizontal(classes="columns"):
            for label, agent, traj in (
                ("A", pair["agent_a"], sides[0]),
                ("B", pair["agent_b"], sides[1]),
            ):
                with VerticalScroll(classes="column"):
                    yield Static(Text(f"{label}: {agent}", style="bold"))
                    yield Static(verdict(traj))
                    yield Static(transcript(json.loads(traj["events"])))
        with VerticalScroll(classes="column"):
            yield Static(Text("Judge raw outputs", style="bold"))
            for log in logs:
                head = Text(
                    f"order {log['order']} attempt {log['attempt']} ({log['model']}, prompt "
                    f"{log['prompt_hash']})",
                    style="bold",
                )
                if log["parse_error"]:
                    head.append(f"  PARSE ERROR: {log['parse_error']}", style="bold red")
                yield Static(head)
                yield Static(Text(log["raw_output"]))
        yield Footer()
