"""Tasks whose success is verifiable: the built-in retail set and JSONL task files.

A task's expected state is computed by applying its correct actions through the same
`Environment` the agents use, so the label can never drift from the tools.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgeaudit.audit.tasks.domain import Environment, State, money
from judgeaudit.audit.tasks.errors import TaskError
from judgeaudit.audit.tasks.jsonl import read_objects
from judgeaudit.audit.tasks.state import check_actions, check_state

TASK_TYPES = (
    "refund",
    "order_modification",
    "multi_turn_confirmation",
    "tool_failure",
    "info_only",
)


@dataclass(frozen=True)
class Task:
    task_id: str
    task_type: str
    instruction: dict[str, str]  # language -> the user simulator's goal lines
    initial_state: State
    expected_state: State
    required_facts: list[str] = field(default_factory=list)
    fail_once: str | None = None

    def goal(self, language: str) -> str:
        return self.instruction.get(language) or next(iter(self.instruction.values()))

    def to_json(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "task_type": self.task_type,
            "instruction": self.instruction,
            "required_facts": self.required_facts,
            "fail_once": self.fail_once,
        }


def expected_after(state: State, actions: list[tuple[str, dict[str, Any]]]) -> State:
    env = Environment(state)
    for index, (name, args) in enumerate(actions):
        result = env.call(name, json.dumps(args))
        if "error" in result:
            raise TaskError(
                f"actions[{index}]: {name}({json.dumps(args, ensure_ascii=False)}) fails on the "
                f"task's own state: {result['error']}"
            )
    return env.state


def task_set_hash(tasks: list[Task]) -> str:
    blob = json.dumps(
        [[t.to_json(), t.initial_state, t.expected_state] for t in tasks], sort_keys=True
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


# --- the built-in retail task set -------------------------------------------------------------

_PRODUCTS = [
    "Wireless Mouse",
    "USB-C Hub",
    "Desk Lamp",
    "Water Bottle",
    "Yoga Mat",
    "Backpack",
    "Bluetooth Speaker",
    "Coffee Grinder",
    "Phone Case",
    "Notebook Set",
    "Running Socks",
    "Travel Mug",
    "Laptop Stand",
    "Mechanical Keyboard",
    "Earbuds",
    "Throw Pillow",
    "Cutting Board",
    "Plant Pot",
    "LED Strip",
    "Headphone Stand",
]
_STREETS = ["Elm Street", "Oak Avenue", "Maple Road", "Cedar Lane", "Pine Court", "Birch Way"]
_CITIES = ["Springfield", "Riverton", "Lakeside", "Fairview", "Hillcrest"]

EN = {
    "refund": "I'd like a refund for item {item} in order {order}.",
    "cancel": "Please cancel order {order}.",
    "address": "Please change the shipping address of order {order} to: {address}.",
    "exchange": "I want to exchange item {item} in order {order} for item {new_item}.",
    "info": "What is the status of order {order}, and what is its tracking number?",
    "twist_address": (
        "Actually, don't cancel it; instead please change the shipping address of "
        "order {order} to: {address}."
    ),
    "twist_exchange": (
        "Actually, I'd rather not get my money back; instead I want to exchange "
        "item {item} in order {order} for item {new_item}."
    ),
    "opening": "Opening request: {text}",
    "on_confirm": "If the agent asks you to confirm, reply: {text}",
    "needs": "Information you need from the agent: {text}",
    "need_refund": "the refund amount",
    "need_info": "the order status; the tracking number",
}
ZH = {
    "refund": "我想对订单 {order} 中的商品 {item} 申请退款。",
    "cancel": "请取消订单 {order}。",
    "address": "请把订单 {order} 的收货地址改为：{address}。",
    "exchange": "我想把订单 {order} 中的商品 {item} 换成商品 {new_item}。",
    "info": "订单 {order} 现在是什么状态？物流单号是多少？",
    "twist_address": "等一下，不要取消了；请把订单 {order} 的收货地址改为：{address}。",
    "twist_exchange": "等一下，我不想退款了；我想把订单 {order} 中的商品 {item} 换成商品 {new_item}。",
    "opening": "开场请求：{text}",
    "on_confirm": "如果客服请你确认，回复：{text}",
    "needs": "你需要从客服得到的信息：{text}",
    "need_refund": "退款金额",
    "need_info": "订单状态；物流单号",
}


#: ``builtin:retail-xN``: N copies of the 42 task templates, each over its own orders (at most
#: this many: order ids keep four digits)
MAX_COPIES = 150
ORDERS_PER_COPY = 48


def _base_state(copy: int = 0) -> State:
    """The shared state of one copy of the task set (copy 0: the demo's, unchanged)."""
    # fixed: the task set is data, identical on every machine
    rng = random.Random(20240611 if copy == 0 else f"retail-state-{copy}")
    catalog = {
        f"SKU-{101 + i}": {"name": name, "price": rng.randrange(899, 12999)}
        for i, name in enumerate(_PRODUCTS)
    }
    skus = list(catalog)
    statuses = ["delivered"] * 20 + ["pending"] * 8 + ["processing"] * 8 + ["shipped"] * 12
    orders = {}
    for index, status in enumerate(statuses):
        order_id = f"O-{1001 + copy * ORDERS_PER_COPY + index}"
        orders[order_id] = {
            "order_id": order_id,
            "customer": f"C-{201 + index % 17}",
            "status": status,
            "items": sorted(rng.sample(skus, 2 + index % 2)),
            "address": f"{rng.randrange(1, 400)} {rng.choice(_STREETS)}, {rng.choice(_CITIES)}",
            "tracking": f"TRK-{rng.randrange(100000, 999999)}",
        }
    return {"catalog": catalog, "orders": orders, "refunds": [], "exchanges": []}


def _lines(lang: dict[str, str], opening: str, on_confirm: str | None, needs: str | None) -> str:
    out = [lang["opening"].format(text=opening)]
    if on_confirm:
        out.append(lang["on_confirm"].format(text=on_confirm))
    if needs:
        out.append(lang["needs"].format(text=lang[needs]))
    return "\n".join(out)


def builtin_retail(copies: int = 1) -> list[Task]:
    """42 tasks over five task types, each on its own order of one shared catalog state; with
    ``copies`` > 1 (``builtin:retail-xN``) the same templates again over fresh orders, prices,
    addresses and items per copy, so a gate has more independent tasks. The first 42 are always
    ``builtin:retail``'s, identical."""
    tasks: list[Task] = []
    for copy in range(copies):
        _retail_copy(copy, tasks)
    return tasks


def _retail_copy(copy: int, tasks: list[Task]) -> None:
    """Append one copy's 42 tasks (ids continue from ``tasks``)."""
    state = _base_state(copy)
    orders = state["orders"]
    by_status: dict[str, list[str]] = {}
    for oid, order in orders.items():
        by_status.setdefault(order["status"], []).append(oid)
    delivered, shipped = by_status["delivered"], by_status["shipped"]
    unshipped = by_status["pending"] + by_status["processing"]
    rng = random.Random(7 if copy == 0 else f"retail-tasks-{copy}")

    def add(
        kind: str,
        opening: str,
        actions: list[tuple[str, dict[str, str]]],
        facts: list[str],
        fields: dict[str, str],
        twist: str | None = None,
        needs: str | None = None,
        fail_once: str | None = None,
    ) -> None:
        instruction = {}
        for code, lang in (("en", EN), ("zh", ZH)):
            twist_text = lang[twist].format(**fields) if twist else None
            instruction[code] = _lines(lang, lang[opening].format(**fields), twist_text, needs)
        tasks.append(
            Task(
                task_id=f"retail-{len(tasks) + 1:03d}",
                task_type=kind,
                instruction=instruction,
                initial_state=state,
                expected_state=expected_after(state, actions),
                required_facts=facts,
                fail_once=fail_once,
            )
        )

    def new_address() -> str:
        return f"{rng.randrange(400, 999)} {rng.choice(_STREETS)}, {rng.choice(_CITIES)}"

    def other_sku(order: str) -> str:
        choices: list[str] = [s for s in state["catalog"] if s not in orders[order]["items"]]
        return rng.choice(choices)

    def price_of(sku: str) -> str:
        return str(money(state["catalog"][sku]["price"]))

    d, u, s = iter(delivered), iter(unshipped), iter(shipped)
    for _ in range(9):
        o = next(d)
        item = orders[o]["items"][0]
        add(
            "refund",
            "refund",
            [("refund_item", {"order_id": o, "item_id": item})],
            [price_of(item)],
            {"order": o, "item": item},
            needs="need_refund",
        )
    for _ in range(4):
        o = next(u)
        addr = new_address()
        add(
            "order_modification",
            "address",
            [("update_address", {"order_id": o, "address": addr})],
            [addr],
            {"order": o, "address": addr},
        )
    for _ in range(3):
        o = next(d)
        item = orders[o]["items"][-1]
        new = other_sku(o)
        add(
            "order_modification",
            "exchange",
            [("exchange_item", {"order_id": o, "item_id": item, "new_item_id": new})],
            [new],
            {"order": o, "item": item, "new_item": new},
        )
    for _ in range(2):
        o = next(u)
        add(
            "order_modification",
            "cancel",
            [("cancel_order", {"order_id": o})],
            ["cancelled"],
            {"order": o},
        )
    for _ in range(4):
        o = next(u)
        addr = new_address()
        add(
            "multi_turn_confirmation",
            "cancel",
            [("update_address", {"order_id": o, "address": addr})],
            [addr],
            {"order": o, "address": addr},
            twist="twist_address",
        )
    for _ in range(4):
        o = next(d)
        item = orders[o]["items"][0]
        new = other_sku(o)
        add(
            "multi_turn_confirmation",
            "refund",
            [("exchange_item", {"order_id": o, "item_id": item, "new_item_id": new})],
            [new],
            {"order": o, "item": item, "new_item": new},
            twist="twist_exchange",
        )
    for _ in range(3):
        o = next(d)
        item = orders[o]["items"][-1]
        add(
            "tool_failure",
            "refund",
            [("refund_item", {"order_id": o, "item_id": item})],
            [price_of(item)],
            {"order": o, "item": item},
            needs="need_refund",
            fail_once="refund_item",
        )
    for _ in range(3):
        o = next(u)
        addr = new_address()
        add(
            "tool_failure",
            "address",
            [("update_address", {"order_id": o, "address": addr})],
            [addr],
            {"order": o, "address": addr},
            fail_once="update_address",
        )
    for _ in range(2):
        o = next(u)
        add(
            "tool_failure",
            "cancel",
            [("cancel_order", {"order_id": o})],
            ["cancelled"],
            {"order": o},
            fail_once="cancel_order",
        )
    for _ in range(8):
        o = next(s)
        add(
            "info_only",
            "info",
            [],
            [orders[o]["status"], orders[o]["tracking"]],
            {"order": o},
            needs="need_info",
        )


# --- JSONL task files ---------------------------------------------------------------------------

REQUIRED_FIELDS = ("task_id", "task_type", "instruction", "initial_state")


def load_tasks(source: str, base_dir: Path | None = None) -> list[Task]:
    """``builtin:retail`` or a JSONL path (relative to the spec's directory)."""
    if source == "builtin:retail":
        return builtin_retail()
    copies = _copies(source)
    if copies is not None:
        return builtin_retail(copies)
    if source.startswith("builtin:"):
        raise TaskError(
            f"tasks: unknown built-in task set {source!r} (known: builtin:retail, and "
            f"builtin:retail-xN for N copies of its 42 templates over fresh orders, N 1-{MAX_COPIES})"
        )
    path = Path(source)
    if base_dir is not None and not path.is_absolute():
        path = base_dir / path
    return load_jsonl(path)


def _copies(source: str) -> int | None:
    """N of ``builtin:retail-xN`` when N is in range; None for any other name."""
    head, _, count = source.partition("-x")
    if head != "builtin:retail" or not count.isdigit() or count != str(int(count)):
        return None
    copies = int(count)
    return copies if 1 <= copies <= MAX_COPIES else None


def load_jsonl(path: Path) -> list[Task]:
    tasks: list[Task] = []
    seen: set[str] = set()
    for where, row in read_objects(path, "task"):
        task = _task_from_row(row, where)
        if task.task_id in seen:
            raise TaskError(f"{where}: task_id: {task.task_id!r} appears twice; ids must be unique")
        seen.add(task.task_id)
        tasks.append(task)
    return tasks


def _task_from_row(row: dict[str, Any], where: str) -> Task:
    for name in REQUIRED_FIELDS:
        if name not in row:
            raise TaskError(
                f"{where}: {name}: missing; every task needs {', '.join(REQUIRED_FIELDS)}"
            )
    if row["task_type"] not in TASK_TYPES:
        raise TaskError(
            f"{where}: task_type: {row['task_type']!r} is not one of {', '.join(TASK_TYPES)}"
        )
    instruction = row["instruction"]
    if isinstance(instruction, str):
        instruction = {"en": instruction}
    if not isinstance(instruction, dict) or not instruction:
        raise TaskError(f"{where}: instruction: give a string or an object of language -> text")
    check_state(row["initial_state"], where, "initial_state")  # before any action runs on it
    state = {"refunds": [], "exchanges": [], **row["initial_state"]}
    if "expected_state" in row:
        check_state(row["expected_state"], where, "expected_state")
        expected = {"refunds": [], "exchanges": [], **row["expected_state"]}
    elif "actions" in row:
        try:
            expected = expected_after(state, check_actions(row["actions"], where))
        except TaskError as exc:
            raise TaskError(f"{where}: {exc}") from None
    else:
        raise TaskError(f"{where}: expected_state: missing; give expected_state or actions")
    facts = row.get("required_facts", [])
    if not isinstance(facts, list) or not all(isinstance(f, str) for f in facts):
        raise TaskError(f"{where}: required_facts: must be a list of strings")
    return Task(
        str(row["task_id"]),
        row["task_type"],
        instruction,
        state,
        expected,
        facts,
        row.get("fail_once"),
    )
