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

from judgeaudit.audit.units.ids import pair_trials, shown_source_id
from judgeaudit.audit.units.transcript import lines as transcript_lines
from judgeaudit.errors import JudgeauditError
from judgeaudit.tui.safe_text import safe

if TYPE_CHECKING:  # pandas and the analysis load when first used, not before the first paint
    from judgeaudit.analysis.queries import PairDetail, Side

TOOL_SHOWN = 160  # characters of a tool result; the cut ends in "…" (`c`/`C` copy it whole)


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
            shown = body if len(body) <= TOOL_SHOWN else body[: TOOL_SHOWN - 1] + "…"
            out.append(f"  ← {shown}\n", style="red" if kind == "tool_error" else "dim")
    return out


def transcript_text(events: list[dict[str, Any]]) -> str:
    """A conversation as plain text, nothing cut: what `c`/`C` copy."""
    marks = {"user": "user: ", "agent": "agent: ", "tool_call": "  -> "}
    return "".join(f"{marks.get(kind, '  <- ')}{body}\n" for kind, body in transcript_lines(events))


def verdict(side: Side) -> Text:
    if not side.found:
        return Text("no stored conversation for this side\n", style="dim")
    text = Text(
        "SUCCESS" if side.success else "FAILED", style="bold green" if side.success else "bold red"
    )
    mood = {True: "user satisfied", False: "user not satisfied", None: "satisfaction not recorded"}
    text.append(f" ({side.success_source}) · ending {side.ending} · {mood[side.satisfied]}\n")
    for line in side.detail.get("state_diff", []):
        text.append(f"state: {line}\n", style="red")
    for fact in side.detail.get("missing_facts", []):
        text.append(f"never told the user: {fact}\n", style="red")
    if side.llm_success is not None:
        text.append(f"LLM success check (candidate only): {side.llm_success}\n", style="yellow")
    return text


def rendered_prompt(call: dict[str, Any]) -> Text:
    """What the judge was sent; a retry shows only the re-ask it added."""
    from judgeaudit.analysis.pair_detail import no_prompt_reason  # loaded with the pair already

    messages, attempt = call.get("messages"), int(call["attempt"])
    if messages is None:
        return Text(f"(rendered prompt not stored: {no_prompt_reason(call)})\n", "dim")
    out = Text()
    for message in messages[-1:] if attempt else messages:
        out.append(f"[{message['role']}] ", style="bold dim")
        out.append(str(message.get("content") or "") + "\n", style="dim")
    return out


def judge_outputs(calls: list[dict[str, Any]]) -> Text:
    from judgeaudit.analysis.pair_detail import raw_output_text  # loaded with the pair already

    text = Text("Judge calls: rendered prompt, then raw output\n", style="bold")
    for call in calls:
        prompt = f", prompt {call['prompt_hash']}" if call["prompt_hash"] else ""
        text.append(
            f"order {call['order']} attempt {call['attempt']} ({call['model']}{prompt})",
            style="bold",
        )
        if call["parse_error"]:
            text.append(f"  PARSE ERROR: {call['parse_error']}", style="bold red")
        text.append("\n")
        text.append_text(rendered_prompt(call))
        text.append(raw_output_text(call) + "\n\n")
    return text


def pair_title(pair: dict[str, Any]) -> str:
    """MISSELECTED first when it is (the header has two lines: at 80 columns long agent names
    pushed it out of sight), then task, trial and agents, then the verdict in agents' names."""
    agents = {"A": pair["agent_a"], "B": pair["agent_b"]}

    def named(pref: Any) -> str:
        return str(agents.get(str(pref), pref))

    trial = pair_trials(pair)
    flag = "MISSELECTED · " if pair["misselected"] else ""
    log = shown_source_id(pair, cut=LOG_ID_SHOWN)  # early: at 80 columns the end is cut off
    logged = "" if log is None else f"log {log} · "
    return (
        f"{flag}{pair['task_id']} {trial} ({pair['task_type']}) · {logged}A {pair['agent_a']} vs"
        f" B {pair['agent_b']} · judge prefers {named(pair['judge_pref'])} (AB: "
        f"{named(pair['pref_ab'])}, BA: {named(pair['pref_ba'])}) · scores "
        f"{pair['judge_score_a']}/{pair['judge_score_b']}"
    )


#: A log's id in the header is cut past this (``Y`` copies it whole; ``show`` prints it).
LOG_ID_SHOWN = 40


class PairDetailScreen(Screen[None]):
    SUB_TITLE = "Pair"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("y", "copy_id", "Copy id"),
        Binding("Y", "copy_log_id", "Copy log id"),
        Binding("c", "copy_transcript(0)", "Copy A"),
        Binding("C", "copy_transcript(1)", "Copy B"),
    ]

    def __init__(self, out: Path, pair_id: str) -> None:
        super().__init__()
        self.out, self.pair_id = out, pair_id
        self.detail: PairDetail | None = None

    def action_copy_id(self) -> None:
        self.app.copy_to_clipboard(self.pair_id)
        self.notify(f"copied {self.pair_id}", timeout=3)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``Y`` only for a pair its log gave an id (an imported one)."""
        if action == "copy_log_id":
            return self.detail is not None and self.detail.pair.get("source_id") is not None
        return True

    def action_copy_log_id(self) -> None:
        pair = {} if self.detail is None else self.detail.pair
        if pair.get("source_id") is not None:
            self.app.copy_to_clipboard(str(pair["source_id"]))
            self.notify(f"copied the log's id {shown_source_id(pair)}", timeout=3)

    def action_copy_transcript(self, side: int) -> None:
        if self.detail is None:
            return
        chosen = self.detail.sides[side]
        self.app.copy_to_clipboard(transcript_text(chosen.events))
        self.notify(f"copied {chosen.agent}'s conversation (whole, as text)", timeout=3)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(
            f"Pair {self.pair_id} — loading…", id="pair-title", classes="title", markup=False
        )
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
        self.detail = detail
        self.refresh_bindings()  # Y, now that it is known whether the log gave an id
        # Text, not markup: ids come from users' files ("[" in a task or log id)
        self.query_one("#pair-title", Static).update(safe(Text(pair_title(detail.pair))))
        for label, side in zip(("a", "b"), detail.sides, strict=True):
            text = Text(f"{label.upper()}: {side.agent}\n", style="bold")
            text.append_text(verdict(side))
            text.append_text(transcript(side.events))
            self.query_one(f"#side-{label}", Static).update(safe(text))
        self.query_one("#judge-outputs", Static).update(safe(judge_outputs(detail.judge_logs)))
        self.query_one("#pair-columns").loading = False
