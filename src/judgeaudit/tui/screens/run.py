"""Run (live): progress, ETA, calls/s, tokens, cost, errors; agent pairs; the judge log streaming.

The run is a thread worker; this screen drains its events on a timer (throttled), renders the
judge log into a bounded RichLog, and never blocks on the engine."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, ProgressBar, RichLog, Static

from judgeaudit.audit import events as ev
from judgeaudit.tui.bridge import Batch, PairStats, RunBridge
from judgeaudit.tui.messages import OpenResults

DRAIN_EVERY_S = 0.2
LOG_LINES = 400


def format_progress(p: ev.Progress) -> str:
    eta = "--" if p.eta_s is None else f"{p.eta_s:.0f}s"
    cost = f" · ${p.cost_usd:.4f}" if p.cost_usd else ""
    limits = " ".join(f"{name} {used}/{limit}" for name, (used, limit) in p.limits.items())
    return (
        f"{p.phase}: {p.done}/{p.total} · ETA {eta} · {p.calls_per_s:.0f} calls/s · "
        f"{p.tokens / 1000:.0f}k tokens{cost} · retries {p.retries} · failed {p.failures}"
        f"   limits: {limits}"
    )


def format_call(call: ev.JudgeCallDone | ev.TrajectoryDone) -> Text:
    if isinstance(call, ev.TrajectoryDone):
        outcome = "success" if call.success else "FAILED"
        mood = "user satisfied" if call.satisfied else f"user {call.ending}"
        return Text(f"conversation {call.task_id} {call.agent}: {outcome}, {mood}", style="dim")
    pair = call.pair_id.split("/", 1)[-1]
    if call.parse_error:
        line = Text(
            f"{pair} {call.order}#{call.attempt} PARSE ERROR {call.parse_error}: ", style="bold red"
        )
        line.append(call.raw_output[:120].replace("\n", " "), style="red")
        return line
    scores = f"{call.score_a}/{call.score_b}"
    line = Text(f"{pair} {call.order} → {call.winner} ({scores}) ")
    line.append(call.reason[:100], style="dim")
    return line


class RunScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "pause", "Pause/resume"),
        Binding("c", "cancel", "Cancel"),
        Binding("r", "results", "Results"),
        Binding("l", "toggle_log", "Log on/off"),
    ]

    def __init__(self, bridge: RunBridge) -> None:
        super().__init__()
        self.bridge = bridge
        self.stats: dict[tuple[str, str], PairStats] = {}
        self.finished = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(
            f"Run {self.bridge.spec_path} → {self.bridge.out_dir}", id="run-title", classes="title"
        )
        yield ProgressBar(total=1, show_eta=False, id="progress")
        yield Static("starting…", id="stats")
        table: DataTable[str] = DataTable(id="agent-pairs", cursor_type="none")
        yield table
        yield RichLog(max_lines=LOG_LINES, id="judge-log", wrap=False, markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#agent-pairs", DataTable).add_columns(
            "agent A", "agent B", "pairs", "decisive", "misselected", "rate"
        )
        self.set_interval(DRAIN_EVERY_S, self.drain)

    def attach(self, bridge: RunBridge) -> None:
        """Show a new run on this screen (the previous one has finished)."""
        self.bridge, self.stats, self.finished = bridge, {}, False
        if not self.is_mounted:
            return
        self.query_one("#run-title", Static).update(f"Run {bridge.spec_path} → {bridge.out_dir}")
        self.query_one(ProgressBar).update(total=1, progress=0)
        self.query_one("#stats", Static).update("starting…")
        self.query_one("#agent-pairs", DataTable).clear()
        self.query_one(RichLog).clear()

    def drain(self) -> None:
        if self.finished:
            return
        self.apply(self.bridge.drain())

    def apply(self, batch: Batch) -> None:
        if batch.started:
            verb = "Resuming" if batch.started.resumed else "Starting"
            note = " — simulated provider" if self.bridge.simulated else ""
            self.query_one("#run-title", Static).update(
                f"{verb} {batch.started.run_id}: {batch.started.pairs_done}/{batch.started.pairs_total} "
                f"pairs stored{note}"
            )
            log = self.query_one(RichLog)
            for warning in batch.started.warnings:
                log.write(Text(f"warning: {warning}", style="yellow"))
        if batch.progress:
            bar = self.query_one(ProgressBar)
            bar.update(total=max(batch.progress.total, 1), progress=batch.progress.done)
            self.query_one("#stats", Static).update(format_progress(batch.progress))
        log = self.query_one(RichLog)
        for call in batch.judge_calls[-LOG_LINES:]:
            log.write(format_call(call))
        for failure in batch.failures:
            log.write(Text(f"FAILED {failure.unit}: {failure.message}", style="bold red"))
        if batch.pair_stats != self.stats:
            self.stats = batch.pair_stats
            self.render_pairs()
        if batch.done:
            self.finished = True
            self.on_done(batch)

    def render_pairs(self) -> None:
        table: DataTable[str] = self.query_one("#agent-pairs", DataTable)
        table.clear()
        for (a, b), s in sorted(self.stats.items()):
            rate = f"{s.misselected / s.decisive:.1%}" if s.decisive else "-"
            table.add_row(a, b, str(s.pairs), str(s.decisive), str(s.misselected), rate)

    def on_done(self, batch: Batch) -> None:
        stats = self.query_one("#stats", Static)
        if batch.error:
            stats.update(Text(f"run failed: {batch.error}", style="bold red"))
        elif batch.cancelled:
            stats.update(
                Text(
                    "cancelled — start the same spec and output dir again to resume", style="yellow"
                )
            )
        elif batch.finished:
            state = "complete" if batch.finished.complete else "incomplete (run again to finish)"
            stats.update(
                Text(f"run {batch.finished.run_id} {state}; press r for results", style="green")
            )
            self.app.notify(f"run {batch.finished.run_id} {state}")

    def action_pause(self) -> None:
        paused = self.bridge.toggle_pause()
        self.notify("paused" if paused else "resumed")

    def action_cancel(self) -> None:
        self.bridge.cancel()

    def action_toggle_log(self) -> None:
        log = self.query_one(RichLog)
        log.display = not log.display

    def action_results(self) -> None:
        self.post_message(OpenResults(self.bridge.out_dir))
