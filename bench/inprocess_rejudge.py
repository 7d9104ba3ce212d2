"""Re-judge a run's stored judge prompts in this process, byte for byte as ``rejudge`` would.

A calibration of the gate needs hundreds of null re-judges; through HTTP each costs 24-150 s at
504 tasks. The prompts a re-judge sends do not depend on its seed (the seed travels beside them,
in the request body), so this reads each pair's two prompts once from ``audit.db`` and, per
seed, builds the body the LLM client sends (model, messages, temperature, seed), parses it with
the embedded server's own wire code, answers it with the simulator and reads the reply with the
audit's verdict parser; a pair's preference is the audit's (the two orders agree, else a tie).
``tests/integration/test_inprocess_rejudge.py`` checks that this equals ``judgeaudit rejudge``
pair for pair.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path

from judgeaudit.audit.units.outcome import is_misselected
from judgeaudit.audit.units.verdict_parse import FLIP, VerdictError, parse_output
from judgeaudit.sim.engine import simulate
from judgeaudit.sim.modelspec import SimConfig
from judgeaudit.sim.wire import chat


@dataclass(frozen=True)
class StoredPair:
    """One judged pair of a run: its key in every run over the same trajectories, its success
    labels and the two prompts its judge was sent (as the LLM client's ``messages``)."""

    key: str
    success_a: bool
    success_b: bool
    prompt_ab: list[dict[str, object]]
    prompt_ba: list[dict[str, object]]


def load_pairs(out: Path) -> list[StoredPair]:
    """Every swapped pair of the newest run in ``out`` with both first-attempt prompts."""
    db = sqlite3.connect(f"file:{out / 'audit.db'}?mode=ro", uri=True)
    try:
        run = db.execute("SELECT run_id FROM runs ORDER BY created_at DESC LIMIT 1").fetchone()[0]
        hashes = {
            (pair, order): digest
            for pair, order, digest in db.execute(
                'SELECT pair_id, "order", prompt_hash FROM judge_logs '
                "WHERE run_id = ? AND attempt = 0 AND role = 'judge'",
                (run,),
            )
        }
        prompts = dict(db.execute("SELECT prompt_hash, messages_json FROM prompts"))
        pairs = []
        for pair_id, success_a, success_b in db.execute(
            "SELECT pair_id, success_a, success_b FROM audit_pairs WHERE run_id = ? "
            "ORDER BY pair_id",
            (run,),
        ):
            ab, ba = hashes.get((pair_id, "AB")), hashes.get((pair_id, "BA"))
            if ab is None or ba is None:
                raise SystemExit(f"inprocess_rejudge: {pair_id} lacks a stored prompt per order")
            pairs.append(
                StoredPair(
                    pair_id.split("/", 1)[1],
                    bool(success_a),
                    bool(success_b),
                    json.loads(prompts[ab]),
                    json.loads(prompts[ba]),
                )
            )
        return pairs
    finally:
        db.close()


class InProcessJudge:
    """The embedded provider's judge answering the audit's request bodies without HTTP."""

    def __init__(self, model: str, temperature: float | None = 0.0) -> None:
        self.model = model
        self.temperature = temperature
        self.config = SimConfig.load(None)
        self.spec = self.config.resolve(model)

    def winner(self, messages: list[dict[str, object]], seed: int) -> str:
        """The verdict's winner for one order, as the audit parses it."""
        body: dict[str, object] = {"model": self.model, "messages": messages}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        body["seed"] = seed
        reply = simulate(self.config, self.spec, chat.parse(body))
        try:
            return parse_output(reply.text, "json").winner
        except VerdictError as exc:  # a re-ask would need the retry prompt: not modelled here
            raise SystemExit(
                f"inprocess_rejudge: {self.model} gave an unparsable verdict ({exc}); only "
                "judges without malformed output are re-judged in process"
            ) from exc

    def preference(self, pair: StoredPair, seed: int) -> tuple[str, str, str]:
        """(pref_ab, pref_ba, judge_pref) in the pair's own A/B terms."""
        pref_ab = self.winner(pair.prompt_ab, seed)
        pref_ba = FLIP[self.winner(pair.prompt_ba, seed)]  # type: ignore[index]
        return pref_ab, pref_ba, pref_ab if pref_ab == pref_ba else "tie"

    def misselected(self, pairs: list[StoredPair], seed: int) -> dict[str, int]:
        """Per pair key, 1 where this re-judge prefers the side that failed."""
        return {
            p.key: int(is_misselected(p.success_a, p.success_b, self.preference(p, seed)[2]))
            for p in pairs
        }


def main(argv: list[str]) -> int:
    """Print one re-judge's preferences as JSON: {pair key: [pref_ab, pref_ba, judge_pref]}."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("out", type=Path, help="the run whose stored prompts are re-judged")
    parser.add_argument("--model", default="judge-default")
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args(argv)
    judge = InProcessJudge(args.model)
    prefs = {p.key: list(judge.preference(p, args.seed)) for p in load_pairs(args.out)}
    print(json.dumps(prefs, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
