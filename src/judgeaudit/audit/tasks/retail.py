"""The built-in retail task set (``builtin:retail``, 42 templates in English and Chinese, and
``builtin:retail-xN``: N copies over fresh orders). Each expected state comes from applying the
task's correct actions through the agents' own tools.
"""

from __future__ import annotations

import random

from judgeaudit.audit.tasks.domain import State, money
from judgeaudit.audit.tasks.task import Task, expected_after

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
