"""A deterministic month of recorded verdicts from the embedded provider's judge (``demo --monitor``).

Each day, four agents of different skill answer refund requests; a success either shows the
refund (order, item, amount) or, when it failed, the agent says it was unable or (the
misleading kind) politely claims a refund of the *wrong item*. Every pair is judged in both
orders by the simulated judge itself (:func:`judgeaudit.sim.judge.judge_reply`, called
in-process: no server, no network), so a careless judge that does not cross-check the item
prefers the polite wrong answer. From ``change_day`` on, the judge is swapped for such a
careless, style-weighted one: the change the trend's alert must find. Written as one
recorded-jsonl file per day (``YYYY-MM-DD.jsonl``), the layout ``judgeaudit trend DIR`` reads.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path

from judgeaudit.sim.judge import judge_reply
from judgeaudit.sim.modelspec import SimConfig
from judgeaudit.sim.types import Message, SimRequest, rng_for

BASELINE_JUDGE = "judge-default"
CHANGED_JUDGE = "judge-default:diligence=0,evidence=0.3,style=0.7"
AGENTS = {"agent-a": 0.55, "agent-b": 0.62, "agent-c": 0.75, "agent-d": 0.9}
PROMPT_HASHES = {BASELINE_JUDGE: "prompt-v1", CHANGED_JUDGE: "prompt-v2"}


def _task(index: int) -> tuple[str, str, str, str]:
    order = f"O-{1000 + index:04d}"
    item, wrong = f"SKU-{100 + index % 50:03d}", f"SKU-{200 + index % 50:03d}"
    return order, item, wrong, f"${10 + index % 40}.00"


def _reply(ok: bool, polite_wrong: bool, index: int) -> str:
    order, item, wrong, amount = _task(index)
    if ok:
        return f"Your refund of {amount} for {item} on order {order} is processed."
    if polite_wrong:
        return (
            f"Thank you so much, happy to help! I have processed the refund of {amount} for "
            f"{wrong} on order {order}. Thank you for your patience."
        )
    return f"Sorry, I was unable to refund {item} on order {order}."


def _block(label: str, reply: str, index: int) -> str:
    order, item, _, _ = _task(index)
    return (
        f"<trajectory_{label}>\nuser: Please refund {item} from order {order}.\n"
        f"agent: {reply}\n</trajectory_{label}>"
    )


def _verdict(model: str, first: str, second: str, index: int, seed: int) -> dict[str, object]:
    order, item, _, _ = _task(index)
    prompt = (
        f"<task>Refund {item} from order {order}</task>\n{_block('A', first, index)}\n"
        f"{_block('B', second, index)}"
    )
    spec = SimConfig().resolve(model)
    request = SimRequest(model, [Message("user", prompt)], canonical=prompt)
    reply = json.loads(judge_reply(spec, request, seed).text)
    return {"winner": reply["winner"], "score_a": reply["score_a"], "score_b": reply["score_b"]}


def day_lines(day: int, when: str, judge: str, tasks: int, seed: int) -> list[str]:
    """One day's pair and verdict lines."""
    rng = rng_for("monitor", seed, day)
    names = list(AGENTS)
    lines = []
    for t in range(tasks):
        index = day * tasks + t
        outcome = {a: rng.random() < AGENTS[a] for a in names}
        polite = {a: rng.random() < 0.6 for a in names}
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                pair_id = f"{when}/t{t}/{a}~{b}"
                lines.append(json.dumps({
                    "pair_id": pair_id, "task_id": f"refund-{t}", "task_type": "refund",
                    "task": f"Refund request {t}", "agent_a": a, "agent_b": b,
                    "success_a": int(outcome[a]), "success_b": int(outcome[b]),
                    "period": when,
                }))  # fmt: skip
                reply_a = _reply(outcome[a], polite[a], index)
                reply_b = _reply(outcome[b], polite[b], index)
                ab = _verdict(judge, reply_a, reply_b, index, seed)
                ba = _verdict(judge, reply_b, reply_a, index, seed)
                flip = {"A": "B", "B": "A", "tie": "tie"}
                for order, v, swap in (("AB", ab, False), ("BA", ba, True)):
                    lines.append(json.dumps({
                        "pair_id": pair_id, "order": order,
                        "winner": flip[str(v["winner"])] if swap else v["winner"],
                        "score_a": v["score_b"] if swap else v["score_a"],
                        "score_b": v["score_a"] if swap else v["score_b"],
                        "judge_model": judge, "prompt_hash": PROMPT_HASHES[judge],
                    }))  # fmt: skip
    return lines


def write_stream(
    folder: Path,
    days: int = 30,
    change_day: int = 20,
    tasks: int = 20,
    seed: int = 7,
    start: date = date(2026, 11, 1),
) -> list[Path]:
    """``folder/YYYY-MM-DD.jsonl`` for each day; the judge changes on day ``change_day`` (0-based)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for day in range(days):
        when = (start + timedelta(days=day)).isoformat()
        judge = CHANGED_JUDGE if day >= change_day else BASELINE_JUDGE
        path = folder / f"{when}.jsonl"
        text = "\n".join(day_lines(day, when, judge, tasks, seed)) + "\n"
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
