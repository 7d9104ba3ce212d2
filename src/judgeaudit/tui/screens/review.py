"""Review: label a stratified sample with single keys; saved to the audit DB at once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from judgeaudit.analysis.frame import load_pairs, open_db, resolve_run
from judgeaudit.analysis.review import agreement, sample, store_labels
from judgeaudit.audit.ids import pair_trial_b
from judgeaudit.tui.screens.pair import transcript

SAMPLE_SIZE = 40


class ReviewScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "label('human_success_a', 1)", "A ok"),
        Binding("2", "label('human_success_a', 0)", "A failed"),
        Binding("3", "label('human_success_b', 1)", "B ok"),
        Binding("4", "label('human_success_b', 0)", "B failed"),
        Binding("a", "label('human_pref', 'A')", "Prefer A"),
        Binding("b", "label('human_pref', 'B')", "Prefer B"),
        Binding("t", "label('human_pref', 'tie')", "Tie"),
        Binding("n,right", "move(1)", "Next"),
        Binding("p,left", "move(-1)", "Prev"),
        Binding("escape", "app.pop_screen", "Back", show=False),
    ]

    def __init__(self, out: Path, seed: int = 0) -> None:
        super().__init__()
        self.out = out
        db = open_db(out)
        try:
            self.pairs = load_pairs(db, resolve_run(db, None))
            self.labels = pd.read_sql_query("SELECT * FROM human_labels", db)
        finally:
            db.close()
        self.items = sample(self.pairs, SAMPLE_SIZE, seed).to_dict("records")
        self.index = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="agreement", classes="title")
        yield Static("", id="review-head")
        with Horizontal(classes="columns", id="review-item"):
            with VerticalScroll(classes="column"):
                yield Static("", id="review-a")
            with VerticalScroll(classes="column"):
                yield Static("", id="review-b")
        yield Footer()

    def on_mount(self) -> None:
        self.show()

    def current_label(self, pair_id: str) -> dict[str, Any]:
        found = self.labels[self.labels["pair_id"] == pair_id]
        if found.empty:
            return {
                "pair_id": pair_id,
                "human_success_a": None,
                "human_success_b": None,
                "human_pref": None,
                "note": None,
            }
        row = found.iloc[0].to_dict()
        return {str(k): (None if pd.isna(v) else v) for k, v in row.items() if k != "labelled_at"}

    def show(self) -> None:
        figures = agreement(self.pairs, self.labels)
        judge = figures.get("judge_vs_human")
        line = f"Review {self.index + 1}/{len(self.items)} · labelled {figures.get('labelled', 0)}"
        if judge:
            kappa = "n/a" if judge["kappa"] is None else f"{judge['kappa']:.2f}"
            line += f" · judge vs human agreement {judge['agreement']:.0%}, kappa {kappa}"
        self.query_one("#agreement", Static).update(line)
        if not self.items:
            self.query_one("#review-head", Static).update("nothing to review")
            return
        item = self.items[self.index]
        label = self.current_label(item["pair_id"])
        self.query_one("#review-head", Static).update(
            f"[{item['stratum']}] {item['task_id']} · judge prefers {item['judge_pref']} · success check "
            f"{item['success_a']}/{item['success_b']} · your labels: A {label['human_success_a']}, "
            f"B {label['human_success_b']}, prefer {label['human_pref']}"
        )
        db = open_db(self.out)
        try:
            pair = db.execute(
                "SELECT * FROM audit_pairs WHERE pair_id = ?", (item["pair_id"],)
            ).fetchone()
            for side, agent, trial in (
                ("a", item["agent_a"], pair["trial"]),
                ("b", item["agent_b"], pair_trial_b(pair)),
            ):
                traj = db.execute(
                    "SELECT events FROM trajectories WHERE run_id = ? AND task_id = ? AND "
                    "trial = ? AND agent = ?",
                    (pair["run_id"], item["task_id"], trial, agent),
                ).fetchone()
                text = Text(f"{side.upper()}: {agent}\n", style="bold")
                text.append_text(transcript(json.loads(traj["events"])))
                self.query_one(f"#review-{side}", Static).update(text)
        finally:
            db.close()

    def action_label(self, field: str, value: object) -> None:
        if not self.items:
            return
        pair_id = self.items[self.index]["pair_id"]
        label = self.current_label(pair_id)
        label[field] = value
        store_labels(self.out / "audit.db", [label])
        db = open_db(self.out)
        try:
            self.labels = pd.read_sql_query("SELECT * FROM human_labels", db)
        finally:
            db.close()
        self.show()

    def action_move(self, step: int) -> None:
        if self.items:
            self.index = (self.index + step) % len(self.items)
            self.show()
