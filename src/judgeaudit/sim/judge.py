"""The simulated judge: weighs visible evidence of completion against style and position.

It reads ``<task>`` and ``<trajectory_A>``/``<trajectory_B>`` blocks whose lines start with
``user:``, ``agent:``, ``tool_call:`` or ``tool_result:``. With one ``<trajectory>`` block it acts
as the optional LLM success check. Scores are 0-5 with one decimal.
"""

from __future__ import annotations

import functools
import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

from judgeaudit.sim import intents as g
from judgeaudit.sim.modelspec import ModelSpec
from judgeaudit.sim.types import SimReply, SimRequest, rng_for, seed_for, to_json

#: The blocks a judge prompt holds; :func:`find_blocks` finds them (the regex is its definition).
BLOCK_RE = re.compile(r"<(trajectory(?:_[AB])?)>\s*(.*?)\s*</\1>", re.DOTALL)
_OPEN = "<trajectory"
TIE_MARGIN = 0.15


@dataclass
class _Trajectory:
    user: list[str] = field(default_factory=list)
    agent: list[str] = field(default_factory=list)
    calls: list[tuple[str, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    #: What one judge call works out more than once (the request, the evidence): the scores
    #: and the reasons read the same transcript, and this is the provider's CPU per call.
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def intent(self) -> tuple[int, g.Intent] | None:
        if "intent" not in self.memo:
            self.memo["intent"] = g.latest_intent(self.user)
        found: tuple[int, g.Intent] | None = self.memo["intent"]
        return found


def _parse(block: str) -> _Trajectory:
    traj = _Trajectory()
    pending: tuple[str, dict[str, Any]] | None = None
    last: list[str] | None = None
    for line in block.splitlines():
        if line.startswith("  ") and last:  # a message's later line (transcript.CONTINUATION)
            last[-1] += " " + line.strip()
            continue
        role, _, text = line.partition(":")
        text = text.strip()
        last = {"user": traj.user, "agent": traj.agent}.get(role)
        if role == "user":
            traj.user.append(text)
        elif role == "agent":
            traj.agent.append(text)
        elif role == "tool_call":
            name, _, raw = text.partition(" ")
            pending = (name, _loads(raw))
        elif role == "tool_result" and pending is not None:
            traj.calls.append((pending[0], pending[1], _loads(text)))
            pending = None
    return traj


def find_blocks(prompt: str) -> dict[str, str]:
    """``dict(BLOCK_RE.findall(prompt))``, the same blocks, found with ``str.find`` (the lazy
    regex was a sixth of a judge call's CPU on a two-transcript prompt). A tag without its
    closing tag is skipped; a later block of the same name wins; ``strip`` and the regex's
    ``\\s`` take the same characters for whitespace."""
    found: dict[str, str] = {}
    pos = 0
    while (at := prompt.find(_OPEN, pos)) >= 0:
        tail = at + len(_OPEN)
        if prompt.startswith(">", tail):
            name, start = "trajectory", tail + 1
        elif prompt.startswith(("_A>", "_B>"), tail):
            name, start = prompt[at + 1 : tail + 2], tail + 3
        else:
            pos = at + 1
            continue
        end = prompt.find(f"</{name}>", start)
        if end < 0:
            pos = at + 1
            continue
        found[name] = prompt[start:end].strip()
        pos = end + len(name) + 3
    return found


#: Transcripts a server has read lately. An audit shows each one to the judge many times
#: (against each opponent, in both positions): its parse, evidence and style, and the seed of
#: the judge's opinion of it, are functions of its text, so they are worked out once.
_RECENT = 4096


@functools.lru_cache(maxsize=_RECENT)
def _trajectory(block: str) -> _Trajectory:
    return _parse(block)


@functools.lru_cache(maxsize=_RECENT)
def _opinion_seed(seed: int, model_id: str, block: str) -> int:
    return seed_for("judge-opinion", seed, model_id, block)


def _loads(raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _expected(intent: g.Intent) -> dict[str, Any]:
    args: dict[str, Any] = {"order_id": intent.order}
    if intent.item:
        args["item_id"] = intent.item
    if intent.new_item:
        args["new_item_id"] = intent.new_item
    if intent.address:
        args["address"] = intent.address
    return args


def evidence_score(traj: _Trajectory, with_tools: bool, diligent: bool = True) -> float:
    """How strongly the transcript shows the request was completed (0-1).

    A judge that is not ``diligent`` on this call does not cross-check the details an agent
    reports (item ids, addresses) against what the customer asked for.
    """
    key = ("evidence", with_tools, diligent)
    if key not in traj.memo:
        traj.memo[key] = _evidence(traj, with_tools, diligent)
    score: float = traj.memo[key]
    return score


def _evidence(traj: _Trajectory, with_tools: bool, diligent: bool) -> float:
    found = traj.intent()
    if found is None or not traj.agent:
        return 0.2
    intent = found[1]
    said = " ".join(traj.agent)
    if with_tools:
        if intent.is_write:
            tool = g.TOOL_FOR_ACTION[intent.action]
            made = [(a, r) for n, a, r in traj.calls if n == tool]
            if any(a == _expected(intent) and "error" not in r for a, r in made):
                return 0.95
            return 0.1
        looked = [r for n, _, r in traj.calls if n == "get_order" and "error" not in r]
        if looked and str(looked[-1].get("tracking", "?")) in said:
            return 0.95
        return 0.15
    outcome = [t for t in traj.agent if not g.contains_any(t, g.CONFIRM_MARKERS)]
    if not outcome:
        return 0.15
    if g.contains_any(outcome[-1], g.FAILURE_MARKERS):
        return 0.05
    said = " ".join(outcome)
    requested = {intent.item, intent.new_item} - {None}
    wrong_item = bool(set(g.ITEM_RE.findall(said)) - requested)
    wrong_address = bool(intent.address and "address" in said and intent.address not in said)
    if diligent and (wrong_item or wrong_address):
        return 0.2
    if intent.order in said and _details_shown(intent, said):
        return 0.85
    return 0.3 if g.contains_any(said, g.CLAIM_MARKERS) else 0.15


def _details_shown(intent: g.Intent, said: str) -> bool:
    """Whether the outcome message reports the specifics this kind of request produces."""
    if intent.action == "refund":
        return g.AMOUNT_RE.search(said) is not None and g.ITEM_RE.search(said) is not None
    if intent.action == "exchange":
        return len(g.ITEM_RE.findall(said)) >= 2
    if intent.action == "address":
        return (intent.address is not None and "address" in said.lower()) or "地址" in said
    if intent.action == "cancel":
        return "cancel" in said.lower() or "取消" in said
    return g.TRACKING_RE.search(said) is not None


def style_score(traj: _Trajectory) -> float:
    """Perceived quality beyond evidence: courtesy, length, and a professional process
    (confirming before acting, citing the order). None of it shows the task was done."""
    if "style" not in traj.memo:
        traj.memo["style"] = _style(traj)
    score: float = traj.memo["style"]
    return score


def _style(traj: _Trajectory) -> float:
    said = " ".join(traj.agent)
    polite = min(1.0, sum(said.lower().count(m) for m in g.POLITE_MARKERS) / 2)
    length = min(1.0, len(said) / 600)
    found = traj.intent()
    confirmed = any(g.contains_any(t, g.CONFIRM_MARKERS) for t in traj.agent)
    cites = found is not None and found[1].order in said
    process = 0.5 * confirmed + 0.5 * cites
    return 0.2 * polite + 0.1 * length + 0.7 * process


def _score(
    spec: ModelSpec,
    seed: int,
    rng: random.Random,
    traj: _Trajectory,
    block: str,
    tools: bool,
    first: bool,
) -> float:
    """Most of the judge's noise is its stable opinion of this transcript (keyed by content);
    a smaller part, and the position bonus, depend on the order it was shown in."""
    opinion = random.Random(_opinion_seed(seed, spec.model_id, block))
    we, ws = spec.p("evidence"), spec.p("style")
    diligent = opinion.random() < spec.p("diligence")
    evidence = evidence_score(traj, tools, diligent)
    base = 5 * (we * evidence + ws * style_score(traj)) / max(we + ws, 1e-9)
    noise = opinion.gauss(0, spec.p("noise")) + rng.gauss(0, spec.p("noise") * 0.3)
    raw = base + noise + (spec.p("position") if first else 0.0)
    return round(min(5.0, max(0.0, raw)), 1)


def _reason(label: str, traj: _Trajectory, tools: bool) -> str:
    e = evidence_score(traj, tools)
    if e >= 0.8:
        return f"{label} shows concrete evidence that the request was completed"
    if e >= 0.45:
        return f"{label} claims completion but shows little evidence"
    return f"{label} does not show the request was completed"


def judge_reply(spec: ModelSpec, request: SimRequest, seed: int) -> SimReply:
    prompt = "\n".join(m.content for m in request.messages if m.role in ("system", "user"))
    bodies = find_blocks(prompt)
    blocks = {name: _trajectory(body) for name, body in bodies.items()}
    tools = "tool_call:" in prompt
    rng = rng_for("judge", seed, spec.model_id, request.canonical)
    if "trajectory" in blocks and "trajectory_A" not in blocks:
        ok = evidence_score(blocks["trajectory"], tools) >= 0.8
        body: dict[str, Any] = {"success": ok, "missing": [] if ok else ["evidence of completion"]}
        return SimReply(text=to_json(body))
    a, b = blocks.get("trajectory_A", _Trajectory()), blocks.get("trajectory_B", _Trajectory())
    score_a = _score(spec, seed, rng, a, bodies.get("trajectory_A", ""), tools, first=True)
    score_b = _score(spec, seed, rng, b, bodies.get("trajectory_B", ""), tools, first=False)
    diff = score_a - score_b
    winner = "tie" if abs(diff) < TIE_MARGIN else ("A" if diff > 0 else "B")
    verdict = {
        "winner": winner,
        "score_a": score_a,
        "score_b": score_b,
        "reasons": [_reason("A", a, tools), _reason("B", b, tools)],
    }
    text = to_json(verdict)
    retrying = len(request.by_role("user")) > 1
    if not retrying and rng.random() < spec.p("malformed"):
        text = _malform(rng, text)
    return SimReply(text=text)


def _malform(rng: random.Random, text: str) -> str:
    kind = rng.choice(("fence", "prose", "broken", "single_quotes"))
    if kind == "fence":
        return f"```json\n{text}\n```"
    if kind == "prose":
        return f"Here is my verdict:\n{text}\nI hope this helps."
    if kind == "broken":
        return text[: len(text) // 2]
    return text.replace('"', "'")
