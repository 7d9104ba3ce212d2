"""Dispatch a normalised request to the simulated model its id names."""

from __future__ import annotations

import json
import re

from judgeaudit.sim.agent import agent_reply
from judgeaudit.sim.judge import judge_reply
from judgeaudit.sim.modelspec import ModelSpec, SimConfig
from judgeaudit.sim.phrases import say
from judgeaudit.sim.tooluse import tool_step
from judgeaudit.sim.types import SimReply, SimRequest, has_cjk
from judgeaudit.sim.user import user_reply


def chat_reply(spec: ModelSpec, request: SimRequest) -> SimReply:
    """A generic model for any other client (Codex, Claude Code, SDK smoke tests)."""
    if request.tools and (step := tool_step(request)) is not None:
        return step
    last = next((m.content for m in reversed(request.messages) if m.role == "user"), "")
    typed = _REMINDER.sub("\n", last)  # the user's words: the language is theirs too
    echo = _last_plain_line(typed)[:80]
    text = say(has_cjk(typed), "chat", model=spec.model_id, echo=f"You said: {echo}")
    if request.json_mode:
        text = json.dumps({"model": spec.model_id, "echo": echo, "simulated": True})
    return SimReply(text=text)


#: What Claude Code puts into a user's message besides the user's words (the date line, a changed
#: date, CLAUDE.md, attribution rules): blocks of ``<system-reminder>...</system-reminder>``,
#: before or after the words (2.1.332). The echo skips them: it answers what the user typed.
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)


def _last_plain_line(text: str) -> str:
    """The last non-blank line that is not markup, stripped (searched from the end: a judge
    prompt is long, and this runs for every call)."""
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line and not line.startswith("<"):
            return line
    return ""


def simulate(config: SimConfig, spec: ModelSpec, request: SimRequest) -> SimReply:
    seed = request.seed if request.seed is not None else config.seed
    if spec.kind == "agent":
        return agent_reply(spec, request, seed)
    if spec.kind == "judge":
        return judge_reply(spec, request, seed)
    if spec.kind == "user":
        return user_reply(spec, request, seed)
    return chat_reply(spec, request)
