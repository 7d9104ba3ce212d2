"""Review: label a stratified sample with single keys; saved to the audit DB at once.

The sample, the transcripts and each save run in workers; the screen says when it is loading.
There is one Review screen: it reloads when it is shown for another output dir or run (the one
Results shows) or a run wrote to this one."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static
from textual.worker import get_current_worker

from judgeaudit.errors import JudgeauditError
from judgeaudit.tui.review_figures import (
    ReviewFigures,
    figures_text,
    method_text,
    review_figures,
)
from judgeaudit.tui.safe_text import safe
from judgeaudit.tui.screens.pair import transcript

if TYPE_CHECKING:  # pandas and the analysis load when the screen is first used, not before
    import pandas as pd  # the first paint

    from judgeaudit.analysis.queries import ReviewData, Side

EMPTY_LABEL = ("human_success_a", "human_success_b", "human_pref", "note")


def success_label(value: object) -> str:
    """A stored 0/1 (an int, or 0.0/1.0 once pandas has read a column with gaps) as words."""
    if value is None or (isinstance(value, float) and value != value):
        return "-"
    return "ok" if int(float(str(value))) else "fail"


def pref_label(value: object, item: dict[str, Any]) -> str:
    if value is None or value == "":
        return "-"
    agent = {"A": item.get("agent_a"), "B": item.get("agent_b")}.get(str(value))
    return f"{value} ({agent})" if agent else str(value)


class ReviewScreen(Screen[None]):
    SUB_TITLE = "Review"
    # one footer entry per pair of keys (the others are in the help), so it reads at 80 columns
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "label('human_success_a', 1)", "A/B ok/fail", key_display="1-4"),
        Binding("2", "label('human_success_a', 0)", "A failed", show=False),
        Binding("3", "label('human_success_b', 1)", "B ok", show=False),
        Binding("4", "label('human_success_b', 0)", "B failed", show=False),
        Binding("a", "label('human_pref', 'A')", "prefer", key_display="a/b/t"),
        Binding("b", "label('human_pref', 'B')", "prefer B", show=False),
        Binding("t", "label('human_pref', 'tie')", "tie", show=False),
        Binding("x", "clear", "Clear"),
        Binding("e", "note", "Note"),
        Binding("j", "blind", "Judge"),
        Binding("n,right", "move(1)", "Next", key_display="n/p"),
        Binding("p,left", "move(-1)", "previous", show=False),
        Binding("m", "method", "Method", show=False),  # named on the screen's figures
    ]

    def __init__(self, seed: int = 0) -> None:
        super().__init__(id="review")
        self.seed = seed
        self.out: Path | None = None
        self.run_id: str | None = None  # the run Results shows (None: the directory's latest)
        self.version: tuple[int, int, int] | None = None
        self.data: ReviewData | None = None
        self.figures: ReviewFigures | None = None  # agreement so far, computed in the workers
        self.index = 0
        # labels typed on this screen, ahead of the database while their save is in flight
        self.pending: dict[str, dict[str, Any]] = {}
        self.save_lock = threading.Lock()
        self.report_skipped: str | None = None  # why report.html was last left as it was
        self.conflict_said: dict[str, str] = {}  # pair id -> the contradiction last said of it
        self.mounted = False
        self.blind = True  # the judge's choice and the success check stay hidden: no anchoring

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Review — no output dir yet", id="agreement", classes="title", markup=False)
        yield Static("", id="review-figures")
        yield Static("", id="review-head")
        with Horizontal(classes="columns", id="review-item"):
            with VerticalScroll(classes="column"):
                yield Static("", id="review-a")
            with VerticalScroll(classes="column"):
                yield Static("", id="review-b")
        yield Footer(compact=True)

    # --- loading -------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.mounted = True
        if self.out is not None:
            out, self.out = self.out, None
            self.show_output(out, self.run_id)

    def show_output(self, out: Path, run_id: str | None = None) -> None:
        """Review run ``run_id`` of ``out`` (None: its latest): the run Results shows, so the
        labels go to the pairs the user was looking at."""
        if not self.mounted:
            self.out, self.run_id = out, run_id  # loaded once the screen is composed
            return
        from judgeaudit.analysis.queries import db_version

        version = db_version(out)
        same = (out, run_id) == (self.out, self.run_id)
        if same and self.data is not None and version == self.version:
            return
        if not same:
            self.blind = True  # a new sample starts blind
        self.out, self.run_id, self.version, self.data, self.index = out, run_id, version, None, 0
        self.figures = None
        self.sub_title = f"Review · {out}"
        self.pending = {}
        self.query_one("#review-item").loading = True
        self.query_one("#agreement", Static).update(f"Review — loading {out}…")
        self.load(out, run_id)

    @work(thread=True, exclusive=True, group="review")
    def load(self, out: Path, run_id: str | None) -> None:
        from judgeaudit.analysis.queries import review_data
        from judgeaudit.analysis.review import SAMPLE_N

        try:
            data = review_data(out, SAMPLE_N, self.seed, run_id)
        except JudgeauditError as exc:
            self.app.call_from_thread(self.failed, out, run_id, str(exc))
            return
        figures = review_figures(data.pairs, data.labels)
        self.app.call_from_thread(self.loaded, out, run_id, data, figures)

    def failed(self, out: Path, run_id: str | None, message: str) -> None:
        if (out, run_id) == (self.out, self.run_id):
            self.query_one("#review-item").loading = False
            self.query_one("#agreement", Static).update(f"Review — {message}")
            self.query_one("#review-head", Static).update("")

    def loaded(
        self, out: Path, run_id: str | None, data: ReviewData, figures: ReviewFigures
    ) -> None:
        if (out, run_id) == (self.out, self.run_id):  # else another run was asked for since
            self.data, self.figures = data, figures
            self.show(reload_item=True)

    def action_method(self) -> None:
        """The whole method note of the figures, in a scrolling dialog."""
        from judgeaudit.tui.screens.review_method import ReviewMethod

        self.app.push_screen(ReviewMethod(method_text(self.figures)))

    # --- rendering -----------------------------------------------------------------------------
    def current_label(self, pair_id: str) -> dict[str, Any]:
        import pandas as pd

        assert self.data is not None
        if pair_id in self.pending:
            return dict(self.pending[pair_id])
        labels = self.data.labels
        found = labels[labels["pair_id"] == pair_id]
        if found.empty:
            return {"pair_id": pair_id, **dict.fromkeys(EMPTY_LABEL)}
        row = found.iloc[0].to_dict()
        return {str(k): (None if pd.isna(v) else v) for k, v in row.items() if k != "labelled_at"}

    def show(self, reload_item: bool = False) -> None:
        data = self.data
        if data is None:
            return
        labelled = int(data.labels["pair_id"].isin(data.pairs["pair_id"]).sum())
        self.query_one("#agreement", Static).update(
            f"Review {self.index + 1}/{len(data.items)} of run {data.run_id} · labelled {labelled}"
        )
        self.query_one("#review-figures", Static).update(figures_text(self.figures))
        if not data.items:
            self.query_one("#review-head", Static).update("nothing to review")
            self.query_one("#review-item").loading = False
            return
        item = data.items[self.index]
        label = self.current_label(item["pair_id"])
        if self.blind:  # the stratum too: "satisfied_but_failed" names a failed side
            seen, stratum = "judge, success check and stratum hidden (j shows them)", ""
        else:
            seen = (
                f"judge prefers {pref_label(item['judge_pref'], item)} · success check "
                f"{success_label(item['success_a'])}/{success_label(item['success_b'])}"
            )
            stratum = f"[{item['stratum']}] "
        note = f" · note: {label['note']}" if label.get("note") else ""
        self.query_one("#review-head", Static).update(
            Text(  # plain text: "[stratum]" is no markup tag
                f"{stratum}{item['task_id']} · {seen} · your labels: "
                f"A {success_label(label['human_success_a'])}, "
                f"B {success_label(label['human_success_b'])}, "
                f"prefer {pref_label(label['human_pref'], item)}{note}"
            )
        )
        if reload_item:
            self.query_one("#review-item").loading = True
            self.load_item(item["pair_id"])

    @work(thread=True, exclusive=True, group="review-item")
    def load_item(self, pair_id: str) -> None:
        from judgeaudit.analysis.queries import conversations

        assert self.out is not None
        sides = conversations(self.out, pair_id)
        self.app.call_from_thread(self.show_item, pair_id, sides)

    def show_item(self, pair_id: str, sides: tuple[Side, Side]) -> None:
        if self.data is None or self.data.items[self.index]["pair_id"] != pair_id:
            return  # the user moved on meanwhile
        for key, side in zip(("a", "b"), sides, strict=True):
            text = Text(f"{key.upper()}: {side.agent}\n", style="bold")
            text.append_text(transcript(side.events))
            self.query_one(f"#review-{key}", Static).update(safe(text))
        self.query_one("#review-item").loading = False

    # --- keys ----------------------------------------------------------------------------------
    def action_label(self, field: str, value: object) -> None:
        if self.data is None or not self.data.items or self.out is None:
            return
        pair_id = self.data.items[self.index]["pair_id"]
        label = self.current_label(pair_id)
        label[field] = value
        self.pending[pair_id] = label
        self.show()
        self.save(self.out, pair_id)

    def action_clear(self) -> None:
        """Forget this pair's labels (and its note): it counts as unlabelled again."""
        if self.data is None or not self.data.items or self.out is None:
            return
        pair_id = self.data.items[self.index]["pair_id"]
        self.pending[pair_id] = {"pair_id": pair_id, **dict.fromkeys(EMPTY_LABEL)}
        self.show()
        self.save(self.out, pair_id)

    def action_note(self) -> None:
        if self.data is None or not self.data.items:
            return
        from judgeaudit.tui.widgets.table_prompt import TextPrompt

        pair_id = self.data.items[self.index]["pair_id"]
        current = str(self.current_label(pair_id).get("note") or "")

        def written(text: str | None) -> None:
            if text is not None:
                self.action_label("note", text or None)

        hint = "Note for this pair (why you labelled it so; empty removes it) — Enter, Esc"
        self.app.push_screen(TextPrompt(current, hint), written)

    def action_blind(self) -> None:
        self.blind = not self.blind
        self.show()

    @work(thread=True, exclusive=False, group="review-save")
    def save(self, out: Path, pair_id: str) -> None:
        from judgeaudit.analysis.label_import import clear_label, import_checked
        from judgeaudit.analysis.queries import human_labels
        from judgeaudit.audit.units.outcome import label_conflict

        with self.save_lock:  # saves in key order; each writes the pair's latest labels
            if (latest := self.pending.get(pair_id)) is None:
                return  # an earlier save of this pair was refused and took its label back
            label = dict(latest)
            try:
                if all(label[k] is None for k in EMPTY_LABEL):
                    refreshed = clear_label(out, pair_id)
                else:
                    # the check `review import` runs: one success mark per conversation
                    refreshed = import_checked(out, [("Review", label)], "on Review first")[1]
                labels = human_labels(out)
            except JudgeauditError as exc:  # e.g. audit.db damaged since the screen opened
                self.app.call_from_thread(self.refused, out, pair_id, label, exc.in_app())
                return
        conflict = label_conflict(label["human_success_a"], label["human_success_b"],
                                  label["human_pref"])  # fmt: skip
        self.app.call_from_thread(self.contradicts, pair_id, conflict)
        self.app.call_from_thread(self.saved, out, labels, refreshed.skipped)

    def contradicts(self, pair_id: str, conflict: str | None) -> None:
        """The label just saved contradicts itself (`review import` refuses such a label): it is
        stored as typed (the next key may fix it), and the reviewer hears it now, not from the
        report or the preference export later; once, not again on a save that leaves it as it
        is (a note: two toasts said one thing)."""
        if conflict is None or self.conflict_said.get(pair_id) == conflict:
            if conflict is None:
                self.conflict_said.pop(pair_id, None)
            return
        self.conflict_said[pair_id] = conflict
        self.notify(
            f"{pair_id}: label saved, but {conflict}; the report's agreement figures and the "
            "preference export leave it out until the marks or the preference are corrected",
            severity="warning",
            timeout=10,
        )

    def refused(self, out: Path, pair_id: str, label: dict[str, Any], message: str) -> None:
        """The store refused the save (it writes nothing then): the pair shows its stored labels
        again and the store's own line says why, as `review import` would."""
        if out == self.out and self.pending.get(pair_id) == label:  # else a newer key's save
            del self.pending[pair_id]  # follows and says for itself
        self.notify(f"label not saved: {message}", severity="error")
        self.show()

    def saved(self, out: Path, labels: pd.DataFrame, skipped: str | None) -> None:
        """The label is stored; if report.html could not show it, say why once (not on every
        key while a run holds OUT)."""
        from judgeaudit.analysis.queries import ReviewData, db_version

        if skipped != self.report_skipped and skipped is not None:
            self.notify(f"label saved; report.html not rewritten: {skipped}", severity="warning")
        self.report_skipped = skipped

        if out == self.out and self.data is not None:
            self.data = ReviewData(self.data.run_id, self.data.pairs, self.data.items, labels)
            self.refigure(out, self.data)
            self.version = db_version(out)
            self.show()

    @work(thread=True, exclusive=True, group="review-figures")
    def refigure(self, out: Path, data: ReviewData) -> None:
        """The agreement figures for the labels just saved, apart from the save (the bootstrap
        takes a moment; a newer label makes this one's figures moot)."""
        figures = review_figures(data.pairs, data.labels)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.figured, out, figures)

    def figured(self, out: Path, figures: ReviewFigures) -> None:
        if out == self.out:
            self.figures = figures
            self.show()

    def action_move(self, step: int) -> None:
        if self.data is not None and self.data.items:
            self.index = (self.index + step) % len(self.data.items)
            self.show(reload_item=True)
