"""The retail state schema a task file must follow, checked field by field before use.

Without it a wrong state surfaced as a wrong action (a price written as ``"51.39"`` made the
refund's arithmetic fail, reported as a malformed action; an order without ``order_id`` as a
missing tool argument), so the error named the one field that was right. Prices are integer
cents because the tools format money from them (``5139`` is shown as ``$51.39``).
"""

from __future__ import annotations

import json
from typing import Any

from judgeaudit.audit.tasks.errors import TaskError
from judgeaudit.validate import json_type

ORDER_FIELDS = ("order_id", "status", "items", "address", "tracking")
MAX_CENTS = 10**12


def check_state(state: Any, where: str, name: str) -> None:
    """``state`` is ``{catalog, orders, refunds?, exchanges?}``; errors read
    ``file:line: initial_state.catalog.SKU-1.price: ...``."""
    if not isinstance(state, dict):
        raise TaskError(f"{where}: {name}: must be an object with 'catalog' and 'orders'")
    for key in ("catalog", "orders"):
        if key not in state:
            raise TaskError(f"{where}: {name}.{key}: missing; a state has 'catalog' and 'orders'")
        if not isinstance(state[key], dict):
            raise TaskError(
                f"{where}: {name}.{key}: must be an object keyed by id, got {json_type(state[key])}"
            )
    catalog: dict[str, Any] = state["catalog"]
    for sku, product in catalog.items():
        _product(product, f"{where}: {name}.catalog.{sku}")
    for order_id, order in state["orders"].items():
        _order(order, order_id, catalog, f"{where}: {name}.orders.{order_id}")
    for key in ("refunds", "exchanges"):
        if key in state and not isinstance(state[key], list):
            raise TaskError(f"{where}: {name}.{key}: must be a list, got {json_type(state[key])}")


def _product(product: Any, at: str) -> None:
    if not isinstance(product, dict):
        raise TaskError(f'{at}: must be an object like {{"name": "Mug", "price": 5139}}')
    if not isinstance(product.get("name"), str) or not product["name"].strip():
        raise TaskError(f"{at}.name: {_missing_or(product, 'name')} a non-empty string")
    price = product.get("price")
    if isinstance(price, bool) or not isinstance(price, int) or not 0 <= price <= MAX_CENTS:
        shown = "missing" if "price" not in product else f"got {json.dumps(price)}"
        raise TaskError(f"{at}.price: {shown}; prices are integer cents (write 5139 for $51.39)")


def _order(order: Any, order_id: str, catalog: dict[str, Any], at: str) -> None:
    if not isinstance(order, dict):
        raise TaskError(f"{at}: must be an object with {', '.join(ORDER_FIELDS)}")
    for key in ORDER_FIELDS:
        if key not in order:
            raise TaskError(f"{at}.{key}: missing; every order has {', '.join(ORDER_FIELDS)}")
    if order["order_id"] != order_id:
        raise TaskError(
            f"{at}.order_id: {json.dumps(order['order_id'])} differs from its key "
            f"{json.dumps(order_id)}; they must be the same"
        )
    for key in ("status", "address", "tracking"):
        if not isinstance(order[key], str):
            raise TaskError(f"{at}.{key}: must be a string, got {json_type(order[key])}")
    items = order["items"]
    if not isinstance(items, list):
        raise TaskError(f"{at}.items: must be a list of catalog ids, got {json_type(items)}")
    for index, item in enumerate(items):
        if not isinstance(item, str) or item not in catalog:
            raise TaskError(
                f"{at}.items[{index}]: {json.dumps(item, ensure_ascii=False)} is not in the "
                "catalog; list catalog ids (the keys of catalog)"
            )


def _missing_or(mapping: dict[str, Any], key: str) -> str:
    return "missing; give" if key not in mapping else "must be"


def check_actions(actions: Any, where: str) -> list[tuple[str, dict[str, Any]]]:
    """``[{"tool": name, "args": {...}}]`` as (name, args) pairs, each shape checked."""
    if not isinstance(actions, list):
        raise TaskError(f'{where}: actions: must be a list of {{"tool": ..., "args": {{...}}}}')
    out = []
    for index, action in enumerate(actions):
        at = f"{where}: actions[{index}]"
        if not isinstance(action, dict):
            raise TaskError(f'{at}: must be an object {{"tool": ..., "args": {{...}}}}')
        tool, args = action.get("tool"), action.get("args")
        if not isinstance(tool, str) or not tool:
            raise TaskError(f'{at}.tool: missing; name the tool ("tool": "refund_item")')
        if not isinstance(args, dict):
            raise TaskError(f"{at}.args: must be an object of the tool's arguments")
        out.append((tool, args))
    return out
