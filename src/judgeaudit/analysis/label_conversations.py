"""A conversation succeeded or failed once, whichever pair shows it: ``review import`` refuses
two success marks that disagree on one conversation (found by a new user: ace's retail-001/t0
marked 1 in pair ace~keen and 0 in ace~pro was stored, the report kept one mark silently, and
the preference export wrote the conversation as chosen in one pair and rejected in the other).

The conversation of a pair's side is ``(run, task, agent, trial)``, the report's key for the
success check against the human (``analysis.review.agreement``, counted once each). A mark
stored before for another pair counts too, unless this file labels that pair again.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from judgeaudit.analysis.frame import AnalysisError

Conversation = tuple[str, str, str, int]
SIDES = ("a", "b")


def sides_of(db: sqlite3.Connection) -> dict[str, tuple[Conversation, Conversation]]:
    """Each pair's two conversations."""
    rows = db.execute(
        "SELECT pair_id, run_id, task_id, agent_a, agent_b, trial, COALESCE(trial_b, trial)"
        " FROM audit_pairs"
    )
    return {
        str(p): ((str(r), str(t), str(a), int(ta or 0)), (str(r), str(t), str(b), int(tb or 0)))
        for p, r, t, a, b, ta, tb in rows
    }


def stored_marks(db: sqlite3.Connection) -> list[dict[str, Any]]:
    """The success marks stored before, as labels."""
    rows = db.execute("SELECT pair_id, human_success_a, human_success_b FROM human_labels")
    return [{"pair_id": p, "human_success_a": a, "human_success_b": b} for p, a, b in rows]


def check_conversations(
    path: Path,
    labels: list[tuple[int, dict[str, Any]]],
    sides: dict[str, tuple[Conversation, Conversation]],
    stored: list[dict[str, Any]] | None = None,
) -> None:
    """Refuse (one line naming both places and the conversation) two marks of one
    conversation that disagree: in two lines of ``path``, or a line and a stored label."""
    relabelled = {label["pair_id"] for _, label in labels}
    seen: dict[Conversation, tuple[str, str, int]] = {}
    earlier = [("stored", s) for s in stored or [] if s["pair_id"] not in relabelled]
    for where, label in [*earlier, *((f"{path}:{n}", label) for n, label in labels)]:
        for index, side in enumerate(SIDES):
            mark = label[f"human_success_{side}"]
            if mark is None or label["pair_id"] not in sides:
                continue
            conversation = sides[label["pair_id"]][index]
            what = f"pair {label['pair_id']} human_success_{side} {int(mark)}"
            if conversation not in seen:
                seen[conversation] = (where, what, int(mark))
                continue
            first_where, first_what, first_mark = seen[conversation]
            if first_mark == int(mark):
                continue
            run, task, agent, trial = conversation
            stored_one = first_where == "stored"
            again = f" (to change the stored one, label its pair again in {path})" * stored_one
            raise AnalysisError(
                f"{where}: {what} contradicts "
                f"{'a label stored before' if stored_one else first_where} ({first_what}): "
                f"both mark {agent}'s conversation {task}/t{trial} of run {run}, which succeeded"
                f" or failed once whichever pair shows it; give both the same mark{again}"
                " (nothing was stored)"
            )
