"""Run (live): progress, ETA, calls/s, tokens, cost, errors; agent pairs; the judge log streaming.

The run is a thread worker; this screen drains its events on a timer (throttled), renders the
judge log into a bounded RichLog, and never blocks on the engine. The title and the ETA come from
the live counters (pairs stored, a windowed rate that ignores paused time), and a pause is shown
until it is resumed. The app has one Run screen: a new run is attached to it."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Header, ProgressBar, RichLog, Static

from judgeaudit.audit import events as ev
from judgeaudit.tui.eta import EtaClock
from judgeaudit.tui.messages import OpenResults
from judgeaudit.tui.widgets.fit_table import Col, FitTable
from judgeaudit.tui.widgets.note import Note

if TYPE_CHECKING:  # the engine loads with the first run, not before the first paint
    from judgeaudit.tui.bridge import Batch, PairStats, RunBridge

DRAIN_EVERY_S = 0.2
LOG_LINES = 400
NO_RUN = "No run yet — F2 Launch (ctrl+g there runs the demo), or ctrl+p → Run demo"
PAIR_COLUMNS = (
    Col("a", "agent A", min=8),
    Col("b", "agent B", min=8),
    Col("pairs", "pairs", min=5, drop=2),
    Col("decisive", "decisive", min=5, drop=1),
    Col("missel", "missel.", min=5),
    Col("rate", "rate", min=5),
)


def format_progress(p: ev.Progress, eta_s: float | None, paused: bool) -> str:
    eta = "paused" if paused else ("--" if eta_s is None else f"{eta_s:.0f}s")
    cost = f" · ${p.cost_usd:.4f}" if p.cost_usd else ""
    limits = " ".join(f"{name} {used}/{limit}" for name, (used, limit) in p.limits.items())
    return (
        f"{p.phase}: {p.done}/{p.total} · ETA {eta} · {p.calls_per_s:.0f} calls/s · "
        f"{p.tokens / 1000:.0f}k tokens{cost} · retries {p.retries} · failed {p.failures}"
        f"   limits: {limits}"
    )


def format_rates(p: ev.Progress) -> str:
    """The pacing in force per endpoint (the speed lane's ``rate_limits``), one line."""
    parts = []
    for name, pacing in sorted(p.rate_limits.items()):
        rates = [f"{pacing['rps']:.1f} req/s"] if pacing.get("rps") is not None else []
        rates += [f"{pacing['tpm'] / 1000:g}k tok/min"] if pacing.get("tpm") else []
        refused = f", {pacing['rate_limited']} × 429" if pacing.get("rate_limited") else ""
        paced = " + ".join(rates) if rates else "unpaced"
        parts.append(f"{name} {paced} ({pacing.get('mode', '?')}{refused})")
    return "rate limits: " + ("; ".join(parts) if parts else "none")


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
    SUB_TITLE = "Run"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "pause", "Pause/resume"),
        Binding("c", "cancel", "Cancel"),
        Binding("r", "results", "Results"),
        Binding("l", "toggle_log", "Log"),
    ]

    def __init__(self, bridge: RunBridge | None = None) -> None:
        super().__init__(id="run")
        self.bridge = bridge
        self.reset()

    def reset(self) -> None:
        self.stats: dict[tuple[str, str], PairStats] = {}
        self.finished = False
        self.clock = EtaClock()
        self.run_id = ""
        self.pairs_done = self.pairs_total = 0
        self.last_progress: ev.Progress | None = None
        self.resumed = False
        self.outcome = ""  # complete, incomplete, cancelled or failed once the run has ended

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(NO_RUN, id="run-title", classes="title")
        yield Static("", id="paused", classes="-paused")
        yield ProgressBar(total=1, show_eta=False, id="progress")
        yield Static("", id="stats")
        yield Note("", id="rates", classes="hint")
        yield FitTable(PAIR_COLUMNS, id="agent-pairs", cursor_type="none")
        yield RichLog(max_lines=LOG_LINES, id="judge-log", wrap=False, markup=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#paused").display = False
        if self.bridge is not None:
            self.attach(self.bridge)
        self.set_interval(DRAIN_EVERY_S, self.drain)

    def attach(self, bridge: RunBridge) -> None:
        """Show a new run on this screen (the previous one has ended)."""
        self.bridge = bridge
        self.reset()
        if not self.is_mounted:
            return
        self.query_one(ProgressBar).update(total=1, progress=0)
        self.query_one("#stats", Static).update("starting…")
        self.query_one("#rates", Note).say("")
        self.query_one(FitTable).set_rows([])
        self.query_one(RichLog).clear()
        self.show_title()
        self.show_paused()

    # --- live state ----------------------------------------------------------------------------
    def drain(self) -> None:
        if self.bridge is not None and not self.finished:
            self.apply(self.bridge.drain())

    def apply(self, batch: Batch) -> None:
        log = self.query_one(RichLog)
        if batch.started:
            started = batch.started
            self.run_id = started.run_id
            self.pairs_done, self.pairs_total = started.pairs_done, started.pairs_total
            self.resumed = started.resumed
            for warning in started.warnings:
                log.write(Text(f"warning: {warning}", style="yellow"))
        if batch.progress:
            p = batch.progress
            self.last_progress = p
            self.clock.update(p.phase, p.done, p.total, time.monotonic())
            if p.phase == "judging":
                self.pairs_done, self.pairs_total = p.done, p.total
            self.query_one(ProgressBar).update(total=max(p.total, 1), progress=p.done)
            self.query_one("#rates", Note).say(format_rates(p))
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
        self.show_title()
        self.show_stats()

    def show_title(self) -> None:
        title = self.query_one("#run-title", Static)
        if self.bridge is None:
            title.update(NO_RUN)
            return
        simulated = " — simulated provider" if self.bridge.simulated else ""
        if not self.run_id:
            title.update(f"Run {self.bridge.spec_path} → {self.bridge.out_dir}: starting…")
            return
        state = f" {self.outcome}" if self.outcome else (" (resumed)" if self.resumed else "")
        title.update(
            f"Run {self.run_id}{state}: {self.pairs_done}/{self.pairs_total} pairs stored"
            f"{simulated}"
        )

    def show_stats(self) -> None:
        if self.finished or self.last_progress is None:
            return
        paused = self.bridge is not None and self.bridge.paused
        self.query_one("#stats", Static).update(
            format_progress(self.last_progress, self.clock.eta_s(), paused)
        )

    def show_paused(self) -> None:
        paused = self.bridge is not None and self.bridge.paused and not self.finished
        banner = self.query_one("#paused", Static)
        banner.display = paused
        banner.update("PAUSED — units in flight finish, nothing new starts; p resumes, c cancels")

    def render_pairs(self) -> None:
        rows = []
        for (a, b), s in sorted(self.stats.items()):
            rate = f"{s.misselected / s.decisive:.1%}" if s.decisive else "-"
            cells = {"a": a, "b": b, "pairs": str(s.pairs), "decisive": str(s.decisive)}
            cells |= {"missel": str(s.misselected), "rate": rate}
            rows.append((f"{a}~{b}", cells))
        self.query_one(FitTable).set_rows(rows)

    def on_done(self, batch: Batch) -> None:
        stats = self.query_one("#stats", Static)
        if batch.error:
            self.outcome = "failed"
            stats.update(Text(f"run failed: {batch.error}", style="bold red"))
        elif batch.cancelled:
            self.outcome = "cancelled"
            stats.update(
                Text(
                    "cancelled — start the same spec and output dir again to resume", style="yellow"
                )
            )
        elif batch.finished:
            complete = batch.finished.complete
            self.outcome = "complete" if complete else "incomplete"
            if complete:
                self.pairs_done = self.pairs_total
            state = "complete" if complete else "incomplete (run again to finish)"
            stats.update(
                Text(f"run {batch.finished.run_id} {state}; press r for results", style="green")
            )
            self.app.notify(f"run {batch.finished.run_id} {state}")
        self.show_paused()

    # --- keys ----------------------------------------------------------------------------------
    def action_pause(self) -> None:
        if self.bridge is None or self.finished:
            self.notify("no run in progress")
            return
        if self.bridge.toggle_pause():
            self.clock.pause()
        else:
            self.clock.resume()
        self.show_paused()
        self.show_stats()

    def action_cancel(self) -> None:
        if self.bridge is not None and not self.finished:
            self.bridge.cancel()
            self.query_one("#stats", Static).update("cancelling… (what is stored stays)")
            self.show_paused()

    def action_toggle_log(self) -> None:
        log = self.query_one(RichLog)
        log.display = not log.display

    def action_results(self) -> None:
        if self.bridge is not None:
            self.post_message(OpenResults(self.bridge.out_dir))
