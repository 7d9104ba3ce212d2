"""The report's main scan: the run's pairs grouped by every flag the report counts.

Grouped by (judge model, agent pair, task type) and then by the stored flags themselves
(success, misselected, consistent, the verdicts, satisfied), in the order of the report index
a finished run builds, so SQLite walks the index with no sort and evaluates only the five
aggregates that need a row's numbers (score thresholds, score order, capability minimums).
Every count the report needs is then a flag times a group's size, summed in Python with SQL's
NULL rules (``SUM`` over nothing but NULLs is NULL; ``NULL AND 0`` is 0, ``NULL AND 1`` NULL),
so the figures are those the per-row SQL sums gave.

The rows are named tuples: a group's sums (:class:`GroupSums`), and the coarser rows summed from
them per agent pair and judge model (:class:`ModelSums`), per task type (:class:`TypeSums`) and
per judge model (:class:`JudgeSums`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from operator import attrgetter
from typing import Any, NamedTuple, TypeVar

from judgeaudit.analysis.engines.dialect import Pairs

#: The grouping; the report index (``audit.store.REPORT_INDEX``) starts with the same columns.
KEYS = (
    "judge_model, agent_a, agent_b, task_type, success_a, success_b, misselected, consistent,"
    " judge_pref, pref_ab, pref_ba, satisfied_a, satisfied_b"
)

#: a sum over a group that may be NULL (SQL's SUM of nothing but NULLs)
Sum = int | None


class GroupSums(NamedTuple):
    """Per group of :data:`KEYS`, the sums the report adds up, as per-row SQL would give them."""

    judge_model: str | None
    agent_a: str
    agent_b: str
    task_type: str | None
    pairs: int
    decisive: int
    missel: int
    sum_consistent: Sum
    n_consistent: int
    success_a: int
    success_b: int
    min_capability_a: float | None
    min_capability_b: float | None
    judge_prefers_a: int
    judge_prefers_b: int
    #: score >= the threshold (a, b), and of those failed (a, b)
    judge_high_a: Sum
    judge_high_b: Sum
    judge_high_failed_a: Sum
    judge_high_failed_b: Sum
    #: user simulator satisfied (a, b), and of those failed (a, b)
    user_satisfied_a: int
    user_satisfied_b: int
    user_satisfied_failed_a: int
    user_satisfied_failed_b: int
    #: A scored above B without succeeding more
    unsupported_a: Sum
    swapped: int
    consistent: int
    inconsistent: int
    #: of the inconsistent: first position won (AB, BA) and decided (AB, BA)
    first_wins_ab: Sum
    first_wins_ba: Sum
    decided_ab: Sum
    decided_ba: Sum


class ModelSums(NamedTuple):
    """Per (agent A, agent B, judge model): the counts of the agent pairs and breakdowns."""

    agent_a: str
    agent_b: str
    judge_model: str | None
    pairs: int
    decisive: int
    missel: int
    sum_consistent: Sum
    n_consistent: int
    success_a: int
    success_b: int
    min_capability_a: float | None
    min_capability_b: float | None
    judge_prefers_a: int
    judge_prefers_b: int


class TypeSums(NamedTuple):
    """Per task type: the counts of the breakdown by task type."""

    task_type: str | None
    pairs: int
    decisive: int
    missel: int
    sum_consistent: Sum
    n_consistent: int


class JudgeSums(NamedTuple):
    """Per judge model: satisfied-but-failed and position-bias counts. A pair of sums is added
    as SQL's ``SUM(x) + SUM(y)`` (NULL when either is)."""

    judge_model: str | None
    judge_satisfied: Sum
    judge_failed: Sum
    user_satisfied: Sum
    user_failed: Sum
    unsupported_a: Sum
    swapped: Sum
    consistent: Sum
    inconsistent: Sum
    first_wins: Sum
    decided: Sum


def models_and_type_sql(run_id: str, t: float) -> tuple[str, tuple[Any, ...]]:
    """The grouped scan's statement (a test reads its plan: no sort where the index exists)."""
    return (
        f"SELECT {KEYS}, COUNT(*), SUM(CAST(judge_score_a >= ? AS INTEGER)),"
        " SUM(CAST(judge_score_b >= ? AS INTEGER)),"
        " SUM(CASE WHEN judge_score_a > judge_score_b THEN 1 ELSE 0 END),"
        " MIN(capability_a), MIN(capability_b)"
        f" FROM audit_pairs WHERE run_id = ? GROUP BY {KEYS}",
        (t, t, run_id),
    )


def by_models_and_type(db: Pairs, run_id: str, t: float) -> list[GroupSums]:
    """Per group of :data:`KEYS`, the sums the report adds up."""
    return [_sums(row) for row in db.execute(*models_and_type_sql(run_id, t))]


def _flag(value: Any) -> int:
    """``COALESCE(value, 0) = 1`` as SQL evaluates it."""
    return int((value if value is not None else 0) == 1)


