"""The retail domain: an in-memory state and the tools agents call on it.

State is plain JSON-like data so that "final state equals expected state" is a dict comparison
and can be stored, diffed and shown as is.
"""

from __future__ import annotations

import json
from typing import Any

State = dict[str, Any]

TOOL_SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {p: {"type": "string"} for p in params},
                "required": list(params),
            },
        },
    }
    for name, description, params in (
        ("get_order", "Look up an order: status, items, address, tracking.", ("order_id",)),
        (
            "refund_item",
            "Refund one delivered item to the original payment method.",
            ("order_id", "item_id"),
        ),
        ("cancel_order", "Cancel an order that has not shipped.", ("order_id",)),
        (
            "update_address",
            "Change the shipping address of an order that has not shipped.",
            ("order_id", "address"),
        ),
        (
            "exchange_item",
            "Exchange a delivered item for another catalog item.",
            ("order_id", "item_id", "new_item_id"),
        ),
    )
]

UNSHIPPED = ("pending", "processing")


def money(cents: int) -> str:
    return f"${cents // 100}.{cents % 100:02d}"


def _copy_state(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, tuples, scalars): several times faster than
    ``copy.deepcopy``, which shows in every conversation's start-up."""
    if isinstance(value, dict):
        return {key: _copy_state(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy_state(item) for item in value]
    if isinstance(value, tuple):
        return tuple(_copy_state(item) for item in value)
    return value


class Environment:
    """Applies tool calls to a private copy of a state; can make one tool fail once."""

    def __init__(self, state: State, fail_once: str | None = None) -> None:
        self.state: State = _copy_state(state)
        self._fail_once = fail_once

    def call(self, name: str, raw_args: str) -> dict[str, Any]:
        try:
            args = json.loads(raw_args or "{}")
        except json.JSONDecodeError:
            return {"error": "arguments are not valid JSON"}
        if not isinstance(args, dict):
            return {"error": "arguments must be a JSON object"}
        handler = getattr(self, f"_tool_{name}", None)
        if handler is None:
            return {"error": f"unknown tool {name!r}"}
        if self._fail_once == name:
            self._fail_once = None
            return {"error": "temporary failure: the service timed out, please retry"}
        order = self.state["orders"].get(str(args.get("order_id", "")))
        if order is None:
            return {"error": f"order {args.get('order_id')!r} not found"}
        try:
            result: dict[str, Any] = handler(order, args)
        except KeyError as exc:
            return {"error": f"missing argument {exc.args[0]!r}"}
        return result

    def _view(self, order: dict[str, Any]) -> dict[str, Any]:
        items = [
            {
                "item_id": i,
                "name": self.state["catalog"][i]["name"],
                "price": money(self.state["catalog"][i]["price"]),
            }
            for i in order["items"]
        ]
        return {
            "order_id": order["order_id"],
            "status": order["status"],
            "items": items,
            "address": order["address"],
            "tracking": order["tracking"],
        }

    def _tool_get_order(self, order: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
        return self._view(order)

    def _tool_refund_item(self, order: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
        item = args["item_id"]
        if order["status"] != "delivered":
            return {"error": f"order is {order['status']}; only delivered items can be refunded"}
        if item not in order["items"]:
            return {"error": f"item {item} is not in order {order['order_id']}"}
        refunds = self.state["refunds"]
        if any(r["order_id"] == order["order_id"] and r["item_id"] == item for r in refunds):
            return {"error": f"item {item} was already refunded"}
        amount = money(self.state["catalog"][item]["price"])
        refund_id = f"R-{int(order['order_id'][2:]) * 10 + len(refunds) + 1}"
        refunds.append({"order_id": order["order_id"], "item_id": item, "amount": amount})
        return {
            "refund_id": refund_id,
            "order_id": order["order_id"],
            "item_id": item,
            "amount": amount,
        }

    def _tool_cancel_order(self, order: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
        if order["status"] not in UNSHIPPED:
            return {"error": f"order is {order['status']} and can no longer be cancelled"}
        order["status"] = "cancelled"
        return {"order_id": order["order_id"], "status": "cancelled"}

    def _tool_update_address(self, order: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
        if order["status"] not in UNSHIPPED:
            return {"error": f"order is {order['status']}; the address can no longer change"}
        order["address"] = str(args["address"])
        return {"order_id": order["order_id"], "address": order["address"]}

    def _tool_exchange_item(self, order: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
        item, new_item = args["item_id"], args["new_item_id"]
        if order["status"] != "delivered":
            return {"error": f"order is {order['status']}; only delivered items can be exchanged"}
        if item not in order["items"]:
            return {"error": f"item {item} is not in order {order['order_id']}"}
        if new_item not in self.state["catalog"]:
            return {"error": f"item {new_item} is not in the catalog"}
        self.state["exchanges"].append(
            {"order_id": order["order_id"], "item_id": item, "new_item_id": new_item}
        )
        return {
            "order_id": order["order_id"],
            "item_id": item,
            "new_item_id": new_item,
            "status": "exchange created",
        }
