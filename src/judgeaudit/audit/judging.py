"""The pairwise judge: both orders, mapped back to A/B, unparsable output retried then a tie."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from judgeaudit.audit.conversation import CallSink, Side
from judgeaudit.audit.prompts import Prompts, prompt_hash
from judgeaudit.audit.verdict import Verdict, VerdictError, parse_verdict

FLIP = {"A": "B", "B": "A", "tie": "tie"}


@dataclass
class JudgeLog:
    """One judge call, as stored in judge_logs (table and JSONL)."""

    log_id: str
    pair_id: str
    order: str
    attempt: int
    model: str
    prompt_hash: str
    raw_output: str
    parsed: dict[str, Any] | None
    parse_error: str | None
    latency_ms: float
    prompt_tokens: int
    completion_tokens: int


@dataclass
class PairJudgement:
    pref_ab: str
    pref_ba: str | None
    judge_pref: str
    score_a: float | None
    score_b: float | None
    logs: list[JudgeLog] = field(default_factory=list)

    @property
    def consistent(self) -> bool | None:
        return None if self.pref_ba is None else self.pref_ab == self.pref_ba


async def judge_pair(
    pair_id: str,
    goal: str,
    text_a: str,
    text_b: str,
    judge: Side,
    prompts: Prompts,
    *,
    swap: bool,
    retries: int,
    seed: int,
    on_call: CallSink,
) -> PairJudgement:
    logs: list[JudgeLog] = []
    verdict_ab = await _judge_order(
        pair_id, "AB", goal, text_a, text_b, judge, prompts, retries, seed, on_call, logs
    )
    pref_ab, sa, sb = _mapped(verdict_ab, flipped=False)
    if not swap:
        return PairJudgement(pref_ab, None, pref_ab, sa, sb, logs)
    verdict_ba = await _judge_order(
        pair_id, "BA", goal, text_b, text_a, judge, prompts, retries, seed, on_call, logs
    )
    pref_ba, sa2, sb2 = _mapped(verdict_ba, flipped=True)
    judge_pref = pref_ab if pref_ab == pref_ba else "tie"
    return PairJudgement(pref_ab, pref_ba, judge_pref, _mean(sa, sa2), _mean(sb, sb2), logs)


def _mapped(verdict: Verdict | None, flipped: bool) -> tuple[str, float | None, float | None]:
    if verdict is None:
        return "tie", None, None
    if flipped:
        return FLIP[verdict.winner], verdict.score_b, verdict.score_a
    return verdict.winner, verdict.score_a, verdict.score_b


def _mean(x: float | None, y: float | None) -> float | None:
    values = [v for v in (x, y) if v is not None]
    return round(sum(values) / len(values), 3) if values else None


async def _judge_order(
    pair_id: str,
    order: str,
    goal: str,
    first: str,
    second: str,
    judge: Side,
    prompts: Prompts,
    retries: int,
    seed: int,
    on_call: CallSink,
    logs: list[JudgeLog],
) -> Verdict | None:
    user = prompts.judge_user.format(goal=goal, first=first, second=second)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": prompts.judge_system},
        {"role": "user", "content": user},
    ]
    template_hash = prompt_hash(prompts.judge_system + prompts.judge_user)
    for attempt in range(retries + 1):
        result = await judge.client.chat(
            judge.model, messages, temperature=judge.temperature, seed=seed
        )
        on_call("judge", judge.model, result)
        verdict: Verdict | None
        try:
            verdict, error = parse_verdict(result.text), None
        except VerdictError as exc:
            verdict, error = None, str(exc)
        logs.append(
            JudgeLog(
                log_id=f"{pair_id}/{order}/{attempt}",
                pair_id=pair_id,
                order=order,
                attempt=attempt,
                model=judge.model,
                prompt_hash=template_hash,
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
        messages += [
            {"role": "assistant", "content": result.text},
            {"role": "user", "content": prompts.judge_retry},
        ]
    return None
