"""The prompts of a run: the agents' system prompt (built in: the agents are what is audited)
and the judge, user-simulator and success-check templates (user files or the built-in en/zh ones).

Rules follow the original design: the user simulator pursues its goal and never does the agent's
work; the judge decides on completion, constraints and evidence, never on tone, length, promises
or formatting. Wording is our own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judgeaudit.audit.spec.templates import KINDS, Template, builtin, text_hash

if TYPE_CHECKING:
    from judgeaudit.audit.spec import RunSpec

PROMPT_VERSION = "2026-12-01.1"

AGENT_SYSTEM = {
    "en": (
        "You are a customer-service agent for an online store. Use the tools to look up and "
        "change orders; never invent order data. Before any change (refund, cancellation, "
        "address change, exchange) say exactly what you will do and ask the customer to confirm. "
        "When you are done, tell the customer the concrete results: amounts, ids, addresses, "
        "tracking numbers. If a tool fails, you may retry; if you cannot finish, say so plainly."
    ),
    "zh": (
        "你是一家网店的客服。用工具查询和修改订单，不要编造订单数据。任何修改（退款、取消、改地址、"
        "换货）之前，先说明你要做什么并请顾客确认。办完后把具体结果告诉顾客：金额、编号、地址、"
        "物流单号。工具失败可以重试；办不成就直接说明。"
    ),
}


@dataclass(frozen=True)
class PromptSet:
    language: str
    agent_system: str
    judge: Template
    user_simulator: Template
    success_check: Template

    @classmethod
    def for_spec(cls, spec: RunSpec) -> PromptSet:
        """The spec's own templates where it names them, else the built-in ones."""
        chosen = {k: spec.templates.get(k) or builtin(k, spec.language) for k in KINDS}
        return cls(
            spec.language,
            AGENT_SYSTEM[spec.language],
            chosen["judge"],
            chosen["user_simulator"],
            chosen["success_check"],
        )

    def hashes(self) -> dict[str, str]:
        return {
            "agent_system": text_hash(self.agent_system),
            "judge": self.judge.hash,
            "user_simulator": self.user_simulator.hash,
            "success_check": self.success_check.hash,
        }

    def manifest(self) -> dict[str, Any]:
        return {
            "version": PROMPT_VERSION,
            "hashes": self.hashes(),
            "templates": {
                "agent_system": self.agent_system,
                "judge": self.judge.describe(),
                "user_simulator": self.user_simulator.describe(),
                "success_check": self.success_check.describe(),
            },
        }
