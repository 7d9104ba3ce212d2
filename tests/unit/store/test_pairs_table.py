"""The Parquet writer's batches (``parquet_out.PairsTable``): each column typed from the schema,
None kept as NULL, no value converted into another type, and the file ordered by ``seq``
whatever order the batches came in (a finishing run feeds it the CSV's pair-id order)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from judgeaudit.audit.store.parquet_out import PairsTable
from judgeaudit.audit.store.schema import PAIR_COLUMNS
from judgeaudit.errors import InputError


def _row(seq: int, **values: Any) -> tuple[Any, ...]:
    base: dict[str, Any] = {c: None for c in PAIR_COLUMNS}
    base |= {"pair_id": f"p{seq}", "task_id": "t", "agent_a": "a", "agent_b": "b"}
    base |= {"success_a": 1, "success_b": 0, "misselected": 0, "run_id": "r", "trial": 0}
    base |= values
    return (*(base[c] for c in PAIR_COLUMNS), seq)


def _written(tmp_path: Path, batches: list[list[tuple[Any, ...]]]) -> list[tuple[Any, ...]]:
    dest = tmp_path / "pairs.parquet"
    table = PairsTable(dest)
    try:
        for rows in batches:
            table.add(rows)
        table.write("r", 0)
    finally:
        table.close()
    assert [p.name for p in tmp_path.iterdir()] == ["pairs.parquet"]  # no work dir left
    names = ", ".join(f'"{c}"' for c in (*PAIR_COLUMNS, "seq"))
    path = str(dest).replace("'", "''")
    return duckdb.connect().execute(f"SELECT {names} FROM '{path}'").fetchall()


def test_values_nulls_and_large_integers_come_back_exactly_in_seq_order(tmp_path: Path) -> None:
    big = 2**53 + 1  # a double would round it to 2**53
    rows = [
        _row(3, judge_score_a=0.1, reward_gap=None, trial=big, task_type="退款"),
        _row(1, judge_score_a=None, reward_gap=-0.25, consistent=None, pref_ab="A"),
        _row(2, judge_score_a=7, satisfied_a=1, judge_model=None),
    ]
    back = _written(tmp_path, [rows[:1], rows[1:]])
    assert back == [rows[1], rows[2], rows[0]]  # by seq, not by the order they came in
    by_seq = {r[-1]: dict(zip((*PAIR_COLUMNS, "seq"), r, strict=True)) for r in back}
    assert by_seq[3]["trial"] == big
    assert by_seq[3]["reward_gap"] is None and by_seq[3]["task_type"] == "退款"
    assert by_seq[1]["judge_score_a"] is None and by_seq[1]["reward_gap"] == -0.25
    assert by_seq[2]["judge_score_a"] == 7.0 and isinstance(by_seq[2]["judge_score_a"], float)


@pytest.mark.parametrize(
    ("column", "value"),
    [("success_a", "1"), ("trial", 1.5), ("judge_score_a", "0.5"), ("task_id", 3)],
)
def test_a_value_of_another_type_is_refused_naming_the_column(
    tmp_path: Path, column: str, value: object
) -> None:
    table = PairsTable(tmp_path / "pairs.parquet")
    try:
        with pytest.raises(InputError, match=f"audit_pairs.{column}: "):
            table.add([_row(1, **{column: value})])
    finally:
        table.close()
    assert list(tmp_path.iterdir()) == []
