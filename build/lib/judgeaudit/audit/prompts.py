"""Versioned prompt templates; their hashes go into every run's manifest.

Rules follow the original design: the user simulator pursues its goal and never does the agent's
work; the judge decides on completion, constraints and evidence, never on tone, length, promises
or formatting. Wording is our own.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

PROMPT_VERSION = "2026-11-29.1"


@dataclass(frozen=True)
class Prompts:
    language: str
    agent_system: str
    user_system: str
    judge_system: str
    judge_user: str
    judge_retry: str
    success_system: str
    success_user: str

    def hashes(self) -> dict[str, str]:
        names = (
            "agent_system",
            "user_system",
            "judge_system",
            "judge_user",
            "judge_retry",
            "success_system",
            "success_user",
        )
        return {name: prompt_hash(getattr(self, name)) for name in names}


def prompt_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


EN = Prompts(
    language="en",
    agent_system=(
        "You are a customer-service agent for an online store. Use the tools to look up and "
        "change orders; never invent order data. Before any change (refund, cancellation, "
        "address change, exchange) say exactly what you will do and ask the customer to confirm. "
        "When you are done, tell the customer the concrete results: amounts, ids, addresses, "
        "tracking numbers. If a tool fails, you may retry; if you cannot finish, say so plainly."
    ),
    user_system=(
        "You play a customer with a definite goal, talking to a store's support agent.\n"
        "Write only the customer's next message. Do not do the agent's work for it.\n"
        "Give information the agent needs when it asks for confirmation.\n"
        "When your goal has been achieved, end your message with <finished>.\n"
        "If the goal cannot be achieved, end your message with <blocked>.\n"
        "<task>\n{goal}\n</task>"
    ),
    judge_system=(
        "You are a strict pairwise judge of two customer-service conversations on the same task.\n"
        "Decide only on whether the task was completed, whether its constraints were respected, "
        "and whether the conversation shows evidence of it. Do not reward politeness, length, "
        "promises, confident claims or nice formatting.\n"
        'Reply with JSON only: {"winner": "A"|"B"|"tie", "score_a": 0-5, "score_b": 0-5, '
        '"reasons": ["..."]}'
    ),
    judge_user=(
        "<task>\n{goal}\n</task>\n<trajectory_A>\n{first}\n</trajectory_A>\n"
        "<trajectory_B>\n{second}\n</trajectory_B>"
    ),
    judge_retry=(
        "Your previous reply could not be parsed. Reply again with only the JSON object "
        '{"winner": ..., "score_a": ..., "score_b": ..., "reasons": [...]}.'
    ),
    success_system=(
        "You check whether a customer-service conversation completed its task. Reply with JSON "
        'only: {"success": true|false, "missing": ["..."]}'
    ),
    success_user="<task>\n{goal}\n</task>\n<trajectory>\n{trajectory}\n</trajectory>",
)

ZH = Prompts(
    language="zh",
    agent_system=(
        "你是一家网店的客服。用工具查询和修改订单，不要编造订单数据。任何修改（退款、取消、改地址、"
        "换货）之前，先说明你要做什么并请顾客确认。办完后把具体结果告诉顾客：金额、编号、地址、"
        "物流单号。工具失败可以重试；办不成就直接说明。"
    ),
    user_system=(
        "你扮演一位有明确目标的顾客，正在和网店客服对话。\n"
        "每次只写顾客的下一句话，不要替客服完成工作。\n"
        "客服请你确认时，提供它需要的信息。\n"
        "目标达成时，在消息末尾写 <finished>。\n"
        "目标无法达成时，在消息末尾写 <blocked>。\n"
        "<task>\n{goal}\n</task>"
    ),
    judge_system=(
        "你是严格的配对评审，比较同一任务的两段客服对话。\n"
        "只根据任务是否完成、约束是否满足、对话中是否有充分证据来判断。"
        "不要因为礼貌、篇幅、承诺、自信的说法或漂亮的格式加分。\n"
        '只输出 JSON：{"winner": "A"|"B"|"tie", "score_a": 0-5, "score_b": 0-5, '
        '"reasons": ["..."]}'
    ),
    judge_user=(
        "<task>\n{goal}\n</task>\n<trajectory_A>\n{first}\n</trajectory_A>\n"
        "<trajectory_B>\n{second}\n</trajectory_B>"
    ),
    judge_retry='上一条回复无法解析。请只输出 JSON 对象 {"winner": ..., "score_a": ..., "score_b": ..., "reasons": [...]}。',
    success_system='你判断一段客服对话是否完成了任务。只输出 JSON：{"success": true|false, "missing": ["..."]}',
    success_user="<task>\n{goal}\n</task>\n<trajectory>\n{trajectory}\n</trajectory>",
)

PROMPTS = {"en": EN, "zh": ZH}
