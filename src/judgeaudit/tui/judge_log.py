"""The live judge log: lines that name agents, never positional letters, and a filter.

A judge call sees the two conversations in one order (AB: agent A's first, BA: agent B's
first) and answers "A" or "B" for the position it preferred; a reader needs the agent, so each
line maps the position back and labels the reason with the order it was written for. The log
keeps its entries (bounded) and shows them again when the filter changes: by text (an agent
pair, a task), misselected pairs only, parse errors only. Only the lines on screen are rendered
(`widgets/lazy_log.py`)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from itertools import count

from rich.text import Text

from judgeaudit.audit import events as ev
from judgeaudit.audit.units.ids import pair_id_parts
from judgeaudit.credentials import scrub_content
from judgeaudit.tui.widgets.lazy_log import LazyLog

KEPT = 2000
LogEvent = ev.JudgeCallDone | ev.TrajectoryDone | ev.PairDone


@dataclass(frozen=True)
class Entry:
    """An event or a note; a key no other entry of the log has (the rendered line's cache key)."""

    key: int
    source: LogEvent | Text
    pair_id: str | None
    parse_error: bool = False

    @cached_property
    def text(self) -> Text:
        return self.source if isinstance(self.source, Text) else event_text(self.source)


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


def score(value: float | None) -> str:
    return "?" if value is None else f"{value:g}"


def call_line(call: ev.JudgeCallDone) -> Text:
    where, a, b = pair_id_parts(call.pair_id)
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
    where, _, _ = pair_id_parts(done.pair_id)
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


def event_text(event: LogEvent) -> Text:
    if isinstance(event, ev.TrajectoryDone):
        outcome = "success" if event.success else "FAILED"
        mood = "user satisfied" if event.satisfied else f"user {event.ending}"
        return Text(f"conversation {event.task_id} {event.agent}: {outcome}, {mood}", "dim")
    if isinstance(event, ev.PairDone):
        return pair_line(event)
    return call_line(event)


class JudgeLog(LazyLog):
    """The run's log: it keeps its entries (bounded) so a filter can be applied to what was
    already shown, and builds an entry's text only when it is shown or a text filter reads it."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(KEPT, id=id, classes=classes)
        self.entries: deque[Entry] = deque(maxlen=KEPT)
        self.misselected: set[str] = set()
        self.filter = LogFilter()
        self.keys = count()

    def shows(self, item: Entry) -> bool:
        f = self.filter
        if f.errors and not item.parse_error:
            return False
        if f.misselected and item.pair_id not in self.misselected:
            return False
        return not f.text or f.text.lower() in item.text.plain.lower()

    def entry(self, source: LogEvent | Text) -> Entry:
        if isinstance(source, (Text, ev.TrajectoryDone)):
            return Entry(next(self.keys), source, None)
        error = isinstance(source, ev.JudgeCallDone) and bool(source.parse_error)
        return Entry(next(self.keys), source, source.pair_id, error)

    def add(self, batch: Iterable[LogEvent]) -> None:
        events = list(batch)
        fresh = [self.entry(event) for event in events]
        known = len(self.misselected)
        self.misselected.update(
            e.pair_id for e in events if isinstance(e, ev.PairDone) and e.misselected
        )
        self.entries.extend(fresh)
        if self.filter.misselected and len(self.misselected) > known:
            self.set_filter(self.filter)  # earlier calls of a pair now known misselected
            return
        self.show_entries(fresh)

    def show_entries(self, fresh: list[Entry]) -> None:
        oldest = self.entries[0].key if self.entries else 0
        self.add_lines([item for item in fresh if self.shows(item)], oldest)

    def note(self, text: Text) -> None:
        """A line that is not an event (a warning, a failure): always kept and shown."""
        item = self.entry(text)
        self.entries.append(item)
        if not (self.filter.errors or self.filter.misselected):
            self.show_entries([item])

    def set_filter(self, new: LogFilter) -> None:
        self.filter = new
        self.set_lines([item for item in self.entries if self.shows(item)])

    def reset(self) -> None:
        self.entries.clear()
        self.misselected.clear()
        self.set_lines([])
