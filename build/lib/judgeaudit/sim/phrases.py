"""What simulated agents and users say, in English and Chinese; kept apart from the logic."""

from __future__ import annotations

EN = {
    "greet": "Hello! Please tell me your order number and what you need.",
    "confirm": "To confirm: I will {summary}. Shall I proceed?",
    "sum_refund": "refund item {item} in order {order}",
    "sum_cancel": "cancel order {order}",
    "sum_address": "change the shipping address of order {order} to {address}",
    "sum_exchange": "exchange item {item} in order {order} for {new_item}",
    "done_refund": (
        "The refund for item {item} in order {order} has been issued: {amount} back to your "
        "original payment method (refund id {refund_id})."
    ),
    "done_cancel": "Order {order} has been cancelled.",
    "done_address": "The shipping address of order {order} has been updated to {address}.",
    "done_exchange": (
        "Item {item} in order {order} will be exchanged for {new_item}; the exchange is processed."
    ),
    "info": "Order {order} is {status}; the tracking number is {tracking}.",
    "vague": "All done: your request has been processed!",
    "fail": "I'm sorry, I was unable to complete this: {reason}.",
    "cannot": "I'm unable to help with that here; please contact our support line.",
    "polite": [
        "Thank you so much for your patience!",
        "I'm happy to help with this.",
        "Sorry for any inconvenience this has caused.",
    ],
    "filler": [
        "We always aim to make every order a great experience.",
        "Please don't hesitate to reach out if anything else comes up.",
        "Your satisfaction is our top priority, and we take every request seriously.",
        "I have double-checked everything on my side.",
    ],
    "user_yes": "Yes, please go ahead.",
    "user_thanks": "Great, thank you. <finished>",
    "user_ask": "Could you tell me the {need}?",
    "user_give_up": "That doesn't solve my problem. <blocked>",
    "need_amount": "refund amount",
    "need_tracking": "tracking number",
    "need_status": "order status",
    "chat": "This is a simulated reply from {model} (judgeaudit embedded provider). {echo}",
}

ZH = {
    "greet": "您好！请告诉我您的订单号和需要办理的事项。",
    "confirm": "确认一下：我将{summary}。是否继续？",
    "sum_refund": "为订单 {order} 中的商品 {item} 办理退款",
    "sum_cancel": "取消订单 {order}",
    "sum_address": "把订单 {order} 的收货地址改为 {address}",
    "sum_exchange": "把订单 {order} 中的商品 {item} 换成 {new_item}",
    "done_refund": "订单 {order} 中商品 {item} 的退款已办理：{amount} 将退回原支付方式（退款编号 {refund_id}）。",
    "done_cancel": "订单 {order} 已取消（has been cancelled）。",
    "done_address": "订单 {order} 的收货地址已更新为 {address}。",
    "done_exchange": "订单 {order} 中的商品 {item} 将换成 {new_item}，换货已办理。",
    "info": "订单 {order} 当前状态：{status}；物流单号 {tracking}。",
    "vague": "都已处理好了，您的请求已完成！",
    "fail": "非常抱歉，我没能完成：{reason}。",
    "cannot": "抱歉，我无法在这里处理，请联系客服热线。",
    "polite": ["感谢您的耐心等待！", "很乐意为您服务。", "非常抱歉给您带来不便。"],
    "filler": [
        "我们始终致力于让每一笔订单都有良好的体验。",
        "如有其他问题，欢迎随时联系我们。",
        "您的满意是我们的首要目标。",
        "我已经在系统里反复核对过了。",
    ],
    "user_yes": "好的，请继续。",
    "user_thanks": "好的，谢谢。<finished>",
    "user_ask": "能告诉我{need}吗？",
    "user_give_up": "这没有解决我的问题。<blocked>",
    "need_amount": "退款金额",
    "need_tracking": "物流单号",
    "need_status": "订单状态",
    "chat": "这是 {model} 的模拟回复（judgeaudit 内置模拟服务）。{echo}",
}


def say(zh: bool, key: str, **fields: object) -> str:
    template = (ZH if zh else EN)[key]
    assert isinstance(template, str)
    return template.format(**fields)


def pick(zh: bool, key: str) -> list[str]:
    options = (ZH if zh else EN)[key]
    assert isinstance(options, list)
    return options
