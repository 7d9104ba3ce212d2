"""The pairwise judge: both orders, mapped back to A/B, unparsable output retried then a tie."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from judgeaudit.audit.spec.templates import Template, messages_hash, trajectory_block
from judgeaudit.audit.units.conversation import CallSink, Side
from judgeaudit.audit.units.verdict_parse import (
    FLIP,
    Order,
    Pref,
    Verdict,
    VerdictError,
    parse_output,
    swap_rule,
)


@dataclass
class JudgeLog:
    """One judge call, as stored in judge_logs (table and JSONL)."""

    log_id: str
    pair_id: str
    order: Order
    attempt: int
    model: str
    prompt_hash: str  # of the exact rendered messages (kept in the ``prompts`` table)
    template_hash: str
    messages: list[dict[str, Any]]
    raw_output: str
    parsed: dict[str, Any] | None
    parse_error: str | None
    latency_ms: float
    prompt_tokens: int
    completion_tokens: int


@dataclass
class PairJudgement:
    pref_ab: Pref
    pref_ba: Pref | None
    judge_pref: Pref
    score_a: float | None
    score_b: float | None
    logs: list[JudgeLog] = field(default_factory=list)
    parsed_ab: bool = True  # the order produced a usable verdict (else it counts as a tie)
    parsed_ba: bool | None = None

    @property
    def consistent(self) -> bool | None:
        """Both orders gave the same verdict; an unparsable order never agrees with anything
        (two failed orders are not a consistent tie). None without swap."""
        if self.pref_ba is None:
            return None
        return swap_rule(
            self.pref_ab if self.parsed_ab else None, self.pref_ba if self.parsed_ba else None
        )[3]


async def judge_pair(
    pair_id: str,
    goal: str,
    text_a: str,
    text_b: str,
    judge: Side,
    template: Template,
    *,
    language: str,
    swap: bool,
    retries: int,
    seed: int,
    on_call: CallSink,
) -> PairJudgement:
    logs: list[JudgeLog] = []
    ask = _Asker(pair_id, goal, judge, template, language, retries, seed, on_call, logs)
    verdict_ab = await ask("AB", text_a, text_b)
    pref_ab, sa, sb = _mapped(verdict_ab, flipped=False)
    if not swap:
        return PairJudgement(pref_ab, None, pref_ab, sa, sb, logs, verdict_ab is not None)
    verdict_ba = await ask("BA", text_b, text_a)
    pref_ba, sa2, sb2 = _mapped(verdict_ba, flipped=True)
    judge_pref = swap_rule(pref_ab, pref_ba)[2]
    return PairJudgement(
        pref_ab,
        pref_ba,
        judge_pref,
        _mean(sa, sa2),
        _mean(sb, sb2),
        logs,
        verdict_ab is not None,
        verdict_ba is not None,
    )


def _mapped(verdict: Verdict | None, flipped: bool) -> tuple[Pref, float | None, float | None]:
    if verdict is None:
        return "tie", None, None
    if flipped:
        return FLIP[verdict.winner], verdict.score_b, verdict.score_a
    return verdict.winner, verdict.score_a, verdict.score_b


def _mean(x: float | None, y: float | None) -> float | None:
    values = [v for v in (x, y) if v is not None]
    return round(sum(values) / len(values), 3) if values else None


@dataclass
class _Asker:
    """Asks the judge about one order of a pair, re-asking after unparsable output."""

    pair_id: str
    goal: str
    judge: Side
    template: Template
    language: str
    retries: int
    seed: int
    on_call: CallSink
    logs: list[JudgeLog]

    async def __call__(self, order: Order, first: str, second: str) -> Verdict | None:
        values = {
            "task": self.goal,
            "trajectory_a": trajectory_block(first, "A"),
            "trajectory_b": trajectory_block(second, "B"),
            "order": order,
            "language": self.language,
        }
        messages = self.template.messages(**values)
        judge = self.judge
        for attempt in range(self.retries + 1):
            sent = list(messages)
            result = await judge.client.chat(
                judge.model, sent, temperature=judge.temperature, seed=self.seed
            )
            self.on_call("judge", judge.model, result)
            verdict: Verdict | None
            try:
                verdict, error = parse_output(result.text, self.template.output), None
            except VerdictError as exc:
                verdict, error = None, str(exc)
            self.logs.append(
                JudgeLog(
                    log_id=f"{self.pair_id}/{order}/{attempt}",
                    pair_id=self.pair_id,
                    order=order,
                    attempt=attempt,
                    model=judge.model,
                    prompt_hash=messages_hash(sent),
                    template_hash=self.template.hash,
                    messages=sent,
                    raw_output=result.text,
                    parsed=verdict.to_json() if verdict else None,
                    parse_error=error,
                    latency_ms=round(result.latency_ms, 1),
                    prompt_tokens=result.prompt_tokens,
                    completion_tokens=result.completion_tokens,
                )
            )
            if verdict is not None:
                return verdict
            retry = self.template.retry_message(**values)
            messages = [
                *messages,
                {"role": "assistant", "content": result.text},
                {"role": "user", "content": retry},
            ]
        return None
