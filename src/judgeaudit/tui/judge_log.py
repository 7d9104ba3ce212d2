"""The live judge log: lines that name agents, never positional letters, and a filter.

A judge call sees the two conversations in one order (AB: agent A's first, BA: agent B's
first) and answers "A" or "B" for the position it preferred; a reader needs the agent, so each
line maps the position back and labels the reason with the order it was written for. The log
keeps its entries (bounded) and re-renders them when the filter changes: by text (an agent pair,
a task), misselected pairs only, parse errors only."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.widgets import RichLog

from judgeaudit.audit import events as ev
from judgeaudit.credentials import scrub_content

KEPT = 2000
LogEvent = ev.JudgeCallDone | ev.TrajectoryDone | ev.PairDone


@dataclass(frozen=True)
class Entry:
    text: Text
    pair_id: str | None
    parse_error: bool = False


@dataclass(frozen=True)
class LogFilter:
    text: str = ""
    misselected: bool = False
    errors: bool = False

    def describe(self) -> str:
        parts = [f"“{self.text}”"] if self.text else []
        parts += ["misselected only"] if self.misselected else []
        parts += ["parse errors only"] if self.errors else []
        return ", ".join(parts)


def pair_parts(pair_id: str) -> tuple[str, str, str]:
    """``RUN/TASK/tN/A~B`` -> (``TASK/tN``, A, B)."""
    parts = pair_id.split("/")
    agents = parts[-1].split("~", 1)
    return "/".join(parts[1:-1]), agents[0], agents[-1]


def score(value: float | None) -> str:
    return "?" if value is None else f"{value:g}"


def call_line(call: ev.JudgeCallDone) -> Text:
    where, a, b = pair_parts(call.pair_id)
    first, second = (a, b) if call.order == "AB" else (b, a)
    shown = f"{call.order}: A={first} B={second}"
    if call.parse_error:
        line = Text(f"{where} {a} vs {b} [{shown}] #{call.attempt} PARSE ERROR ", "bold red")
        line.append(f"{scrub_content(call.parse_error)}: ", style="bold red")
        line.append(scrub_content(call.raw_output).replace("\n", " ")[:120], style="red")
        return line
    winner = {"A": first, "B": second}.get(call.winner or "", call.winner or "no verdict")
    line = Text(f"{where} {a} vs {b} → ")
    line.append(winner, style="bold")
    line.append(f" ({first} {score(call.score_a)}, {second} {score(call.score_b)}) ")
    line.append(f"[{shown}] {scrub_content(call.reason)[:100]}", style="dim")
    return line


def pair_line(done: ev.PairDone) -> Text:
    where, _, _ = pair_parts(done.pair_id)
    pref = {"A": done.agent_a, "B": done.agent_b}.get(done.judge_pref, done.judge_pref)
    ok = {True: "succeeded", False: "failed"}
    line = Text(f"{where} {done.agent_a} vs {done.agent_b}: judge prefers {pref}; ", "bold")
    line.append(
        f"{done.agent_a} {ok[done.success_a]}, {done.agent_b} {ok[done.success_b]}",
        style="",
    )
    if done.misselected:
        line.append(" MISSELECTED", style="bold red")
    return line


def entry(event: LogEvent) -> Entry:
    if isinstance(event, ev.TrajectoryDone):
        outcome = "success" if event.success else "FAILED"
        mood = "user satisfied" if event.satisfied else f"user {event.ending}"
        text = Text(f"conversation {event.task_id} {event.agent}: {outcome}, {mood}", "dim")
        return Entry(text, None)
    if isinstance(event, ev.PairDone):
        return Entry(pair_line(event), event.pair_id)
    return Entry(call_line(event), event.pair_id, bool(event.parse_error))


class JudgeLog(RichLog):
    """A RichLog that keeps its entries so a filter can be applied to what was already shown."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_lines=KEPT, wrap=False, markup=False, **kwargs)
        self.entries: deque[Entry] = deque(maxlen=KEPT)
        self.misselected: set[str] = set()
        self.filter = LogFilter()

    def shows(self, item: Entry) -> bool:
        f = self.filter
        if f.errors and not item.parse_error:
            return False
        if f.misselected and item.pair_id not in self.misselected:
            return False
        return not f.text or f.text.lower() in item.text.plain.lower()

    def add(self, batch: Iterable[LogEvent]) -> None:
        events = list(batch)
        fresh = []
        for event in events:
            if isinstance(event, ev.PairDone) and event.misselected:
                self.misselected.add(event.pair_id)
            fresh.append(entry(event))
        self.entries.extend(fresh)
        if self.filter.misselected and any(
            isinstance(e, ev.PairDone) and e.misselected for e in events
        ):
            self.set_filter(self.filter)  # earlier calls of a pair now known misselected
            return
        self.write_lines(item.text for item in fresh if self.shows(item))

    def write_lines(self, lines: Iterable[Text]) -> None:
        """One write for a batch: RichLog measures, renders, trims and scrolls per write, and a
        line each was most of the app's CPU while a run streamed (docs/benchmarks.md)."""
        shown = list(lines)[-KEPT:]
        if shown:
            # at the log's own width: RichLog would otherwise measure every line of the batch
            # to find its widest, then cut the wider ones to this width anyway (wrap is off)
            width = max(self.scrollable_content_region.width, self.min_width)
            self.write(Text("\n").join(shown), width=width)

    def note(self, text: Text) -> None:
        """A line that is not an event (a warning, a failure): always kept and shown."""
        item = Entry(text, None)
        self.entries.append(item)
        if not (self.filter.errors or self.filter.misselected):
            self.write(text, width=max(self.scrollable_content_region.width, self.min_width))

    def set_filter(self, new: LogFilter) -> None:
        self.filter = new
        self.clear()
        self.write_lines(item.text for item in self.entries if self.shows(item))

    def reset(self) -> None:
        self.entries.clear()
        self.misselected.clear()
        self.clear()
