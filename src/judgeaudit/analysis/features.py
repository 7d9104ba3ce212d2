"""Style features of one trajectory, read from its stored transcript (no model call).

Every source of trajectories stores the same events (``role`` user | agent | tool_call |
tool_result), so live runs, re-judges and every import format get the same features. Each
feature is one function below; the markers come from :mod:`judgeaudit.audit.spec.lexicon`
(English and Chinese, plus the file a spec names). None of them shows a task was done: they
measure what a judge may reward instead (docs/why.md).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from judgeaudit.audit.spec.lexicon import Lexicon


def agent_messages(events: list[dict[str, Any]]) -> list[str]:
    """What the agent said to the customer, one string per message (tool calls left out)."""
    return [str(e.get("content") or "") for e in events if e.get("role") == "agent"]


def length_chars(events: list[dict[str, Any]]) -> int:
    """``length``: characters the agent wrote (every message, stripped), the quantity
    AlpacaEval's length control uses; tokens are shown beside it where usage is known."""
    return sum(len(m.strip()) for m in agent_messages(events))


def agent_turns(events: list[dict[str, Any]]) -> int:
    """``turns``: how many messages the agent sent the customer."""
    return len(agent_messages(events))


def tool_calls(events: list[dict[str, Any]]) -> int:
    """``tool_calls``: how many tools the agent called (visible to a judge only in the evidence
    view, so a transcript judge that rewards it rewards something it never saw)."""
    return sum(1 for e in events if e.get("role") == "tool_call")


def _has(text: str, phrases: tuple[str, ...]) -> bool:
    lowered = text.lower()
    return any(p in lowered for p in phrases)


def claimed_done(events: list[dict[str, Any]], lex: Lexicon) -> bool:
    """``claimed_done``: the agent's last message claims the request is complete (a claim
    marker and no failure marker, so "I was unable to complete this" is no claim)."""
    said = agent_messages(events)
    if not said:
        return False
    last = said[-1]
    return _has(last, lex.claim) and not _has(last, lex.failure)


def claimed_but_failed(events: list[dict[str, Any]], lex: Lexicon, success: bool) -> bool:
    """``claimed_but_failed``: a completion claim while the state check says the task failed
    (the "I have processed your refund" the write-up names)."""
    return claimed_done(events, lex) and not success


def courtesy(events: list[dict[str, Any]], lex: Lexicon) -> int:
    """``courtesy``: courtesy markers (thanks, apologies, offers to help), every occurrence."""
    text = " ".join(agent_messages(events)).lower()
    return sum(text.count(p) for p in lex.courtesy)


def asks_confirmation(events: list[dict[str, Any]], lex: Lexicon) -> bool:
    """``asks_confirmation``: a process marker, the agent asks the customer to confirm."""
    return any(_has(m, lex.confirm) for m in agent_messages(events))


def cites_ids(events: list[dict[str, Any]], lex: Lexicon) -> bool:
    """``cites_ids``: a process marker, the agent's messages cite an order or item id."""
    text = " ".join(agent_messages(events))
    return any(p.search(text) for p in lex.ids)


@dataclass(frozen=True)
class Features:
    length: int
    turns: int
    tool_calls: int
    claimed_done: int
    claimed_but_failed: int
    courtesy: int
    asks_confirmation: int
    cites_ids: int
    tokens: int | None = None  # the agent's completion tokens, where the run recorded usage

    def as_dict(self) -> dict[str, int | None]:
        return asdict(self)


#: The regression's feature terms, in the order the report lists ties; ``tokens`` is shown,
#: never modelled (known only for live runs).
FEATURES = (
    "length",
    "turns",
    "tool_calls",
    "claimed_done",
    "claimed_but_failed",
    "courtesy",
    "asks_confirmation",
    "cites_ids",
)
#: What each term is. ``style`` terms (presentation: how much and how politely the agent wrote)
#: carry no evidence of completion and are zeroed for the style-controlled rate; ``process`` and
#: ``claim`` terms are how a transcript reports completion (a judge that cannot see the state
#: must read them), so they are reported, not zeroed; ``claimed_but_failed`` is the undeserved
#: part of a claim. Measured on the demo (docs/why.md): zeroing process and claim terms too
#: leaves a transcript judge almost blind, not unbiased.
KIND = {
    "position": "position",
    "success": "success",
    "length": "style",
    "turns": "style",
    "courtesy": "style",
    "asks_confirmation": "process",
    "cites_ids": "process",
    "tool_calls": "process",
    "claimed_done": "claim",
    "claimed_but_failed": "claim",
}
STYLE = tuple(name for name in FEATURES if KIND[name] == "style")
#: Counts, scaled per standard deviation in the model; the rest are 0/1.
CONTINUOUS = ("length", "turns", "tool_calls", "courtesy")


def features(
    events: list[dict[str, Any]], success: bool, lex: Lexicon, tokens: int | None = None
) -> Features:
    """All features of one trajectory."""
    return Features(
        length=length_chars(events),
        turns=agent_turns(events),
        tool_calls=tool_calls(events),
        claimed_done=int(claimed_done(events, lex)),
        claimed_but_failed=int(claimed_but_failed(events, lex, success)),
        courtesy=courtesy(events, lex),
        asks_confirmation=int(asks_confirmation(events, lex)),
        cites_ids=int(cites_ids(events, lex)),
        tokens=tokens,
    )
