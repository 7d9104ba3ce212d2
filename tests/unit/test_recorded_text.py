"""``import recorded-jsonl`` hashes each pair it writes from texts it already has
(rollouts/recorded_text.py) instead of decoding the line and encoding it again: the canonical text
must be byte for byte what ``json.dumps(..., sort_keys=True)`` gives for the whole row, else the
import's record would name another content hash than the run's own validation computes (and the
run would bind a different spec). The same for a verdict's two texts."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from judgeaudit.audit.inputs.verdict_rules import clean_verdict
from judgeaudit.rollouts.recorded_text import (
    ADDED,
    joined_canonical,
    pair_canonical,
    verdict_texts,
)
from tests.json_values import SCALARS, compact


def _sorted(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from([*ADDED, "x", "ü"]) | st.text(), inner, max_size=3)
    ),
    max_leaves=8,
)
KEYS = st.sampled_from(["agent_a", "context", "pair_id", "trial", "zz", "judge", "judge_n", "w"])
ROWS = st.dictionaries(KEYS | st.text().filter(lambda key: key not in ADDED), VALUES, max_size=6)
BODIES = st.lists(st.dictionaries(st.text(), VALUES, max_size=4), min_size=1, max_size=3)


@settings(max_examples=500, deadline=None)
@given(ROWS, BODIES, st.none() | st.text(), st.none() | st.text())
def test_the_hashed_text_is_the_sorted_encoding_of_the_whole_row(
    row: dict[str, Any], bodies: list[dict[str, Any]], model: str | None, hashed: str | None
) -> None:
    whole = {**row, "verdicts": bodies}
    if model is not None:
        whole["judge_model"] = model
    if hashed is not None:
        whole["judge_prompt_hash"] = hashed
    marked = pair_canonical(row)
    if marked is None:  # the write decodes such a row; only when a mark could be mistaken
        assert "\\u0000" in _sorted(row) or all(key > "judge_model" for key in row)
        return
    assert joined_canonical(marked, [_sorted(b) for b in bodies], model, hashed) == _sorted(whole)


def test_a_production_log_s_pair_takes_the_joined_text() -> None:
    row = {"pair_id": "p1", "task_id": "t1", "trial": 0, "agent_a": "a", "agent_b": "b",
           "success_a": 1, "success_b": 0, "task": "task t1", "trajectory_a": [],
           "trajectory_b": [], "context": "ü \x00 \"q\"", "period": "2026-11-03"}  # fmt: skip
    marked = pair_canonical(row)
    assert marked is not None
    verdict = {"order": "AB", "winner": "A"}
    whole = {**row, "verdicts": [verdict], "judge_model": "rm"}
    assert joined_canonical(marked, [_sorted(verdict)], "rm", None) == _sorted(whole)


def test_a_row_holding_an_added_key_or_a_lookalike_mark_is_left_to_the_encoder() -> None:
    base = {"pair_id": "p1", "agent_a": "a", "task": "t"}
    assert pair_canonical({**base, "judge_model": "rm"}) is None
    nested = {**base, "trajectory_a": [{"a": 1, "judge_model": "\x00"}]}
    assert pair_canonical(nested) is None
    first = {**base, "trajectory_a": [{"judge_model": "\x00"}]}  # no comma before: no mistake
    marked = pair_canonical(first)
    assert marked is not None
    assert joined_canonical(marked, [], "rm", None) == _sorted(
        {**first, "verdicts": [], "judge_model": "rm"}
    )


RAW_VERDICTS = st.fixed_dictionaries(
    {"order": st.sampled_from(["AB", "BA"]), "winner": st.sampled_from(["A", "B", "tie"])},
    optional={
        "score_a": st.none() | st.integers(0, 5) | st.floats(0, 5),
        "score_b": st.none() | st.integers(0, 5) | st.floats(0, 5),
        "raw_output": st.none() | st.text(),
        "reasons": st.none() | st.lists(st.text(), max_size=2),
    },
)


NO_VERDICTS: st.SearchStrategy[dict[str, Any]] = st.fixed_dictionaries(
    {"order": st.sampled_from(["AB", "BA"]), "winner": st.none()},
    optional={
        "raw_output": st.none() | st.text(),
        "parse_error": st.none() | st.text().filter(str.strip),
        "reasons": st.none() | st.just([]),
    },
)


@settings(max_examples=500, deadline=None)
@given(RAW_VERDICTS | NO_VERDICTS)
def test_a_verdict_s_texts_are_its_encodings(raw: dict[str, Any]) -> None:
    body = clean_verdict(raw)
    assert body is not None
    assert verdict_texts(body) == (compact(body), _sorted(body))
