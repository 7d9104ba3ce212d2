"""Pair detail: both transcripts side by side with tool calls, the success check's verdict and
why, and each judge call's rendered prompt next to its raw output, in both orders."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from judgeaudit.analysis.pair_detail import pair_detail
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


def verdict(traj: dict[str, Any]) -> Text:
    ok = bool(traj["success"])
    text = Text("SUCCESS" if ok else "FAILED", style="bold green" if ok else "bold red")
    text.append(
        f" ({traj['success_source']}) · ending {traj['ending']} · user "
        f"{'satisfied' if traj['satisfied'] else 'not satisfied'}\n"
    )
    detail = traj["success_detail"]
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
        detail = pair_detail(self.out, self.pair_id)
        pair, sides = detail["pair"], detail["sides"]
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
                    yield Static(transcript(traj["events"]))
        with VerticalScroll(classes="column"):
            yield Static(Text("Judge calls: rendered prompt, then raw output", style="bold"))
            for log in detail["judge_calls"]:
                head = Text(
                    f"order {log['order']} attempt {log['attempt']} ({log['model']}, prompt "
                    f"{log['prompt_hash']})",
                    style="bold",
                )
                if log["parse_error"]:
                    head.append(f"  PARSE ERROR: {log['parse_error']}", style="bold red")
                yield Static(head)
                yield Static(rendered_prompt(log["messages"], log["attempt"]))
                yield Static(Text(log["raw_output"]))
        yield Footer()


def rendered_prompt(messages: list[dict[str, Any]] | None, attempt: int) -> Text:
    """What the judge was sent; a retry shows only the re-ask it added."""
    if messages is None:
        return Text("(rendered prompt not stored: run made before prompts were kept)", "dim")
    out = Text()
    for message in messages[-1:] if attempt else messages:
        out.append(f"[{message['role']}] ", style="bold dim")
        out.append(str(message.get("content") or "") + "\n", style="dim")
    return out
