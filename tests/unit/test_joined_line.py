"""``import recorded-jsonl`` writes each pair line from the stored texts of the pair and its
verdicts (rollouts/recorded_text.py ``joined_line``): byte for byte the line ``json.dumps`` gives for
the row with its verdicts, judge model and prompt hash added, as the import wrote it before."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from judgeaudit.rollouts.recorded_text import ADDED, joined_line
from tests.json_values import SCALARS, compact


def _reference(row: dict[str, Any], bodies: list[dict[str, Any]], model: Any, hashed: Any) -> str:
    """What the import wrote: the row parsed back, the keys added, encoded whole."""
    done = json.loads(json.dumps(row, ensure_ascii=False, separators=(",", ":")))
    done["verdicts"] = bodies
    if model is not None:
        done["judge_model"] = model
    if hashed is not None:
        done["judge_prompt_hash"] = hashed
    return json.dumps(done, ensure_ascii=False, separators=(",", ":"))


VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
ROWS = st.dictionaries(st.text().filter(lambda key: key not in ADDED), VALUES, max_size=6).map(
    lambda row: {"pair_id": "p/1", **row}
)
BODIES = st.lists(st.dictionaries(st.text(), VALUES, max_size=4), min_size=1, max_size=3)


@settings(max_examples=400, deadline=None)
@given(ROWS, BODIES, st.none() | st.text(), st.none() | st.text())
def test_the_line_is_what_encoding_the_whole_row_gives(
    row: dict[str, Any], bodies: list[dict[str, Any]], model: str | None, hashed: str | None
) -> None:
    line = joined_line(compact(row), [compact(b) for b in bodies], model, hashed)
    assert line == _reference(row, bodies, model, hashed)
    assert json.loads(line)["verdicts"] == json.loads(compact(bodies))


def test_unicode_and_escapes_survive_byte_for_byte() -> None:
    row = {"pair_id": "p/ü", "task_id": '任务\n"1"', "trajectory_a": [], "trial": 0}
    bodies = [{"order": "AB", "winner": "A", "raw_output": "✓ \\ done", "score_a": 0.1}]
    line = joined_line(compact(row), [compact(b) for b in bodies], "模型", None)
    assert line == _reference(row, bodies, "模型", None)
    assert "任务" in line and "\\u" not in line
