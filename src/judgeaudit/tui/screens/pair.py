"""Pair detail: both transcripts side by side with tool calls, the success check's verdict and
why, and each judge call's rendered prompt next to its raw output, in both orders (read in a
worker, shown when loaded)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from judgeaudit.audit.units.transcript import lines as transcript_lines
from judgeaudit.errors import JudgeauditError

if TYPE_CHECKING:  # pandas and the analysis load when first used, not before the first paint
    from judgeaudit.analysis.queries import PairDetail, Side


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


def verdict(side: Side) -> Text:
    if not side.found:
        return Text("no stored conversation for this side\n", style="dim")
    text = Text(
        "SUCCESS" if side.success else "FAILED", style="bold green" if side.success else "bold red"
    )
    text.append(
        f" ({side.success_source}) · ending {side.ending} · user "
        f"{'satisfied' if side.satisfied else 'not satisfied'}\n"
    )
    for line in side.detail.get("state_diff", []):
        text.append(f"state: {line}\n", style="red")
    for fact in side.detail.get("missing_facts", []):
        text.append(f"never told the user: {fact}\n", style="red")
    if side.llm_success is not None:
        text.append(f"LLM success check (candidate only): {side.llm_success}\n", style="yellow")
    return text


def rendered_prompt(messages: list[dict[str, Any]] | None, attempt: int) -> Text:
    """What the judge was sent; a retry shows only the re-ask it added."""
    if messages is None:
        return Text("(rendered prompt not stored: run made before prompts were kept)\n", "dim")
    out = Text()
    for message in messages[-1:] if attempt else messages:
        out.append(f"[{message['role']}] ", style="bold dim")
        out.append(str(message.get("content") or "") + "\n", style="dim")
    return out


def judge_outputs(calls: list[dict[str, Any]]) -> Text:
    text = Text("Judge calls: rendered prompt, then raw output\n", style="bold")
    for call in calls:
        text.append(
            f"order {call['order']} attempt {call['attempt']} ({call['model']}, prompt "
            f"{call['prompt_hash']})",
            style="bold",
        )
        if call["parse_error"]:
            text.append(f"  PARSE ERROR: {call['parse_error']}", style="bold red")
        text.append("\n")
        text.append_text(rendered_prompt(call.get("messages"), int(call["attempt"])))
        text.append(str(call["raw_output"] or "") + "\n\n")
    return text


class PairDetailScreen(Screen[None]):
    SUB_TITLE = "Pair"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Back")]

    def __init__(self, out: Path, pair_id: str) -> None:
        super().__init__()
        self.out, self.pair_id = out, pair_id

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"Pair {self.pair_id} — loading…", id="pair-title", classes="title")
        with Horizontal(classes="columns", id="pair-columns"):
            for side in ("a", "b"):
                with VerticalScroll(classes="column"):
                    yield Static("", id=f"side-{side}")
        with VerticalScroll(classes="column", id="judge-column"):
            yield Static("", id="judge-outputs")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#pair-columns").loading = True
        self.load()

    @work(thread=True, exclusive=True, group="pair")
    def load(self) -> None:
        from judgeaudit.analysis.queries import pair_detail

        try:
            detail = pair_detail(self.out, self.pair_id)
        except JudgeauditError as exc:
            self.app.call_from_thread(self.show_error, str(exc))
            return
        self.app.call_from_thread(self.show, detail)

    def show_error(self, message: str) -> None:
        self.query_one("#pair-columns").loading = False
        self.query_one("#pair-title", Static).update(message)

    def show(self, detail: PairDetail) -> None:
        pair = detail.pair
        flag = "  MISSELECTED" if pair["misselected"] else ""
        self.query_one("#pair-title", Static).update(
            f"{pair['task_id']} ({pair['task_type']}) · judge prefers {pair['judge_pref']} "
            f"(AB: {pair['pref_ab']}, BA: {pair['pref_ba']}) · scores {pair['judge_score_a']}/"
            f"{pair['judge_score_b']}{flag}"
        )
        for label, side in zip(("a", "b"), detail.sides, strict=True):
            text = Text(f"{label.upper()}: {side.agent}\n", style="bold")
            text.append_text(verdict(side))
            text.append_text(transcript(side.events))
            self.query_one(f"#side-{label}", Static).update(text)
        self.query_one("#judge-outputs", Static).update(judge_outputs(detail.judge_logs))
        self.query_one("#pair-columns").loading = False
