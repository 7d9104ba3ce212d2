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
from collections.abc import Hashable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from judgeaudit.analysis.engines.dialect import SqlitePairs
from judgeaudit.analysis.frame import AnalysisError, open_db, pairs_by_id, stored_labels
from judgeaudit.audit.units.outcome import label_conflict

Conversation = tuple[str, str, str, int]
K = TypeVar("K", bound=Hashable)
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
    """The success marks stored before, as labels (0, 1 or None each), from
    :func:`~judgeaudit.analysis.frame.stored_labels`."""
    columns = ("pair_id", "human_success_a", "human_success_b")
    marks = stored_labels(db)[list(columns)].astype(object)
    return [
        {"pair_id": str(p), "human_success_a": _mark(a), "human_success_b": _mark(b)}
        for p, a, b in marks.itertuples(index=False)
    ]


def _mark(value: Any) -> int | None:
    return None if pd.isna(value) else int(value)


def check_labels(out: Path, labels: list[tuple[str, dict[str, Any]]], relabel: str) -> None:
    """:func:`check_conversations` against what ``out``'s audit.db holds: `review import` and
    the app's Review run this before every save (``relabel``: where a stored mark is changed)."""
    db = open_db(out)
    try:
        sides, stored = sides_of(db), stored_marks(db)
    finally:
        db.close()
    check_conversations(labels, sides, stored, relabel)


def check_conversations(
    labels: list[tuple[str, dict[str, Any]]],
    sides: dict[str, tuple[Conversation, Conversation]],
    stored: list[dict[str, Any]] | None = None,
    relabel: str = "",
) -> None:
    """Refuse (one line naming both places and the conversation) two marks of one
    conversation that disagree: in two of ``labels`` (each with where it was given, e.g. a
    file's line), or one and a stored label (changed by labelling its pair again ``relabel``)."""
    relabelled = {label["pair_id"] for _, label in labels}
    seen: dict[Conversation, tuple[str, str, int]] = {}
    earlier = [("stored", s) for s in stored or [] if s["pair_id"] not in relabelled]
    for where, label in [*earlier, *labels]:
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
            if first_mark == int(mark) or first_where == where == "stored":
                continue  # two stored before the check: the report's to name, not this file's
            run, task, agent, trial = conversation
            stored_one = first_where == "stored"
            again = f" (to change the stored one, label its pair again {relabel})" * stored_one
            raise AnalysisError(
                f"{where}: {what} contradicts "
                f"{'a label stored before' if stored_one else first_where} ({first_what}): "
                f"both mark {agent}'s conversation {task}/t{trial} of run {run}, which succeeded"
                f" or failed once whichever pair shows it; give both the same mark{again}"
                " (nothing was stored)"
            )


def marked_both_ways(marks: Iterable[tuple[K, int, str]]) -> dict[K, set[str]]:
    """The one-mark rule over ``(conversation, mark, pair_id)`` triples: the conversations
    marked both 1 and 0, each with the pairs that mark it (the rule
    :func:`check_conversations` refuses by, here to leave such marks out, not to refuse)."""
    seen: dict[K, set[int]] = {}
    by: dict[K, set[str]] = {}
    for conversation, mark, pair in marks:
        seen.setdefault(conversation, set()).add(int(mark))
        by.setdefault(conversation, set()).add(pair)
    return {c: by[c] for c, both in seen.items() if len(both) > 1}


def split_labels(
    labels: list[dict[str, Any]], sides: dict[str, tuple[Conversation, Conversation]]
) -> set[str]:
    """The pairs among ``labels`` whose success marks put one conversation both ways: labels
    carried from an older audit, which may hold such marks (stored before the check), drop
    these rather than refuse the re-audit."""
    marks = (
        (sides[label["pair_id"]][index], int(mark), str(label["pair_id"]))
        for label in labels
        if label["pair_id"] in sides
        for index, side in enumerate(SIDES)
        if (mark := label[f"human_success_{side}"]) is not None
    )
    return {pair for pairs in marked_both_ways(marks).values() for pair in pairs}


def side_key(row: pd.Series, side: str) -> tuple[Any, ...]:
    """The conversation of a labelled pair's side as the report counts it: (task, agent, trial)
    within one run's pairs (a pair without its own ``trial_b`` has both sides in ``trial``)."""
    trial = row.get("trial")
    if side == "b" and pd.notna(row.get("trial_b")):
        trial = row.get("trial_b")
    return (row["task_id"], row[f"agent_{side}"], None if pd.isna(trial) else int(trial))


def split_marks(joined: pd.DataFrame) -> tuple[set[tuple[Any, ...]], dict[str, Any]]:
    """The conversations whose stored success marks disagree (stored before `review import` or
    the app's Review checked): which one is right is unknown, so the report leaves them out of
    the success check vs human and says so, naming them and their pairs, rather than keep one."""
    marks = (
        (side_key(row, side), int(mark), str(row["pair_id"]))
        for _, row in joined.iterrows()
        for side in SIDES
        if pd.notna(mark := row[f"human_success_{side}"])
    )
    pairs = marked_both_ways(marks)
    split = sorted(pairs, key=str)
    found = {
        "count": len(split),
        "conversations": [f"{agent}'s {task}/t{trial}" for task, agent, trial in split],
        "pair_ids": sorted({p for k in split for p in pairs[k]}),
    }
    return set(split), found


def contradicting(joined: pd.DataFrame) -> list[str]:
    """The pairs whose stored label contradicts itself by
    :func:`~judgeaudit.audit.units.outcome.label_conflict` (the rule `review import` refuses by
    and the preference export leaves out by; the app's Review saves one and warns)."""
    cells = joined[["pair_id", "human_success_a", "human_success_b", "human_pref"]]
    return [
        str(row[0])
        for row in cells.astype(object).where(cells.notna(), None).itertuples(index=False)
        if label_conflict(row[1], row[2], row[3]) is not None
    ]


def split_pairs(db: sqlite3.Connection, run_id: str) -> list[str]:
    """The labelled pairs of ``run_id`` that mark a conversation marked both ways, as the report
    finds them (:func:`contradicting` labels set aside first, then :func:`split_marks`): the
    preference export leaves them out, since which mark is right is unknown. The labels are
    :func:`~judgeaudit.analysis.frame.stored_labels`' (the one reader); only the labelled
    pairs' columns are read."""
    labels = stored_labels(db)[["pair_id", "human_success_a", "human_success_b", "human_pref"]]
    pairs = pairs_by_id(SqlitePairs(db), run_id, labels["pair_id"].astype(str), _PAIR_COLUMNS)
    joined = pairs.merge(labels, on="pair_id")
    joined = joined[~joined["pair_id"].isin(set(contradicting(joined)))]
    return list(split_marks(joined)[1]["pair_ids"])


#: what :func:`split_pairs` reads of a labelled pair: its two conversations (:func:`side_key`)
_PAIR_COLUMNS = ("pair_id", "task_id", "agent_a", "agent_b", "trial", "trial_b")
