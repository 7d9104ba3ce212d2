"""The simulated customer-service agent.

Stateless like a real model: every reply is computed from the conversation so far. Its "plan"
(which required actions it gets right) is drawn once per conversation from a generator keyed by
(seed, model, opening request), so it stays the same across the turns of one conversation.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from judgeaudit.sim import intents as g
from judgeaudit.sim.modelspec import ModelSpec
from judgeaudit.sim.phrases import pick, say
from judgeaudit.sim.types import SimReply, SimRequest, ToolCall, digest, has_cjk, rng_for, to_json

DRAWS = ("lookup", "confirm", "args", "retry", "facts")


@dataclass
class _Call:
    name: str
    args: dict[str, Any]
    result: dict[str, Any] | None
    after_user: int  # how many user messages preceded the call


@dataclass
class _Plan:
    engaged: bool
    ok: dict[str, bool]
    claims: bool
    misreport: bool  # after a wrong call, reports what was asked rather than what happened


def _plan(spec: ModelSpec, seed: int, opening: str) -> _Plan:
    rng = rng_for("agent-plan", seed, spec.model_id, opening)
    skill = spec.p("skill")
    engaged = rng.random() < skill**0.5
    ok = {name: rng.random() < skill for name in DRAWS}
    claims = rng.random() < spec.p("claims")
    return _Plan(engaged=engaged, ok=ok, claims=claims, misreport=rng.random() < skill)


def _calls(request: SimRequest) -> list[_Call]:
    results: dict[str, dict[str, Any]] = {}
    for m in request.messages:
        if m.role == "tool" and m.tool_call_id:
            try:
                parsed = json.loads(m.content)
            except json.JSONDecodeError:
                parsed = {"error": m.content}
            results[m.tool_call_id] = parsed if isinstance(parsed, dict) else {"value": parsed}
    calls: list[_Call] = []
    users = 0
    for m in request.messages:
        if m.role == "user":
            users += 1
        for call in m.tool_calls:
            try:
                args = json.loads(call.arguments or "{}")
            except json.JSONDecodeError:
                args = {}
            calls.append(_Call(call.name, args, results.get(call.id), users))
    return calls


def _decorate(spec: ModelSpec, rng: random.Random, zh: bool, core: str) -> str:
    parts = [core]
    if rng.random() < spec.p("politeness"):
        parts.insert(0, rng.choice(pick(zh, "polite")))
    fillers = pick(zh, "filler")
    for _ in range(int(spec.p("verbosity") * 3 + rng.random())):
        parts.append(rng.choice(fillers))
    return " ".join(parts)


def _wrong_args(intent: g.Intent, order_info: dict[str, Any] | None) -> dict[str, Any]:
    """The plausible mistake a careless agent makes for this request."""
    args = _right_args(intent)
    if intent.action in ("refund", "exchange") and intent.item:
        others = [
            i["item_id"] for i in (order_info or {}).get("items", []) if i["item_id"] != intent.item
        ]
        bumped = f"SKU-{int(intent.item[4:]) % 999 + 1:03d}"
        key = "item_id" if intent.action == "refund" or not intent.new_item else "new_item_id"
        args[key] = others[0] if others and key == "item_id" else bumped
    elif intent.action == "address" and intent.address:
        args["address"] = intent.address.split(" ", 1)[-1]
    elif intent.action == "cancel":
        args["order_id"] = f"O-{int(intent.order[2:]) + 1:04d}"
    return args


def _right_args(intent: g.Intent) -> dict[str, Any]:
    args: dict[str, Any] = {"order_id": intent.order}
    if intent.action in ("refund", "exchange"):
        args["item_id"] = intent.item
    if intent.action == "exchange":
        args["new_item_id"] = intent.new_item
    if intent.action == "address":
        args["address"] = intent.address
    return args


def _tool_call(request: SimRequest, name: str, args: dict[str, Any]) -> SimReply:
    call_id = "call_" + digest(request.canonical, name, args)[:20]
    return SimReply(tool_calls=[ToolCall(call_id, name, to_json(args))])


def _facts_text(
    zh: bool, intent: g.Intent, call: _Call, order_info: dict[str, Any] | None, misreport: bool
) -> str:
    result = call.result or {}
    fields = {**_right_args(intent), **call.args, **result}
    if misreport and call.args != _right_args(intent):
        # The confident mistake: report the request as if it had been carried out.
        fields.update(_right_args(intent))
        for item in (order_info or {}).get("items", []):
            if item["item_id"] == intent.item:
                fields["amount"] = item["price"]
    fields.setdefault("item", fields.get("item_id"))
    fields.setdefault("new_item", fields.get("new_item_id"))
    fields.setdefault("order", fields.get("order_id"))
    return say(zh, f"done_{intent.action}", **{k: v for k, v in fields.items() if v is not None})


def agent_reply(spec: ModelSpec, request: SimRequest, seed: int) -> SimReply:
    users = [m.content for m in request.by_role("user")]
    zh = has_cjk(request.system + "".join(users))
    turn_rng = rng_for("agent-turn", seed, spec.model_id, request.canonical)
    found = g.latest_intent(users)
    if found is None:
        return SimReply(text=say(zh, "greet"))
    intent_index, intent = found
    plan = _plan(spec, seed, users[0])
    calls = _calls(request)

    def speak(core: str) -> SimReply:
        return SimReply(text=_decorate(spec, turn_rng, zh, core))

    if not plan.engaged:
        return speak(say(zh, "vague") if plan.claims else say(zh, "cannot"))

    lookups = [c for c in calls if c.name == "get_order" and c.result is not None]
    if plan.ok["lookup"] and not lookups and "get_order" in request.tools:
        return _tool_call(request, "get_order", {"order_id": intent.order})
    order_info = lookups[-1].result if lookups else None

    if not intent.is_write:
        if order_info and "error" not in order_info and plan.ok["facts"]:
            return speak(say(zh, "info", order=intent.order, **order_info))
        fake = f"TRK-{turn_rng.randrange(100000, 999999)}"
        status = (order_info or {}).get("status", "shipped")
        return speak(say(zh, "info", order=intent.order, status=status, tracking=fake))

    tool = g.TOOL_FOR_ACTION[intent.action]
    writes = [c for c in calls if c.name == tool and c.after_user > intent_index]
    assistant_after_intent = _assistant_texts_after(request, intent_index)
    asked = any(g.contains_any(t, g.CONFIRM_MARKERS) for t in assistant_after_intent)
    if plan.ok["confirm"] and not asked and not writes:
        summary = say(zh, f"sum_{intent.action}", **_fields(intent))
        return speak(say(zh, "confirm", summary=summary))

    if not writes:
        args = _right_args(intent) if plan.ok["args"] else _wrong_args(intent, order_info)
        return _tool_call(request, tool, args)
    last = writes[-1]
    if last.result is not None and "error" in last.result:
        if plan.ok["retry"] and len(writes) < 3:
            return _tool_call(request, tool, last.args)
        if plan.claims:
            return speak(say(zh, "vague"))
        return speak(say(zh, "fail", reason=str(last.result["error"])))
    asked_after_write = len(users) > last.after_user and g.parse_intent(users[-1]) is None
    if plan.ok["facts"] or asked_after_write:
        return speak(_facts_text(zh, intent, last, order_info, plan.misreport))
    return speak(say(zh, "vague"))


def _fields(intent: g.Intent) -> dict[str, str]:
    return {
        "order": intent.order,
        "item": intent.item or "",
        "new_item": intent.new_item or "",
        "address": intent.address or "",
    }


def _assistant_texts_after(request: SimRequest, user_index: int) -> list[str]:
    seen_users = -1
    out: list[str] = []
    for m in request.messages:
        if m.role == "user":
            seen_users += 1
        elif m.role == "assistant" and seen_users >= user_index and m.content:
            out.append(m.content)
    return out