def _sums(row: Sequence[Any]) -> GroupSums:
    (model, a, b, task_type, sa, sb, missel, consistent, pref, pref_ab, pref_ba, sat_a, sat_b,
     n, high_a, high_b, a_above, cap_a, cap_b) = row  # fmt: skip
    swapped = pref_ba is not None
    agree = swapped and _flag(consistent) == 1
    differ = swapped and not agree

    def of_inconsistent(value: Any, holds: bool) -> Any:  # SUM(differ AND value = ...)
        if not differ:
            return 0
        return None if value is None else n * holds

    return GroupSums(
        model,
        a,
        b,
        task_type,
        n,
        n * (sa != sb),
        n * (missel if missel is not None else 0),
        None if consistent is None else n * consistent,
        0 if consistent is None else n,
        n * sa,
        n * sb,
        cap_a,
        cap_b,
        n * (pref == "A"),
        n * (pref == "B"),
        high_a,
        high_b,
        high_a if sa == 0 else 0,
        high_b if sb == 0 else 0,
        n * _flag(sat_a),
        n * _flag(sat_b),
        n * (_flag(sat_a) and sa == 0),
        n * (_flag(sat_b) and sb == 0),
        0 if sa > sb else a_above,
        n * swapped,
        n * agree,
        n * differ,
        of_inconsistent(pref_ab, pref_ab == "A"),
        of_inconsistent(pref_ba, pref_ba == "B"),
        of_inconsistent(pref_ab, pref_ab != "tie"),
        of_inconsistent(pref_ba, pref_ba != "tie"),
    )


K = TypeVar("K", bound=Hashable)


def _merged(
    rows: Iterable[GroupSums],
    key: Callable[[GroupSums], K],
    fields: tuple[str, ...],
    mins: tuple[str, ...] = (),
) -> dict[K, list[Any]]:
    """The grouped rows summed up to a coarser key: ``fields`` summed, ``mins`` minimums. NULLs
    are skipped, as SQL's SUM and MIN skip them (a total over nothing but NULLs stays NULL).

    Rows are collected per key first and each field then reduced as a column (``sum``/``min``
    in C): per field and row a Python loop was a third of a 1M-pair report's Python time. The
    sums are of integers, so their order does not change them."""
    picked = attrgetter(*fields)
    members: dict[K, list[Any]] = {}
    for row in rows:
        k = key(row)
        found = members.get(k)
        if found is None:
            members[k] = [picked(row)]
        else:
            found.append(picked(row))
    groups: dict[K, list[Any]] = {}
    for k, values in members.items():
        columns = zip(*values, strict=True) if len(fields) > 1 else [values]
        merged: list[Any] = []
        for name, column in zip(fields, columns, strict=True):
            present = [v for v in column if v is not None] if None in column else column
            if not present:
                merged.append(None)
            elif name in mins:
                merged.append(min(present))
            else:
                merged.append(sum(present))
        groups[k] = merged
    return groups


def by_models(grouped: list[GroupSums]) -> list[ModelSums]:
    """Per (agent A, agent B, judge model), in the order the groups first appear."""
    fields = ModelSums._fields[3:]
    groups = _merged(
        grouped,
        lambda r: (r.agent_a, r.agent_b, r.judge_model),
        fields,
        mins=("min_capability_a", "min_capability_b"),
    )
    return [ModelSums(*key, *values) for key, values in groups.items()]


def by_task_type(grouped: list[GroupSums]) -> list[TypeSums]:
    """Per task type, in the order the groups first appear."""
    groups = _merged(grouped, lambda r: r.task_type, TypeSums._fields[1:])
    return [TypeSums(key, *values) for key, values in groups.items()]


#: The per-model sums after the judge model: a pair is added as SQL's ``SUM(x) + SUM(y)``
#: (NULL when either is), a single kept.
_JUDGE_PARTS = (
    ("judge_high_a", "judge_high_b"),
    ("judge_high_failed_a", "judge_high_failed_b"),
    ("user_satisfied_a", "user_satisfied_b"),
    ("user_satisfied_failed_a", "user_satisfied_failed_b"),
    ("unsupported_a",),
    ("swapped",),
    ("consistent",),
    ("inconsistent",),
    ("first_wins_ab", "first_wins_ba"),
    ("decided_ab", "decided_ba"),
)


def by_judge(grouped: list[GroupSums]) -> list[JudgeSums]:
    """Per judge model, ordered as SQL orders them (NULL first)."""
    fields = tuple(name for part in _JUDGE_PARTS for name in part)
    out = []
    for model, values in _merged(grouped, lambda r: r.judge_model, fields).items():
        got = dict(zip(fields, values, strict=True))
        sums: list[Sum] = []
        for part in _JUDGE_PARTS:
            parts = [got[name] for name in part]
            sums.append(None if None in parts else sum(parts))
        out.append(JudgeSums(model, *sums))
    return sorted(out, key=lambda r: (r.judge_model is not None, r.judge_model))
