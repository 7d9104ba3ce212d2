"""One pair of a preference export as one line of its format (TRL, OpenAI or our complete
JSONL), choosing the chosen side by the asked labels and counting every skip.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from judgeaudit.analysis.frame import stored_json
from judgeaudit.analysis.pref_card import Tally
from judgeaudit.analysis.pref_messages import openai_shape, to_messages, trl_shape
from judgeaudit.audit.units.outcome import label_conflict, true_winner

if TYPE_CHECKING:
    from judgeaudit.analysis.preferences import ExportOptions

OTHER = {"A": "B", "B": "A"}


class RowWriter:
    """One pair → one line of the chosen format (or a counted skip)."""

    def __init__(
        self,
        options: ExportOptions,
        manifest: dict[str, Any],
        names: list[str],
        split: frozenset[str] = frozenset(),
    ):
        self.split = split  # pairs marking a conversation marked both ways (label_conversations)
        self.fmt = options.fmt
        self.labels = options.labels
        self.names = names
        agent_system = manifest.get("prompts", {}).get("templates", {}).get("agent_system")
        self.agent_system = agent_system if isinstance(agent_system, str) else None
        self._tools: list[dict[str, Any]] | None = None

    def tools(self) -> list[dict[str, Any]]:
        if self._tools is None:
            from judgeaudit.audit.tasks.domain import TOOL_SCHEMAS

            self._tools = list(TOOL_SCHEMAS)
        return self._tools

    def line(self, row: dict[str, Any], tally: Tally) -> str | None:
        bucket = self.names[row["bucket"]] if row["bucket"] >= 0 else None
        state = true_winner(bool(row["success_a"]), bool(row["success_b"]))
        truth, truth_source = state, str(row["success_source"] or "state")
        human = row["human_a"] is not None and row["human_b"] is not None
        if human:
            truth, truth_source = true_winner(bool(row["human_a"]), bool(row["human_b"])), "human"
        judge = row["judge_pref"] if row["judge_pref"] in OTHER else None
        tally.see_pair(row, bucket, state, judge)
        if self.labels != "judge" and label_conflict(
            row["human_a"], row["human_b"], row["human_pref"]
        ):
            # the marks would choose a side the reviewer did not prefer: neither is the label
            tally.leave_out("human_label_contradicts", row["pair_id"])
            return None
        if self.labels != "judge" and human and row["pair_id"] in self.split:
            # one of its marks says a conversation succeeded that another pair's says failed
            tally.leave_out("human_marks_disagree", row["pair_id"])
            return None
        side, label_source = self._choose(truth, truth_source, judge, state, human, tally)
        if side is None:
            return None
        agrees = None if truth is None else row["judge_pref"] == truth
        record = _common(row, bucket, side, label_source, agrees)
        body = self._body(row, side, tally)
        if body is None:
            return None
        tally.see_row(
            row["task_type"],
            bucket,
            label_source,
            against_judge=judge is not None and judge != side,
            against_truth=truth is not None and truth != side,
        )
        if label_source == "human" and state is not None and side != state:
            tally.human_over_state.append(str(row["pair_id"]))
        return json.dumps({**body, **record}, ensure_ascii=False) + "\n"

    def _choose(
        self,
        truth: str | None,
        source: str,
        judge: str | None,
        state: str | None,
        human: bool,
        tally: Tally,
    ) -> tuple[str | None, str]:
        if self.labels == "judge":
            if judge is None:
                tally.leave_out("judge_tie")
                return None, ""
            return judge, "judge"
        if truth is None:
            tally.leave_out("human_label_not_decisive" if human and state else "not_decisive")
            return None, ""
        if self.labels == "agree" and judge != truth:
            tally.leave_out("judge_tie" if judge is None else "judge_disagrees")
            return None, ""
        return truth, source

    def _body(self, row: dict[str, Any], side: str, tally: Tally) -> dict[str, Any] | None:
        if self.fmt == "jsonl":
            return _complete(row)
        if row["events_a"] is None or row["events_b"] is None:
            tally.skip("no_transcript")
            return None
        msgs = {s: self._messages(row, s.lower()) for s in ("A", "B")}
        chosen, rejected = msgs[side], msgs[OTHER[side]]
        if self.fmt == "trl":
            shaped, why, dropped = trl_shape(chosen, rejected)
            tally.trailing_user_dropped += dropped
        else:
            simulated = row["ending_a"] != "imported"
            shaped, why = openai_shape(chosen, rejected, self.tools() if simulated else None)
            if shaped is None:  # what --format trl would make of it: said beside the skip
                tally.skip(why or "unknown", trl_keeps=trl_shape(chosen, rejected)[0] is not None)
                return None
        if shaped is None:
            tally.skip(why or "unknown")
        return shaped

    def _messages(self, row: dict[str, Any], s: str) -> list[dict[str, Any]]:
        system = row[f"context_{s}"]
        if system is None and row[f"ending_{s}"] != "imported":
            system = self.agent_system  # what a simulated agent was told
        return to_messages(stored_json(row[f"events_{s}"], "a trajectory's events"), system)


SCORE_COLUMNS = ("judge_score_a", "judge_score_b", "reward_a", "reward_b")


def _common(
    row: dict[str, Any], bucket: str | None, side: str, source: str, agrees: bool | None
) -> dict[str, Any]:
    """The fields every row carries, whatever the format."""
    chosen, rejected = (
        (row["agent_a"], row["agent_b"]) if side == "A" else (row["agent_b"], row["agent_a"])
    )
    return {
        "pair_id": row["pair_id"],
        "source_id": row.get("source_id"),  # the log's own id: a row back to its record
        "task_id": row["task_id"],
        "task_type": row["task_type"],
        "gap_bucket": bucket,
        "label_source": source,
        "chosen_side": side,
        "chosen_agent": chosen,
        "rejected_agent": rejected,
        "judge_pref": row["judge_pref"],
        "judge_agrees": agrees,
        "scores": {
            "judge_a": _float(row["judge_score_a"]),
            "judge_b": _float(row["judge_score_b"]),
            "reward_a": _float(row["reward_a"]),
            "reward_b": _float(row["reward_b"]),
            "gap": _float(row["g"]),
        },
    }


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _complete(row: dict[str, Any]) -> dict[str, Any]:
    """Our complete form: both trajectories as stored, both orders' verdicts, every column."""
    skip = {
        "g",
        "bucket",
        "events_a",
        "events_b",
        "judge_calls",
        "human_a",
        "human_b",
        "human_pref",
    }
    pair = {
        k: v for k, v in row.items() if k not in skip and not k.startswith(("context_", "ending_"))
    }
    human = None
    if row["human_a"] is not None or row["human_b"] is not None or row["human_pref"] is not None:
        human = {
            "success_a": row["human_a"],
            "success_b": row["human_b"],
            "pref": row["human_pref"],
        }
    return {
        "pair": pair,
        "human_label": human,
        "trajectory_a": _side(row, "a"),
        "trajectory_b": _side(row, "b"),
        "judge_calls": row.get("judge_calls", []),
    }


def _side(row: dict[str, Any], s: str) -> dict[str, Any] | None:
    if row[f"events_{s}"] is None:
        return None
    return {
        "agent": row[f"agent_{s}"],
        "context": row[f"context_{s}"],
        "ending": row[f"ending_{s}"],
        "events": stored_json(row[f"events_{s}"], "a trajectory's events"),
    }
