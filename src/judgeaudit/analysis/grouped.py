"""The report's main scan: the run's pairs grouped by every flag the report counts.

Grouped by (judge model, agent pair, task type) and then by the stored flags themselves
(success, misselected, consistent, the verdicts, satisfied), in the order of the report index
a finished run builds, so SQLite walks the index with no sort and evaluates only the five
aggregates that need a row's numbers (score thresholds, score order, capability minimums).
Every count the report needs is then a flag times a group's size, summed in Python with SQL's
NULL rules (``SUM`` over nothing but NULLs is NULL; ``NULL AND 0`` is 0, ``NULL AND 1`` NULL),
so the figures are those the per-row SQL sums gave.
"""

from __future__ import annotations

from typing import Any

from judgeaudit.analysis.engines.dialect import Pairs

#: The grouping; the report index (``audit.store.REPORT_INDEX``) starts with the same columns.
KEYS = (
    "judge_model, agent_a, agent_b, task_type, success_a, success_b, misselected, consistent,"
    " judge_pref, pref_ab, pref_ba, satisfied_a, satisfied_b"
)


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


def by_models_and_type(db: Pairs, run_id: str, t: float) -> list[tuple[Any, ...]]:
    """Per group of :data:`KEYS`, the sums the report adds up, as per-row SQL would give them:
    0-3 judge model, agent a, agent b, task type; 4 pairs, 5 decisive, 6 missel, 7 sum
    consistent, 8 n consistent, 9 sum success_a, 10 sum success_b, 11 min capability_a, 12 min
    capability_b, 13 judge prefers A, 14 judge prefers B; 15-22 score >= t (a, b), and of
    failed (a, b), user satisfied (a, b), and of failed (a, b); 23 A scored above B without
    succeeding more; 24 swapped, 25 consistent, 26 inconsistent; 27-30 of the inconsistent,
    first position won (AB, BA) and decided (AB, BA)."""
    return [_sums(row) for row in db.execute(*models_and_type_sql(run_id, t))]


def _flag(value: Any) -> int:
    """``COALESCE(value, 0) = 1`` as SQL evaluates it."""
    return int((value if value is not None else 0) == 1)


def _sums(row: tuple[Any, ...]) -> tuple[Any, ...]:
    (model, a, b, task_type, sa, sb, missel, consistent, pref, pref_ab, pref_ba, sat_a, sat_b,
     n, high_a, high_b, a_above, cap_a, cap_b) = row  # fmt: skip
    swapped = pref_ba is not None
    agree = swapped and _flag(consistent) == 1
    differ = swapped and not agree

    def of_inconsistent(value: Any, holds: bool) -> Any:  # SUM(differ AND value = ...)
        if not differ:
            return 0
        return None if value is None else n * holds

    return (
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


def merged(
    rows: list[tuple[Any, ...]],
    key_at: list[int],
    mins_at: tuple[int, ...] = (),
    sums_from: int = 4,
    upto: int | None = None,
) -> list[tuple[Any, ...]]:
    """The grouped rows summed up to a coarser key: (key..., value ``sums_from``, ...,
    value ``upto - 1``); ``mins_at`` are minimums. NULLs are skipped, as SQL's SUM and MIN
    skip them (a total over nothing but NULLs stays NULL)."""
    groups: dict[tuple[Any, ...], list[Any]] = {}
    for row in rows:
        key = tuple(row[i] for i in key_at)
        values = row[sums_from:upto]
        into = groups.get(key)
        if into is None:
            groups[key] = list(values)
            continue
        for offset, value in enumerate(values):
            if value is None:
                continue
            if into[offset] is None:
                into[offset] = value
            elif sums_from + offset in mins_at:
                into[offset] = min(into[offset], value)
            else:
                into[offset] += value
    return [(*key, *values) for key, values in groups.items()]


#: Positions (after the judge model) of the per-model sums: a pair is added as SQL's
#: ``SUM(x) + SUM(y)`` (NULL when either is), a single kept.
_JUDGE_PARTS = ((1, 2), (3, 4), (5, 6), (7, 8), (9,), (10,), (11,), (12,), (13, 14), (15, 16))


def by_judge(grouped: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """(judge model, judge n, k, user n, k, unsupported A, swapped, consistent, inconsistent,
    first wins, decided) per judge model, ordered as SQL orders them (NULL first)."""
    out = []
    for row in merged(grouped, key_at=[0], sums_from=15):
        values = []
        for part in _JUDGE_PARTS:
            got = [row[i] for i in part]
            values.append(None if None in got else sum(got))
        out.append((row[0], *values))
    return sorted(out, key=lambda r: (r[0] is not None, r[0]))
