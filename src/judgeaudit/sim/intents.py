"""The small grammar through which simulated models understand the retail domain.

Requests use canonical phrasing (English or Chinese) with ids such as ``O-1007`` and ``SKU-104``.
The user simulator reads its goal from the lines of a ``<task>`` block; the agent and the judge
read requests, claims and facts from the conversation. This is the documented limit of the
simulation: a real model understands free text, these understand this grammar.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ORDER_RE = re.compile(r"\bO-\d{4}\b")
ITEM_RE = re.compile(r"\bSKU-\d{3}\b")
AMOUNT_RE = re.compile(r"\$\d+(?:\.\d{2})?")
TRACKING_RE = re.compile(r"\bTRK-\d{6}\b")
REFUND_ID_RE = re.compile(r"\bR-\d{4,}\b")
STATUS_WORDS = ("pending", "processing", "shipped", "delivered", "cancelled")
ADDRESS_RE = re.compile(r"(?:\bto:|改为[：:])\s*(.+?)(?:[。.]?\s*$|[。]|\.\s)", re.MULTILINE)

ACTION_KEYWORDS: list[tuple[str, tuple[str, ...]]] = [
    ("exchange", ("exchange", "换成")),
    ("address", ("address", "地址")),
    ("refund", ("refund", "退款")),
    ("cancel", ("cancel", "取消")),
    ("info", ("status", "tracking", "状态", "物流")),
]
WRITE_ACTIONS = ("exchange", "address", "refund", "cancel")
TOOL_FOR_ACTION = {
    "refund": "refund_item",
    "cancel": "cancel_order",
    "address": "update_address",
    "exchange": "exchange_item",
}

CONFIRM_MARKERS = ("shall i proceed", "是否继续")
FAILURE_MARKERS = ("unable", "wasn't able", "没能", "无法")
CLAIM_MARKERS = (
    "done",
    "processed",
    "completed",
    "issued",
    "updated",
    "has been cancelled",
    "taken care of",
    "已完成",
    "已处理",
    "已办理",
)
POLITE_MARKERS = ("thank you", "sorry for", "happy to", "感谢", "非常抱歉", "很乐意")

TASK_LINE_PREFIXES = {
    "opening": ("Opening request:", "开场请求："),
    "on_confirm": ("If the agent asks you to confirm, reply:", "如果客服请你确认，回复："),
    "needs": ("Information you need from the agent:", "你需要从客服得到的信息："),
}
NEED_KEYWORDS = {
    "amount": ("amount", "金额"),
    "tracking": ("tracking", "物流单号"),
    "status": ("status", "状态"),
}


@dataclass(frozen=True)
class Intent:
    action: str  # refund | cancel | address | exchange | info
    order: str
    item: str | None = None
    new_item: str | None = None
    address: str | None = None

    @property
    def is_write(self) -> bool:
        return self.action in WRITE_ACTIONS


def parse_intent(text: str) -> Intent | None:
    """The request a message makes, or None when it makes none."""
    order = ORDER_RE.search(text)
    if order is None:
        return None
    lowered = text.lower()
    for action, words in ACTION_KEYWORDS:
        if any(w in lowered for w in words):
            if action == "cancel" and ("don't cancel" in lowered or "不要取消" in text):
                continue
            items = ITEM_RE.findall(text)
            address = None
            if action == "address":
                match = ADDRESS_RE.search(text)
                address = match.group(1).strip() if match else None
            return Intent(
                action=action,
                order=order.group(0),
                item=items[0] if items else None,
                new_item=items[1] if len(items) > 1 else None,
                address=address,
            )
    return None


def latest_intent(user_texts: list[str]) -> tuple[int, Intent] | None:
    """The last request in a list of user messages, with its index."""
    for index in range(len(user_texts) - 1, -1, -1):
        intent = parse_intent(user_texts[index])
        if intent is not None:
            return index, intent
    return None


TASK_BLOCK_RE = re.compile(r"<task>(.*?)</task>", re.DOTALL)


def task_lines(text: str) -> dict[str, str]:
    """The user simulator's goal lines from a ``<task>`` block. A task file's instruction is
    often the request alone (docs/audit.md: ``"I'd like a refund for item SKU-103 in order
    O-1001."``): inside the block, the lines without a known prefix are the opening request
    when no ``Opening request:`` line gives one."""
    out: dict[str, str] = {}
    block = TASK_BLOCK_RE.search(text)
    plain: list[str] = []
    for raw in (block.group(1) if block else text).splitlines():
        line = raw.strip()
        matched = False
        for key, prefixes in TASK_LINE_PREFIXES.items():
            for prefix in prefixes:
                if line.startswith(prefix):
                    out[key] = line[len(prefix) :].strip()
                    matched = True
        if line and not matched:
            plain.append(line)
    if block and plain and "opening" not in out:
        out["opening"] = " ".join(plain)
    return out


def needs_of(text: str) -> list[str]:
    lowered = text.lower()
    return [need for need, words in NEED_KEYWORDS.items() if any(w in lowered for w in words)]


def need_met(need: str, text: str) -> bool:
    if need == "amount":
        return AMOUNT_RE.search(text) is not None
    if need == "tracking":
        return TRACKING_RE.search(text) is not None
    return any(word in text.lower() for word in STATUS_WORDS)


def contains_any(text: str, markers: tuple[str, ...]) -> bool:
    lowered = text.lower()
    return any(m in lowered for m in markers)
