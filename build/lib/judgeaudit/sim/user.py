"""The simulated customer: pursues the goal in its ``<task>`` block and never does the agent's job.

Roles are seen from the customer's side: the agent's messages arrive as ``user`` messages and the
customer's own earlier lines are ``assistant`` messages (the usual user-simulator convention).
"""

from __future__ import annotations

from judgeaudit.sim import intents as g
from judgeaudit.sim.modelspec import ModelSpec
from judgeaudit.sim.phrases import say
from judgeaudit.sim.types import SimReply, SimRequest, has_cjk, rng_for


def user_reply(spec: ModelSpec, request: SimRequest, seed: int) -> SimReply:
    goal = g.task_lines(request.system)
    zh = has_cjk(request.system)
    agent_texts = [m.content for m in request.by_role("user") if m.content]
    own = [m.content for m in request.by_role("assistant")]
    opening = goal.get("opening", "")
    if not own or not agent_texts:
        return SimReply(text=opening or say(zh, "user_give_up"))
    last = agent_texts[-1]
    if g.contains_any(last, g.CONFIRM_MARKERS):
        twist = goal.get("on_confirm")
        if twist and twist not in own:
            return SimReply(text=twist)
        return SimReply(text=say(zh, "user_yes"))
    if g.contains_any(last, g.FAILURE_MARKERS):
        return SimReply(text=say(zh, "user_give_up"))
    heard = " ".join(agent_texts)
    unmet = [n for n in g.needs_of(goal.get("needs", "")) if not g.need_met(n, heard)]
    if not unmet:
        return SimReply(text=say(zh, "user_thanks"))
    claimed = g.contains_any(last, g.CLAIM_MARKERS)
    rng = rng_for("user", seed, spec.model_id, request.canonical)
    if claimed and rng.random() < spec.p("gullibility"):
        return SimReply(text=say(zh, "user_thanks"))
    already_asked = any("?" in t or "？" in t for t in own[1:])
    if not already_asked:
        return SimReply(text=say(zh, "user_ask", need=say(zh, f"need_{unmet[0]}")))
    return SimReply(text=say(zh, "user_give_up"))
